import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ContainerStatus, V1Node, V1Pod } from '@kubernetes/client-node';
import { nodePressureWarning } from '../../../src/controllers/workspace/node-pressure.js';
import { explainPods, podChangeMatters, PodProblem, podReadinessChanged } from '../../../src/controllers/workspace/pod-problems.js';

const container = (state: Partial<V1ContainerStatus>): V1ContainerStatus => ({
  name: 'main',
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 3,
  ...state,
});
const pod = (name: string, status: NonNullable<V1Pod['status']>, nodeName = 'gpu-0'): V1Pod => ({
  metadata: { name },
  spec: { nodeName, containers: [] },
  status,
});
const running = (cs: V1ContainerStatus[]) => ({ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: cs });
const waiting = (reason: string, message?: string) => container({ state: { waiting: { reason, ...(message ? { message } : {}) } } });
const node = (name: string, pressure?: string): V1Node => ({
  metadata: { name },
  status: { conditions: pressure ? [{ type: pressure, status: 'True' }] : [] },
});
const readyNode = (name: string, ready: 'True' | 'False' | 'Unknown' = 'True', gpus?: string): V1Node => ({
  metadata: { name },
  status: {
    conditions: [
      { type: 'Ready', status: ready, ...(ready !== 'True' ? { reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' } : {}) },
    ],
    ...(gpus !== undefined ? { allocatable: { 'nvidia.com/gpu': gpus }, capacity: { 'nvidia.com/gpu': gpus } } : {}),
  },
});
/** A pod as the StatefulSet controller creates it from a template with spec.nodeName: no kubelet or scheduler has written its status. */
const pinned = (name: string, nodeName: string, gpus = 0, status: NonNullable<V1Pod['status']> = { phase: 'Pending' }): V1Pod => ({
  metadata: { name },
  spec: { nodeName, containers: [{ name: 'main', ...(gpus ? { resources: { limits: { 'nvidia.com/gpu': String(gpus) } } } : {}) }] },
  status,
});
const scheduled = { type: 'PodScheduled', status: 'True' };
const hint = "a pod template's spec.nodeName bypasses the scheduler: name an existing node, or drop spec.nodeName and select nodes with resource.labelSelector";

const cases: { name: string; pods: V1Pod[]; nodes?: V1Node[]; reason?: string; message?: RegExp }[] = [
  {
    name: 'image pull back-off',
    pods: [pod('ws-0', running([waiting('ImagePullBackOff', 'Back-off pulling image "x"')]))],
    reason: PodProblem.ImagePull,
    message: /^pod ws-0 container main image pull failed \(ImagePullBackOff\): Back-off pulling image "x"$/,
  },
  { name: 'ErrImagePull', pods: [pod('ws-0', running([waiting('ErrImagePull')]))], reason: PodProblem.ImagePull, message: /\(ErrImagePull\)$/ },
  { name: 'invalid image name', pods: [pod('ws-0', running([waiting('InvalidImageName')]))], reason: PodProblem.ImagePull },
  {
    name: 'crash loop with the last termination message',
    pods: [
      pod(
        'ws-0',
        running([container({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, message: 'CUDA error' } } })]),
      ),
    ],
    reason: PodProblem.CrashLoop,
    message: /^pod ws-0 container main is in CrashLoopBackOff; last termination: CUDA error$/,
  },
  {
    name: 'crash loop: exit code when no message',
    pods: [pod('ws-0', running([container({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 137 } } })]))],
    reason: PodProblem.CrashLoop,
    message: /last termination: exit code 137$/,
  },
  {
    name: 'OOMKilled beats the crash loop it causes',
    pods: [
      pod(
        'ws-0',
        running([container({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } })]),
      ),
    ],
    reason: PodProblem.OOMKilled,
    message: /^pod ws-0 container main was OOMKilled \(exit code 137\)/,
  },
  {
    name: 'container start error',
    pods: [pod('ws-0', running([waiting('CreateContainerConfigError', 'secret "hf" not found')]))],
    reason: PodProblem.ContainerStart,
    message: /failed to start \(CreateContainerConfigError\): secret "hf" not found$/,
  },
  {
    name: 'init container failures count too',
    pods: [pod('ws-0', { phase: 'Pending', initContainerStatuses: [waiting('ErrImagePull')] })],
    reason: PodProblem.ImagePull,
  },
  {
    name: 'evicted for disk',
    pods: [pod('ws-0', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' })],
    reason: PodProblem.NodeDiskPressure,
    message: /^pod ws-0 evicted due to node disk pressure: /,
  },
  {
    name: 'evicted for memory',
    pods: [pod('ws-0', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' })],
    reason: PodProblem.NodeMemoryPressure,
  },
  {
    name: 'evicted, other cause',
    pods: [pod('ws-0', { phase: 'Failed', reason: 'Evicted', message: 'Pod was preempted' })],
    reason: PodProblem.Evicted,
    message: /^pod ws-0 was evicted: Pod was preempted$/,
  },
  {
    name: 'failed, not evicted',
    pods: [pod('ws-0', { phase: 'Failed', reason: 'NodeAffinity', message: 'node label changed' })],
    reason: PodProblem.PodFailed,
    message: /^pod ws-0 failed: NodeAffinity node label changed$/,
  },
  {
    name: 'unschedulable with the scheduler message',
    pods: [
      pod(
        'ws-0',
        {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes are available: 6 Insufficient nvidia.com/gpu.' }],
        },
        '',
      ),
    ],
    reason: PodProblem.Unschedulable,
    message: /^pod ws-0 is unschedulable: 6 Insufficient nvidia\.com\/gpu$/,
  },
  {
    name: 'node disk pressure before any eviction',
    pods: [pod('ws-0', running([]), 'gpu-1')],
    nodes: [node('gpu-0'), node('gpu-1', 'DiskPressure')],
    reason: PodProblem.NodeDiskPressure,
    message: /^pod ws-0 runs on node gpu-1, which reports disk pressure$/,
  },
  { name: 'node memory pressure', pods: [pod('ws-0', running([]))], nodes: [node('gpu-0', 'MemoryPressure')], reason: PodProblem.NodeMemoryPressure },
  {
    name: 'container causes come before evictions, whatever the pod order',
    pods: [pod('ws-0', { phase: 'Failed', reason: 'Evicted', message: 'memory' }), pod('ws-1', running([waiting('ErrImagePull')]))],
    reason: PodProblem.ImagePull,
    message: /^pod ws-1 /,
  },
  {
    name: 'a Ready pod is never blamed (an old OOM kill of a pod serving again)',
    pods: [
      pod('ws-0', {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [container({ ready: true, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } })],
      }),
    ],
    reason: undefined,
  },
  { name: 'nothing to say: starting', pods: [pod('ws-0', running([container({ state: { running: {} } })]))], nodes: [node('gpu-0')], reason: undefined },
  // The node a pod is bound to (nodes: the operator's node cache, every node of the cluster).
  {
    name: 'bound by the template to a node that does not exist',
    pods: [pinned('ws-0', 'no-such-node')],
    nodes: [readyNode('gpu-0')],
    reason: PodProblem.NodeNotFound,
    message: new RegExp(`^pod ws-0 is bound to node no-such-node, which does not exist; ${hint.replace(/[.]/g, '\\.')}$`),
  },
  {
    name: 'node not found comes before the failure the pod garbage collector writes',
    pods: [
      pinned('ws-0', 'no-such-node', 0, {
        phase: 'Failed',
        conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' }],
      }),
    ],
    nodes: [readyNode('gpu-0')],
    reason: PodProblem.NodeNotFound,
    message: /which does not exist; a pod template's spec\.nodeName/,
  },
  {
    name: 'a scheduled pod whose node was deleted, once failed',
    pods: [pinned('ws-0', 'gone', 0, { phase: 'Failed', conditions: [scheduled] })],
    nodes: [readyNode('gpu-0')],
    reason: PodProblem.NodeNotFound,
    message: /^pod ws-0 is bound to node gone, which does not exist \(deleted after the pod was placed\)$/,
  },
  {
    name: 'a pod just bound by the scheduler to a node not cached yet is not blamed',
    pods: [pinned('ws-0', 'new-node', 0, { phase: 'Pending', conditions: [scheduled] })],
    nodes: [readyNode('gpu-0')],
    reason: undefined,
  },
  { name: 'a missing node is never blamed without the node list', pods: [pinned('ws-0', 'no-such-node')], reason: undefined },
  {
    name: 'a running pod is not blamed on a node missing from the cache',
    pods: [pinned('ws-0', 'no-such-node', 0, running([]))],
    nodes: [readyNode('gpu-0')],
    reason: undefined,
  },
  {
    name: 'bound to a node that is not Ready',
    pods: [pinned('ws-0', 'gpu-0', 0, { phase: 'Pending', conditions: [scheduled] })],
    nodes: [readyNode('gpu-0', 'Unknown')],
    reason: PodProblem.NodeNotReady,
    message: /^pod ws-0 is bound to node gpu-0, which is not Ready: Ready=Unknown \(NodeStatusUnknown: Kubelet stopped posting node status\.\)$/,
  },
  {
    name: 'a node that has not reported Ready yet is not blamed',
    pods: [pinned('ws-0', 'gpu-0')],
    nodes: [{ metadata: { name: 'gpu-0' } }],
    reason: undefined,
  },
  {
    name: 'a Ready pod on a NotReady node is not blamed',
    pods: [pod('ws-0', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] })],
    nodes: [readyNode('gpu-0', 'False')],
    reason: undefined,
  },
  {
    name: 'bound by the template to a node without the GPUs it asks for',
    pods: [pinned('ws-0', 'cpu-0', 2)],
    nodes: [readyNode('cpu-0')],
    reason: PodProblem.InsufficientGPU,
    message: /^pod ws-0 asks for 2 nvidia\.com\/gpu but its node cpu-0 has 0; a pod template's spec\.nodeName/,
  },
  {
    name: 'fewer GPUs than asked on a NotReady node: the GPUs are named',
    pods: [pinned('ws-0', 'gpu-0', 4)],
    nodes: [readyNode('gpu-0', 'False', '2')],
    reason: PodProblem.InsufficientGPU,
    message: /asks for 4 nvidia\.com\/gpu but its node gpu-0 has 2;/,
  },
  { name: 'enough GPUs on a Ready node: nothing to say', pods: [pinned('ws-0', 'gpu-0', 2)], nodes: [readyNode('gpu-0', 'True', '2')], reason: undefined },
  {
    name: 'long messages are cut',
    pods: [pod('ws-0', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'x'.repeat(2000) }] }, '')],
    reason: PodProblem.Unschedulable,
    message: /^.{509}\.\.\.$/,
  },
];

