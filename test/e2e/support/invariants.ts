// "Nothing lost, no duplicate, no orphan" for a namespace of converged workspaces: exactly one
// StatefulSet, two Services and one labelled ControllerRevision per workspace, each controlled by a live
// workspace; the StatefulSet controller's own revisions by a live StatefulSet.
import assert from 'node:assert/strict';
import type { KubernetesObject, V1ControllerRevision, V1StatefulSet } from '@kubernetes/client-node';
import { WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import { getAll, listWorkspaces, type Recorded } from './operator.js';

export interface ChildCounts {
  workspaces: number;
  statefulSets: number;
  services: number;
  revisions: number;
  orphans: number;
}

export function names(objs: KubernetesObject[]): string[] {
  return objs.map((o) => o.metadata?.name ?? '').sort();
}

export async function assertOneOfEachNoOrphan(ns: string, expected: string[]): Promise<ChildCounts> {
  const want = [...expected].sort();
  const workspaces = await listWorkspaces(ns);
  assert.deepEqual(names(workspaces), want, 'every workspace is still there');
  for (const ws of workspaces) {
    assert.equal(ws.metadata.finalizers?.filter((f) => f === WORKSPACE_FINALIZER).length, 1, `${ws.metadata.name}: one finalizer`);
  }
  const uids = new Set(workspaces.map((ws) => ws.metadata.uid));
  const sts = await getAll<V1StatefulSet>(ns, 'statefulsets');
  const services = await getAll(ns, 'services');
  const allRevisions = await getAll<V1ControllerRevision>(ns, 'controllerrevisions');
  const revisions = allRevisions.filter((r) => r.metadata?.labels?.['workspace.kaito.io/name']);
  assert.deepEqual(names(sts), want, 'one StatefulSet per workspace');
  assert.deepEqual(names(services), want.flatMap((n) => [n, `${n}-headless`]).sort(), 'two Services per workspace');
  assert.deepEqual(revisions.map((r) => r.metadata?.labels?.['workspace.kaito.io/name']).sort(), want, 'one revision per workspace');
  const stsUids = new Set(sts.map((s) => s.metadata?.uid));
  let orphans = 0;
  for (const obj of [...sts, ...services, ...revisions] as KubernetesObject[]) {
    const owner = obj.metadata?.ownerReferences?.find((o) => o.controller);
    if (owner?.kind !== 'Workspace' || !uids.has(owner.uid)) orphans++;
  }
  for (const r of allRevisions.filter((x) => !revisions.includes(x))) {
    const owner = r.metadata?.ownerReferences?.find((o) => o.controller);
    if (owner?.kind !== 'StatefulSet' || !stsUids.has(owner.uid)) orphans++;
  }
  assert.equal(orphans, 0, 'every child is controlled by a live owner');
  return { workspaces: workspaces.length, statefulSets: sts.length, services: services.length, revisions: revisions.length, orphans };
}

/** Names ADDED more than once, or DELETED, in a recorded watch: objects re-created instead of kept. */
export function recreated(events: Recorded[]): string[] {
  const added = new Map<string, number>();
  const out = new Set<string>();
  for (const e of events) {
    const name = e.obj.metadata?.name ?? '';
    if (e.type === 'DELETED') out.add(name);
    if (e.type === 'ADDED') added.set(name, (added.get(name) ?? 0) + 1);
  }
  for (const [name, n] of added) if (n > 1) out.add(name);
  return [...out].sort();
}
