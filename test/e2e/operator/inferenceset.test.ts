// InferenceSets on the real control plane: children Ready, `kubectl scale` through the scale
// subresource, deletion, a storm of scale writes while the operator is SIGKILLed, then an audit, and
// the HPA controller scaling one on an external metric (the simcluster's metrics adapter).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { LABEL_INFERENCESET_CREATED_BY } from '../../../src/api/labels.js';
import { kubectl, waitFor } from '../harness.js';
import { applyInferenceSet, members, succeeded, waitReplicas, type IS } from '../support/inferenceset.js';
import {
  conditionOf,
  getAll,
  getOne,
  killHard,
  listWorkspaces,
  pool,
  record,
  selectorFor,
  sleep,
  spawnOperator,
  warningEvents,
  world,
} from '../support/operator.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { EXTERNAL_METRICS_GROUP, EXTERNAL_METRICS_VERSION, METRIC_VALUES_CONFIGMAP } from '../../../src/simcluster/metrics-adapter/metrics-adapter.js';

test("InferenceSet: 2 BYO replicas become 2 Ready child Workspaces with KAITO's labels, owner and status", async (t) => {
  const w = await world(t, { pools: [pool('a10', 2)] });
  await applyInferenceSet(w.ns, 'x', 2, selectorFor(w.pools[0]!));
  const is = await waitReplicas(w.ns, 'x', 2);
  const kids = await members(w.ns, 'x');
  for (const ws of kids) {
    assert.match(ws.metadata.name ?? '', /^x-[a-z0-9]{5}$/);
    assert.equal(ws.metadata.labels?.team, 'e2e');
    const owner = ws.metadata.ownerReferences?.find((r) => r.controller);
    assert.deepEqual([owner?.kind, owner?.name, owner?.uid], ['InferenceSet', 'x', is.metadata?.uid]);
    assert.deepEqual(ws.resource.labelSelector, selectorFor(w.pools[0]!));
  }
  assert.equal(is.status?.selector, 'inferenceset.kaito.sh/created-by=x,apps.kubernetes.io/pod-index=0');
  // The scale selector picks one pod per child: what an HPA on pod metrics averages over.
  const selected = await getAll<KubernetesObject>(w.ns, 'pods', is.status?.selector ?? '');
  assert.deepEqual(selected.map((p) => p.metadata?.name).sort(), kids.map((k) => `${k.metadata.name}-0`).sort());
  assert.equal(is.status?.replicas, 2);
  assert.deepEqual(is.metadata?.finalizers, ['inferenceset.finalizer.kaito.sh']);
  assert.equal(conditionOf(is as never, 'InferenceSetReady')?.status, 'True');
  const revisions = await getAll(w.ns, 'controllerrevisions', 'inferenceset.kaito.io/name=x');
  assert.equal(revisions.length, 1);
  assert.equal(is.metadata?.annotations?.['inferenceset.kaito.io/revision'], '1');
  // The members' StatefulSets select and label pods with created-by (the scale selector matches them).
  for (const ws of kids) {
    const sts = await getOne<
      { spec?: { selector?: { matchLabels?: Record<string, string> }; template?: { metadata?: { labels?: Record<string, string> } } } } & KubernetesObject
    >(w.ns, 'statefulset', ws.metadata.name ?? '');
    assert.equal(sts?.spec?.selector?.matchLabels?.[LABEL_INFERENCESET_CREATED_BY], 'x');
    assert.equal(sts?.spec?.template?.metadata?.labels?.[LABEL_INFERENCESET_CREATED_BY], 'x');
  }
});

