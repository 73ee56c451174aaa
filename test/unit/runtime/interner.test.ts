import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Interner } from '../../../src/runtime/interner.js';

test('an interner returns an equal string and holds each distinct one once', () => {
  const names = new Interner(10);
  const parsed = JSON.parse('["gpu-a100-0001","gpu-a100-0001","gpu-a100-0002"]') as string[];
  assert.deepEqual(parsed.map(names.intern), ['gpu-a100-0001', 'gpu-a100-0001', 'gpu-a100-0002']);
  assert.equal(names.size, 2);
});

test('a full interner starts over instead of growing', () => {
  const names = new Interner(3);
  for (const n of ['a-node-0001', 'a-node-0002', 'a-node-0003']) names.intern(n);
  assert.equal(names.size, 3);
  assert.equal(names.intern('a-node-0004'), 'a-node-0004');
  assert.equal(names.size, 1);
  assert.equal(names.intern('a-node-0001'), 'a-node-0001');
  assert.equal(names.size, 2);
});
