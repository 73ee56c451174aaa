// ControllerRevision history: KAITO keeps at most MaxRevisionHistoryLimit (10) older revisions
// besides the new one, deleting one per reconcile; kaito-ts prunes every surplus one in one pass.
// Only revisions this workspace controls are counted or pruned: a look-alike carrying our label
// (a user's copy, a leftover of a deleted workspace of the same name) is never touched.
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { ANNOTATION_HASH } from '../../api/labels.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { Action } from '../shared/actions.js';
import type { WorkspaceObject } from './context.js';
import { notOwnedMessage, ownedBy, ownedOnly } from './ownership.js';
import { Reason } from './reasons.js';
import type { WorkspaceSnapshot } from './snapshot.js';

export const MAX_REVISION_HISTORY = 10;

/** The workspace's own ControllerRevisions (controller UID), oldest first. */
export function ownedRevisions(ws: WorkspaceObject, labelled: readonly DeepReadonly<V1ControllerRevision>[]): DeepReadonly<V1ControllerRevision>[] {
  return ownedOnly(labelled, ws).sort((a, b) => a.revision - b.revision);
}

export type RevisionPlan = { ok: true; actions: Action[] } | { ok: false; reason: string; message: string };

/**
 * Records `desired` when it is new and prunes the surplus history. A revision with our name that
 * another object controls is reported, never taken as ours; one of ours with another hash is KAITO's
 * revision conflict.
 */
export function planRevision(snap: Pick<WorkspaceSnapshot, 'ws' | 'revisions' | 'revisionNamed'>, desired: V1ControllerRevision, hash: string): RevisionPlan {
  const { ws } = snap;
  const name = desired.metadata?.name ?? '';
  const existing = snap.revisionNamed(name);
  if (existing && !ownedBy(existing, ws))
    return {
      ok: false,
      reason: Reason.NotOwned,
      message: notOwnedMessage('ControllerRevision', existing, 'kaito-ts leaves it untouched and cannot record this revision until it is deleted or renamed'),
    };
  if (existing && existing.metadata?.annotations?.[ANNOTATION_HASH] !== hash)
    return { ok: false, reason: Reason.RevisionConflict, message: `revision name conflicts, the hash values are different (${name})` };
  const actions: Action[] = existing
    ? []
    : [
        {
          kind: 'apply',
          type: Resources.controllerRevisions,
          object: desired,
          why: `revision ${desired.revision} of the spec`,
          refusedReason: Reason.ChildObjectRejected,
        },
      ];
  const owned = ownedRevisions(ws, existing ? snap.revisions : [...snap.revisions, desired]);
  const surplus = owned.length - (MAX_REVISION_HISTORY + 1);
  for (const cr of owned.slice(0, Math.max(0, surplus))) {
    actions.push({
      kind: 'delete',
      type: Resources.controllerRevisions,
      ref: { namespace: cr.metadata?.namespace, name: cr.metadata?.name ?? '' },
      uid: cr.metadata?.uid ?? '',
      why: `history beyond ${MAX_REVISION_HISTORY} older revisions`,
    });
  }
  return { ok: true, actions };
}