test('InferenceSet: kubectl scale 0 → 3 → 1 → 0 through the scale subresource; delete cleans up', async (t) => {
  const w = await world(t, { pools: [pool('a10', 3)] });
  await applyInferenceSet(w.ns, 'x', 0, selectorFor(w.pools[0]!));
  await waitReplicas(w.ns, 'x', 0);
  const scale = JSON.parse(await kubectl(['get', '--raw', `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/inferencesets/x/scale`])) as {
    status?: { selector?: string };
  };
  assert.equal(scale.status?.selector, 'inferenceset.kaito.sh/created-by=x,apps.kubernetes.io/pod-index=0');
  for (const n of [3, 1, 0]) {
    await kubectl(['scale', 'inferenceset/x', `--replicas=${n}`], { namespace: w.ns });
    await waitReplicas(w.ns, 'x', n);
  }
  await kubectl(['scale', 'inferenceset/x', '--replicas=2'], { namespace: w.ns });
  await waitReplicas(w.ns, 'x', 2);
  await kubectl(['delete', 'inferenceset', 'x', '--wait=false'], { namespace: w.ns });
  await waitFor(
    'the InferenceSet, its children and their StatefulSets gone',
    async () => !(await getOne(w.ns, 'inferenceset', 'x')) && (await members(w.ns, 'x')).length === 0 && (await getAll(w.ns, 'statefulsets')).length === 0,
    { timeoutMs: 60_000 },
  );
});

