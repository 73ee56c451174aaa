// Deletion: announce it, clean up what ownerReferences cannot (the shared default inference
// ConfigMap copy, when no other workspace in the namespace uses it), then drop our finalizer.
// Owned objects (StatefulSet, Services, ControllerRevisions) go through garbage collection; the
// StatefulSet's NVMe claims follow it (whenDeleted: Delete).
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE, WORKSPACE_FINALIZER } from '../../api/labels.js';
import { JSON_PATCH } from '../../runtime/client.js';
import type { Result } from '../../runtime/controller.js';
import { isNotFound } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { deleteExactly, writtenBy } from './ownership.js';
import { deletingStatus } from './status.js';

/** Label kaito-ts puts on the ConfigMap copies it creates, so it only ever deletes its own. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kaito-ts';

export async function finalizeWorkspace(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<Result> {
  const finalizers = ws.metadata.finalizers ?? [];
  const index = finalizers.indexOf(WORKSPACE_FINALIZER);
  if (index < 0) return {};
  const { status, changed } = deletingStatus(ws, deps.now());
  if (changed) await writeStatusIfChanged(deps.client, Resources.workspaces, ws, status as Record<string, unknown>, { mode: 'merge' }).catch(ignore404);

  await deleteUnusedConfigCopy(ws, deps);

  // Remove only our entry, guarded by a test so a concurrent finalizer edit is never lost.
  await deps.client
    .patch(Resources.workspaces, { namespace: ws.metadata.namespace, name: ws.metadata.name ?? '' }, [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: WORKSPACE_FINALIZER },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ], JSON_PATCH)
    .catch((err: unknown) => {
      if (isNotFound(err)) return;
      throw err; // a failed test (422) or conflict retries with backoff against fresh cache
    });
  return {};
}

async function deleteUnusedConfigCopy(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<void> {
  if (ws.inference?.config) return;
  const ns = ws.metadata.namespace ?? 'default';
  const cm = deps.caches.configMaps.get(ns, DEFAULT_INFERENCE_CONFIG_TEMPLATE);
  // Our label alone proves nothing (anyone can copy it): the copy must also have been written by us.
  if (!cm || cm.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY || !writtenBy(cm, deps.client.fieldManager) || ns === deps.config.releaseNamespace) return;
  const stillUsed = deps.caches.workspaces
    .list({ namespace: ns })
    .some((other) => other.metadata.uid !== ws.metadata.uid && !other.metadata.deletionTimestamp && other.inference && !other.inference.config);
  if (stillUsed) return;
  await deleteExactly(deps.client, Resources.configMaps, cm);
}

function ignore404(err: unknown): void {
  if (!isNotFound(err)) throw err;
}
