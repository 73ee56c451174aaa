// A restarted kwok plays no pod Stage on a node until it holds the node's Lease, and it takes over a Lease
// held by its previous process only once that Lease expires (--node-lease-duration-seconds, 40 s; every
// kwok process has a new identity). Without waiting for that before the first create, pods scheduled in
// the first ~40 s of a run sit unplayed and the run measures kwok's takeover, not the controller.
import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** Holders of node Leases now (kwok is the only one that writes them in this cluster). */
export function leaseHolders(leases: readonly V1Lease[]): Set<string> {
  return new Set(leases.flatMap((l) => (l.spec?.holderIdentity ? [l.spec.holderIdentity] : [])));
}

/** Names of the Leases still held by one of `oldHolders`. */
export function heldByOld(leases: readonly V1Lease[], oldHolders: ReadonlySet<string>): string[] {
  return leases.filter((l) => oldHolders.has(l.spec?.holderIdentity ?? '')).map((l) => l.metadata?.name ?? '');
}

export async function nodeLeases(kc: KubeConfig): Promise<V1Lease[]> {
  return (await kc.makeApiClient(CoordinationV1Api).listNamespacedLease({ namespace: NODE_LEASE_NAMESPACE })).items;
}

/** Waits until no node Lease is held by one of `oldHolders` (the kwok processes before a restart). */
export async function waitForLeaseTakeover(kc: KubeConfig, oldHolders: ReadonlySet<string>, log: (line: string) => void, timeoutMs = 90_000): Promise<void> {
  const start = Date.now();
  let left = heldByOld(await nodeLeases(kc), oldHolders);
  if (left.length === 0) return;
  log(`waiting for the restarted kwok to take over ${left.length} node Lease(s) from its previous process (up to 40 s)`);
  while (left.length > 0 && Date.now() - start < timeoutMs) {
    await sleep(1000);
    left = heldByOld(await nodeLeases(kc), oldHolders);
  }
  const took = ((Date.now() - start) / 1000).toFixed(1);
  log(
    left.length === 0
      ? `kwok holds every node Lease after ${took}s`
      : `${left.length} node Lease(s) still held by the previous kwok after ${took}s, e.g. ${left.slice(0, 3).join(', ')}`,
  );
}
