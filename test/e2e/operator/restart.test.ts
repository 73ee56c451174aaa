// The operator process killed (SIGKILL, no cleanup) part-way through, twice, then restarted: it must
// converge with exactly one of each object per workspace and nothing orphaned.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject, V1ControllerRevision, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import { waitFor } from '../harness.js';
import { applyWorkspace, getAll, killHard, listWorkspaces, pool, record, selectorFor, spawnOperator, waitReady, world } from '../support/operator.js';

const NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];

test('operator SIGKILLed mid-way (twice) and restarted: converges, no duplicate, no orphan', async (t) => {
  const p = pool('a100', NAMES.length);
  const w = await world(t, { pools: [p], operator: false });
  for (const name of NAMES) {
    await applyWorkspace(w.ns, { metadata: { name }, resource: { labelSelector: selectorFor(p) }, inference: { preset: { name: 'phi-4-mini-instruct' } } });
  }

  // Watches, not polls: the kill lands within milliseconds of the first object appearing.
  const revisionsSeen = await record(t, `/apis/apps/v1/namespaces/${w.ns}/controllerrevisions`);
  const statefulSetsSeen = await record(t, `/apis/apps/v1/namespaces/${w.ns}/statefulsets`);
  const killWhen = async (what: string, probe: () => boolean) => {
    const op = await spawnOperator(w.ns);
    t.after(() => killHard(op.child));
    try {
      await waitFor(what, probe, { timeoutMs: 30_000, intervalMs: 5 });
    } catch (err) {
      throw new Error(`${(err as Error).message}\noperator output:\n${op.output().slice(-3000)}`);
    }
    await killHard(op.child);
    assert.equal(op.child.signalCode, 'SIGKILL');
  };
  await killWhen('a first ControllerRevision', () => revisionsSeen.length > 0);
  const first = { revisions: (await getAll(w.ns, 'controllerrevisions')).length, statefulSets: (await getAll(w.ns, 'statefulsets')).length };
  await killWhen('a first StatefulSet', () => statefulSetsSeen.length > 0);
  const second = { revisions: (await getAll(w.ns, 'controllerrevisions')).length, statefulSets: (await getAll(w.ns, 'statefulsets')).length };
  t.diagnostic(`after kill 1: ${JSON.stringify(first)}; after kill 2: ${JSON.stringify(second)} (of ${NAMES.length} workspaces)`);

  await w.start();
  for (const name of NAMES) await waitReady(w.ns, name);

  const workspaces = await listWorkspaces(w.ns);
  const uids = new Map(workspaces.map((ws) => [ws.metadata.uid ?? '', ws.metadata.name ?? '']));
  for (const ws of workspaces) {
    assert.equal(ws.metadata.finalizers?.filter((f) => f === WORKSPACE_FINALIZER).length, 1, `${ws.metadata.name}: one finalizer`);
    assert.equal(ws.metadata.annotations?.['workspace.kaito.io/revision'], '1');
  }
  const sts = await getAll<V1StatefulSet>(w.ns, 'statefulsets');
  const services = await getAll(w.ns, 'services');
  const allRevisions = await getAll<V1ControllerRevision>(w.ns, 'controllerrevisions');
  // The StatefulSet controller keeps its own revisions (owned by the StatefulSets); ours carry the label.
  const revisions = allRevisions.filter((r) => r.metadata?.labels?.['workspace.kaito.io/name']);
  const stsUids = new Set(sts.map((s) => s.metadata?.uid));
  for (const r of allRevisions.filter((x) => !revisions.includes(x))) {
    const owner = r.metadata?.ownerReferences?.find((o) => o.controller);
    assert.ok(owner?.kind === 'StatefulSet' && stsUids.has(owner.uid), `ControllerRevision ${r.metadata?.name} belongs to a live StatefulSet`);
  }
  const claims = await getAll<V1PersistentVolumeClaim>(w.ns, 'pvc');
  const pods = await getAll<V1Pod>(w.ns, 'pods');
  assert.deepEqual(names(sts), NAMES);
  assert.deepEqual(names(services), NAMES.flatMap((n) => [n, `${n}-headless`]).sort());
  assert.equal(revisions.length, NAMES.length, `one revision each: ${names(revisions).join(', ')}`);
  assert.deepEqual(revisions.map((r) => r.metadata?.labels?.['workspace.kaito.io/name']).sort(), NAMES);
  assert.deepEqual(
    names(claims),
    NAMES.map((n) => `model-weights-volume-${n}-0`),
  );
  assert.ok(claims.every((c) => c.status?.phase === 'Bound'));
  assert.deepEqual(
    names(pods),
    NAMES.map((n) => `${n}-0`),
  );
  // No orphan: every child is controlled by a live workspace of this namespace.
  for (const obj of [...sts, ...services, ...revisions] as KubernetesObject[]) {
    const owner = obj.metadata?.ownerReferences?.find((o) => o.controller);
    assert.equal(owner?.kind, 'Workspace', `${obj.kind} ${obj.metadata?.name} controlled by a Workspace`);
    assert.ok(uids.has(owner.uid), `${obj.kind} ${obj.metadata?.name}: owner ${owner.uid} is a live workspace`);
  }
});

function names(objs: KubernetesObject[]): string[] {
  return objs.map((o) => o.metadata?.name ?? '').sort();
}
