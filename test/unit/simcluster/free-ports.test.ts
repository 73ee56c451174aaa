import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { freePortOffset } from '../../../src/simcluster/free-ports.js';
import { waitPortsFree } from '../../../src/simcluster/health.js';
import { DEFAULT_PORTS, shiftPorts } from '../../../src/simcluster/layout.js';

const listen = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });

test('freePortOffset never picks an offset that puts a component on a port in use', async () => {
  // Another process holds what would be the apiserver port at offset 600.
  const held = DEFAULT_PORTS.apiserver + 600;
  const server = await listen(held);
  try {
    const blocked = (o: number) => Object.values(shiftPorts(DEFAULT_PORTS, o)).includes(held);
    for (let i = 0; i < 20; i++) assert.ok(!blocked(await freePortOffset(590, 610)), 'a picked offset leaves the held port alone');
    await assert.rejects(freePortOffset(600, 601, 5), /no port offset in \[600, 601\)/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('waitPortsFree answers when a held port is released, and false when it is not by the deadline', async () => {
  const server = await listen(0);
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  const port = address.port;
  try {
    assert.equal(await waitPortsFree([port], 300), false, 'still held after the timeout');
    const released = waitPortsFree([port], 5_000);
    setTimeout(() => server.close(), 200);
    assert.equal(await released, true, 'free once the holder closes it');
  } finally {
    if (server.listening) await new Promise((r) => server.close(r));
  }
});
