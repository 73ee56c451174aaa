// `kaito-ts diff` for Hugging Face ids outside the catalog: the hub read as the operator reads it (the
// model access Secret from the cluster), one read per repo for the run, against the fake endpoint.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { main } from '../../../src/cli/main.js';
import { FakeApiServer } from '../runtime/fake-apiserver.js';
import { QWEN3_8B, startFakeHub, type FakeHub } from '../support/fake-hub.js';

const TOKEN = 'hf_cluster_token_5678';
const WORKSPACES = '/apis/kaito.sh/v1beta1/workspaces';
const SECRET = '/api/v1/namespaces/default/secrets/hf-token';

function workspace(namespace: string, name: string, preset: string, secret?: string): KubernetesObject {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { namespace, name, uid: `uid-${name}`, resourceVersion: '1', generation: 1 },
    resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: name } } },
    inference: { preset: { name: preset, ...(secret ? { presetOptions: { modelAccessSecret: secret } } : {}) } },
  } as KubernetesObject;
}

describe('diff reads the Hugging Face hub for ids outside the catalog', () => {
  let hub: FakeHub;
  const api = new FakeApiServer();
  let kubeconfig: string;
  before(async () => {
    hub = await startFakeHub({ 'Qwen/Qwen3-8B': QWEN3_8B, 'meta-llama/Gated-8B': { ...QWEN3_8B, token: TOKEN } });
    const kc = await api.start();
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'diff-hub-')), 'kubeconfig');
    writeFileSync(kubeconfig, kc.exportConfig());
    // The Secret as a metadata-only list shows it (with kubectl's copy of the data in an annotation), and its GET.
    api.collections.set('/api/v1/namespaces/default/secrets', [
      {
        metadata: { namespace: 'default', name: 'hf-token', resourceVersion: '7', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': TOKEN } },
      },
    ]);
    api.handler = (req, res, url) => {
      if (url.pathname !== SECRET) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { namespace: 'default', name: 'hf-token' },
          data: { HF_TOKEN: Buffer.from(TOKEN).toString('base64') },
        }),
      );
      return true;
    };
  });
  after(async () => {
    await api.stop();
    await hub.close();
  });
  beforeEach(() => {
    hub.requests.length = 0;
    hub.authorizations.length = 0;
    api.requests.length = 0;
  });

  async function diff(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['diff', '--kubeconfig', kubeconfig, '--hf-endpoint', hub.url, ...args], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
    });
    return { code, stdout: out.join(''), stderr: err.join('') };
  }

  it('sizes every workspace from one read per repo; a gated model with HF_TOKEN of its Secret, read once', async () => {
    api.collections.set(WORKSPACES, [
      workspace('default', 'a', 'Qwen/Qwen3-8B'),
      workspace('team', 'b', 'qwen/qwen3-8b'),
      workspace('default', 'g', 'meta-llama/Gated-8B', 'hf-token'),
      workspace('default', 'h', 'meta-llama/Gated-8B', 'hf-token'),
    ]);
    const r = await diff([]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    for (const ws of ['default/a', 'team/b', 'default/g', 'default/h']) assert.match(r.stdout, new RegExp(`StatefulSet ${ws}: would be created`));
    assert.match(r.stdout, /4 of 4 workspace\(s\) would change/);
    assert.equal(hub.requests.length, 4, hub.requests.join('\n'));
    assert.deepEqual(hub.authorizations.filter(Boolean), [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    assert.equal(api.requests.filter((q) => q === `GET ${SECRET}`).length, 1, 'one GET of the Secret, by the read that needs it');
    assert.match(api.listAccept.get('/api/v1/namespaces/default/secrets') ?? '', /as=PartialObjectMetadataList/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes(TOKEN), 'no token printed');
  });

  it('a failed read: the other workspaces are still compared; its reason on stderr, one line, exit 2', async () => {
    api.collections.set(WORKSPACES, [
      workspace('default', 'a', 'Qwen/Qwen3-8B'),
      workspace('default', 'n', 'nobody/Nothing'),
      workspace('default', 'g', 'meta-llama/Gated-8B'),
    ]);
    const r = await diff([]);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /StatefulSet default\/a: would be created/);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0]!, /^kaito-ts: workspace default\/g: HuggingFaceModelGated: Hugging Face model meta-llama\/Gated-8B is gated or private \(HTTP 401/);
    assert.match(lines[1]!, /^kaito-ts: workspace default\/n: HuggingFaceModelNotFound: Hugging Face model nobody\/Nothing was not found/);
    assert.match(r.stdout, /workspace default\/n:\n {2}Hugging Face model nobody\/Nothing was not found/);
  });

  it('a bad --hf-endpoint is bad input before the cluster is read', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['diff', '--kubeconfig', kubeconfig, '--hf-endpoint', 'not a url'], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    assert.equal(code, 2);
    assert.deepEqual(out, []);
    assert.match(err.join(''), /^kaito-ts: --hf-endpoint \(or HF_ENDPOINT\): Invalid URL\n$/);
    assert.deepEqual(api.requests, []);
  });
});
