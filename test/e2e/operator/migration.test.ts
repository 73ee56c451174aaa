// Deployment → StatefulSet migration on the real control plane: the no-downtime path, the
// delete-first fallback when the old pod holds the GPUs, and a Deployment the workspace does not
// control, which must stay untouched. Orders of events are read from resourceVersions (one etcd).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject, V1Deployment, V1Pod, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { kubectl, nodeNames, waitFor } from '../harness.js';
import { isReady } from '../../../src/runtime/conditions.js';
import {
  applyWorkspace,
  conditionOf,
  getOne,
  getWorkspace,
  pool,
  record,
  selectorFor,
  setUnschedulable,
  sleep,
  waitCondition,
  waitReady,
  warningEvents,
  world,
  type Recorded,
} from '../support/operator.js';

const PRESET = { name: 'phi-4-mini-instruct' };

/** What KAITO before v0.8 left behind: a Deployment and a Service, both controlled by the workspace. */
async function legacyWorkload(
  ns: string,
  ws: WorkspaceObject,
  opts: { poolName: string; gpus: number; owner?: 'workspace' | 'none' | 'other'; withService?: boolean },
) {
  const name = ws.metadata.name ?? '';
  const owner = opts.owner ?? 'workspace';
  const ownerReferences =
    owner === 'workspace'
      ? [{ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name, uid: ws.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }]
      : owner === 'other'
        ? [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'someone-else', uid: await configMapUid(ns, 'someone-else'), controller: true }]
        : undefined;
  const labels = owner === 'workspace' ? { 'kaito.sh/workspace': name } : { app: `foreign-${name}` };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, ...(ownerReferences ? { ownerReferences } : {}) },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { 'kaito.sh/sim-pool': opts.poolName },
          containers: [
            {
              name,
              image: 'mcr.microsoft.com/aks/kaito/kaito-phi-4-mini-instruct:0.1.0',
              ...(opts.gpus ? { resources: { limits: { 'nvidia.com/gpu': String(opts.gpus) } } } : {}),
            },
          ],
        },
      },
    },
  };
  const objs: KubernetesObject[] = [deployment];
  if (opts.withService) {
    objs.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns, ...(ownerReferences ? { ownerReferences } : {}) },
      spec: { selector: { 'kaito.sh/workspace': name }, ports: [{ name: 'http', port: 80, targetPort: 5000, protocol: 'TCP' }] },
    } as KubernetesObject);
  }
  await kubectl(['create', '-f', '-'], { namespace: ns, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }) });
  await waitFor(
    `legacy pod of ${name} Running`,
    async () => {
      const pods = JSON.parse(
        await kubectl(
          [
            'get',
            'pods',
            '-l',
            Object.entries(labels)
              .map(([k, v]) => `${k}=${v}`)
              .join(','),
            '-o',
            'json',
          ],
          { namespace: ns },
        ),
      ) as { items: V1Pod[] };
      return pods.items.some((p) => p.status?.phase === 'Running');
    },
    { timeoutMs: 30_000 },
  );
  return (await getOne<V1Deployment>(ns, 'deployment', name))!;
}

async function configMapUid(ns: string, name: string): Promise<string> {
  await kubectl(['create', 'configmap', name], { namespace: ns });
  return (await getOne<KubernetesObject>(ns, 'configmap', name))?.metadata?.uid ?? '';
}

function firstRv<T>(events: Recorded<T>[], pred: (e: Recorded<T>) => boolean, what: string): bigint {
  const e = events.find(pred);
  assert.ok(e, `no recorded event: ${what}`);
  return e.rv;
}

