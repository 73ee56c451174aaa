// The provisioner's reconcile pass on in-memory caches and a recording client: what it writes in
// each state of a claim, and that a settled claim costs no write at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject, V1ConfigMap, V1Node, V1PersistentVolume } from '@kubernetes/client-node';
import { ObjectCache } from '../../../src/runtime/cache.js';
import type { KubeClient } from '../../../src/runtime/client.js';
import { layoutFor } from '../../../src/simcluster/layout.js';
import { loadNodePools } from '../../../src/simcluster/nodes.js';
import { launchedNode, nvmeVolumes, registrationPatch, skuFacts } from '../../../src/simcluster/provisioner/node.js';
import type { NodeClaim } from '../../../src/simcluster/provisioner/claim-view.js';
import { DEFAULT_DELAYS } from '../../../src/simcluster/provisioner/provisioner-options.js';
import { Provisioner } from '../../../src/simcluster/provisioner/sim-provisioner.js';
import { wantedStatus } from '../../../src/simcluster/provisioner/claim-status.js';

const pools = loadNodePools(layoutFor({ KAITO_TS_CACHE: '/c', KAITO_TS_SIMCLUSTER_DIR: '/s' }).defaultNodesFile);
const T0 = Date.parse('2026-01-01T00:00:00Z');
const CLUSTER = 'kaito-ts-sim';

interface Call {
  verb: string;
  kind: string;
  name: string;
  body?: unknown;
}

/** A KubeClient stand-in that records every write and answers with the body. */
function recordingClient(calls: Call[]): KubeClient {
  const rec = (verb: string) => async (type: { kind: string }, objOrRef: KubernetesObject | { name: string }, body?: unknown) => {
    const name = 'metadata' in objOrRef ? (objOrRef.metadata?.name ?? '') : (objOrRef as { name: string }).name;
    calls.push({ verb, kind: type.kind, name, body: body ?? objOrRef });
    return objOrRef;
  };
  return { apply: rec('apply'), applyStatus: rec('applyStatus'), create: rec('create'), patch: rec('patch'), delete: rec('delete') } as unknown as KubeClient;
}

function claim(over: Partial<NodeClaim['metadata']> = {}, sku = 'Standard_NC24ads_A100_v4'): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: 'ws0a1b2c3d4',
      uid: 'u1',
      resourceVersion: '7',
      creationTimestamp: new Date(T0),
      labels: { 'karpenter.sh/nodepool': 'kaito', 'kaito.sh/workspace': 'phi', 'kaito.sh/workspacenamespace': 'ns' },
      finalizers: ['karpenter.sh/termination'],
      ...over,
    },
    spec: {
      nodeClassRef: { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' },
      taints: [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }],
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: [sku] }],
      resources: { requests: { storage: '120Gi' } },
    },
  };
}

/** The node as the API server and kwok would have it after launch, registration and the device plugin. */
function settledNode(c: NodeClaim, ready = true): V1Node {
  const facts = skuFacts('Standard_NC24ads_A100_v4', pools);
  assert.ok(facts);
  const n = launchedNode({ claim: c, facts, clusterName: CLUSTER, kubeletVersion: 'v1' });
  const reg = registrationPatch(c, n, { initialized: true, notReadyFault: false });
  return {
    ...n,
    metadata: { ...n.metadata, ...reg.metadata, uid: 'n1', creationTimestamp: new Date(T0 + 1000), labels: { ...n.metadata?.labels, ...reg.metadata?.labels } },
    status: {
      ...n.status,
      capacity: { ...n.status?.capacity, 'nvidia.com/gpu': '1' },
      allocatable: { ...n.status?.allocatable, 'nvidia.com/gpu': '1' },
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date(T0 + 1000) }],
    },
  };
}

function world(objs: { claims?: NodeClaim[]; nodes?: V1Node[]; volumes?: V1PersistentVolume[]; faults?: V1ConfigMap[] }, now = T0 + 60_000) {
  const caches = {
    claims: new ObjectCache<NodeClaim>(),
    nodes: new ObjectCache<V1Node>(),
    volumes: new ObjectCache<V1PersistentVolume>(),
    faults: new ObjectCache<V1ConfigMap>(),
  };
  objs.claims?.forEach((o) => caches.claims.upsert(structuredClone(o)));
  objs.nodes?.forEach((o) => caches.nodes.upsert(structuredClone(o)));
  objs.volumes?.forEach((o) => caches.volumes.upsert(structuredClone(o)));
  objs.faults?.forEach((o) => caches.faults.upsert(structuredClone(o)));
  const calls: Call[] = [];
  const p = new Provisioner({
    client: recordingClient(calls),
    caches,
    delays: DEFAULT_DELAYS,
    clusterName: CLUSTER,
    kubeletVersion: 'v1',
    pools,
    now: () => now,
  });
  return { p, calls };
}

const summary = (calls: Call[]): string[] => calls.map((c) => `${c.verb} ${c.kind}`);

