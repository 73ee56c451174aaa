// The e2e availability oracle's pure parts: which pods an EndpointSlice set serves, and the gaps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Endpoint, V1EndpointSlice } from '@kubernetes/client-node';
import { gapsOf, readyPodsOf, type Gap, type ReadySample } from '../e2e/support/availability.js';

const ep = (pod: string, ready?: boolean, ip = '10.244.0.1'): V1Endpoint => ({
  addresses: [ip],
  ...(ready === undefined ? {} : { conditions: { ready } }),
  targetRef: { kind: 'Pod', name: pod },
});
const slice = (...endpoints: V1Endpoint[]): V1EndpointSlice => ({ addressType: 'IPv4', endpoints, metadata: { name: 's' } });

describe('readyPodsOf', () => {
  const cases: [string, V1EndpointSlice[], string[]][] = [
    ['no slice', [], []],
    ['a slice without endpoints', [{ addressType: 'IPv4', endpoints: [], metadata: {} }], []],
    ['ready true', [slice(ep('a', true))], ['a']],
    ['ready unset counts as ready', [slice(ep('a'))], ['a']],
    ['ready false (not ready, or terminating) does not count', [slice(ep('a', false), ep('b', true))], ['b']],
    ['across slices, sorted, each pod once', [slice(ep('c', true), ep('a', true)), slice(ep('a', true, '10.244.0.9'), ep('b', false))], ['a', 'c']],
    [
      'serving decides over ready (a Service publishing not-ready addresses marks a loading pod ready)',
      [slice({ ...ep('a', true), conditions: { ready: true, serving: false } }, { ...ep('b', false), conditions: { ready: false, serving: true } })],
      ['b'],
    ],
    ['no targetRef: the address', [slice({ addresses: ['10.0.0.7'], conditions: { ready: true } })], ['10.0.0.7']],
  ];
  for (const [name, slices, want] of cases) it(name, () => assert.deepEqual(readyPodsOf(slices), want));
});

describe('gapsOf', () => {
  const s = (atMs: number, ...pods: string[]): ReadySample => ({ atMs, pods });
  const cases: [string, ReadySample[], Gap[]][] = [
    ['nothing recorded', [], []],
    ['never ready: no gap (not served yet is not an outage)', [s(0), s(5)], []],
    ['ready from the start, never lost', [s(0, 'a'), s(10, 'a', 'b'), s(20, 'b')], []],
    ['not ready, then ready: no gap', [s(0), s(30, 'a')], []],
    ['one gap', [s(0), s(30, 'a'), s(40), s(49, 'a')], [{ fromMs: 40, toMs: 49, ms: 9 }]],
    [
      'two gaps',
      [s(0, 'a'), s(10), s(12, 'b'), s(20), s(25, 'a')],
      [
        { fromMs: 10, toMs: 12, ms: 2 },
        { fromMs: 20, toMs: 25, ms: 5 },
      ],
    ],
    ['a hand-over without a gap (both ready in between)', [s(0, 'a'), s(5, 'a', 'surge'), s(6, 'surge'), s(14, 'a', 'surge'), s(15, 'a')], []],
    ['an open gap runs to now', [s(0, 'a'), s(40)], [{ fromMs: 40, ms: 60 }]],
    ['repeated empty samples do not split a gap', [s(0, 'a'), s(10), s(11), s(15, 'a')], [{ fromMs: 10, toMs: 15, ms: 5 }]],
  ];
  for (const [name, timeline, want] of cases) it(name, () => assert.deepEqual(gapsOf(timeline, 100), want));
});
