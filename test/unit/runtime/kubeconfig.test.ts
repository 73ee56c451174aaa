import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeConfig } from '../../../src/runtime/kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-'));
function file(name: string, server: string): string {
  const p = join(dir, name);
  writeFileSync(p, `apiVersion: v1
kind: Config
clusters: [{name: ${name}, cluster: {server: "${server}"}}]
users: [{name: u-${name}, user: {token: t}}]
contexts: [{name: ${name}, context: {cluster: ${name}, user: u-${name}}}]
current-context: ${name}
`);
  return p;
}

describe('createKubeConfig', () => {
  const flag = file('flag', 'https://flag:6443');
  const env = file('env', 'https://env:6443');
  const extra = file('extra', 'https://extra:6443');

  it('--kubeconfig wins over KUBECONFIG', () => {
    assert.equal(createKubeConfig({ kubeconfig: flag, env: { KUBECONFIG: env } }).getCurrentCluster()?.server, 'https://flag:6443');
  });
  it('KUBECONFIG next, merging a list of files (first context wins)', () => {
    const kc = createKubeConfig({ env: { KUBECONFIG: `${env}:${extra}` } });
    assert.equal(kc.getCurrentCluster()?.server, 'https://env:6443');
    assert.deepEqual(kc.getContexts().map((c) => c.name).sort(), ['env', 'extra']);
  });
  it('a context override picks another cluster', () => {
    assert.equal(createKubeConfig({ env: { KUBECONFIG: `${env}:${extra}` }, context: 'extra' }).getCurrentCluster()?.server, 'https://extra:6443');
  });
  it('a missing file is a clear error', () => {
    assert.throws(() => createKubeConfig({ kubeconfig: join(dir, 'nope') }), /kubeconfig not found: .*nope/);
  });
  it('nothing configured outside a pod is a clear error', () => {
    assert.throws(() => createKubeConfig({ env: {} }), /no cluster configured/);
  });
});
