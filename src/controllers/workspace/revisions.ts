// ControllerRevision history: KAITO keeps at most MaxRevisionHistoryLimit (10) older revisions
// besides the new one, deleting one per reconcile; kaito-ts prunes every surplus one in one pass.
// Only revisions this workspace controls are counted or pruned: a look-alike carrying our label
// (a user's copy, a leftover of a deleted workspace of the same name) is never touched.
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { LABEL_REVISION_WORKSPACE_NAME } from '../../api/labels.js';
import { Resources } from '../../runtime/resources.js';
import type { WorkspaceCaches, WorkspaceDeps, WorkspaceObject } from './context.js';
import { deleteExactly, ownedOnly } from './ownership.js';

export const MAX_REVISION_HISTORY = 10;

/** The workspace's own ControllerRevisions (controller UID), oldest first. */
export function ownedRevisions(ws: WorkspaceObject, caches: Pick<WorkspaceCaches, 'controllerRevisions'>): V1ControllerRevision[] {
  const labelled = caches.controllerRevisions.list({ namespace: ws.metadata.namespace, selector: { matchLabels: { [LABEL_REVISION_WORKSPACE_NAME]: ws.metadata.name ?? '' } } });
  return ownedOnly(labelled, ws).sort((a, b) => a.revision - b.revision);
}

export async function pruneRevisions(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<void> {
  const revisions = ownedRevisions(ws, deps.caches);
  const surplus = revisions.length - (MAX_REVISION_HISTORY + 1);
  for (const cr of revisions.slice(0, Math.max(0, surplus))) await deleteExactly(deps.client, Resources.controllerRevisions, cr);
}
