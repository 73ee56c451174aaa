import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../../../src/api/types.js';
import { TIMELINE_STAGES, TimelineTracker } from '../../../bench/timeline.js';
import { timelineMarkdown, timelineText } from '../../../bench/timeline-format.js';
import { stageTimes, timelineChartSvg } from '../../../bench/timeline-chart.js';

const ws = (name: string): Workspace => ({ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name }, resource: { labelSelector: {} } });

function sts(name: string, replicas: number, nvme: boolean): V1StatefulSet {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: {},
      serviceName: name,
      template: { spec: { containers: [] } },
      ...(nvme ? { volumeClaimTemplates: [{ metadata: { name: 'model-weights-volume' } }] } : {}),
    },
  };
}

function pod(owner: string, i: number, s: { node?: boolean; ready?: boolean; nvme?: boolean } = {}): V1Pod {
  return {
    metadata: { name: `${owner}-${i}`, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: owner, uid: 'u' }] },
    spec: {
      containers: [],
      ...(s.node ? { nodeName: 'n1' } : {}),
      ...(s.nvme ? { volumes: [{ name: 'model-weights-volume', persistentVolumeClaim: { claimName: `model-weights-volume-${owner}-${i}` } }] } : {}),
    },
    status: { conditions: [{ type: 'Ready', status: s.ready ? 'True' : 'False' }] },
  };
}

const bound = (name: string, phase = 'Bound'): V1PersistentVolumeClaim => ({ metadata: { name }, status: { phase } });

