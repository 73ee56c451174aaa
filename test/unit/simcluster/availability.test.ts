// The availability oracle's pure parts (src/simcluster/availability.ts): which pods an EndpointSlice set
// serves, and the gaps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Endpoint, V1EndpointSlice } from '@kubernetes/client-node';
import { gapsOf, gapsWithin, readyPodsOf, type Gap, type ReadySample } from '../../../src/simcluster/availability.js';

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

describe('gapsWithin', () => {
  const s = (atMs: number, ...pods: string[]): ReadySample => ({ atMs, pods });
  const cases: [string, ReadySample[], Gap[]][] = [
    ['serving throughout', [s(0, 'a'), s(20, 'a', 'b'), s(30, 'b'), s(40, 'a', 'b'), s(45, 'a')], []],
    ['a gap inside the window', [s(0, 'a'), s(20), s(28, 'a')], [{ fromMs: 20, toMs: 28, ms: 8 }]],
    ['a gap before the window is not counted', [s(0, 'a'), s(2), s(5, 'a'), s(30), s(31, 'a')], [{ fromMs: 30, toMs: 31, ms: 1 }]],
    ['an outage under way at the start counts from the start', [s(0, 'a'), s(5), s(15, 'a')], [{ fromMs: 10, toMs: 15, ms: 5 }]],
    ['no sample before the window: nothing served then', [s(12, 'a')], [{ fromMs: 10, toMs: 12, ms: 2 }]],
    ['a gap open at the end is cut there', [s(0, 'a'), s(90)], [{ fromMs: 90, ms: 10 }]],
    ['samples after the window are ignored', [s(0, 'a'), s(150), s(160, 'a')], []],
    [
      'two gaps, repeated empty samples folded',
      [s(0, 'a'), s(20), s(21), s(25, 'b'), s(50), s(70, 'a')],
      [
        { fromMs: 20, toMs: 25, ms: 5 },
        { fromMs: 50, toMs: 70, ms: 20 },
      ],
    ],
  ];
  for (const [name, timeline, want] of cases) it(name, () => assert.deepEqual(gapsWithin(timeline, 10, 100), want));
});