test('migration without downtime: StatefulSet first, Service on the old pods until pod 0 is Ready, then the Deployment is deleted', async (t) => {
  const oldPool = pool('a100', 1);
  const newPool = pool('a100', 1);
  const w = await world(t, { pools: [oldPool, newPool], operator: false });
  await applyWorkspace(w.ns, { metadata: { name: 'mig' }, resource: { labelSelector: selectorFor(newPool) }, inference: { preset: PRESET } });
  const ws = (await getWorkspace(w.ns, 'mig'))!;
  const legacy = await legacyWorkload(w.ns, ws, { poolName: oldPool.name, gpus: 1, withService: true });

  const base = `/api/v1/namespaces/${w.ns}`;
  const [deployments, services, pods, statefulSets] = await Promise.all([
    record<V1Deployment>(t, `/apis/apps/v1/namespaces/${w.ns}/deployments`),
    record<V1Service>(t, `${base}/services`),
    record<V1Pod>(t, `${base}/pods`),
    record<V1StatefulSet>(t, `/apis/apps/v1/namespaces/${w.ns}/statefulsets`),
  ]);
  // Hold the new pod back (node cordoned, not a GPU shortage) so the in-between state can be checked.
  const newNode = nodeNames(newPool)[0]!;
  await setUnschedulable(newNode, true);
  await w.start();

  await waitFor('pod mig-0 Pending', async () =>
    (await getOne<V1Pod>(w.ns, 'pod', 'mig-0'))?.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False'),
  );
  const migrating = await waitCondition(w.ns, 'mig', 'InferenceReady', 'False', { reason: 'WorkloadMigration' });
  assert.match(conditionOf(migrating, 'InferenceReady')?.message ?? '', /without downtime/);
  await sleep(1500); // several reconciles (pod and workspace events) pass in this state
  assert.equal((await getOne<V1Deployment>(w.ns, 'deployment', 'mig'))?.metadata?.uid, legacy.metadata?.uid, 'legacy Deployment kept while pod 0 is not Ready');
  assert.deepEqual((await getOne<V1Service>(w.ns, 'service', 'mig'))?.spec?.selector, { 'kaito.sh/workspace': 'mig' }, 'Service still selects the legacy pods');

  await setUnschedulable(newNode, false);
  await waitFor('legacy Deployment deleted', async () => (await getOne(w.ns, 'deployment', 'mig')) === undefined, { timeoutMs: 60_000 });
  await waitReady(w.ns, 'mig');
  assert.deepEqual((await getOne<V1Service>(w.ns, 'service', 'mig'))?.spec?.selector, {
    'kaito.sh/workspace': 'mig',
    'statefulset.kubernetes.io/pod-name': 'mig-0',
  });

  await waitFor('Deployment DELETED recorded', () => deployments.some((e) => e.type === 'DELETED'));
  const stsCreated = firstRv(statefulSets, (e) => e.type === 'ADDED' && e.obj.metadata?.name === 'mig', 'StatefulSet created');
  const pod0Ready = firstRv(pods, (e) => e.obj.metadata?.name === 'mig-0' && isReady(e.obj), 'pod mig-0 Ready');
  const serviceSwitched = firstRv(
    services,
    (e) => e.obj.metadata?.name === 'mig' && e.obj.spec?.selector?.['statefulset.kubernetes.io/pod-name'] === 'mig-0',
    'Service selects pod 0',
  );
  const deploymentDeleted = firstRv(deployments, (e) => e.type === 'DELETED' && e.obj.metadata?.uid === legacy.metadata?.uid, 'Deployment deleted');
  assert.ok(stsCreated < deploymentDeleted, 'StatefulSet created before the Deployment was deleted');
  assert.ok(pod0Ready < serviceSwitched, 'Service switched only after pod 0 was Ready');
  assert.ok(pod0Ready < deploymentDeleted, 'Deployment deleted only after pod 0 was Ready');
  // No moment without a serving pod: the legacy pod was still Ready when pod 0 became Ready.
  const legacyPodGone = firstRv(
    pods,
    (e) =>
      e.obj.metadata?.labels?.['kaito.sh/workspace'] === 'mig' &&
      e.obj.metadata?.name !== 'mig-0' &&
      (e.type === 'DELETED' || !!e.obj.metadata?.deletionTimestamp),
    'legacy pod terminating',
  );
  assert.ok(pod0Ready < legacyPodGone);
});

