// The huggingface.co stand-in: a client that trusts the cluster's CA and goes through the proxy reads the
// fake hub under https://huggingface.co, as KAITO's generator does with HTTPS_PROXY and SSL_CERT_FILE.
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { QWEN3_8B, startFakeHub, type FakeHub } from '../../../src/simcluster/fake-hub.js';
import { HUB_HOST, startHubProxy, type HubProxy } from '../../../src/simcluster/hub-proxy.js';
import { ensurePki, ensureServingPair } from '../../../src/simcluster/pki.js';

/** CONNECT through the proxy, then TLS to huggingface.co trusting only `ca`; resolves status and body. */
function getThrough(proxyUrl: string, host: string, path: string, ca: Buffer): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: `${host}:443` });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, body: '' });
        return;
      }
      const secure = tls.connect({ socket, servername: host, ca });
      secure.on('secureConnect', () => {
        const get = http.request({ createConnection: () => secure, path, headers: { host } }, (answer) => {
          let body = '';
          answer.on('data', (d: Buffer) => (body += d.toString()));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }));
        });
        get.on('error', reject);
        get.end();
      });
      secure.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hub proxy', () => {
  let dir: string;
  let hub: FakeHub;
  let proxy: HubProxy;
  let ca: Buffer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hub-proxy-'));
    await ensurePki(dir);
    const pair = await ensureServingPair(dir, 'huggingface', [HUB_HOST]);
    ca = readFileSync(join(dir, 'ca.crt'));
    hub = await startFakeHub({ 'Qwen/Qwen3-8B': QWEN3_8B });
    proxy = await startHubProxy(hub.url, pair);
  });
  after(async () => {
    await proxy.close();
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the fake hub as https://huggingface.co, with a certificate the cluster CA signed', async () => {
    const got = await getThrough(proxy.url, HUB_HOST, '/api/models/Qwen/Qwen3-8B/tree/main?recursive=true', ca);
    assert.equal(got.status, 200);
    assert.equal((JSON.parse(got.body) as unknown[]).length, QWEN3_8B.files.length);
    assert.deepEqual(hub.requests, ['/api/models/Qwen/Qwen3-8B/tree/main?recursive=true']);
  });

  it("passes the hub's own answers through (a missing repo is 404)", async () => {
    const got = await getThrough(proxy.url, HUB_HOST, '/nobody/nothing/resolve/main/config.json', ca);
    assert.equal(got.status, 404);
  });

  it('refuses a tunnel to any other host', async () => {
    const got = await getThrough(proxy.url, 'example.com', '/', ca);
    assert.equal(got.status, 403);
    assert.deepEqual(proxy.refused, ['example.com:443']);
  });

  it('a client that does not trust the cluster CA is refused by TLS', async () => {
    await assert.rejects(getThrough(proxy.url, HUB_HOST, '/', Buffer.from('')), /certificate|self.signed|unable/i);
  });
});
