import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ControllerRevision, V1Node, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import {
  leanEndpointSlice,
  leanNode,
  leanObject,
  leanPod,
  leanRevision,
  leanStatefulSet,
  leanWorkspace,
  servingPodsOf,
} from '../../../src/controllers/workspace/cache-transforms.js';
import { specVersionOf } from '../../../src/api/spec-version.js';
import { explainPods } from '../../../src/controllers/workspace/pod-problems.js';
import { statefulSetReadiness } from '../../../src/controllers/workspace/readiness.js';
import { observeJob, podFailure } from '../../../src/controllers/workspace/tuning-status.js';
import { blockedOnGpus, legacyPodsHoldGpus } from '../../../src/controllers/workspace/migration.js';
import { nodePressures } from '../../../src/controllers/workspace/node-pressure.js';
import { matchingNodes, readyMatchingNodes } from '../../../src/builders/facts.js';
import { ObjectCache } from '../../../src/runtime/cache.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const managedFields = [{ manager: 'kaito-ts', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
const meta = (name: string, extra: object = {}) => ({
  name,
  namespace: 'ns',
  uid: `uid-${name}`,
  resourceVersion: '7',
  labels: { 'kaito.sh/workspace': 'ws' },
  annotations: { keep: 'me', [LAST_APPLIED]: '{"big":"copy"}' },
  managedFields,
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'ws', uid: 'sts-uid', controller: true }],
  ...extra,
});
const container = { name: 'model', image: 'img', command: ['python'], args: ['--x'], env: [{ name: 'A', value: 'b' }] };
const podStatus = (ready: boolean, extra: object = {}): V1Pod['status'] => ({
  phase: 'Running',
  hostIP: '10.0.0.1',
  podIP: '10.1.0.1',
  podIPs: [{ ip: '10.1.0.1' }],
  qosClass: 'BestEffort',
  startTime: new Date(0),
  conditions: [
    { type: 'Ready', status: ready ? 'True' : 'False' },
    { type: 'PodScheduled', status: 'True' },
  ],
  containerStatuses: [
    {
      name: 'model',
      image: 'img',
      imageID: 'id',
      ready,
      restartCount: 0,
      state: ready ? { running: {} } : { waiting: { reason: 'CrashLoopBackOff', message: 'boom' } },
    },
  ],
  ...extra,
});
const pod = (name: string, status: V1Pod['status'], nodeName = 'gpu-1'): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta(name),
  spec: { nodeName, containers: [container], volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory' } }], tolerations: [{ key: 'sku', operator: 'Exists' }] },
  status,
});
const node = (name: string, pressure = false): V1Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { ...meta(name), namespace: undefined, labels: { pool: 'a', 'nvidia.com/gpu.product': 'A100' } },
  spec: { unschedulable: false, taints: [{ key: 'sku', effect: 'NoSchedule' }] },
  status: {
    capacity: { 'nvidia.com/gpu': '1' },
    allocatable: { 'nvidia.com/gpu': '1' },
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'MemoryPressure', status: pressure ? 'True' : 'False' },
    ],
    images: [{ names: ['a/very/long/image@sha256:0000'], sizeBytes: 1 }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    nodeInfo: {
      architecture: 'amd64',
      bootID: '',
      containerRuntimeVersion: '',
      kernelVersion: '',
      kubeProxyVersion: '',
      kubeletVersion: '',
      machineID: '',
      operatingSystem: 'linux',
      osImage: '',
      systemUUID: '',
    },
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    volumesInUse: ['v'],
  },
});
const sts: V1StatefulSet = {
  metadata: { name: 'ws', namespace: 'ns', uid: 'sts-uid', generation: 1 },
  spec: { replicas: 2, selector: {}, serviceName: 'ws', template: {} },
  status: { replicas: 2, readyReplicas: 1, observedGeneration: 1, updatedReplicas: 2, currentRevision: 'r', updateRevision: 'r' },
};
const ws = {
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'ws', namespace: 'ns' },
  resource: { labelSelector: { matchLabels: { pool: 'a' } } },
};

