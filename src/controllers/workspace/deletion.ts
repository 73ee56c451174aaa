// Deletion: announce it, clean up what ownerReferences cannot (the shared default inference or
// tuning ConfigMap copy, when no other workspace in the namespace uses it), then drop our finalizer.
// NodeClaims (cluster-scoped) are deleted and waited for. Owned objects (StatefulSet, Services, ControllerRevisions) go through garbage collection; the
// StatefulSet's NVMe claims follow it (whenDeleted: Delete).
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE, WORKSPACE_FINALIZER } from '../../api/labels.js';
import { defaultTuningTemplate, tuningMethod } from '../../api/tuning-config.js';
import { JSON_PATCH } from '../../runtime/client.js';
import type { Result } from '../../runtime/controller.js';
import { ignoreNotFound, isNotFound } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { deleteExactly, writtenBy } from './ownership.js';
import { claimsLeftMessage, deleteClaims } from './provisioning.js';
import { deletingStatus } from './workspace-status.js';

/** Label kaito-ts puts on the ConfigMap copies it creates, so it only ever deletes its own. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kaito-ts';

export async function finalizeWorkspace(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<Result> {
  const finalizers = ws.metadata.finalizers ?? [];
  const index = finalizers.indexOf(WORKSPACE_FINALIZER);
  if (index < 0) return {};
  // NodeClaims are cluster-scoped, so garbage collection cannot follow the workspace: delete them and
  // keep the finalizer until the provisioner has let them go (their deletion events bring us back).
  const claimsLeft = deps.caches.nodeClaims && deps.nodeClaimCrdInstalled() ? await deleteClaims(ws, deps) : [];
  const { status, changed } = deletingStatus(ws, deps.now(), claimsLeft.length ? claimsLeftMessage(claimsLeft) : undefined);
  if (changed) await writeStatusIfChanged(deps.client, Resources.workspaces, ws, status as Record<string, unknown>, { mode: 'merge' }).catch(ignoreNotFound);
  if (claimsLeft.length) return {};

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

/** The shared default ConfigMap copy a workspace reads (inference or tuning template), if it uses one. */
function defaultConfigCopyName(ws: WorkspaceObject): string | undefined {
  if (ws.tuning) {
    const method = tuningMethod(ws.tuning.method);
    return ws.tuning.config || !method ? undefined : defaultTuningTemplate(method);
  }
  return ws.inference && !ws.inference.config ? DEFAULT_INFERENCE_CONFIG_TEMPLATE : undefined;
}

async function deleteUnusedConfigCopy(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<void> {
  const name = defaultConfigCopyName(ws);
  if (!name) return;
  const ns = ws.metadata.namespace ?? 'default';
  const cm = deps.caches.configMaps.get(ns, name);
  // Our label alone proves nothing (anyone can copy it): the copy must also have been written by us.
  if (!cm || cm.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY || !writtenBy(cm, deps.client.fieldManager) || ns === deps.config.releaseNamespace) return;
  const stillUsed = deps.caches.workspaces
    .list({ namespace: ns })
    .some((other) => other.metadata.uid !== ws.metadata.uid && !other.metadata.deletionTimestamp && defaultConfigCopyName(other) === name);
  if (stillUsed) return;
  await deleteExactly(deps.client, Resources.configMaps, cm);
}