test('InferenceSet: 300 random scale writes while the operator is SIGKILLed 10 times: no duplicate child, no orphan, the final count right', async (t) => {
  const w = await world(t, { pools: [pool('a10', 4)], operator: false });
  const seen = await record(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  await applyInferenceSet(w.ns, 'x', 1, selectorFor(w.pools[0]!));
  let op = await spawnOperator(w.ns);
  t.after(() => killHard(op.child));
  const writes: number[] = [1];
  let kills = 0;
  for (let i = 0; i < 300; i++) {
    const n = Math.floor(Math.random() * 5);
    writes.push(n);
    await kubectl(['scale', 'inferenceset/x', `--replicas=${n}`], { namespace: w.ns });
    await sleep(Math.floor(Math.random() * 100));
    if (i % 30 === 29 && kills < 10) {
      await killHard(op.child);
      assert.equal(op.child.signalCode, 'SIGKILL');
      kills++;
      op = await spawnOperator(w.ns);
    }
  }
  const final = writes.at(-1)!;
  try {
    await waitReplicas(w.ns, 'x', final, 180_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\noperator output:\n${op.output().slice(-3000)}`);
  }
  // Settled: nothing more is created or deleted.
  const before = seen.length;
  await sleep(5_000);
  assert.deepEqual(
    seen
      .slice(before)
      .filter((e) => e.type !== 'MODIFIED')
      .map((e) => `${e.type} ${e.obj.metadata?.name}`),
    [],
  );
  // No duplicate: every child was created by an upward step of the writes (at most the sum of the rises).
  const created = new Set(seen.filter((e) => e.type === 'ADDED').map((e) => e.obj.metadata?.uid));
  const rises = writes.reduce((sum, n, i) => sum + Math.max(0, n - (i ? writes[i - 1]! : 0)), 0);
  assert.ok(created.size <= rises, `${created.size} children created for ${rises} upward replicas`);
  // No orphan: every Workspace of the namespace is a live child of x, every StatefulSet belongs to one.
  const is = await getOne<IS>(w.ns, 'inferenceset', 'x');
  const all = await listWorkspaces(w.ns);
  assert.equal(all.length, final);
  for (const ws of all) assert.equal(ws.metadata.ownerReferences?.find((r) => r.controller)?.uid, is?.metadata?.uid, `${ws.metadata.name} owned by x`);
  const names = new Set(all.map((ws) => ws.metadata.name));
  for (const sts of await getAll(w.ns, 'statefulsets')) assert.ok(names.has(sts.metadata?.name), `StatefulSet ${sts.metadata?.name} has its workspace`);
  assert.equal(is?.status?.replicas, final);
  await killHard(op.child);
  await w.start();
});

test('InferenceSet: a template rollout of a 3-replica set never drops below 3 Ready when a spare node exists', async (t) => {
  // 4 BYO nodes, one per child: 3 for the replicas, 1 spare for the surge child (maxSurge 1, the default).
  const w = await world(t, { pools: [pool('a10', 4)] });
  const seen = await record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  await applyInferenceSet(w.ns, 'x', 3, selectorFor(w.pools[0]!));
  await waitReplicas(w.ns, 'x', 3);
  const before = new Set((await members(w.ns, 'x')).map((ws) => ws.metadata.uid));
  // The recorder's own view must show the 3 Ready children before the change (a watch may lag).
  const readyIn = (events: typeof seen) => {
    const last = new Map<string, WorkspaceObject>();
    for (const e of events)
      if (e.type === 'DELETED') last.delete(e.obj.metadata.uid ?? '');
      else last.set(e.obj.metadata.uid ?? '', e.obj);
    return [...last.values()].filter((ws) => !ws.metadata.deletionTimestamp && succeeded(ws)).length;
  };
  await waitFor('the recorded watch shows 3 Ready children', async () => readyIn(seen) === 3, { timeoutMs: 30_000 });
  const from = seen.length;

  // A template change (the template's annotations reach the children, so it makes a new template hash).
  await applyInferenceSet(w.ns, 'x', 3, selectorFor(w.pools[0]!), { templateAnnotations: { 'e2e.kaito-ts.io/rev': '2' } });
  const rolled = (ws: WorkspaceObject) => ws.metadata.annotations?.['e2e.kaito-ts.io/rev'] === '2';
  const is = await waitFor(
    'x: 3 Ready children, all of the new template, none of the old',
    async () => {
      const all = await members(w.ns, 'x');
      const set = await getOne<IS>(w.ns, 'inferenceset', 'x');
      const done = all.length === 3 && all.every((ws) => rolled(ws) && succeeded(ws) && !before.has(ws.metadata.uid)) && set?.status?.readyReplicas === 3;
      return done ? set : undefined;
    },
    { timeoutMs: 600_000 },
  );

  // Every watch event from the template change on, replayed in order: the Ready count seen after each.
  const state = new Map<string, WorkspaceObject>();
  const apply = (e: (typeof seen)[number]) => {
    if (e.type === 'DELETED') state.delete(e.obj.metadata.uid ?? '');
    else state.set(e.obj.metadata.uid ?? '', e.obj);
  };
  for (const e of seen.slice(0, from)) apply(e);
  const live = () => [...state.values()].filter((ws) => !ws.metadata.deletionTimestamp && ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] === 'x');
  let minReady = Infinity;
  let maxLive = 0;
  for (const e of seen.slice(from)) {
    apply(e);
    minReady = Math.min(minReady, live().filter(succeeded).length);
    maxLive = Math.max(maxLive, live().length);
  }
  assert.ok(minReady >= 3, `Ready children dropped to ${minReady} during the rollout`);
  assert.ok(maxLive <= 4, `${maxLive} live children at once: more than replicas + maxSurge`);
  // Create before delete, one for one: exactly 3 new children, the 3 old ones deleted.
  const added = new Set(
    seen
      .slice(from)
      .filter((e) => e.type === 'ADDED')
      .map((e) => e.obj.metadata.uid),
  );
  assert.equal(added.size, 3, 'one new child per replica, no surge loop');
  const deleted = new Set(
    seen
      .slice(from)
      .filter((e) => e.type === 'DELETED')
      .map((e) => e.obj.metadata.uid),
  );
  assert.deepEqual(
    [...before].filter((uid) => !deleted.has(uid)),
    [],
    'every old child deleted',
  );
  const progressing = conditionOf(is as never, 'InferenceSetProgressing');
  assert.deepEqual([progressing?.status, progressing?.reason], ['True', 'RolloutComplete']);
});

test('InferenceSet: nodeCountLimit caps a scale-up with InferenceSetReady=False NodeCountLimitReached and one Warning event', async (t) => {
  // One node per child (phi-3-mini on an A10), a limit of 2 nodes, 3 nodes available.
  const w = await world(t, { pools: [pool('a10', 3)] });
  await applyInferenceSet(w.ns, 'x', 1, selectorFor(w.pools[0]!), { nodeCountLimit: 2 });
  await waitReplicas(w.ns, 'x', 1);
  await kubectl(['scale', 'inferenceset/x', '--replicas=3'], { namespace: w.ns });
  const is = await waitFor(
    'x: 2 Ready children and the limit reported',
    async () => {
      const all = await members(w.ns, 'x');
      const set = await getOne<IS>(w.ns, 'inferenceset', 'x');
      const c = conditionOf(set as never, 'InferenceSetReady');
      return all.length === 2 && all.every(succeeded) && set?.status?.readyReplicas === 2 && c?.reason === 'NodeCountLimitReached' ? set : undefined;
    },
    { timeoutMs: 180_000 },
  );
  const c = conditionOf(is as never, 'InferenceSetReady');
  assert.equal(c?.status, 'False');
  assert.match(c?.message ?? '', /^spec\.nodeCountLimit 2 allows 2 of 3 replicas \(1 node\(s\) each\)/);
  assert.equal(is.status?.replicas, 2);
  // Settled: no third child, and the Warning event was emitted once.
  await sleep(5_000);
  assert.equal((await members(w.ns, 'x')).length, 2);
  const events = (await warningEvents(w.ns, 'x')).filter((e) => e.reason === 'NodeCountLimitReached');
  assert.equal(events.length, 1, JSON.stringify(events));
  // Raising the limit lets the scale-up finish.
  await kubectl(['patch', 'inferenceset', 'x', '--type=merge', '-p', JSON.stringify({ spec: { nodeCountLimit: 3 } })], { namespace: w.ns });
  await waitReplicas(w.ns, 'x', 3);
});

test("InferenceSet: kube-controller-manager's HPA scales it 1 → 3 → 1 on an external metric served through the aggregation layer", async (t) => {
  const w = await world(t, { pools: [pool('a10', 3)] });
  await waitFor(
    'the external metrics APIService Available',
    async () =>
      (
        await kubectl([
          'get',
          'apiservice',
          `${EXTERNAL_METRICS_VERSION}.${EXTERNAL_METRICS_GROUP}`,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Available")].status}',
        ])
      ).trim() === 'True',
  );
  await applyInferenceSet(w.ns, 'auto', 1, selectorFor(w.pools[0]!));
  await waitReplicas(w.ns, 'auto', 1);
  const setMetric = (value: string) =>
    kubectl(['create', 'configmap', METRIC_VALUES_CONFIGMAP, `--from-literal=queue_depth=${value}`, '--dry-run=client', '-o', 'json'], {
      namespace: w.ns,
    }).then((cm) => kubectl(['apply', '-f', '-'], { namespace: w.ns, input: cm }));
  await setMetric('30');
  const hpa = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'auto' },
    spec: {
      scaleTargetRef: { apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', name: 'auto' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{ type: 'External', external: { metric: { name: 'queue_depth' }, target: { type: 'AverageValue', averageValue: '10' } } }],
      // No stabilization window: the test sees each decision at the next sync (3 s here).
      behavior: { scaleUp: { stabilizationWindowSeconds: 0 }, scaleDown: { stabilizationWindowSeconds: 0 } },
    },
  };
  await kubectl(['apply', '-f', '-'], { namespace: w.ns, input: JSON.stringify(hpa) });

  // 30 queued requests at 10 per replica: 3 replicas, read from /scale and written through it.
  const up = await waitReplicas(w.ns, 'auto', 3, 180_000);
  assert.equal(up.spec?.replicas, 3);
  const status = JSON.parse(await kubectl(['get', 'hpa', 'auto', '-o', 'json'], { namespace: w.ns })) as {
    status?: {
      currentReplicas?: number;
      desiredReplicas?: number;
      currentMetrics?: { external?: { current?: { averageValue?: string } } }[];
      conditions?: { type: string; status: string }[];
    };
  };
  t.diagnostic(`HPA after scale-up: ${JSON.stringify(status.status)}`);
  assert.equal(status.status?.desiredReplicas, 3);
  assert.equal(status.status?.conditions?.find((c) => c.type === 'ScalingActive')?.status, 'True', 'the HPA reads the metric and the scale subresource');

  // The queue drains: back to the minimum.
  await setMetric('4');
  await waitReplicas(w.ns, 'auto', 1, 180_000);
  await kubectl(['delete', 'hpa', 'auto'], { namespace: w.ns });
});
