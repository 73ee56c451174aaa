import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containedIn, needsApply } from '../../../src/runtime/drift.js';

const cases: { name: string; desired: unknown; live: unknown; contained: boolean }[] = [
  { name: 'equal scalars', desired: { a: 1 }, live: { a: 1 }, contained: true },
  { name: 'server default added', desired: { a: 1 }, live: { a: 1, b: 2 }, contained: true },
  { name: 'changed value', desired: { a: 1 }, live: { a: 2 }, contained: false },
  { name: 'missing field', desired: { a: { b: 1 } }, live: {}, contained: false },
  { name: 'quantity spelled as number', desired: { gpu: '1' }, live: { gpu: 1 }, contained: true },
  {
    name: 'named list: user sidecar is not drift',
    desired: { c: [{ name: 'ws', image: 'x' }] },
    live: { c: [{ name: 'ws', image: 'x', tty: false }, { name: 'sidecar' }] },
    contained: true,
  },
  { name: 'named list: our container changed', desired: { c: [{ name: 'ws', image: 'y' }] }, live: { c: [{ name: 'ws', image: 'x' }] }, contained: false },
  { name: 'named list: our container removed by someone', desired: { c: [{ name: 'ws' }] }, live: { c: [{ name: 'other' }] }, contained: false },
  { name: 'plain list must match exactly', desired: { args: ['a', 'b'] }, live: { args: ['a'] }, contained: false },
  { name: 'selector entry removed', desired: { selector: { a: 'x', b: 'y' } }, live: { selector: { a: 'x' } }, contained: false },
];
for (const c of cases) {
  test(`containedIn: ${c.name}`, () => assert.equal(containedIn(c.desired, c.live), c.contained));
}

test('needsApply: absent live object always needs an apply; Dates and undefined normalise', () => {
  assert.equal(needsApply({ a: 1 }, undefined), true);
  assert.equal(needsApply({ a: 1, b: undefined }, { a: 1 }), false);
});