for (const c of cases) {
  test(`explainPods: ${c.name}`, () => {
    const found = explainPods(c.pods, c.nodes);
    assert.equal(found?.reason, c.reason);
    if (c.message) assert.match(found?.message ?? '', c.message);
  });
}

test('nodePressureWarning: KAITO v0.12 wording, disk, memory, PID in that order, only nodes under pressure', () => {
  const multi: V1Node = {
    metadata: { name: 'gpu-2' },
    status: {
      conditions: [
        { type: 'PIDPressure', status: 'True' },
        { type: 'MemoryPressure', status: 'True' },
        { type: 'DiskPressure', status: 'False' },
      ],
    },
  };
  const cases: [nodes: V1Node[], want: string | undefined][] = [
    [[], undefined],
    [[node('gpu-0'), node('gpu-1', 'Ready')], undefined],
    [[node('gpu-0', 'DiskPressure')], 'worker node(s) under resource pressure: gpu-0 (DiskPressure)'],
    [
      [node('gpu-0', 'DiskPressure'), node('gpu-1'), multi],
      'worker node(s) under resource pressure: gpu-0 (DiskPressure); gpu-2 (MemoryPressure, PIDPressure)',
    ],
  ];
  for (const [nodes, want] of cases) assert.equal(nodePressureWarning(nodes), want);
});

