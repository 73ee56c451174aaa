import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import {
  ANNOUNCED_REASONS,
  statefulSetReadiness,
  withReadinessTimeout,
  withWarning,
  NotReadyReason,
  PodProblem,
  type Readiness,
} from '../../../src/controllers/workspace/readiness.js';

function sts(spec: { replicas?: number; generation?: number }, status: Partial<NonNullable<V1StatefulSet['status']>>): V1StatefulSet {
  return {
    metadata: { name: 'ws', generation: spec.generation ?? 1 },
    spec: { replicas: spec.replicas ?? 2, selector: {}, serviceName: 'ws-headless', template: {} },
    status: { replicas: 0, ...status },
  };
}
const healthy = { observedGeneration: 1, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: 'r1', updateRevision: 'r1' };

function pod(name: string, extra: Partial<V1Pod['status']>): V1Pod {
  return { metadata: { name }, status: { phase: 'Pending', ...extra } };
}
const readyPod = (name: string) => pod(name, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });

const cases: { name: string; sts: V1StatefulSet | undefined; pods?: V1Pod[]; ready: boolean; reason: string; message?: RegExp }[] = [
  { name: 'missing StatefulSet', sts: undefined, ready: false, reason: NotReadyReason.StatefulSetNotFound },
  { name: 'all agree', sts: sts({}, healthy), ready: true, reason: 'WorkspaceInferenceStatusSuccess' },
  {
    name: 'generation not observed',
    sts: sts({ generation: 2 }, healthy),
    ready: false,
    reason: NotReadyReason.RolloutInProgress,
    message: /^StatefulSet ws: rollout of 2 replica\(s\) in progress$/,
  },
  {
    name: 'old ready pods during a roll (KAITO W6 says ready)',
    sts: sts({ generation: 2 }, { ...healthy, observedGeneration: 2, updatedReplicas: 1, updateRevision: 'r2' }),
    ready: false,
    reason: NotReadyReason.RolloutInProgress,
    message: /rollout of 2 replica\(s\) in progress/,
  },
  {
    name: 'just created: no status yet, said as it will be once observed (no write when it is)',
    sts: { metadata: { name: 'ws', generation: 1 }, spec: { replicas: 1, selector: {}, serviceName: 'h', template: {} } },
    ready: false,
    reason: NotReadyReason.PodsNotReady,
    message: /^StatefulSet ws: 0\/1 replicas ready$/,
  },
  {
    name: 'just created, its pod already has a problem: named before the StatefulSet controller reports',
    sts: { metadata: { name: 'ws', generation: 1 }, spec: { replicas: 1, selector: {}, serviceName: 'h', template: {} } },
    pods: [
      pod('ws-0', {
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available' }],
      }),
    ],
    ready: false,
    reason: PodProblem.Unschedulable,
  },
  {
    name: 'first generation observed, pods not ready yet: the same words as before it was observed',
    sts: sts({ replicas: 1 }, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, currentRevision: 'r1', updateRevision: 'r1' }),
    ready: false,
    reason: NotReadyReason.PodsNotReady,
    message: /^StatefulSet ws: 0\/1 replicas ready$/,
  },
  {
    name: 'first generation observed before its pods exist (0 updated, no current revision): creation, not a rollout',
    sts: sts({ replicas: 1 }, { observedGeneration: 1, replicas: 0, updateRevision: 'r1' }),
    ready: false,
    reason: NotReadyReason.PodsNotReady,
    message: /^StatefulSet ws: 0\/1 replicas ready$/,
  },
  {
    name: 'first generation, pod created, revision not yet current: the same words',
    sts: sts({ replicas: 1 }, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, currentRevision: '', updateRevision: 'r1' }),
    ready: false,
    reason: NotReadyReason.PodsNotReady,
    message: /^StatefulSet ws: 0\/1 replicas ready$/,
  },
  {
    name: 'revisions differ although counts agree',
    sts: sts({ generation: 2 }, { ...healthy, observedGeneration: 2, currentRevision: 'r1', updateRevision: 'r2' }),
    ready: false,
    reason: NotReadyReason.RolloutInProgress,
  },
  {
    name: 'one replica not ready',
    sts: sts({}, { ...healthy, readyReplicas: 1 }),
    ready: false,
    reason: NotReadyReason.PodsNotReady,
    message: /1\/2 replicas ready/,
  },
  {
    name: 'zero replicas is never ready',
    sts: sts({ replicas: 0 }, { ...healthy, replicas: 0, readyReplicas: 0, updatedReplicas: 0 }),
    ready: false,
    reason: NotReadyReason.PodsNotReady,
  },
  {
    name: 'crash loop named',
    sts: sts({}, { ...healthy, readyReplicas: 1 }),
    pods: [
      pod('ws-1', {
        containerStatuses: [{ name: 'ws', image: 'x', imageID: '', ready: false, restartCount: 7, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
      }),
    ],
    ready: false,
    reason: PodProblem.CrashLoop,
    message: /pod ws-1 container ws is in CrashLoopBackOff/,
  },
  {
    name: 'unschedulable pod explains with the scheduler message',
    sts: sts({}, { ...healthy, readyReplicas: 1 }),
    pods: [
      pod('ws-1', {
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes are available: 6 Insufficient nvidia.com/gpu.' }],
      }),
    ],
    ready: false,
    reason: PodProblem.Unschedulable,
    message: /pod ws-1 is unschedulable: 6 Insufficient nvidia.com\/gpu$/,
  },
  {
    name: 'multi-node: the StatefulSet still counts 2 ready, but worker pod ws-1 is down (vLLM keeps serving on pod 0)',
    sts: sts({}, healthy),
    pods: [readyPod('ws-0'), pod('ws-1', { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] })],
    ready: false,
    reason: NotReadyReason.PodsNotReady,
    message: /pod ws-1 is not ready/,
  },
  {
    name: 'multi-node: every pod of the group Ready',
    sts: sts({}, healthy),
    pods: [readyPod('ws-0'), readyPod('ws-1')],
    ready: true,
    reason: 'WorkspaceInferenceStatusSuccess',
  },
  {
    name: 'pods of a legacy Deployment (other names) and a scaled-away ordinal do not count',
    sts: sts({}, healthy),
    pods: [readyPod('ws-0'), readyPod('ws-1'), pod('ws-7d9f-abcde', {}), pod('ws-2', {})],
    ready: true,
    reason: 'WorkspaceInferenceStatusSuccess',
  },
];

