// Cluster-side steps of a Karpenter-mode run: the run's NodePools, Karpenter's NodeClaims and nodes for
// them, counting what a controller left behind, removing it so the next controller starts on a cluster
// with no NodePool, no Karpenter NodeClaim and no Karpenter node, and removing the KWOKNodeClass so each
// controller creates it from its own flags. Through the admin identity, never through the counting proxy.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { LABEL_KARPENTER_WORKSPACE_NAMESPACE } from '../src/api/labels.js';
import { KWOK_NODE_CLASS_LABEL } from '../src/simcluster/karpenter/device-plugin.js';
import { isNotFound } from '../src/runtime/errors.js';
import { Resources, resourcePath } from '../src/runtime/resources.js';
import { KWOK_NODE_CLASS } from '../src/simcluster/karpenter/operator-flags.js';

const NP = Resources.nodePools;
const NC = Resources.nodeClaims;
const KWOK_CLASS = { group: 'karpenter.kwok.sh', version: 'v1alpha1', plural: 'kwoknodeclasses' };
export const NODEPOOLS_PATH = resourcePath(NP);

interface Item {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { nodeClassRef?: { group?: string } };
}

export interface KarpenterLeftovers {
  nodePools: string[];
  nodeClaims: string[];
  nodes: string[];
}

const count = (l: KarpenterLeftovers): number => l.nodePools.length + l.nodeClaims.length + l.nodes.length;

async function listCluster(kc: KubeConfig, r: { group: string; version: string; plural: string }, labelSelector?: string): Promise<Item[]> {
  const list = (await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({
    group: r.group,
    version: r.version,
    plural: r.plural,
    ...(labelSelector ? { labelSelector } : {}),
  })) as { items: Item[] };
  return list.items;
}

/** NodePools, NodeClaims and nodes labelled for workspaces of namespaces accepted by `which`. */
export async function karpenterLeftovers(kc: KubeConfig, which: (namespace: string) => boolean): Promise<KarpenterLeftovers> {
  const ours = (labels: Record<string, string> | undefined): boolean => which(labels?.[LABEL_KARPENTER_WORKSPACE_NAMESPACE] ?? '');
  const pools = await listCluster(kc, NP, LABEL_KARPENTER_WORKSPACE_NAMESPACE);
  const claims = await listCluster(kc, NC, LABEL_KARPENTER_WORKSPACE_NAMESPACE);
  const nodes = await kc.makeApiClient(CoreV1Api).listNode({ labelSelector: LABEL_KARPENTER_WORKSPACE_NAMESPACE });
  return {
    nodePools: pools.filter((p) => ours(p.metadata.labels)).map((p) => p.metadata.name),
    nodeClaims: claims.filter((c) => ours(c.metadata.labels)).map((c) => c.metadata.name),
    nodes: nodes.items.filter((n) => ours(n.metadata?.labels)).map((n) => n.metadata?.name ?? ''),
  };
}

/** Every NodePool, every NodeClaim of Karpenter's kwok node class, every node Karpenter's kwok provider made. */
export async function anyKarpenterObjects(kc: KubeConfig): Promise<KarpenterLeftovers> {
  const pools = await listCluster(kc, NP);
  const claims = (await listCluster(kc, NC)).filter((c) => c.spec?.nodeClassRef?.group === KWOK_CLASS.group);
  const nodes = await kc.makeApiClient(CoreV1Api).listNode({ labelSelector: KWOK_NODE_CLASS_LABEL });
  return {
    nodePools: pools.map((p) => p.metadata.name),
    nodeClaims: claims.map((c) => c.metadata.name),
    nodes: nodes.items.map((n) => n.metadata?.name ?? ''),
  };
}

/** Waits up to `timeoutMs` for the run's pools, claims and nodes to go by themselves; returns what is left. */
export async function waitForKarpenterCleanup(kc: KubeConfig, namespace: string, timeoutMs: number): Promise<KarpenterLeftovers> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await karpenterLeftovers(kc, (ns) => ns === namespace);
    if (count(left) === 0 || Date.now() > deadline) return left;
    await sleep(1000);
  }
}

async function deleteCluster(kc: KubeConfig, r: { group: string; version: string; plural: string }, name: string): Promise<void> {
  try {
    await kc.makeApiClient(CustomObjectsApi).deleteClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Deletes the NodePools (Karpenter then drains and deletes their claims and nodes) and NodeClaims of
 * the namespaces accepted by `which`, and waits until no NodePool, no Karpenter NodeClaim and no
 * Karpenter node is left on the cluster at all; throws if some are, because the next controller must
 * not start beside them.
 */
export async function removeKarpenterObjects(
  kc: KubeConfig,
  which: (namespace: string) => boolean,
  log: (line: string) => void,
  timeoutMs = 300_000,
): Promise<void> {
  const left = await karpenterLeftovers(kc, which);
  if (count(left) > 0) {
    log(`removing ${left.nodePools.length} NodePool(s), ${left.nodeClaims.length} NodeClaim(s); waiting for ${left.nodes.length} node(s) to go`);
    for (const name of left.nodePools) await deleteCluster(kc, NP, name);
    for (const name of left.nodeClaims) await deleteCluster(kc, NC, name);
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const any = await anyKarpenterObjects(kc);
    if (count(any) === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `after ${timeoutMs / 1000}s ${any.nodePools.length} NodePool(s), ${any.nodeClaims.length} Karpenter NodeClaim(s) and ${any.nodes.length} Karpenter node(s) remain ` +
          `(e.g. ${[...any.nodePools, ...any.nodeClaims, ...any.nodes].slice(0, 3).join(', ')}); is Karpenter running?`,
      );
    }
    await sleep(1000);
  }
}

/**
 * Deletes the KWOKNodeClass the controllers create (both leave an existing one as it is), so the next
 * controller creates it from its own --karpenter-node-classes, registration delay included.
 */
export async function removeNodeClass(kc: KubeConfig, timeoutMs = 60_000): Promise<void> {
  await deleteCluster(kc, KWOK_CLASS, KWOK_NODE_CLASS);
  const deadline = Date.now() + timeoutMs;
  while ((await listCluster(kc, KWOK_CLASS)).some((c) => c.metadata.name === KWOK_NODE_CLASS)) {
    if (Date.now() > deadline) throw new Error(`KWOKNodeClass ${KWOK_NODE_CLASS} not gone after ${timeoutMs / 1000}s`);
    await sleep(500);
  }
}
