import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Lease } from '@kubernetes/client-node';
import { heldByOld, leaseHolders } from '../../../bench/kwok-leases.js';

const lease = (name: string, holder?: string): V1Lease => ({ metadata: { name }, spec: holder ? { holderIdentity: holder } : {} });

describe('kwok node Lease takeover', () => {
  const cases: Array<{ name: string; leases: V1Lease[]; old: string[]; want: string[] }> = [
    { name: 'every Lease still with the old process', leases: [lease('n1', 'old'), lease('n2', 'old')], old: ['old'], want: ['n1', 'n2'] },
    { name: 'half taken over', leases: [lease('n1', 'new'), lease('n2', 'old')], old: ['old'], want: ['n2'] },
    { name: 'all taken over; an unheld Lease is free to take', leases: [lease('n1', 'new'), lease('n2')], old: ['old'], want: [] },
    { name: 'two earlier processes', leases: [lease('n1', 'a'), lease('n2', 'b'), lease('n3', 'new')], old: ['a', 'b'], want: ['n1', 'n2'] },
    { name: 'no Lease before the restart: nothing to wait for', leases: [lease('n1', 'new')], old: [], want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(heldByOld(c.leases, new Set(c.old)), c.want));

  it('collects the holders, skipping unheld Leases', () => {
    assert.deepEqual([...leaseHolders([lease('n1', 'a'), lease('n2', 'a'), lease('n3'), lease('n4', 'b')])], ['a', 'b']);
  });
});