for (const c of cases) {
  test(`statefulSetReadiness: ${c.name}`, () => {
    const r = statefulSetReadiness(c.sts, c.pods ?? []);
    assert.equal(r.ready, c.ready);
    assert.equal(r.reason, c.reason);
    if (c.message) assert.match(r.message, c.message);
  });
}

test('readiness timeout: within the window asks for a recheck, past it reports the timeout', () => {
  const notReady = { ready: false as const, reason: NotReadyReason.PodsNotReady, message: '0/1 replicas ready' };
  const since = new Date('2026-01-01T00:00:00Z');
  const early = withReadinessTimeout(notReady, since, 1800, new Date('2026-01-01T00:10:00Z'));
  assert.equal(early.readiness.reason, NotReadyReason.PodsNotReady);
  assert.equal(early.recheckAfterMs, 20 * 60 * 1000);
  const late = withReadinessTimeout(notReady, since, 1800, new Date('2026-01-01T00:31:00Z'));
  assert.equal(late.readiness.reason, NotReadyReason.ReadinessTimeout);
  assert.match(late.readiness.message, /timeout 1800s/);
  assert.equal(late.recheckAfterMs, undefined);
});

test('withWarning: appended to the message, status and reason unchanged; problems are announced, progress is not', () => {
  const cases: [string, Readiness, string | undefined, string][] = [
    ['serving, Secret gone', { ready: true, reason: 'WorkspaceInferenceStatusSuccess', message: 'ok' }, 'warning: gone', 'ok; warning: gone'],
    ['no warning', { ready: false, reason: 'PodsNotReady', message: 'x' }, undefined, 'x'],
  ];
  for (const [name, r, warning, message] of cases) {
    const got = withWarning(r, warning);
    assert.deepEqual(got, { ...r, message }, name);
  }
  for (const reason of ['PodCreationFailed', 'Unschedulable', 'ImagePullError', 'InferenceReadinessTimeout', 'NodeNotFound', 'NodeNotReady', 'InsufficientGPU'])
    assert.ok(ANNOUNCED_REASONS.has(reason), reason);
  for (const reason of ['RolloutInProgress', 'PodsNotReady', 'StatefulSetNotFound']) assert.ok(!ANNOUNCED_REASONS.has(reason), reason);
});

test('a template pod pinned by spec.nodeName to a missing node: NodeNotFound, not PodsNotReady forever', () => {
  const set = sts({ replicas: 1 }, { ...healthy, replicas: 1, readyReplicas: 0, updatedReplicas: 1 });
  const pinned: V1Pod = { metadata: { name: 'ws-0' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'c' }] }, status: { phase: 'Pending' } };
  const gpu0 = { metadata: { name: 'gpu-0' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  const r = statefulSetReadiness(set, [pinned], [gpu0]);
  assert.equal(r.reason, PodProblem.NodeNotFound);
  assert.match(r.message, /^pod ws-0 is bound to node no-such-node, which does not exist; a pod template's spec\.nodeName bypasses the scheduler/);
  // Without the node list nothing is blamed on nodes: the old answer.
  assert.equal(statefulSetReadiness(set, [pinned]).reason, NotReadyReason.PodsNotReady);
});
