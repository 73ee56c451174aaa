import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { loadClusterAccess, type ClusterAccessOptions } from '../../../src/runtime/cluster-access.js';

const dir = mkdtempSync(join(tmpdir(), 'access-'));
writeFileSync(join(dir, 'ca.crt'), 'CA-FILE');
writeFileSync(join(dir, 'admin.crt'), 'CERT-FILE');
writeFileSync(join(dir, 'admin.key'), 'KEY-FILE');
writeFileSync(join(dir, 'token'), 'tok-from-file\n');

function kubeconfig(name: string, user: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'main',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority': 'ca.crt', ...extra } }],
      users: [{ name: 'u', user }],
      contexts: [
        { name: 'main', context: { cluster: 'c', user: 'u' } },
        { name: 'other', context: { cluster: 'c', user: 'nobody' } },
      ],
    }),
  );
  return path;
}

async function applied(path: string, opts: { context?: string } = {}): Promise<RequestOptions> {
  const access = await loadClusterAccess({ kubeconfig: path, env: {}, ...opts });
  const o: RequestOptions = { headers: {} };
  await access.applyToHTTPSOptions(o);
  assert.equal(access.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  return o;
}

test('client certificates from files, relative to the kubeconfig', async () => {
  const o = await applied(kubeconfig('certs.yaml', { 'client-certificate': 'admin.crt', 'client-key': join(dir, 'admin.key') }));
  assert.equal(String(o.ca), 'CA-FILE');
  assert.equal(String(o.cert), 'CERT-FILE');
  assert.equal(String(o.key as string), 'KEY-FILE');
  assert.equal(o.rejectUnauthorized, true);
});

test('inline data, bearer token, insecure-skip-tls-verify', async () => {
  const o = await applied(
    kubeconfig('token.yaml', { token: 'abc', 'client-certificate-data': Buffer.from('C').toString('base64') }, { 'insecure-skip-tls-verify': true }),
  );
  assert.equal((o.headers as Record<string, string>).Authorization, 'Bearer abc');
  assert.equal(String(o.cert), 'C');
  assert.equal(o.rejectUnauthorized, false);
});

test('tokenFile is read (and trimmed)', async () => {
  const o = await applied(kubeconfig('tokenfile.yaml', { tokenFile: 'token' }));
  assert.equal((o.headers as Record<string, string>).Authorization, 'Bearer tok-from-file');
});

test('exec plugins fall back to client-node (still the same interface)', async () => {
  const path = kubeconfig('exec.yaml', { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'true' } });
  const access = await loadClusterAccess({ kubeconfig: path, env: {} });
  assert.equal(access.constructor.name, 'KubeConfig');
  assert.equal(access.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
});

test('in-cluster: service host and port, the mounted CA and token', async () => {
  const sa = join(dir, 'sa');
  mkdirSync(sa);
  writeFileSync(join(sa, 'ca.crt'), 'SA-CA');
  writeFileSync(join(sa, 'token'), 'sa-token');
  const access = await loadClusterAccess({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: sa });
  const o: RequestOptions = { headers: {} };
  await access.applyToHTTPSOptions(o);
  assert.equal(access.getCurrentCluster()?.server, 'https://[fd00::1]:443');
  assert.equal(String(o.ca), 'SA-CA');
  assert.equal((o.headers as Record<string, string>).Authorization, 'Bearer sa-token');
});

test('errors name the problem', async () => {
  await assert.rejects(loadClusterAccess({ kubeconfig: join(dir, 'missing.yaml'), env: {} }), /kubeconfig not found: .*missing.yaml/);
  await assert.rejects(loadClusterAccess({ env: {} }), /no cluster configured/);
  await assert.rejects(loadClusterAccess({ kubeconfig: kubeconfig('ctx.yaml', {}), env: {}, context: 'nope' }), /context "nope" not found/);
});

describe('which kubeconfig: --kubeconfig, else KUBECONFIG, else in-cluster', () => {
  const file = (name: string, server: string): string => {
    const p = join(dir, `${name}.yaml`);
    writeFileSync(
      p,
      `apiVersion: v1
kind: Config
clusters: [{name: ${name}, cluster: {server: "${server}"}}]
users: [{name: u-${name}, user: {token: t}}]
contexts: [{name: ${name}, context: {cluster: ${name}, user: u-${name}}}]
current-context: ${name}
`,
    );
    return p;
  };
  const flag = file('flag', 'https://flag:6443');
  const env = file('env', 'https://env:6443');
  const extra = file('extra', 'https://extra:6443');
  const server = async (o: ClusterAccessOptions): Promise<string | undefined> => (await loadClusterAccess(o)).getCurrentCluster()?.server;

  it('--kubeconfig wins over KUBECONFIG and the pod', async () => {
    assert.equal(await server({ kubeconfig: flag, env: { KUBECONFIG: env, KUBERNETES_SERVICE_HOST: '10.0.0.1' } }), 'https://flag:6443');
  });
  it('KUBECONFIG wins over the pod', async () => {
    assert.equal(await server({ env: { KUBECONFIG: env, KUBERNETES_SERVICE_HOST: '10.0.0.1' } }), 'https://env:6443');
  });
  it('KUBECONFIG may list files: merged by client-node, the first context wins', async () => {
    const access = await loadClusterAccess({ env: { KUBECONFIG: [env, extra].join(delimiter) } });
    assert.equal(access.constructor.name, 'KubeConfig');
    assert.equal(access.getCurrentCluster()?.server, 'https://env:6443');
  });
  it('a context override picks another cluster of the merged files', async () => {
    assert.equal(await server({ env: { KUBECONFIG: [env, extra].join(delimiter) }, context: 'extra' }), 'https://extra:6443');
  });
  it('a missing file of the list is named', async () => {
    await assert.rejects(loadClusterAccess({ env: { KUBECONFIG: [env, join(dir, 'gone.yaml')].join(delimiter) } }), /kubeconfig not found: .*gone\.yaml/);
  });
});
