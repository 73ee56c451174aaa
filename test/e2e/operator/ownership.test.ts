// Ownership on the real control plane: look-alikes (our labels, names next to ours, no owner) beside
// every kind the operator creates or deletes survive reconcile, revision pruning, migration and
// workspace deletion byte for byte; an object holding a name we need is reported (False condition
// and Warning event) and never touched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ANNOTATION_HASH, ANNOTATION_REVISION, LABEL_REVISION_WORKSPACE_NAME, LABEL_WORKSPACE_NAME } from '../../../src/api/labels.js';
import { computeSpecHash, controllerRevisionName } from '../../../src/builders/revision.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { kubectl, waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  getAll,
  getOne,
  getWorkspace,
  listWorkspaces,
  pool,
  selectorFor,
  waitCondition,
  waitReady,
  warningEvents,
  world,
} from '../support/operator.js';

const TEMPLATE = { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } };
const TUNING = {
  preset: { name: 'phi-3-mini-128k-instruct' },
  method: 'qlora',
  input: { urls: ['https://example.com/data/train.parquet'] },
  output: { image: 'registry.example.com/adapters/phi-3:0.0.1', imagePushSecret: 'push-secret' },
};

/** A minimal object of each kind we create, carrying `labels`; `owner` makes it a workspace's child. */
function lookalike(kind: string, ns: string, name: string, labels: Record<string, string>, owner?: WorkspaceObject): KubernetesObject {
  const ownerReferences = owner
    ? [
        {
          apiVersion: 'kaito.sh/v1beta1',
          kind: 'Workspace',
          name: owner.metadata.name ?? '',
          uid: owner.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]
    : undefined;
  const metadata = { name, namespace: ns, labels, ...(ownerReferences ? { ownerReferences } : {}) };
  const pod = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  switch (kind) {
    case 'StatefulSet':
      return { apiVersion: 'apps/v1', kind, metadata, spec: { replicas: 0, selector: { matchLabels: labels }, template: pod } } as KubernetesObject;
    case 'Deployment':
      return { apiVersion: 'apps/v1', kind, metadata, spec: { replicas: 0, selector: { matchLabels: labels }, template: pod } } as KubernetesObject;
    case 'Service':
      return { apiVersion: 'v1', kind, metadata, spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 5000 }] } } as KubernetesObject;
    case 'ConfigMap':
      return { apiVersion: 'v1', kind, metadata, data: { 'inference_config.yaml': 'vllm:\n  gpu-memory-utilization: 0.9\n' } } as KubernetesObject;
    default:
      throw new Error(`no look-alike for ${kind}`);
  }
}

function revision(ns: string, name: string, ws: WorkspaceObject, hash: string, number: number, owned: boolean): KubernetesObject {
  const owner = owned
    ? { ownerReferences: [{ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: ws.metadata.name ?? '', uid: ws.metadata.uid ?? '', controller: true }] }
    : {};
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name, namespace: ns, labels: { [LABEL_REVISION_WORKSPACE_NAME]: ws.metadata.name ?? '' }, annotations: { [ANNOTATION_HASH]: hash }, ...owner },
    data: {},
    revision: number,
  } as KubernetesObject;
}

async function create(ns: string, objs: KubernetesObject[]): Promise<void> {
  await kubectl(['create', '-f', '-'], { namespace: ns, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }) });
}

type Snapshot = Map<string, string>;
const ref = (o: KubernetesObject) => `${o.kind}/${o.metadata?.name}`;

/** resourceVersion + full JSON of each object, read back from the server. */
async function snapshot(ns: string, objs: KubernetesObject[]): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const o of objs) {
    const live = await getOne(ns, o.kind!.toLowerCase(), o.metadata?.name ?? '');
    assert.ok(live, `${ref(o)} exists`);
    out.set(ref(o), JSON.stringify(live));
  }
  return out;
}

async function assertUnchanged(ns: string, objs: KubernetesObject[], before: Snapshot, when: string): Promise<void> {
  const after = await snapshot(ns, objs);
  for (const [k, v] of before) {
    const was = JSON.parse(v) as KubernetesObject;
    const now = JSON.parse(after.get(k)!) as KubernetesObject;
    assert.equal(now.metadata?.resourceVersion, was.metadata?.resourceVersion, `${k} after ${when}: resourceVersion`);
    assert.equal(after.get(k), v, `${k} after ${when}: byte for byte`);
    assert.ok(!now.metadata?.managedFields?.some((f) => f.manager === 'kaito-ts'), `${k}: kaito-ts never wrote to it`);
  }
}

