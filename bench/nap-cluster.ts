// Cluster-side steps of a node auto-provisioning run: what a run's NodeClaims and nodes are, counting
// what a controller left behind, and removing it so the next controller starts on an empty cluster.
// Through the admin identity, never through the counting proxy.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { LABEL_WORKSPACE_NAMESPACE } from '../src/api/labels.js';
import { Resources, resourcePath } from '../src/runtime/resources.js';
import { isNotFound } from '../src/runtime/errors.js';

const NC = Resources.nodeClaims;

/** Watch/list path of the NodeClaims and of the nodes made for the workspaces of `namespace`. */
export function runSelector(namespace: string): string {
  return `${LABEL_WORKSPACE_NAMESPACE}=${namespace}`;
}
export const NODECLAIMS_PATH = resourcePath(NC);
export const NODES_PATH = resourcePath(Resources.nodes);

export interface Leftovers {
  nodeClaims: string[];
  nodes: string[];
}

/** NodeClaims and nodes labelled for workspaces of namespaces accepted by `which`. */
export async function leftovers(kc: KubeConfig, which: (namespace: string) => boolean): Promise<Leftovers> {
  const list = (await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({
    group: NC.group,
    version: NC.version,
    plural: NC.plural,
    labelSelector: LABEL_WORKSPACE_NAMESPACE,
  })) as { items: { metadata: { name: string; labels?: Record<string, string> } }[] };
  const nodes = await kc.makeApiClient(CoreV1Api).listNode({ labelSelector: LABEL_WORKSPACE_NAMESPACE });
  const ours = (labels: Record<string, string> | undefined): boolean => which(labels?.[LABEL_WORKSPACE_NAMESPACE] ?? '');
  return {
    nodeClaims: list.items.filter((c) => ours(c.metadata.labels)).map((c) => c.metadata.name),
    nodes: nodes.items.filter((n) => ours(n.metadata?.labels)).map((n) => n.metadata?.name ?? ''),
  };
}

/** Waits up to `timeoutMs` for the run's claims and nodes to go by themselves; returns what is left. */
export async function waitForCleanup(kc: KubeConfig, namespace: string, timeoutMs: number): Promise<Leftovers> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await leftovers(kc, (ns) => ns === namespace);
    if ((left.nodeClaims.length === 0 && left.nodes.length === 0) || Date.now() > deadline) return left;
    await sleep(1000);
  }
}

/**
 * Deletes the NodeClaims of the namespaces accepted by `which` (the simulated provisioner then removes
 * their nodes and volumes) and waits until claims and nodes are gone; throws if they are not, because the
 * next controller must not start beside them.
 */
export async function removeNodeClaims(kc: KubeConfig, which: (namespace: string) => boolean, log: (line: string) => void, timeoutMs = 300_000): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  let left = await leftovers(kc, which);
  if (left.nodeClaims.length === 0 && left.nodes.length === 0) return;
  log(`removing ${left.nodeClaims.length} NodeClaim(s) and waiting for ${left.nodes.length} node(s) to go`);
  for (const name of left.nodeClaims) {
    try {
      await api.deleteClusterCustomObject({ group: NC.group, version: NC.version, plural: NC.plural, name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (left.nodeClaims.length > 0 || left.nodes.length > 0) {
    if (Date.now() > deadline) {
      throw new Error(
        `after ${timeoutMs / 1000}s ${left.nodeClaims.length} NodeClaim(s) and ${left.nodes.length} node(s) remain (e.g. ${[...left.nodeClaims, ...left.nodes].slice(0, 3).join(', ')}); is the gpu-provisioner running?`,
      );
    }
    await sleep(1000);
    left = await leftovers(kc, which);
  }
}