describe('provisioner reconcile', () => {
  const settled = claim();
  const node = settledNode(settled);
  const facts = skuFacts('Standard_NC24ads_A100_v4', pools);
  assert.ok(facts);
  const pvs = nvmeVolumes(settled.metadata?.name ?? '', node.metadata?.name ?? '', facts).map((pv, i) => ({
    ...pv,
    metadata: { ...pv.metadata, uid: `pv${i}` },
  }));
  const readyStatus = wantedStatus(
    undefined,
    {
      kind: 'launched',
      providerID: node.spec?.providerID ?? '',
      nodeName: node.metadata?.name ?? '',
      registered: true,
      nodeReady: true,
      capacity: { cpu: '24', memory: '220Gi', 'ephemeral-storage': '120Gi', pods: '110', 'nvidia.com/gpu': '1' },
      allocatable: { cpu: '24', memory: '220Gi', 'ephemeral-storage': '120Gi', pods: '110', 'nvidia.com/gpu': '1' },
    },
    new Date(T0 + 2000),
    undefined,
  );

  const cases: [string, Parameters<typeof world>[0], number | undefined, string[]][] = [
    ['a claim without KAITO labels is left alone', { claims: [claim({ labels: { 'karpenter.sh/nodepool': 'default' }, finalizers: [] })] }, undefined, []],
    ['a new claim is adopted and waits for the launch delay', { claims: [claim({ finalizers: [] })] }, T0 + 200, ['apply NodeClaim', 'applyStatus NodeClaim']],
    [
      'a due claim gets its node and NVMe volumes',
      { claims: [settled] },
      undefined,
      ['create Node', ...pvs.map(() => 'create PersistentVolume'), 'applyStatus NodeClaim'],
    ],
    [
      'a bad name fails the launch, nothing is created or deleted',
      { claims: [claim({ name: 'workspace-with-a-long-name' })] },
      undefined,
      ['applyStatus NodeClaim'],
    ],
    ['a settled claim costs no write', { claims: [{ ...settled, status: readyStatus }], nodes: [node], volumes: pvs }, undefined, []],
    [
      'the device plugin adds the GPUs',
      { claims: [{ ...settled, status: readyStatus }], nodes: [{ ...node, status: { ...node.status, capacity: { cpu: '24' } } }], volumes: pvs },
      undefined,
      ['patch Node'],
    ],
    [
      'a deleted claim deletes its node and volumes first',
      { claims: [claim({ deletionTimestamp: new Date(T0 + 5000) })], nodes: [node], volumes: pvs },
      undefined,
      [...pvs.map(() => 'delete PersistentVolume'), 'delete Node', 'patch Node'],
    ],
    ['a deleted claim without node drops its finalizer', { claims: [claim({ deletionTimestamp: new Date(T0 + 5000) })] }, undefined, ['patch NodeClaim']],
    [
      'a node left by a gone claim is collected',
      { nodes: [node], volumes: pvs },
      undefined,
      ['delete Node', 'patch Node', ...pvs.map(() => 'delete PersistentVolume')],
    ],
    [
      'a node NotReady past the repair time deletes its claim',
      {
        claims: [{ ...settled, status: readyStatus }],
        nodes: [settledNode(settled, false)],
        volumes: pvs,
        faults: [{ metadata: { name: 'r', namespace: 'kaito-ts-sim' }, data: { nodeclaim: 'ws0a1b2c3d4', 'repair-after': '0s' } }],
      },
      undefined,
      ['delete NodeClaim'],
    ],
  ];
  for (const [what, objs, now, want] of cases) {
    it(what, async () => {
      const { p, calls } = world(objs, now);
      await p.reconcile(objs.claims?.[0]?.metadata?.name ?? 'ws0a1b2c3d4');
      assert.deepEqual(summary(calls), want);
    });
  }

  it('a launch error is written with its message and retried later, with backoff', async () => {
    const fault: V1ConfigMap = {
      metadata: { name: 'q', namespace: 'kaito-ts-sim' },
      data: { 'instance-type': 'Standard_NC24ads_A100_v4', 'launch-error': 'QuotaExceeded: no cores' },
    };
    const { p, calls } = world({ claims: [settled], faults: [fault] });
    const first = await p.reconcile('ws0a1b2c3d4');
    const second = await p.reconcile('ws0a1b2c3d4');
    assert.deepEqual(summary(calls), ['applyStatus NodeClaim', 'applyStatus NodeClaim']);
    const status = calls[0]?.body as { conditions: { type: string; status: string; reason: string; message: string }[] };
    assert.deepEqual(
      status.conditions.find((c) => c.type === 'Launched'),
      {
        type: 'Launched',
        status: 'Unknown',
        reason: 'LaunchFailed',
        message: 'agentPool.BeginCreateOrUpdate for "ws0a1b2c3d4" failed: QuotaExceeded: no cores',
        lastTransitionTime: '2026-01-01T00:01:00Z',
      },
    );
    assert.ok((second.requeueAfterMs ?? 0) > (first.requeueAfterMs ?? 0), 'backoff grows');
  });
});
