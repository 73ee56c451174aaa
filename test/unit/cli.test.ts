import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) }, out, err };
}

test('unknown command exits 2 with one line naming it', async () => {
  const c = capture();
  assert.equal(await main(['frobnicate'], c.io), 2);
  assert.deepEqual(c.out, []);
  assert.equal(c.err.join('').trim().split('\n').length, 1);
  assert.match(c.err.join(''), /unknown command "frobnicate"/);
});

test('--help lists the commands and exits 0', async () => {
  const c = capture();
  assert.equal(await main(['--help'], c.io), 0);
  assert.match(c.out.join(''), /render/);
  assert.match(c.out.join(''), /simcluster/);
});
