// The simulated device plugin for Karpenter's kwok nodes, run inside the simcluster's provisioner
// process (never the product): a Node reflector on Karpenter's node class label, one pass per node
// that patches the GPUs into its status after the device-plugin delay and creates its NVMe volumes.
// On a cluster without Karpenter no node matches, and it does nothing.
import type { V1Node, V1PersistentVolume } from '@kubernetes/client-node';
import { MERGE_PATCH, type KubeClient } from '../../runtime/client.js';
import { Controller, type Result } from '../../runtime/controller.js';
import { ignoreAlreadyExists } from '../../runtime/errors.js';
import { Reflector } from '../../runtime/reflector.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import type { NodePool } from '../nodes.js';
import { skuFacts } from '../provisioner/node.js';
import { afterCreation } from '../provisioner/sim-provisioner.js';
import { devicePluginStep, isKarpenterKwokNode, karpenterNvmeVolumes, KARPENTER_PV_LABEL, KWOK_NODE_CLASS_LABEL } from './device-plugin.js';

const PERSISTENT_VOLUMES: ResourceType = { group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false };

export interface DevicePluginDeps {
  client: KubeClient;
  devicePluginDelayMs: number;
  pools: readonly NodePool[];
  log: (fields: Record<string, unknown>, msg: string) => void;
  onError: (name: string) => (err: Error) => void;
}

export interface DevicePluginStats {
  gpuPatches: number;
  volumes: number;
}

export function devicePluginController(d: DevicePluginDeps): { controller: Controller; stats: DevicePluginStats; nodes: () => number } {
  const stats: DevicePluginStats = { gpuPatches: 0, volumes: 0 };
  const nodes = new Reflector<V1Node>({ client: d.client, type: Resources.nodes, labelSelector: KWOK_NODE_CLASS_LABEL, onError: d.onError('karpenter-nodes') });
  const volumes = new Reflector<V1PersistentVolume>({
    client: d.client,
    type: PERSISTENT_VOLUMES,
    labelSelector: KARPENTER_PV_LABEL,
    onError: d.onError('karpenter-volumes'),
  });
  const reconcile = async (name: string): Promise<Result> => {
    const node = nodes.cache.get(undefined, name);
    if (!node || node.metadata?.deletionTimestamp || !isKarpenterKwokNode(node)) return {};
    const sku = node.metadata?.labels?.['node.kubernetes.io/instance-type'] ?? '';
    const facts = skuFacts(sku, d.pools);
    if (!facts) return {};
    for (const pv of karpenterNvmeVolumes(node, facts)) {
      if (volumes.cache.get(undefined, pv.metadata?.name ?? '')) continue;
      await d.client.create(PERSISTENT_VOLUMES, pv).catch(ignoreAlreadyExists);
      stats.volumes++;
    }
    const step = devicePluginStep(node, facts, Date.now(), afterCreation(node.metadata?.creationTimestamp, d.devicePluginDelayMs));
    if (step.action === 'wait') return { requeueAfterMs: step.ms };
    if (step.action === 'patch') {
      await d.client.patch(Resources.nodes, { name }, { status: step.status }, MERGE_PATCH, 'status');
      stats.gpuPatches++;
      d.log({ node: name, instanceType: sku, gpus: facts.gpuCount }, 'device plugin: GPUs in the capacity of a Karpenter node');
    }
    return {};
  };
  const controller = new Controller({ name: 'sim-device-plugin', maxConcurrentReconciles: 2, reconcile, log: { info: d.log, error: d.log } });
  controller.watch(nodes, (e) => [e.obj.metadata?.name ?? '']).watch(volumes, (e) => [e.obj.metadata?.labels?.[KARPENTER_PV_LABEL] ?? ''].filter(Boolean));
  return { controller, stats, nodes: () => nodes.cache.size };
}
