// What one reconcile of a workspace would write to its children, decided as the reconciler decides
// (same facts, builders and rules), without writing: the apply bodies for a dry-run, or a note when
// the reconciler would write nothing or cannot (a child it does not own, an invalid spec).
import type { KubernetesObject, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_HASH, ANNOTATION_REVISION } from '../api/labels.js';
import { errorsOf, formatIssues, validateWorkspace } from '../api/validation.js';
import { resolveFromFacts } from '../builders/facts.js';
import { replicasFor } from '../builders/replicas.js';
import { buildWorkspace } from '../builders/workspace.js';
import type { OperatorConfig, WorkspaceCaches, WorkspaceObject } from '../controllers/workspace/context.js';
import { gatherFacts, volumeKindOf, type FactCaches } from '../controllers/workspace/gather-facts.js';
import { notOwnedMessage, ownedBy } from '../controllers/workspace/ownership.js';
import { adoptableAsIs, selectiveUpdate } from '../controllers/workspace/selective-update.js';
import { needsApply } from '../runtime/drift.js';
import { Resources, type ResourceType } from '../runtime/resources.js';

export type DiffCaches = FactCaches & Pick<WorkspaceCaches, 'statefulSets' | 'services'>;

export interface ChildIntent {
  type: ResourceType;
  namespace: string;
  name: string;
  live?: KubernetesObject;
  /** The body the reconciler would apply; absent when it would not write this child. */
  apply?: KubernetesObject;
  /** Why nothing (or something other than an apply) would happen. */
  note?: string;
  /** The reconciler would delete it to recreate it (an immutable field changes). */
  recreate?: boolean;
}

export type WorkspaceIntent = { ok: true; children: ChildIntent[] } | { ok: false; message: string };

export function workspaceIntent(ws: WorkspaceObject, caches: DiffCaches, config: OperatorConfig): WorkspaceIntent {
  if (ws.tuning) return { ok: false, message: 'tuning workspace: its Job is not compared' };
  const ns = ws.metadata.namespace ?? 'default';
  const name = ws.metadata.name ?? '';
  const sts = caches.statefulSets.get(ns, name);
  if (sts && !ownedBy(sts, ws)) return { ok: false, message: notOwnedMessage('StatefulSet', sts) };
  const facts = gatherFacts(ws, { caches, config }, sts);
  const resolved = resolveFromFacts(ws, facts);
  const issues = errorsOf(validateWorkspace(ws, { resolved, operation: 'create' }));
  if (issues.length) return { ok: false, message: `invalid spec, kaito-ts writes nothing: ${formatIssues(issues)}` };
  const built = buildWorkspace(ws, facts, resolved);
  if (!built.ok) return { ok: false, message: built.problems.map((p) => `${p.field}: ${p.message}`).join('; ') };

  const { controllerRevision: cr, mainService, headlessService, statefulSet } = built.objects;
  const children: ChildIntent[] = [];
  const liveCr = caches.controllerRevisions.get(ns, cr.metadata?.name ?? '');
  const crIntent: ChildIntent = { type: Resources.controllerRevisions, namespace: ns, name: cr.metadata?.name ?? '', ...(liveCr ? { live: liveCr } : { apply: cr }) };
  if (liveCr && !ownedBy(liveCr, ws)) crIntent.note = notOwnedMessage('ControllerRevision', liveCr);
  else if (liveCr && liveCr.metadata?.annotations?.[ANNOTATION_HASH] !== built.revisionHash) crIntent.note = 'revision name conflicts, the hash values are different';
  children.push(crIntent);
  for (const svc of [headlessService, mainService]) children.push(serviceIntent(ws, svc, caches));

  const stsIntent: ChildIntent = { type: Resources.statefulSets, namespace: ns, name, ...(sts ? { live: sts } : { apply: statefulSet }) };
  if (sts) {
    // As the reconciler: a StatefulSet at this revision with the right replica count is left as it is.
    const replicas = replicasFor(built.targetNodeCount, built.replicaBound, sts.spec?.replicas);
    const sameRevision = sts.metadata?.annotations?.[ANNOTATION_REVISION] === String(built.revision);
    const fresh = sameRevision ? undefined : buildWorkspace(ws, { ...gatherFacts(ws, { caches, config }, undefined), storageClassNames: facts.storageClassNames }, resolved);
    const freshKind = fresh?.ok ? volumeKindOf(fresh.objects.statefulSet) : undefined;
    if (freshKind && freshKind !== volumeKindOf(sts)) {
      stsIntent.recreate = true;
      stsIntent.note = `would be deleted and recreated: model weights volume changes from ${volumeKindOf(sts)} to ${freshKind}`;
    } else if ((!sameRevision || replicas !== sts.spec?.replicas) && !adoptableAsIs(ws, statefulSet, sts, replicas)) {
      const update = selectiveUpdate(statefulSet, sts);
      stsIntent.apply = { ...update, spec: { ...update.spec!, replicas } } as V1StatefulSet;
    }
  }
  children.push(stsIntent);
  return { ok: true, children };
}

function serviceIntent(ws: WorkspaceObject, desired: V1Service, caches: DiffCaches): ChildIntent {
  const ns = desired.metadata?.namespace ?? '';
  const name = desired.metadata?.name ?? '';
  const live = caches.services.get(ns, name);
  const intent: ChildIntent = { type: Resources.services, namespace: ns, name, ...(live ? { live } : {}) };
  if (live && !ownedBy(live, ws)) intent.note = notOwnedMessage('Service', live);
  else if (needsApply(desired, live)) intent.apply = desired;
  return intent;
}
