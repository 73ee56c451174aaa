// The InferenceSet scenario on the cluster (docs/benchmarks.md, "InferenceSet: scale 0 → 20"): create the
// set at replicas 0, write its scale subresource, delete it at the end while its controller runs. All of
// it goes through the admin identity directly to the API server, so none of it is charged to a controller.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { INFERENCESET_PLURAL, type InferenceSet } from '../src/api/inferenceset-types.js';
import { GROUP, PLURAL, VERSION } from '../src/api/types.js';
import { isNotFound } from '../src/runtime/errors.js';
import { scalePatch } from './inferenceset.js';

const api = (kc: KubeConfig): CustomObjectsApi => kc.makeApiClient(CustomObjectsApi);

export async function createInferenceSet(kc: KubeConfig, body: InferenceSet): Promise<void> {
  await api(kc).createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: body.metadata.namespace ?? '', plural: INFERENCESET_PLURAL, body });
}

/** The scale write `kubectl scale --replicas=N inferenceset/NAME` sends: a merge patch of the scale subresource. */
export async function scaleInferenceSet(kc: KubeConfig, namespace: string, name: string, replicas: number): Promise<void> {
  await api(kc).patchNamespacedCustomObjectScale(
    { group: GROUP, version: VERSION, namespace, plural: INFERENCESET_PLURAL, name, body: scalePatch(replicas) },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

async function count(kc: KubeConfig, namespace: string, plural: string): Promise<number> {
  try {
    const list = (await api(kc).listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural })) as { items: unknown[] };
    return list.items.length;
  } catch (err) {
    if (isNotFound(err)) return 0;
    throw err;
  }
}

/**
 * Deletes the set while its controller runs (its finalizer deletes the children, whose own controller
 * then lets them go) and waits until neither the set nor a Workspace is left, up to `timeoutMs`. Returns
 * what is left.
 */
export async function deleteInferenceSet(kc: KubeConfig, namespace: string, name: string, timeoutMs: number): Promise<{ sets: number; workspaces: number }> {
  try {
    await api(kc).deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: INFERENCESET_PLURAL, name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = { sets: await count(kc, namespace, INFERENCESET_PLURAL), workspaces: await count(kc, namespace, PLURAL) };
    if ((left.sets === 0 && left.workspaces === 0) || Date.now() > deadline) return left;
    await sleep(1000);
  }
}
