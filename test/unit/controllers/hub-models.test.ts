import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HubModelState } from '../../../src/catalog/model-generator.js';
import { HubModels, hubBackoffMs } from '../../../src/controllers/workspace/hub-models.js';
import { fetchHubModel, HubReason, resolveHubEndpoint, type HubFetch } from '../../../src/runtime/hub-client.js';
import { QWEN3_8B, startFakeHub, type FakeHub } from '../support/fake-hub.js';

const anonymous = { id: '', read: async () => undefined };

describe('Hugging Face client against a fake endpoint', () => {
  let hub: FakeHub;
  before(async () => {
    hub = await startFakeHub({
      'Qwen/Qwen3-8B': QWEN3_8B,
      'meta-llama/Gated-8B': { ...QWEN3_8B, token: 'hf_right' },
      'slow/Model': { ...QWEN3_8B, delayMs: 400 },
      'bad/Tree': { ...QWEN3_8B, rawTree: '<html>oops</html>' },
      'bad/Config': { ...QWEN3_8B, config: '["not", "an", "object"]' },
      'bad/NoWeights': { files: [{ path: 'README.md', size: 10 }], config: '{}' },
      'mistralai/Native': { files: [{ path: 'consolidated.safetensors', size: 2 ** 30 }], params: '{"dim":4096,"n_layers":32,"n_heads":32,"n_kv_heads":8}' },
      'moved/Model': { ...QWEN3_8B, redirectConfigTo: '/mistralai/Native/resolve/main/params.json' },
    });
  });
  after(() => hub.close());

  it('reads the file list and config.json (two requests), as v0.12 does', async () => {
    hub.requests.length = 0;
    const r = await fetchHubModel({ endpoint: hub.url, repo: 'Qwen/Qwen3-8B' });
    assert.ok(r.ok);
    assert.equal(r.facts.weightBytes, 16_384_000_000);
    assert.equal(r.facts.mistralFormat, false);
    assert.equal(r.facts.config['num_key_value_heads'], 8);
    assert.equal(r.facts.config['rope_scaling'], undefined, 'keys the generator does not read are dropped');
    assert.deepEqual(hub.requests, ['/api/models/Qwen/Qwen3-8B/tree/main?recursive=true', '/Qwen/Qwen3-8B/resolve/main/config.json']);
  });

  it('a gated model: 401 without a token, 403 with a wrong one, read with the right one (sent as a bearer token)', async () => {
    const none = await fetchHubModel({ endpoint: hub.url, repo: 'meta-llama/Gated-8B' });
    assert.equal(none.ok ? '' : none.reason, HubReason.Gated);
    assert.match(none.ok ? '' : none.message, /HTTP 401 .*modelAccessSecret/);
    const wrong = await fetchHubModel({ endpoint: hub.url, repo: 'meta-llama/Gated-8B', token: 'hf_wrong' });
    assert.match(wrong.ok ? '' : wrong.message, /HTTP 403 .*may not read it/);
    hub.authorizations.length = 0;
    const right = await fetchHubModel({ endpoint: hub.url, repo: 'meta-llama/Gated-8B', token: 'hf_right' });
    assert.ok(right.ok);
    assert.deepEqual(hub.authorizations, ['Bearer hf_right', 'Bearer hf_right']);
  });

  it('each failure has its own reason: missing, timeout, malformed list, malformed config, no weights, unreachable', async () => {
    const reasonOf = (r: HubFetch) => (r.ok ? 'ok' : r.reason);
    assert.equal(reasonOf(await fetchHubModel({ endpoint: hub.url, repo: 'nobody/Nothing' })), HubReason.NotFound);
    const slow = await fetchHubModel({ endpoint: hub.url, repo: 'slow/Model', timeoutMs: 100 });
    assert.equal(reasonOf(slow), HubReason.Timeout);
    assert.match(slow.ok ? '' : slow.message, /did not answer .* within 0.1s/);
    assert.equal(reasonOf(await fetchHubModel({ endpoint: hub.url, repo: 'bad/Tree' })), HubReason.Malformed);
    assert.equal(reasonOf(await fetchHubModel({ endpoint: hub.url, repo: 'bad/Config' })), HubReason.Malformed);
    const none = await fetchHubModel({ endpoint: hub.url, repo: 'bad/NoWeights' });
    assert.deepEqual(none.ok ? '' : none.message, 'Hugging Face model bad/NoWeights has no .safetensors or .bin files');
    assert.equal(reasonOf(await fetchHubModel({ endpoint: 'http://127.0.0.1:9', repo: 'Qwen/Qwen3-8B', timeoutMs: 2000 })), HubReason.Unreachable);
  });

  it('a Mistral-format repo without config.json is read from params.json; redirects are followed', async () => {
    const native = await fetchHubModel({ endpoint: hub.url, repo: 'mistralai/Native' });
    assert.ok(native.ok);
    assert.equal(native.facts.mistralFormat, true);
    assert.equal(native.facts.config['n_layers'], 32);
    const moved = await fetchHubModel({ endpoint: hub.url, repo: 'moved/Model' });
    assert.ok(moved.ok);
    assert.equal(moved.facts.config['dim'], 4096);
  });

  it('the endpoint: the flag, else HF_ENDPOINT, else huggingface.co', () => {
    assert.equal(resolveHubEndpoint(undefined, {}), 'https://huggingface.co');
    assert.equal(resolveHubEndpoint(undefined, { HF_ENDPOINT: 'http://mirror.local:8080/' }), 'http://mirror.local:8080');
    assert.equal(resolveHubEndpoint('https://hf.example/', { HF_ENDPOINT: 'http://other' }), 'https://hf.example');
    assert.throws(() => resolveHubEndpoint('ftp://x', {}), /only http and https/);
    assert.throws(() => resolveHubEndpoint('not a url', {}), /Invalid URL/);
  });
});

