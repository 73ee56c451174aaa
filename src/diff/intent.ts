// What one reconcile of a workspace would write to its children: the controller's own plan
// (planWorkspace) on the listed objects, shown child by child. Nothing here decides anything.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { OperatorConfig, WorkspaceCaches, WorkspaceObject } from '../controllers/workspace/context.js';
import { planWorkspace } from '../controllers/workspace/plan.js';
import { cachesFromObjects, readSnapshot } from '../controllers/workspace/snapshot.js';
import { ANNOTATION_REVISION } from '../api/labels.js';
import type { HubModelState } from '../catalog/model-generator.js';
import { FIELD_MANAGER } from '../runtime/client.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { Resources, type ResourceType } from '../runtime/resources.js';

export type DiffCaches = Pick<WorkspaceCaches, 'storageClasses' | 'nodes' | 'configMaps' | 'controllerRevisions' | 'statefulSets' | 'services'> &
  Partial<WorkspaceCaches>;

export interface ChildIntent {
  type: ResourceType;
  namespace: string;
  name: string;
  live?: DeepReadonly<KubernetesObject>;
  /** The body the reconciler would apply; absent when it would not write this child. */
  apply?: KubernetesObject;
  /** Why nothing (or something other than an apply) would happen. */
  note?: string;
  /** The reconciler would delete it to recreate it (an immutable field changes). */
  recreate?: boolean;
  /**
   * With rebuild, the StatefulSet only: what the reconciler itself would apply now (absent: nothing),
   * and whether it keeps the live pod template by adoption (at the workspace's revision, or a KAITO
   * template StatefulSet taken over as is) until the workspace's spec changes.
   */
  rebuild?: { written?: KubernetesObject; adopted: boolean };
}

export type WorkspaceIntent = { ok: true; children: ChildIntent[] } | { ok: false; message: string };

/**
 * What the reconciler's plan writes to the live StatefulSet, and whether it keeps the live template by
 * adoption: at the revision it computes, or a revision-less one it leaves as it is (adoptableAsIs).
 */
function reconcilerWrites(
  plan: ReturnType<typeof planWorkspace>,
  desired: KubernetesObject,
  live: DeepReadonly<KubernetesObject>,
  name: string,
): { written?: KubernetesObject; adopted: boolean } {
  let sts: 'apply' | 'delete' | undefined;
  let written: KubernetesObject | undefined;
  for (const a of plan.actions) {
    if (a.kind === 'apply' && a.type === Resources.statefulSets && a.object.metadata?.name === name) [sts, written] = ['apply', a.object];
    if (a.kind === 'delete' && a.type === Resources.statefulSets && a.ref.name === name) sts = 'delete';
  }
  const liveRevision = live.metadata?.annotations?.[ANNOTATION_REVISION];
  const adopted = liveRevision === undefined ? !sts : liveRevision === desired.metadata?.annotations?.[ANNOTATION_REVISION];
  return { ...(written ? { written } : {}), adopted };
}

/** The children diff compares, by kind: their resource and cache. */
const COMPARED: Record<string, { type: ResourceType; cache: 'controllerRevisions' | 'services' | 'statefulSets' }> = {
  ControllerRevision: { type: Resources.controllerRevisions, cache: 'controllerRevisions' },
  Service: { type: Resources.services, cache: 'services' },
  StatefulSet: { type: Resources.statefulSets, cache: 'statefulSets' },
};

/**
 * `rebuild`: plan as if the workspace had no StatefulSet, so the StatefulSet kaito-ts would build is
 * compared with the live one even when the live one is at kaito-ts's revision (which the reconciler
 * leaves as it is): how the two generators differ, not what the reconciler would write.
 * `hubModels`: the hub's answer for an id outside the catalog, as the operator's snapshot holds it.
 */
export function workspaceIntent(
  ws: WorkspaceObject,
  caches: DiffCaches,
  config: OperatorConfig,
  now = new Date(),
  rebuild = false,
  hubModels?: ReadonlyMap<string, HubModelState>,
): WorkspaceIntent {
  if (ws.tuning) return { ok: false, message: 'tuning workspace: its Job is not compared' };
  const all = { ...cachesFromObjects([]), ...caches };
  const planned = rebuild ? { ...all, statefulSets: cachesFromObjects([]).statefulSets } : all;
  // The NodeClaim CRD is not looked at: claims are not children diff compares.
  const planOn = (c: typeof all) => {
    const snap = readSnapshot(ws, { caches: c, config, fieldManager: FIELD_MANAGER, now, provisioningCrdInstalled: () => undefined });
    return planWorkspace(hubModels ? { ...snap, hubModels } : snap);
  };
  const plan = planOn(planned);
  // With rebuild, the reconciler's own plan too: which of the rebuilt differences it would write.
  const current = rebuild ? planOn(all) : undefined;
  if (plan.failure)
    return {
      ok: false,
      message: plan.failure.reason === 'InvalidSpec' ? `invalid spec, kaito-ts writes nothing: ${plan.failure.message}` : plan.failure.message,
    };
  const children: ChildIntent[] = [];
  for (const desired of plan.desired ?? []) {
    const compared = desired.kind ? COMPARED[desired.kind] : undefined;
    if (!compared) continue;
    const { type } = compared;
    const namespace = desired.metadata?.namespace ?? '';
    const name = desired.metadata?.name ?? '';
    const live = all[compared.cache].get(namespace, name);
    const child: ChildIntent = { type, namespace, name, ...(live ? { live } : {}) };
    for (const a of plan.actions) {
      if (a.kind === 'apply' && a.type === type && a.object.metadata?.name === name) child.apply = a.object;
      if (rebuild && a.kind === 'create' && a.type === type && type === Resources.statefulSets && a.object.metadata?.name === name) child.apply = a.object;
      if (a.kind === 'delete' && a.type === type && a.ref.name === name)
        Object.assign(child, { recreate: true, note: `would be deleted and recreated: ${a.why}` });
    }
    if (current && live && type === Resources.statefulSets) child.rebuild = reconcilerWrites(current, desired, live, name);
    children.push(child);
  }
  return { ok: true, children };
}
