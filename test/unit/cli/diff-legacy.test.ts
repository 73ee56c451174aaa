// `kaito-ts diff --legacy-presets`: each workspace of a legacy short name says which KAITO generation its
// workload has and which it would get, as the operator with that flag would decide.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { main } from '../../../src/cli/main.js';
import { FakeApiServer } from '../runtime/fake-apiserver.js';

function workspace(name: string, preset: string): KubernetesObject {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: '1', generation: 1 },
    resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: name } } },
    inference: { preset: { name: preset } },
  } as KubernetesObject;
}

describe('diff names the KAITO generation of legacy names', () => {
  const api = new FakeApiServer();
  let kubeconfig: string;
  before(async () => {
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'diff-legacy-')), 'kubeconfig');
    writeFileSync(kubeconfig, (await api.start()).exportConfig());
    api.collections.set('/apis/kaito.sh/v1beta1/workspaces', [workspace('mistral', 'mistral-7b-instruct'), workspace('phi4', 'microsoft/phi-4')]);
  });
  after(() => api.stop());

  async function diff(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['diff', '--kubeconfig', kubeconfig, ...args], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    return { code, stdout: out.join(''), stderr: err.join('') };
  }

  const cases: [string, string[], RegExp][] = [
    ['the default', [], /workspace default\/mistral:\n {2}generation: has none yet \(no StatefulSet\); gets KAITO v0\.12\.0 \(--legacy-presets=v0\.12\)\n/],
    [
      '--legacy-presets=v0.8',
      ['--legacy-presets', 'v0.8'],
      /workspace default\/mistral:\n {2}generation: has none yet \(no StatefulSet\); gets KAITO v0\.8\.0 \(--legacy-presets=v0\.8\)\n/,
    ],
  ];
  for (const [name, args, want] of cases)
    it(`${name}: the line for the legacy name, none for a catalog id`, async () => {
      const r = await diff(args);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, want);
      assert.doesNotMatch(r.stdout, /workspace default\/phi4:\n {2}generation:/);
    });

  it('a bad value: exit 2 with one line', async () => {
    const r = await diff(['--legacy-presets', 'v1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^kaito-ts: --legacy-presets must be one of v0\.12, v0\.8, got "v1"\n$/);
  });
});