describe('HubModels: the metadata cache a pass reads', () => {
  function cache(results: HubFetch[]) {
    const notified: string[][] = [];
    let calls = 0;
    let now = 1_000_000;
    const tokens: (string | undefined)[] = [];
    const models = new HubModels({
      endpoint: 'http://fake',
      notify: (keys) => notified.push(keys),
      now: () => now,
      fetch: async (r) => {
        tokens.push(r.token);
        return results[Math.min(calls++, results.length - 1)]!;
      },
    });
    return { models, notified, calls: () => calls, tokens, advance: (ms: number) => (now += ms) };
  }
  const ready: HubFetch = { ok: true, facts: { weightBytes: 1, mistralFormat: false, config: {} }, requests: 2 };
  const tick = () => new Promise((r) => setImmediate(r));

  it('a miss starts one fetch and says resolving; the end enqueues every asker; then no request at all', async () => {
    const c = cache([ready]);
    assert.deepEqual(c.models.lookup('ns/a', 'Org/Model', anonymous), { state: 'resolving', endpoint: 'http://fake' });
    assert.equal(c.models.lookup('ns/b', 'org/model', anonymous).state, 'resolving', 'same repo in another case: same entry');
    await tick();
    assert.equal(c.calls(), 1);
    assert.deepEqual(c.notified, [['ns/a', 'ns/b']]);
    for (let i = 0; i < 5; i++) assert.equal(c.models.lookup('ns/a', 'Org/Model', anonymous).state, 'ready');
    assert.equal(c.calls(), 1);
    assert.equal(c.models.requests, 2);
  });

  it('a failure is kept with a backoff, retried when due, at once when the token changes; the token is read per fetch', async () => {
    const gated: HubFetch = { ok: false, reason: HubReason.Gated, message: 'gated', requests: 1 };
    const c = cache([gated, gated, ready]);
    c.models.lookup('ns/a', 'x/y', anonymous);
    await tick();
    const failed = c.models.lookup('ns/a', 'x/y', anonymous) as Extract<HubModelState, { state: 'failed' }>;
    assert.deepEqual([failed.state, failed.reason, failed.retryInMs], ['failed', HubReason.Gated, 30_000]);
    c.advance(10_000);
    c.models.lookup('ns/a', 'x/y', anonymous);
    await tick();
    assert.equal(c.calls(), 1, 'not due yet: no request');
    c.advance(20_000);
    c.models.lookup('ns/a', 'x/y', anonymous);
    await tick();
    assert.equal(c.calls(), 2);
    assert.equal((c.models.lookup('ns/a', 'x/y', anonymous) as { retryInMs: number }).retryInMs, 60_000, 'doubled');
    const token = { id: 'ns/secret@7', read: async () => 'hf_token' };
    c.models.lookup('ns/a', 'x/y', token);
    await tick();
    assert.equal(c.calls(), 3, 'a new token: retried at once');
    assert.deepEqual(c.tokens, [undefined, undefined, 'hf_token']);
    assert.equal(c.models.lookup('ns/a', 'x/y', token).state, 'ready');
    c.models.close();
  });

  it('backoff: 5 s for a blip, 30 s for missing or gated, doubling to at most 10 minutes', () => {
    assert.equal(hubBackoffMs(HubReason.Timeout, 1), 5_000);
    assert.equal(hubBackoffMs(HubReason.NotFound, 2), 60_000);
    assert.equal(hubBackoffMs(HubReason.Malformed, 20), 600_000);
  });
});
