// The life of a workspace, from creation to InferenceReady=True, against the scripted API server:
// the real reconciler runs one pass after each event a cluster would send (the StatefulSet
// controller observing the generation, the pod created, scheduled, its containers starting, Ready,
// the StatefulSet's readyReplicas), and every write request is counted by verb and resource. Then
// one idle resync pass, which must write nothing. The budget is docs/controller.md's "Writes to Ready":
//   node --test dist/test/unit/controllers/write-budget.test.js
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1PersistentVolume, V1PersistentVolumeClaim, V1Pod, V1PodCondition, V1StatefulSet } from '@kubernetes/client-node';
import { ConditionType } from '../../../src/api/labels.js';
import type { Workspace } from '../../../src/api/types.js';
import { findCondition } from '../../../src/api/workspace-conditions.js';
import type { WorkspaceDeps, WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { WorkspaceReconciler } from '../../../src/controllers/workspace/reconciler.js';
import { cachesFromObjects } from '../../../src/controllers/workspace/snapshot.js';
import { EventRecorder } from '../../../src/runtime/events.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { classifyRequest } from '../../../bench/verbs.js';
import { A10_NODE_LABELS, byoOperatorConfig, byoWorkspace, gpuNode, H100_NODE_LABELS, NVME_CLASS } from '../builders/fixtures.js';
import { scriptedApiServer } from './scripted-apiserver.js';

/** Writes per workspace from creation to InferenceReady=True (docs/controller.md, "Writes to Ready"; the ConfigMap copy, once per namespace, not counted). */
const BUDGET = 7;

const api = scriptedApiServer();
const server = api.server;

const config = byoOperatorConfig();

const NS = 'ns1';
const WS_PATH = `/apis/kaito.sh/v1beta1/namespaces/${NS}/workspaces/ws1`;
const STS_PATH = `/apis/apps/v1/namespaces/${NS}/statefulsets/ws1`;
const POD_PATH = `/api/v1/namespaces/${NS}/pods/ws1-0`;

interface Scenario {
  name: string;
  ws: Workspace;
  objects: KubernetesObject[];
  /** The StatefulSet is expected to carry an NVMe claim template. */
  nvme: boolean;
  /** Writes to Ready, ConfigMap copy aside (a change of this number is a change of docs/controller.md's table). */
  writes: number;
}

const node = (labels: Record<string, string>, gpus: string) =>
  ({
    ...gpuNode('n1', labels),
    kind: 'Node',
    status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': gpus }, allocatable: { 'nvidia.com/gpu': gpus } },
  }) as KubernetesObject;
const withMeta = (ws: Workspace): Workspace => ({ ...ws, metadata: { name: 'ws1', namespace: NS, uid: 'uid-1', resourceVersion: '7', generation: 1 } });
const template: Workspace = withMeta({
  ...byoWorkspace('phi-3-mini-4k-instruct'),
  inference: {
    template: {
      metadata: { labels: { app: 'custom' } },
      spec: { containers: [{ name: 'server', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
    },
  },
});

const SCENARIOS: Scenario[] = [
  {
    name: 'BYO preset, node without NVMe (A10)',
    ws: withMeta(byoWorkspace('phi-3-mini-4k-instruct')),
    objects: [node(A10_NODE_LABELS, '1')],
    nvme: false,
    writes: 7,
  },
  {
    name: 'BYO preset, NVMe node (H100) and the NVMe StorageClass: a weights claim',
    ws: withMeta(byoWorkspace('phi-3-mini-4k-instruct')),
    objects: [node(H100_NODE_LABELS, '2'), { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: NVME_CLASS } }],
    nvme: true,
    writes: 7,
  },
  { name: 'template, BYO node (A10)', ws: template, objects: [node(A10_NODE_LABELS, '1')], nvme: false, writes: 7 },
];

type Step = { event: string; writes: string[] };

/** `verb group/resource[/subresource]` of every write the server saw since `from`. */
const writesSince = (from: number): string[] =>
  server.seen
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map((r) => {
      const c = classifyRequest(r.method, r.path);
      return `${c.verb} ${c.resource}`;
    });

async function life(s: Scenario): Promise<{ steps: Step[]; idle: string[]; ws: WorkspaceObject | undefined }> {
  server.seen = [];
  server.script = undefined;
  server.store.clear();
  server.seed(WS_PATH, s.ws);
  const events: string[] = [];
  let clock = Date.parse('2026-12-01T12:00:00Z');
  const recorder = new EventRecorder({
    sink: {
      create: (e) => {
        events.push(`create events.k8s.io/events (${e.reason})`);
        return Promise.resolve();
      },
      patchSeries: () => {
        events.push('patch events.k8s.io/events (series)');
        return Promise.resolve();
      },
    },
    now: () => clock,
  });
  const d: WorkspaceDeps = {
    client: api.client,
    caches: cachesFromObjects([{ ...s.ws, apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace' }, ...s.objects]),
    recorder,
    log: silentLogger,
    config,
    now: () => new Date(clock),
    provisioningCrdInstalled: () => undefined,
  };
  const reconciler = new WorkspaceReconciler(d);
  const steps: Step[] = [];
  const pass = async (event: string) => {
    clock += 2_000;
    const from = server.seen.length;
    const fromEvents = events.length;
    await reconciler.reconcile(`${NS}/ws1`);
    steps.push({ event, writes: [...writesSince(from), ...events.slice(fromEvents)] });
  };
  // What the cluster writes: stored by the server, then seen by the watch (the cache).
  const sts = () => d.caches.statefulSets.get(NS, 'ws1') as V1StatefulSet | undefined;
  const pod = () => d.caches.pods.get(NS, 'ws1-0') as V1Pod | undefined;
  const putSts = (status: Partial<NonNullable<V1StatefulSet['status']>>) => {
    const live = structuredClone(sts()!);
    d.caches.statefulSets.upsert(server.put(STS_PATH, { ...live, status: { replicas: 0, ...live.status, ...status } }));
  };
  const putPod = (f: (p: V1Pod) => V1Pod) => d.caches.pods.upsert(server.put(POD_PATH, f(structuredClone(pod()!))));
  const condition = (p: V1Pod, c: V1PodCondition): V1PodCondition[] => [...(p.status?.conditions ?? []).filter((x) => x.type !== c.type), c];

  await pass('workspace created');
  const created = sts();
  assert.ok(created, 'the first pass creates the StatefulSet');
  assert.equal(!!created.spec?.volumeClaimTemplates?.length, s.nvme, 'the weights volume kind of the scenario');
  const tpl = created.spec!.template;
  const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'ws1', uid: created.metadata!.uid!, controller: true };
  const claimName = `${created.spec?.volumeClaimTemplates?.[0]?.metadata?.name}-ws1-0`;

  if (s.nvme) {
    const template = created.spec!.volumeClaimTemplates![0]!;
    const claim: V1PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claimName, namespace: NS, uid: 'uid-pvc', labels: { ...created.spec?.selector?.matchLabels, ...template.metadata?.labels } },
      spec: template.spec!,
      status: { phase: 'Pending' },
    };
    d.caches.persistentVolumeClaims.upsert(server.put(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${claimName}`, claim));
    await pass('StatefulSet controller: weights claim created (Pending, WaitForFirstConsumer)');
  }
  // Watches of different kinds arrive in any order: the StatefulSet's first status may come before its pod.
  putSts({ observedGeneration: 1, replicas: 0, updateRevision: 'ws1-r1' });
  await pass('StatefulSet controller: status observes generation 1 before its pod is seen (0 updated, no current revision)');
  d.caches.pods.upsert(
    server.put(POD_PATH, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ws1-0', namespace: NS, uid: 'uid-pod', labels: { ...tpl.metadata?.labels }, ownerReferences: [owner] },
      spec: tpl.spec!,
      status: { phase: 'Pending' },
    }),
  );
  await pass('StatefulSet controller: pod ws1-0 created');
  putSts({
    observedGeneration: 1,
    replicas: 1,
    currentReplicas: 1,
    updatedReplicas: 1,
    currentRevision: 'ws1-r1',
    updateRevision: 'ws1-r1',
    availableReplicas: 0,
  });
  await pass('StatefulSet controller: status observes generation 1 (replicas 1, updated 1)');
  if (s.nvme) {
    const pv: V1PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-n1', uid: 'uid-pv' },
      spec: { storageClassName: NVME_CLASS, claimRef: { namespace: NS, name: claimName, uid: 'uid-pvc' } },
      status: { phase: 'Bound' },
    };
    d.caches.persistentVolumes.upsert(server.put('/api/v1/persistentvolumes/pv-n1', pv));
    const claim = structuredClone(d.caches.persistentVolumeClaims.get(NS, claimName)!) as V1PersistentVolumeClaim;
    d.caches.persistentVolumeClaims.upsert(
      server.put(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${claimName}`, {
        ...claim,
        metadata: { ...claim.metadata, annotations: { 'volume.kubernetes.io/selected-node': 'n1' } },
        spec: { ...claim.spec, volumeName: 'pv-n1' },
        status: { phase: 'Bound' },
      }),
    );
    await pass('scheduler: weights claim bound to a local volume on n1');
  }
  putPod((p) => ({ ...p, spec: { ...p.spec!, nodeName: 'n1' }, status: { ...p.status, conditions: condition(p, { type: 'PodScheduled', status: 'True' }) } }));
  await pass('scheduler: pod bound to n1');
  const containers = (ready: boolean, state: 'waiting' | 'running') =>
    (tpl.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      ready,
      restartCount: 0,
      state: state === 'waiting' ? { waiting: { reason: 'ContainerCreating' } } : { running: { startedAt: new Date(clock) } },
    }));
  putPod((p) => ({
    ...p,
    status: {
      ...p.status,
      phase: 'Pending',
      conditions: condition(p, { type: 'Ready', status: 'False', reason: 'ContainersNotReady' }),
      containerStatuses: containers(false, 'waiting'),
    },
  }));
  await pass('kubelet: containers creating');
  putPod((p) => ({ ...p, status: { ...p.status, phase: 'Running', containerStatuses: containers(false, 'running') } }));
  await pass('kubelet: containers running, model loading (not ready)');
  putPod((p) => ({
    ...p,
    status: { ...p.status, conditions: condition(p, { type: 'Ready', status: 'True' }), containerStatuses: containers(true, 'running') },
  }));
  await pass('kubelet: pod Ready');
  putSts({ readyReplicas: 1, availableReplicas: 1 });
  await pass('StatefulSet controller: readyReplicas 1');
  const ws = d.caches.workspaces.get(NS, 'ws1') as WorkspaceObject | undefined;
  const idleFrom = server.seen.length;
  const idleEvents = events.length;
  clock += 60_000;
  await reconciler.reconcile(`${NS}/ws1`);
  return { steps, idle: [...writesSince(idleFrom), ...events.slice(idleEvents)], ws };
}

/** The table: one row per event that led to writes, then the total by kind. */
function report(t: TestContext, name: string, steps: Step[], idle: string[]): void {
  t.diagnostic(`${name}`);
  for (const s of steps) t.diagnostic(`  ${s.event}: ${s.writes.length ? s.writes.join(', ') : '-'}`);
  t.diagnostic(`  idle resync: ${idle.length ? idle.join(', ') : '-'}`);
  const byKind = new Map<string, number>();
  for (const w of steps.flatMap((s) => s.writes)) byKind.set(w, (byKind.get(w) ?? 0) + 1);
  for (const [k, n] of [...byKind].sort()) t.diagnostic(`  ${String(n).padStart(2)} × ${k}`);
  t.diagnostic(`  total to Ready, the ConfigMap copy included: ${steps.reduce((n, s) => n + s.writes.length, 0)}`);
}

for (const s of SCENARIOS)
  test(`writes to Ready, ${s.name}: at most ${BUDGET} (and the ConfigMap copy), none idle`, async (t) => {
    const { steps, idle, ws } = await life(s);
    report(t, s.name, steps, idle);
    const inference = findCondition(ws?.status?.conditions, ConditionType.InferenceReady);
    assert.equal(inference?.status, 'True', `InferenceReady=True at the end: ${JSON.stringify(inference)}`);
    assert.equal(ws?.status?.state, 'Ready');
    const writes = steps.flatMap((x) => x.writes).filter((w) => w !== 'create core/configmaps');
    assert.ok(writes.length <= BUDGET, `${writes.length} writes to Ready: ${writes.join(', ')}`);
    assert.equal(writes.length, s.writes, `the documented count: ${writes.join(', ')}`);
    assert.deepEqual(idle, [], 'an idle resync writes nothing');
  });