test('migration fallback: the old pod holds the only GPU → InferenceReady=False WorkloadMigration and a Warning event, then delete, then convergence', async (t) => {
  const only = pool('a100', 1);
  const w = await world(t, { pools: [only], operator: false });
  await applyWorkspace(w.ns, { metadata: { name: 'full' }, resource: { labelSelector: selectorFor(only) }, inference: { preset: PRESET } });
  const ws = (await getWorkspace(w.ns, 'full'))!;
  const legacy = await legacyWorkload(w.ns, ws, { poolName: only.name, gpus: 1 });

  const [deployments, workspaces, events] = await Promise.all([
    record<V1Deployment>(t, `/apis/apps/v1/namespaces/${w.ns}/deployments`),
    record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`),
    record<KubernetesObject & { type?: string; reason?: string; note?: string }>(t, `/apis/events.k8s.io/v1/namespaces/${w.ns}/events`),
  ]);
  await w.start();
  await waitFor('legacy Deployment deleted', () => deployments.some((e) => e.type === 'DELETED' && e.obj.metadata?.uid === legacy.metadata?.uid), {
    timeoutMs: 60_000,
  });
  const deleted = firstRv(deployments, (e) => e.type === 'DELETED', 'Deployment deleted');
  await waitReady(w.ns, 'full');

  const announced = firstRv(
    workspaces,
    (e) => {
      const c = conditionOf(e.obj, 'InferenceReady');
      return c?.status === 'False' && c.reason === 'WorkloadMigration' && /hold the GPUs/.test(c.message);
    },
    'InferenceReady=False WorkloadMigration (GPUs held)',
  );
  const warned = firstRv(events, (e) => e.obj.type === 'Warning' && e.obj.reason === 'WorkloadMigration', 'Warning event WorkloadMigration');
  assert.ok(announced < deleted, 'status announced the downtime before the delete');
  assert.ok(warned < deleted, 'Warning event before the delete');
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'full');
  assert.equal(sts?.status?.readyReplicas, 1);
});

test('a Deployment the workspace does not control is never touched and named in a Warning event; InferenceReady reflects our StatefulSet', async (t) => {
  const p = pool('a10', 2);
  const w = await world(t, { pools: [p], operator: false });
  const names = ['orphan', 'other'] as const;
  const before = new Map<string, V1Deployment>();
  for (const name of names) {
    await applyWorkspace(w.ns, { metadata: { name }, resource: { labelSelector: selectorFor(p) }, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } });
    const ws = (await getWorkspace(w.ns, name))!;
    before.set(name, await legacyWorkload(w.ns, ws, { poolName: p.name, gpus: 0, owner: name === 'orphan' ? 'none' : 'other' }));
  }
  const op = await w.start();
  for (const name of names) {
    // Our StatefulSet serves behind our Service: that is what InferenceReady says.
    await waitReady(w.ns, name);
    const note = new RegExp(`Deployment ${w.ns}/${name} is not controlled by this workspace; kaito-ts leaves it untouched`);
    await waitFor(`Warning ObjectNotOwned naming Deployment ${name}`, async () =>
      (await warningEvents(w.ns, name)).some((e) => e.reason === 'ObjectNotOwned' && note.test(e.note)),
    );
  }
  // Several more reconciles: touch each workspace and wait for the operator to see it.
  for (let i = 0; i < 3; i++) {
    const seen = op.reconciles();
    for (const name of names) await kubectl(['annotate', '--overwrite', 'workspace', name, `e2e.example/touch=${i}`], { namespace: w.ns });
    await waitFor('touch reconciled', () => op.reconciles() >= seen + names.length);
  }
  for (const name of names) {
    const after = await getOne<V1Deployment>(w.ns, 'deployment', name);
    const was = before.get(name)!;
    assert.equal(after?.metadata?.uid, was.metadata?.uid);
    assert.equal(after?.metadata?.generation, was.metadata?.generation);
    assert.deepEqual(after?.metadata?.ownerReferences, was.metadata?.ownerReferences);
    assert.deepEqual(after?.spec, was.spec);
    assert.ok(!after?.metadata?.managedFields?.some((f) => f.manager === 'kaito-ts'), 'kaito-ts never wrote to it');
  }
});