describe('TimelineTracker', () => {
  // Each row: events in order as [time, event]; the expected per-workspace stage times.
  const cases: Array<{ name: string; events: Array<[number, (t: TimelineTracker, at: number) => void]>; want: (number | null)[] }> = [
    {
      name: 'one emptyDir pod: claimBound is n/a',
      events: [
        [0.1, (t, at) => t.onWorkspace(ws('a'), at)],
        [1, (t, at) => t.onStatefulSet(sts('a', 1, false), at)],
        [2, (t, at) => t.onPod(pod('a', 0), at)],
        [3, (t, at) => t.onPod(pod('a', 0, { node: true }), at)],
        [33, (t, at) => t.onPod(pod('a', 0, { node: true, ready: true }), at)],
        [40, (t, at) => t.onPod(pod('a', 0, { node: true, ready: true }), at)], // a repeat moves nothing
      ],
      want: [0.1, 1, 2, 3, null, 33, 34],
    },
    {
      name: 'two NVMe pods: every stage waits for the last pod, the claim binds after its pod is seen',
      events: [
        [0.2, (t, at) => t.onWorkspace(ws('a'), at)],
        [0.5, (t, at) => t.onPod(pod('a', 0, { nvme: true }), at)], // seen before its StatefulSet
        [1, (t, at) => t.onStatefulSet(sts('a', 2, true), at)],
        [1.5, (t, at) => t.onClaim(bound('model-weights-volume-a-0', 'Pending'), at)],
        [2, (t, at) => t.onPod(pod('a', 1, { nvme: true }), at)],
        [3, (t, at) => t.onPod(pod('a', 0, { nvme: true, node: true }), at)],
        [4, (t, at) => t.onPod(pod('a', 1, { nvme: true, node: true }), at)],
        [4.5, (t, at) => t.onClaim(bound('model-weights-volume-a-1'), at)],
        [5, (t, at) => t.onClaim(bound('model-weights-volume-a-0'), at)],
        [35, (t, at) => t.onPod(pod('a', 0, { nvme: true, node: true, ready: true }), at)],
        [36, (t, at) => t.onPod(pod('a', 1, { nvme: true, node: true, ready: true }), at)],
      ],
      want: [0.2, 1, 2, 4, 5, 36, 34],
    },
    {
      name: 'strangers and pods of other owners are ignored; stages not reached stay null',
      events: [
        [0.1, (t, at) => t.onWorkspace(ws('stranger'), at)],
        [0.3, (t, at) => t.onWorkspace(ws('a'), at)],
        [1, (t, at) => t.onPod(pod('stranger', 0, { node: true }), at)],
        [2, (t, at) => t.onStatefulSet(sts('a', 1, false), at)],
      ],
      want: [0.3, 1, null, null, null, null, 34],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const t = new TimelineTracker(new Set(['a']));
      for (const [at, ev] of c.events) ev(t, at);
      const f = t.figures(
        () => 1,
        () => 34,
      );
      assert.deepEqual(f.workspaces, { a: c.want });
    });
  }

  it('gives percentiles of stage times and of steps, skipping a claimBound that does not apply', () => {
    const t = new TimelineTracker(new Set(['a', 'b']));
    for (const [name, start] of [
      ['a', 0],
      ['b', 10],
    ] as const) {
      t.onWorkspace(ws(name), start);
      t.onStatefulSet(sts(name, 1, false), start + 1);
      t.onPod(pod(name, 0, { node: true, ready: true }), start + 3);
    }
    const f = t.figures(
      (w) => (w === 'a' ? 1 : 11),
      (w) => (w === 'a' ? 4 : 20),
    );
    assert.deepEqual(Object.keys(f.stages), [...TIMELINE_STAGES]);
    assert.deepEqual(f.stages.podReady, { p50: 3, p90: 13, p99: 13, max: 13 });
    assert.equal(f.stages.claimBound, null);
    assert.deepEqual(f.steps.created, { p50: 0, p90: 10, p99: 10, max: 10 });
    assert.deepEqual(f.steps.podsCreated, { p50: 2, p90: 2, p99: 2, max: 2 });
    assert.deepEqual(f.steps.podReady, { p50: 0, p90: 0, p99: 0, max: 0 }); // from scheduled, same event
    assert.deepEqual(f.steps.inferenceReady, { p50: 1, p90: 7, p99: 7, max: 7 });

    const text = timelineText('kaito-ts', f).split('\n');
    assert.equal(text[0], 'kaito-ts timeline (p50 / p90 / p99 / max):');
    assert.match(text[6] ?? '', /^ {2}claimBound +n\/a +n\/a +every pod's weights PVC Bound/);
    assert.match(text[8] ?? '', /^ {2}inferenceReady +4 \/ 20 \/ 20 \/ 20 +1 \/ 7 \/ 7 \/ 7 /);
    const md = timelineMarkdown([
      {
        n: 2,
        results: [
          {
            controller: 'kaito-ts',
            allStatefulSetsSeconds: 11,
            allReadySeconds: 20,
            peakRssMiB: 1,
            cpuSeconds: 1,
            requestsByVerb: {},
            writesPerIdleMinute: 0,
            correct: true,
            timeline: f,
          },
        ],
      },
    ]).split('\n');
    assert.equal(md[2], '| N = 2 | kaito-ts | created | 0 / 10 / 10 / 10 | 0 / 10 / 10 / 10 |');
    assert.equal(timelineMarkdown([{ n: 2, results: [] }]), '');
  });
});

describe('timelineChartSvg', () => {
  it('draws one panel per result with a timeline, one step line per reached stage', () => {
    const workspaces = { a: [0.1, 1, 2, 3, null, 33, 34], b: [0.2, 2, 3, 4, null, 35, 36] };
    const svg = timelineChartSvg([
      {
        n: 2,
        results: [
          {
            controller: 'kaito-ts',
            allStatefulSetsSeconds: 2,
            allReadySeconds: 36,
            peakRssMiB: 1,
            cpuSeconds: 1,
            requestsByVerb: {},
            writesPerIdleMinute: 0,
            correct: true,
            timeline: { stages: {} as never, steps: {} as never, workspaces },
          },
        ],
      },
    ]);
    assert.match(svg, /^<svg /);
    assert.match(svg, /Workspaces that reached each stage: kaito-ts, N = 2/);
    assert.equal(svg.match(/<polyline /g)?.length, 6);
    assert.match(svg, /claimBound \(n\/a\)/);
    assert.match(svg, /inferenceReady: last at 36s/);
    assert.deepEqual(stageTimes(workspaces, 5), [33, 35]);
  });
});
