// The simulated GPU provisioner process (`simcluster up` starts it detached): list/watch NodeClaims,
// Nodes, its PersistentVolumes and the fault ConfigMaps with the project's runtime, reconcile each
// claim in a work queue, and answer /healthz on 127.0.0.1. SIGTERM stops it cleanly.
import type { KubernetesObject, V1ConfigMap, V1Node, V1PersistentVolume } from '@kubernetes/client-node';
import { KubeClient } from '../../runtime/client.js';
import { loadClusterAccess } from '../../runtime/cluster-access.js';
import { Controller } from '../../runtime/controller.js';
import { isAlreadyExists } from '../../runtime/errors.js';
import type { ObjectEvent } from '../../runtime/cache.js';
import { Reflector } from '../../runtime/reflector.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import { KubeTransport } from '../../runtime/transport.js';
import { devicePluginController } from '../karpenter/device-plugin-controller.js';
import { nodeClassController } from '../karpenter/node-class.js';
import { layoutFor } from '../layout.js';
import { loadNodePools, type NodePool } from '../nodes.js';
import { jsonLog as log, logWatchError as onError, runComponentProcess, serveHealth } from '../sim-process.js';
import { FAULT_NAMESPACE } from './faults.js';
import { AGENT_POOL_LABEL, PV_CLAIM_LABEL } from './node.js';
import type { NodeClaim } from './claim-view.js';
import { parseProvisionerArgs, type ProvisionerOptions } from './provisioner-options.js';
import { PROVISIONER_FIELD_MANAGER, Provisioner } from './sim-provisioner.js';

const PERSISTENT_VOLUMES: ResourceType = { group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false };

function defaultPools(): NodePool[] {
  try {
    return loadNodePools(layoutFor().defaultNodesFile);
  } catch {
    return [];
  }
}

const byLabel =
  (label: string) =>
  (e: ObjectEvent<KubernetesObject>): string[] => {
    const v = e.obj.metadata?.labels?.[label];
    const old = e.type === 'update' ? e.old.metadata?.labels?.[label] : undefined;
    return [...new Set([v, old].filter((x): x is string => x !== undefined))];
  };

export async function runProvisioner(o: ProvisionerOptions): Promise<{ stop: () => Promise<void> }> {
  const transport = new KubeTransport(await loadClusterAccess({ kubeconfig: o.kubeconfig }), { qps: 50, burst: 100 });
  const client = new KubeClient(transport, { fieldManager: PROVISIONER_FIELD_MANAGER });
  const claims = new Reflector<NodeClaim>({ client, type: Resources.nodeClaims, onError: onError('nodeclaims') });
  // Only agent-pool nodes (ours and any real AKS ones), never the static simcluster nodes.
  const nodes = new Reflector<V1Node>({ client, type: Resources.nodes, labelSelector: AGENT_POOL_LABEL, onError: onError('nodes') });
  const volumes = new Reflector<V1PersistentVolume>({ client, type: PERSISTENT_VOLUMES, labelSelector: PV_CLAIM_LABEL, onError: onError('persistentvolumes') });
  const faults = new Reflector<V1ConfigMap>({ client, type: Resources.configMaps, namespace: FAULT_NAMESPACE, onError: onError('configmaps') });
  await client.create(Resources.namespaces, { metadata: { name: FAULT_NAMESPACE } }).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
  const kubeletVersion = layoutFor().versions.k8s;
  const provisioner = new Provisioner({
    client,
    caches: { claims: claims.cache, nodes: nodes.cache, volumes: volumes.cache, faults: faults.cache },
    delays: o,
    clusterName: o.clusterName,
    kubeletVersion,
    pools: defaultPools(),
    log,
  });
  const controller = new Controller({
    name: 'sim-gpu-provisioner',
    maxConcurrentReconciles: 4,
    reconcile: async (key) => provisioner.reconcile(key),
    log: { info: log, error: log },
  });
  controller
    .watch(claims, (e) => [e.obj.metadata?.name ?? ''])
    .watch(nodes, byLabel(AGENT_POOL_LABEL))
    .watch(volumes, byLabel(PV_CLAIM_LABEL))
    .watch(faults, () => claims.cache.keys());
  await controller.start();
  // With Karpenter (simcluster up --karpenter): its node classes get Ready, its kwok nodes GPUs and NVMe volumes.
  const karpenter = o.karpenter
    ? devicePluginController({ client, devicePluginDelayMs: o.devicePluginDelayMs, pools: defaultPools(), log, onError })
    : undefined;
  const nodeClasses = o.karpenter ? nodeClassController({ client, log, onError }) : undefined;
  await Promise.all([karpenter?.controller.start(), nodeClasses?.start()]);
  const server = await serveHealth(o.healthPort, () => ({
    ok: true,
    claims: claims.cache.size,
    nodes: nodes.cache.size,
    ...provisioner.stats,
    ...(karpenter ? { karpenterNodes: karpenter.nodes(), ...karpenter.stats } : {}),
  }));
  log({ ...o, kubeconfig: undefined }, 'simulated gpu-provisioner started');
  return {
    stop: async () => {
      server.close();
      await Promise.all([controller.stop(5_000), karpenter?.controller.stop(5_000), nodeClasses?.stop(5_000)]);
      transport.close();
    },
  };
}

runComponentProcess('sim-gpu-provisioner', () => runProvisioner(parseProvisionerArgs(process.argv.slice(2))));
