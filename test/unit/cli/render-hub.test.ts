// `kaito-ts render` for Hugging Face ids outside the catalog: the hub read through the operator's
// client and cache, against the fake endpoint (which counts requests and checks tokens).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { main } from '../../../src/cli/main.js';
import { QWEN3_8B, startFakeHub, type FakeHub } from '../support/fake-hub.js';

const dir = mkdtempSync(join(tmpdir(), 'render-hub-'));
const TOKEN = 'hf_secret_value_1234';

function workspace(name: string, preset: string, secret?: string): string {
  return `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: ${name}
resource:
  instanceType: Standard_NC24ads_A100_v4
  labelSelector:
    matchLabels:
      apps: ${name}
inference:
  preset:
    name: ${preset}
${secret ? `    presetOptions:\n      modelAccessSecret: ${secret}\n` : ''}`;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function render(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { HF_TOKEN: process.env.HF_TOKEN, HF_ENDPOINT: process.env.HF_ENDPOINT };
  delete process.env.HF_TOKEN;
  delete process.env.HF_ENDPOINT;
  Object.assign(process.env, env);
  try {
    const code = await main(['render', ...args], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

function oneLine(r: { code: number; stdout: string; stderr: string }, reason: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr.trimEnd(), reason);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

describe('render reads the Hugging Face hub for ids outside the catalog', () => {
  let hub: FakeHub;
  before(async () => {
    hub = await startFakeHub({
      'Qwen/Qwen3-8B': QWEN3_8B,
      'meta-llama/Gated-8B': { ...QWEN3_8B, token: TOKEN },
      'slow/Model': { ...QWEN3_8B, delayMs: 2000 },
      'bad/Tree': { ...QWEN3_8B, rawTree: '<html>oops</html>' },
      'bad/Config': { ...QWEN3_8B, config: '["not", "an", "object"]' },
    });
  });
  after(() => hub.close());
  beforeEach(() => {
    hub.requests.length = 0;
    hub.authorizations.length = 0;
  });

  it('sizes the workspace from the file list and config.json, as the operator does', async () => {
    const r = await render(['-f', file('qwen.yaml', workspace('qwen', 'Qwen/Qwen3-8B')), '--hf-endpoint', hub.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const sts = parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as { kind: string; spec?: { template: { spec: { containers: { command: string[] }[] } } } })
      .find((o) => o.kind === 'StatefulSet');
    const command = sts?.spec?.template.spec.containers[0]?.command.join(' ') ?? '';
    assert.match(command, /--model=qwen\/qwen3-8b /);
    assert.match(command, /--served-model-name=qwen3-8b /);
    assert.match(command, /--reasoning-parser=qwen3/);
    assert.deepEqual(hub.requests, ['/api/models/Qwen/Qwen3-8B/tree/main?recursive=true', '/Qwen/Qwen3-8B/resolve/main/config.json']);
    assert.deepEqual(hub.authorizations, [undefined, undefined], 'anonymous without a token');
  });

  it('--explain names the endpoint and repo, the weight total, the architecture and the config figures; the plan goes on', async () => {
    const r = await render(['-f', file('qwen.yaml', workspace('qwen', 'Qwen/Qwen3-8B')), '--hf-endpoint', hub.url, '--explain']);
    assert.equal(r.code, 0, r.stderr);
    const comments = r.stdout.split('\n').filter((l) => l.startsWith('#'));
    const line = comments.find((l) => l.startsWith('# huggingface:')) ?? '';
    assert.ok(line.includes(`${hub.url}/Qwen/Qwen3-8B — file list: 2 weight file(s), 16384000000 bytes (15.26Gi)`), line);
    assert.match(line, /config\.json: architectures Qwen3ForCausalLM, max_position_embeddings 40960, hidden_size 4096, num_hidden_layers 36/);
    assert.match(line, /num_attention_heads 32, num_key_value_heads 8, head_dim 128; token: anonymous/);
    // Right after the model line it explains, in the same `topic: choice — reason` form.
    const model = comments.findIndex((l) => l.startsWith('# model:'));
    assert.equal(comments[model + 1], line);
    assert.match(comments[model]!, /Hugging Face metadata of qwen\/qwen3-8b: 15\.26Gi weights/);
    assert.ok(
      comments.some((l) => /apply ControllerRevision default\/qwen-/.test(l)),
      'the plan is not stopped by the hub',
    );
    // -o json: the same lines on stderr, stdout stays JSON.
    const json = await render(['-f', file('qwen.yaml', workspace('qwen', 'Qwen/Qwen3-8B')), '--hf-endpoint', hub.url, '--explain', '-o', 'json']);
    assert.equal(json.code, 0);
    assert.doesNotThrow(() => JSON.parse(json.stdout));
    assert.match(json.stderr, /^huggingface: +http:\/\/127\.0\.0\.1:\d+\/Qwen\/Qwen3-8B — file list/m);
  });

  it('one read per repo for the whole run, whatever the case of the id', async () => {
    const text = [workspace('a', 'Qwen/Qwen3-8B'), workspace('b', 'qwen/qwen3-8b'), workspace('c', 'Qwen/Qwen3-8B')].join('---\n');
    const r = await render(['-f', file('three.yaml', text), '--hf-endpoint', hub.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(hub.requests.length, 2, hub.requests.join('\n'));
    assert.equal(parseAllDocuments(r.stdout).filter((d) => (d.toJS() as { kind: string }).kind === 'StatefulSet').length, 3);
  });

  it('HF_ENDPOINT is read when the flag is absent; a bad endpoint is refused as the operator refuses it', async () => {
    const r = await render(['-f', file('qwen.yaml', workspace('qwen', 'Qwen/Qwen3-8B'))], { HF_ENDPOINT: `${hub.url}/` });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(hub.requests.length, 2);
    oneLine(
      await render(['-f', file('qwen.yaml', workspace('qwen', 'Qwen/Qwen3-8B')), '--hf-endpoint', 'ftp://mirror']),
      /^kaito-ts: --hf-endpoint \(or HF_ENDPOINT\): Hugging Face endpoint ftp:\/\/mirror: only http and https are supported$/,
    );
    oneLine(await render(['-f', file('qwen.yaml', workspace('qwen', 'Qwen/Qwen3-8B')), '--hf-timeout', 'soon']), /--hf-timeout must be a positive duration/);
  });

  it('a catalog id or a legacy name makes no request', async () => {
    const text = [workspace('a', 'microsoft/Phi-4-mini-instruct'), workspace('b', 'phi-4-mini-instruct')].join('---\n');
    const r = await render(['-f', file('catalog.yaml', text), '--hf-endpoint', hub.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(hub.requests, []);
  });

  it('a gated model: refused anonymously; read with HF_TOKEN of the Secret in --state, else of the environment; the token never printed', async () => {
    const ws = file('gated.yaml', workspace('gated', 'meta-llama/Gated-8B', 'hf-token'));
    oneLine(
      await render(['-f', ws, '--hf-endpoint', hub.url]),
      /^kaito-ts: workspace default\/gated: HuggingFaceModelGated: Hugging Face model meta-llama\/Gated-8B is gated or private \(HTTP 401/,
    );

    const fromEnv = await render(['-f', ws, '--hf-endpoint', hub.url, '--explain'], { HF_TOKEN: TOKEN });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.match(fromEnv.stdout, /token: HF_TOKEN from the environment/);

    const secret = (data: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: hf-token\n${data}`;
    hub.authorizations.length = 0;
    const state = file('state.yaml', secret(`data:\n  HF_TOKEN: ${Buffer.from(TOKEN).toString('base64')}\n`));
    // The Secret in --state wins over the environment.
    const fromState = await render(['-f', ws, '--hf-endpoint', hub.url, '--state', state, '--explain'], { HF_TOKEN: 'hf_wrong' });
    assert.equal(fromState.code, 0, fromState.stderr);
    assert.match(fromState.stdout, /token: HF_TOKEN of Secret default\/hf-token \(from -f or --state\)/);
    assert.deepEqual(hub.authorizations, [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    const plain = await render(['-f', ws, '--hf-endpoint', hub.url, '--state', file('plain.yaml', secret(`stringData:\n  HF_TOKEN: ${TOKEN}\n`))]);
    assert.equal(plain.code, 0, plain.stderr);
    // The Secret beside the workspace in -f, as KAITO's examples ship it: cluster state once applied.
    hub.authorizations.length = 0;
    const beside = file('beside.yaml', `${secret(`stringData:\n  HF_TOKEN: ${TOKEN}\n`)}---\n${workspace('gated', 'meta-llama/Gated-8B', 'hf-token')}`);
    const fromFile = await render(['-f', beside, '--hf-endpoint', hub.url, '--explain'], { HF_TOKEN: 'hf_wrong' });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.match(fromFile.stdout, /token: HF_TOKEN of Secret default\/hf-token \(from -f or --state\)/);
    assert.match(
      fromFile.stderr.trimEnd(),
      /^kaito-ts: warning: .*beside\.yaml: Secret hf-token is not rendered \(read as cluster state, as after kubectl apply\)$/,
    );
    assert.deepEqual(hub.authorizations, [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);

    const wrong = await render(['-f', ws, '--hf-endpoint', hub.url], { HF_TOKEN: 'hf_wrong_token_value' });
    oneLine(wrong, /HuggingFaceModelGated: .*HTTP 403 .*may not read it/);
    for (const r of [fromEnv, fromState, plain, fromFile, wrong])
      assert.ok(!`${r.stdout}${r.stderr}`.includes(TOKEN) && !r.stderr.includes('hf_wrong'), 'no token printed');
  });

  it('each failure: one line with the hub client reason, exit 2, nothing on stdout', async () => {
    const cases: [preset: string, args: string[], reason: RegExp][] = [
      [
        'nobody/Nothing',
        [],
        /workspace default\/w: HuggingFaceModelNotFound: Hugging Face model nobody\/Nothing was not found at http:\/\/127\.0\.0\.1:\d+ \(HTTP 404 for the file list\): check the id$/,
      ],
      [
        'slow/Model',
        ['--hf-timeout', '200ms'],
        /HuggingFaceTimeout: http:\/\/127\.0\.0\.1:\d+ did not answer \/api\/models\/slow\/Model\/tree\/main within 0\.2s$/,
      ],
      ['bad/Tree', [], /HuggingFaceMetadataInvalid: the file list of bad\/Tree from .* is not a JSON array of \{path, size\}$/],
      ['bad/Config', [], /HuggingFaceMetadataInvalid: config\.json of bad\/Config from .* is not a JSON object$/],
    ];
    for (const [preset, args, reason] of cases)
      oneLine(await render(['-f', file('w.yaml', workspace('w', preset)), '--hf-endpoint', hub.url, ...args]), reason);
    oneLine(
      await render(['-f', file('w.yaml', workspace('w', 'Qwen/Qwen3-8B')), '--hf-endpoint', 'http://127.0.0.1:9']),
      /HuggingFaceUnreachable: http:\/\/127\.0\.0\.1:9: connect ECONNREFUSED/,
    );
  });
});