test('podReadinessChanged: a pod turning Ready or not Ready, or a serving pod added or deleted; not a status change that keeps readiness', () => {
  const ready = pod('p', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
  const loading = pod('p', running([]));
  const rows: [string, Parameters<typeof podReadinessChanged>[0], boolean][] = [
    ['turned Ready', { type: 'update', obj: ready, old: loading }, true],
    ['stopped serving', { type: 'update', obj: loading, old: ready }, true],
    ['still loading (restart count, phase)', { type: 'update', obj: pod('p', { ...running([]), phase: 'Pending' }), old: loading }, false],
    ['still serving', { type: 'update', obj: ready, old: ready }, false],
    ['created loading', { type: 'add', obj: loading }, false],
    ['seen serving', { type: 'add', obj: ready }, true],
    ['a serving pod deleted', { type: 'delete', obj: ready }, true],
  ];
  for (const [why, e, want] of rows) assert.equal(podReadinessChanged(e), want, why);
});

test('podChangeMatters: a new scheduling reason or any other change matters; the scheduler recounting the cluster does not', () => {
  const pending = (message: string, rv = '1') => ({
    ...pod('p', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }] }, ''),
    metadata: { name: 'p', resourceVersion: rv },
  });
  const affinity = (n: number) => `${n} node(s) didn't match Pod's node affinity/selector`;
  const gpus = (total: number, short: number) => `0/${total} nodes are available: ${short} Insufficient nvidia.com/gpu, ${affinity(total - short)}.`;
  const rows: [string, Parameters<typeof podChangeMatters>[0], boolean][] = [
    ['another node joined the cluster', { type: 'update', old: pending(gpus(8, 2)), obj: pending(gpus(9, 2), '2') }, false],
    ['one more pool node is short of GPUs', { type: 'update', old: pending(gpus(8, 2)), obj: pending(gpus(9, 3), '2') }, true],
    ['scheduled', { type: 'update', old: pending(gpus(8, 2)), obj: { ...pending(gpus(8, 2), '2'), spec: { nodeName: 'gpu-0', containers: [] } } }, true],
    ['a label changed', { type: 'update', old: pending(gpus(8, 2)), obj: { ...pending(gpus(8, 2), '2'), metadata: { name: 'p', labels: { a: 'b' } } } }, true],
    ['created', { type: 'add', obj: pending(gpus(8, 2)) }, true],
    ['deleted', { type: 'delete', obj: pending(gpus(8, 2)) }, true],
  ];
  for (const [why, e, want] of rows) assert.equal(podChangeMatters(e), want, why);
});
