import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBindAddress, serve } from '../../../src/manager/http.js';

test('serve answers its routes, 404 elsewhere, 500 with the message of a failing route, and sends no Date header', async () => {
  const { server, url } = await serve('127.0.0.1:0', {
    '/ok': (_q, res) => void res.writeHead(200).end('ok\n'),
    '/boom': () => Promise.reject(new Error('broken')),
  });
  try {
    const cases: [string, number, string][] = [
      ['/ok', 200, 'ok\n'],
      ['/ok?x=1', 200, 'ok\n'],
      ['/nope', 404, 'not found\n'],
      ['/boom', 500, 'broken\n'],
    ];
    for (const [path, status, body] of cases) {
      const res = await fetch(url + path);
      assert.equal(res.status, status, path);
      assert.equal(await res.text(), body, path);
      assert.equal(res.headers.get('date'), null, path);
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('parseBindAddress takes host:port, :port and [v6]:port, and refuses a bad port', () => {
  assert.deepEqual(parseBindAddress('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(parseBindAddress(':8080'), { host: '0.0.0.0', port: 8080 });
  assert.deepEqual(parseBindAddress('[::1]:0'), { host: '::1', port: 0 });
  assert.throws(() => parseBindAddress('host:99999'), /invalid bind address "host:99999"/);
});
