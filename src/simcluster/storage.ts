// Local "NVMe" storage for the simulated nodes: the StorageClass KAITO looks for and static local
// PersistentVolumes pinned to NVMe nodes. Nothing is mounted (there is no kubelet); the scheduler and
// the controller-manager's PV binder only match API objects, which is all a claim needs to bind.
import type { KubeConfig, V1PersistentVolume, V1StorageClass } from '@kubernetes/client-node';
import { ignoreNotFound, isAlreadyExists } from '../runtime/errors.js';
import { clientNode, nodeNames, type NodePool } from './nodes.js';

export const NVME_STORAGE_CLASS = 'kaito-local-nvme-disk';
export const PV_NODE_LABEL = 'kaito.sh/sim-node';

export function storageClassManifest(): V1StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: NVME_STORAGE_CLASS },
    provisioner: 'kubernetes.io/no-provisioner',
    // Binding waits for the scheduler to pick a node, so the claim follows the pod to an NVMe node.
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Retain',
  };
}

/** `volumes` PVs per node of every NVMe pool, named nvme-<node>-<i>. */
export function localPvManifests(pools: NodePool[]): V1PersistentVolume[] {
  return pools.flatMap((pool) => {
    const nvme = pool.nvme;
    return nvme ? nodeNames(pool).flatMap((node) => localPvsForNode(node, nvme)) : [];
  });
}

/**
 * One node's local NVMe PVs, nvme-<node>-<i>, pinned to it by node affinity on its hostname label
 * (the node name, except on Karpenter's kwok nodes, whose hostname is their NodeClaim's name).
 */
export function localPvsForNode(node: string, nvme: { volumes: number; size: string }, hostname = node): V1PersistentVolume[] {
  return Array.from({ length: nvme.volumes }, (_, i): V1PersistentVolume => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `nvme-${node}-${i}`, labels: { [PV_NODE_LABEL]: node } },
    spec: {
      capacity: { storage: nvme.size },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      // Delete would end in Failed: no deleter exists for local volumes. Released ones are recycled instead.
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: NVME_STORAGE_CLASS,
      local: { path: `/mnt/nvme/${i}` },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [hostname] }] }] },
      },
    },
  }));
}

async function createIfMissing(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

export async function createStorageClass(kc: KubeConfig): Promise<void> {
  const storage = kc.makeApiClient((await clientNode()).StorageV1Api);
  await createIfMissing(() => storage.createStorageClass({ body: storageClassManifest() }));
}

/** Deletes the class (tests of the emptyDir path); a class has no finalizers, so it is gone at once. */
export async function deleteStorageClass(kc: KubeConfig): Promise<void> {
  const storage = kc.makeApiClient((await clientNode()).StorageV1Api);
  await storage.deleteStorageClass({ name: NVME_STORAGE_CLASS }).catch(ignoreNotFound);
}

/** The class plus the PVs of every NVMe node in `pools`; existing objects are kept. */
export async function ensureStorage(kc: KubeConfig, pools: NodePool[]): Promise<void> {
  const core = kc.makeApiClient((await clientNode()).CoreV1Api);
  await createStorageClass(kc);
  await Promise.all(localPvManifests(pools).map((body) => createIfMissing(() => core.createPersistentVolume({ body }))));
}

/**
 * Makes Released NVMe PVs Available again by dropping their claimRef (what an admin does by hand
 * with Retain volumes), so repeated test runs never run out of volumes. Returns the recycled names.
 */
export async function recycleReleasedPvs(kc: KubeConfig): Promise<string[]> {
  const core = kc.makeApiClient((await clientNode()).CoreV1Api);
  const list = await core.listPersistentVolume();
  const released = list.items.filter((pv) => pv.spec?.storageClassName === NVME_STORAGE_CLASS && pv.status?.phase === 'Released');
  const { PatchStrategy, setHeaderOptions } = await clientNode();
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  await Promise.all(
    // Another test or the simulated provisioner may delete a volume meanwhile: nothing to recycle then.
    released.map((pv) => core.patchPersistentVolume({ name: pv.metadata?.name ?? '', body: { spec: { claimRef: null } } }, mergePatch).catch(ignoreNotFound)),
  );
  return released.map((pv) => pv.metadata?.name ?? '');
}