/** Controllers (StatefulSet, Deployment) write status to new objects: wait until they are done, so what follows is ours alone. */
async function settled(ns: string, objs: KubernetesObject[]): Promise<void> {
  for (const o of objs.filter((x) => x.kind === 'StatefulSet' || x.kind === 'Deployment')) {
    await waitFor(`${ref(o)} status observed`, async () => {
      type Live = {
        metadata: { generation?: number };
        status?: { observedGeneration?: number; updateRevision?: string; conditions?: { type: string; reason?: string }[] };
      };
      const live = await getOne<Live>(ns, o.kind!.toLowerCase(), o.metadata?.name ?? '');
      if (live?.status?.observedGeneration !== live?.metadata.generation) return false;
      return o.kind === 'StatefulSet'
        ? !!live?.status?.updateRevision
        : live?.status?.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable');
    });
  }
}

test('look-alikes survive reconcile, pruning, migration and deletion byte for byte; name collisions are reported and left alone', async (t) => {
  const a10 = pool('a10', 1);
  // The default inference ConfigMap copy is KAITO v0.8.0's (KAITO v0.11+ makes none): its legacy names as v0.8.0 rendered them.
  const w = await world(t, { pools: [a10], operator: false, operatorArgs: ['--legacy-presets', 'v0.8'] });
  const ns = w.ns;
  const sel = selectorFor(a10);
  // own: a preset workspace with history and a legacy Deployment; the others collide on one name each.
  await applyWorkspace(ns, { metadata: { name: 'own' }, resource: { labelSelector: sel }, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } });
  for (const name of ['rev-clash', 'sts-clash', 'svc-clash', 'dep-clash'])
    await applyWorkspace(ns, { metadata: { name }, resource: { labelSelector: sel }, inference: TEMPLATE });
  await applyWorkspace(ns, { metadata: { name: 'tune-clash' }, resource: { labelSelector: sel }, tuning: TUNING });
  const ws = Object.fromEntries((await listWorkspaces(ns)).map((x) => [x.metadata.name, x])) as Record<string, WorkspaceObject>;
  const own = ws.own!;

  const wsLabels = { [LABEL_WORKSPACE_NAME]: 'own' };
  const lookalikes: KubernetesObject[] = [
    ...['StatefulSet', 'Service', 'Deployment'].map((kind) => lookalike(kind, ns, 'own-lookalike', wsLabels)),
    // Our label on the default inference ConfigMap copy, but not created by kaito-ts.
    lookalike('ConfigMap', ns, 'inference-params-template', { 'app.kubernetes.io/managed-by': 'kaito-ts' }),
    // Counted by label alone, it made KAITO number our first revision 100.
    revision(ns, 'own-lookalike', own, 'f'.repeat(64), 99, false),
  ];
  const clashHash = computeSpecHash(ws['rev-clash']!);
  const tuneHash = computeSpecHash(ws['tune-clash']!);
  const collisions: KubernetesObject[] = [
    // Our exact revision name and hash, not ours: taking it would adopt a stranger's history.
    revision(ns, controllerRevisionName(ws['rev-clash']!, clashHash), ws['rev-clash']!, clashHash, 1, false),
    revision(ns, controllerRevisionName(ws['tune-clash']!, tuneHash), ws['tune-clash']!, tuneHash, 1, false),
    lookalike('StatefulSet', ns, 'sts-clash', { [LABEL_WORKSPACE_NAME]: 'sts-clash' }),
    lookalike('Service', ns, 'svc-clash-headless', { [LABEL_WORKSPACE_NAME]: 'svc-clash' }),
    lookalike('Deployment', ns, 'dep-clash', { app: 'someone-else' }),
  ];
  // Ours by controller UID: 11 older revisions (one more than the history keeps) and a legacy Deployment.
  const history = Array.from({ length: 11 }, (_, i) =>
    revision(ns, `own-h${String(i + 1).padStart(2, '0')}`, own, String(i).repeat(64).slice(0, 64), i + 1, true),
  );
  const legacy = lookalike('Deployment', ns, 'own', wsLabels, own);
  await create(ns, [...lookalikes, ...collisions, ...history, legacy]);
  await settled(ns, [...lookalikes, ...collisions]);
  const before = await snapshot(ns, [...lookalikes, ...collisions]);

  const op = await w.start();

  // Reconcile + migration: own serves from its StatefulSet, its Deployment (ours) is gone.
  await waitReady(ns, 'own', 90_000);
  await waitFor('legacy Deployment own deleted', async () => !(await getOne(ns, 'deployment', 'own')));
  // Numbering and pruning count only our revisions: 11 + 1 = 12, and the oldest (1) pruned.
  const ownNow = await waitFor('own revision annotation', async () =>
    (await getWorkspace(ns, 'own'))?.metadata.annotations?.[ANNOTATION_REVISION] ? getWorkspace(ns, 'own') : undefined,
  );
  assert.equal(ownNow?.metadata.annotations?.[ANNOTATION_REVISION], '12', 'the look-alike revision 99 is not counted');
  await waitFor('oldest owned revision pruned', async () => !(await getOne(ns, 'controllerrevision', 'own-h01')));
  const revs = (await getAll<KubernetesObject & { revision: number }>(ns, 'controllerrevisions', `${LABEL_REVISION_WORKSPACE_NAME}=own`))
    .map((r) => r.metadata?.name)
    .sort();
  assert.equal(revs.length, 12, `10 older + current + look-alike: ${revs.join(',')}`);
  assert.ok(revs.includes('own-lookalike'));
  assert.match(
    (await warningEvents(ns, 'own')).map((e) => e.note).join('\n'),
    new RegExp(`ConfigMap ${ns}/inference-params-template exists and is not controlled by this workspace`),
  );

  // Collisions: a False condition naming the object (or, for the Deployment, a Warning event while our StatefulSet serves).
  const named: [string, string, RegExp][] = [
    [
      'rev-clash',
      'ControllerRevision',
      new RegExp(`ControllerRevision ${ns}/${controllerRevisionName(ws['rev-clash']!, clashHash)} exists and is not controlled`),
    ],
    ['sts-clash', 'StatefulSet', new RegExp(`StatefulSet ${ns}/sts-clash exists and is not controlled`)],
    ['svc-clash', 'Service', new RegExp(`Service ${ns}/svc-clash-headless exists and is not controlled`)],
  ];
  for (const [name, kind, message] of named) {
    const got = await waitCondition(ns, name, 'InferenceReady', 'False', { reason: 'ObjectNotOwned' });
    assert.match(conditionOf(got, 'InferenceReady')?.message ?? '', message, kind);
    await waitFor(`Warning event for ${name}`, async () => (await warningEvents(ns, name)).some((e) => e.reason === 'ObjectNotOwned' && message.test(e.note)));
  }
  assert.equal(await getOne(ns, 'statefulset', 'rev-clash'), undefined, 'no workload without its own revision');
  // A tuning workspace says it the tuning way (JobStarted), with the same event.
  const tuneMessage = new RegExp(`ControllerRevision ${ns}/${controllerRevisionName(ws['tune-clash']!, tuneHash)} exists and is not controlled`);
  const tune = await waitCondition(ns, 'tune-clash', 'JobStarted', 'False');
  assert.match(conditionOf(tune, 'JobStarted')?.message ?? '', tuneMessage);
  await waitFor('Warning event for tune-clash', async () =>
    (await warningEvents(ns, 'tune-clash')).some((e) => e.reason === 'ObjectNotOwned' && tuneMessage.test(e.note)),
  );
  assert.equal(await getOne(ns, 'job', 'tune-clash'), undefined, 'no Job without its own revision');
  await waitReady(ns, 'dep-clash', 60_000);
  await waitFor('Warning event for dep-clash', async () =>
    (await warningEvents(ns, 'dep-clash')).some((e) => e.reason === 'ObjectNotOwned' && /Deployment .*dep-clash is not controlled/.test(e.note)),
  );

  // More passes: touch every workspace and wait for the operator to see it.
  for (let i = 0; i < 2; i++) {
    const seen = op.reconciles();
    for (const name of Object.keys(ws)) await kubectl(['annotate', '--overwrite', 'workspace', name, `e2e.example/touch=${i}`], { namespace: ns });
    await waitFor('touches reconciled', () => op.reconciles() >= seen + Object.keys(ws).length);
  }
  await assertUnchanged(ns, [...lookalikes, ...collisions], before, 'reconcile, pruning and migration');

  // Deletion: our children go (garbage collection, the finalizer), the look-alikes stay.
  await kubectl(['delete', 'workspaces', '--all', '--wait=false'], { namespace: ns });
  await waitFor('workspaces finalized', async () => (await listWorkspaces(ns)).length === 0, { timeoutMs: 60_000 });
  await waitFor('own StatefulSet garbage-collected', async () => !(await getOne(ns, 'statefulset', 'own')), { timeoutMs: 60_000 });
  await assertUnchanged(ns, [...lookalikes, ...collisions], before, 'deletion');
});