describe('cache transforms', () => {
  it('every kind: managedFields keep only who wrote them, the last-applied copy goes, other annotations stay', () => {
    const lean = leanObject(pod('p', podStatus(true)));
    assert.deepEqual(lean.metadata?.managedFields, [{ manager: 'kaito-ts', operation: 'Apply' }]);
    assert.deepEqual(lean.metadata?.annotations, { keep: 'me' });
    assert.deepEqual(lean.metadata?.ownerReferences, meta('p').ownerReferences);
    assert.deepEqual(lean.spec, pod('p', podStatus(true)).spec, 'the generic transform keeps specs (drift compares them)');
  });

  it('StatefulSets keep, of managedFields, which template containers each writer put there: who wrote the template is still told', () => {
    const main = { '.': {}, 'f:name': {}, 'f:image': {}, 'f:command': {} };
    const written = {
      metadata: {
        name: 's',
        managedFields: [
          {
            manager: 'manager',
            operation: 'Update',
            time: new Date(0),
            fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"s"}': main } } } } },
          },
          { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': {} } },
        ],
      },
    };
    assert.deepEqual(leanStatefulSet(written).metadata?.managedFields, [
      {
        manager: 'manager',
        operation: 'Update',
        fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"s"}': { 'f:name': {} } } } } } },
      },
      { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status' },
    ]);
  });

  it("workspaces also keep each writer's apiVersion and spec fields: a spec written in v1alpha1 is still told", () => {
    const written = {
      ...ws,
      metadata: {
        ...ws.metadata,
        annotations: { [LAST_APPLIED]: '{}' },
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'kaito.sh/v1alpha1',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': {}, 'f:resource': { 'f:count': {} } },
          },
          {
            manager: 'kaito-ts',
            operation: 'Apply',
            apiVersion: 'kaito.sh/v1beta1',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:finalizers': {} } },
          },
        ],
      },
    };
    const lean = leanWorkspace(written);
    assert.deepEqual(lean.metadata?.managedFields, [
      { manager: 'kubectl', operation: 'Update', apiVersion: 'kaito.sh/v1alpha1', fieldsV1: { 'f:resource': {} } },
      { manager: 'kaito-ts', operation: 'Apply', apiVersion: 'kaito.sh/v1beta1' },
    ]);
    assert.deepEqual(lean.metadata?.annotations, {});
    assert.equal(specVersionOf(lean), 'v1alpha1');
    assert.equal(specVersionOf(lean), specVersionOf(written));
  });

  it('workspaces keep their worker node names, in order, and the input is left as it was', () => {
    const ws = {
      apiVersion: 'kaito.sh/v1beta1',
      kind: 'Workspace',
      metadata: { name: 'ws', namespace: 'ns' },
      status: { workerNodes: ['gpu-a100-12', 'gpu-a100-3'], state: 'Ready' },
    };
    const copy = structuredClone(ws);
    const lean = leanWorkspace(ws);
    assert.deepEqual(lean.status, { workerNodes: ['gpu-a100-12', 'gpu-a100-3'], state: 'Ready' });
    assert.deepEqual(ws, copy);
    assert.deepEqual(leanWorkspace({ ...ws, status: { workerNodes: [] } }).status, { workerNodes: [] });
    assert.equal(leanWorkspace({ ...ws, status: undefined }).status, undefined);
  });

  it('leaves its input unchanged', () => {
    const input = pod('p', podStatus(true));
    leanPod(input);
    leanNode(node('n'));
    assert.deepEqual(input, pod('p', podStatus(true)));
  });

  it('pods keep what readiness, problems, tuning and migration read, and drop the rest', () => {
    const lean = leanPod(pod('p', podStatus(false)));
    assert.deepEqual(lean.spec, { nodeName: 'gpu-1', containers: [{ name: 'model' }] });
    // startTime: a restart in place announces its gap bounded by the last start (update-plan.ts).
    assert.deepEqual(Object.keys(lean.status ?? {}).sort(), ['conditions', 'containerStatuses', 'phase', 'startTime']);
    assert.equal(JSON.stringify(lean).includes('10.1.0.1'), false);
  });

  it("EndpointSlices keep their Service and each endpoint's pod and conditions; serving pods are those serving", () => {
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name: 'ws-abc', namespace: 'ns', resourceVersion: '7', labels: { 'kubernetes.io/service-name': 'ws', other: 'x' }, ownerReferences: [] },
      endpoints: [
        { addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', name: 'ws-0', uid: 'u' }, conditions: { ready: true, serving: false, terminating: true } },
        { addresses: ['10.0.0.2'], targetRef: { kind: 'Pod', name: 'ws-s1a2b3-0' }, conditions: { ready: true, serving: true } },
        { addresses: ['10.0.0.3'], targetRef: { kind: 'Pod', name: 'old' }, conditions: { ready: true } },
      ],
      ports: [{ port: 5000 }],
    };
    const lean = leanEndpointSlice(slice);
    assert.deepEqual(lean.metadata, { name: 'ws-abc', namespace: 'ns', resourceVersion: '7', labels: { 'kubernetes.io/service-name': 'ws' } });
    assert.equal(JSON.stringify(lean).includes('10.0.0'), false);
    assert.equal(lean.ports, undefined);
    assert.deepEqual(servingPodsOf([lean]), ['old', 'ws-s1a2b3-0'], 'serving, else ready (older servers); a terminating pod that no longer serves is out');
  });

  // The readers give the same answers on the lean objects as on the full ones.
  const full = {
    readyAndNot: [pod('ws-0', podStatus(true)), pod('ws-1', podStatus(false))],
    pending: [
      pod(
        'ws-0',
        {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes: Insufficient nvidia.com/gpu' }],
        },
        '',
      ),
    ],
    failed: [pod('ws-0', podStatus(false, { phase: 'Failed', reason: 'Evicted', message: 'low on memory' }))],
    exited: [
      pod(
        'ws-0',
        podStatus(false, {
          phase: 'Failed',
          containerStatuses: [
            { name: 'model', image: 'i', imageID: 'i', ready: false, restartCount: 0, state: { terminated: { exitCode: 3, reason: 'Error' } } },
          ],
        }),
      ),
    ],
  };
  for (const [name, pods] of Object.entries(full)) {
    it(`pods, ${name}: the readers' answers do not change`, () => {
      const lean = pods.map(leanPod);
      const nodes = [node('gpu-1', true)];
      assert.deepEqual(statefulSetReadiness(sts, lean, nodes.map(leanNode)), statefulSetReadiness(sts, pods, nodes));
      assert.deepEqual(explainPods(lean, nodes.map(leanNode)), explainPods(pods, nodes));
      assert.deepEqual(podFailure(lean), podFailure(pods));
      assert.deepEqual(blockedOnGpus(lean[0]), blockedOnGpus(pods[0]));
      const job = { metadata: { uid: 'sts-uid', name: 'j', namespace: 'ns' }, status: { active: 1 } };
      assert.deepEqual(observeJob(job, lean), observeJob(job, pods));
    });
  }

  it("pods keep their containers' GPU limits: a legacy Deployment pod still holds its GPUs (migration fallback)", () => {
    const rsOwner = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ws-7d9', uid: 'rs-uid', controller: true }];
    const legacy = (gpus: string): V1Pod => ({
      ...pod('ws-7d9-abc', podStatus(true)),
      metadata: meta('ws-7d9-abc', { ownerReferences: rsOwner }),
      spec: { nodeName: 'gpu-1', containers: [{ ...container, resources: { limits: { 'nvidia.com/gpu': gpus } } }] },
    });
    for (const [gpus, holds] of [
      ['1', true],
      ['0', false],
    ] as const) {
      assert.equal(legacyPodsHoldGpus([leanPod(legacy(gpus))]), holds);
      assert.equal(legacyPodsHoldGpus([leanPod(legacy(gpus))]), legacyPodsHoldGpus([legacy(gpus)]));
    }
  });

  it('nodes keep labels, spec, conditions and capacity; images, addresses and nodeInfo go', () => {
    const full = node('gpu-1', true);
    const lean = leanNode(full);
    assert.deepEqual(Object.keys(lean.status ?? {}).sort(), ['allocatable', 'capacity', 'conditions']);
    assert.deepEqual(lean.spec, full.spec);
    assert.deepEqual(lean.metadata?.labels, full.metadata?.labels);
    assert.deepEqual(nodePressures(lean), nodePressures(full));
    assert.deepEqual(readyMatchingNodes(ws, [lean]).length, readyMatchingNodes(ws, [full]).length);
    assert.deepEqual(matchingNodes(ws, [lean]).length, 1);
  });

  it('revisions keep name, owner, labels, annotations and number, not data', () => {
    const cr: V1ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: meta('ws-abc'),
      revision: 3,
      data: { spec: { template: { big: true } } },
    };
    const lean = leanRevision(cr);
    assert.equal(lean.data, undefined);
    assert.equal(lean.revision, 3);
    assert.deepEqual(lean.metadata?.annotations, { keep: 'me' });
    assert.deepEqual(lean.metadata?.ownerReferences, cr.metadata?.ownerReferences);
  });

  it('a cache applies its transform to everything it stores, write-through included', () => {
    const c = new ObjectCache<V1Pod>({ transform: leanPod });
    const e = c.upsert(pod('p', podStatus(true)));
    assert.deepEqual(e?.obj.spec, { nodeName: 'gpu-1', containers: [{ name: 'model' }] });
    assert.deepEqual(c.get('ns', 'p')?.spec, { nodeName: 'gpu-1', containers: [{ name: 'model' }] });
    const gone = c.remove({ ...pod('p', podStatus(true)), metadata: { ...meta('p'), resourceVersion: '8' } });
    assert.deepEqual(gone?.obj.spec, { nodeName: 'gpu-1', containers: [{ name: 'model' }] }, 'the delete event carries the lean object too');
  });
});
