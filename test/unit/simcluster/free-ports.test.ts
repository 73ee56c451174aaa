import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { freePortOffset } from '../../../src/simcluster/free-ports.js';
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
