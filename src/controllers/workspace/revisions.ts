// ControllerRevision history: KAITO keeps at most MaxRevisionHistoryLimit (10) older revisions
// besides the new one, deleting one per reconcile; kaito-ts prunes every surplus one in one pass.
import { LABEL_REVISION_WORKSPACE_NAME } from '../../api/labels.js';
import { isNotFound } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';

export const MAX_REVISION_HISTORY = 10;

export async function pruneRevisions(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<void> {
  const revisions = deps.caches.controllerRevisions
    .list({ namespace: ws.metadata.namespace, selector: { matchLabels: { [LABEL_REVISION_WORKSPACE_NAME]: ws.metadata.name ?? '' } } })
    .sort((a, b) => a.revision - b.revision);
  const surplus = revisions.length - (MAX_REVISION_HISTORY + 1);
  for (const cr of revisions.slice(0, Math.max(0, surplus))) {
    await deps.client
      .delete(Resources.controllerRevisions, { namespace: cr.metadata?.namespace, name: cr.metadata?.name ?? '' }, { uid: cr.metadata?.uid ?? '' })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }
}
