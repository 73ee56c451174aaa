// Simulated GPU nodes: the pool spec (YAML), the Node objects it stands for (pure), and creating them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeConfig, V1Node } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { ignoreNotFound, isAlreadyExists } from '../runtime/errors.js';
import { isReady } from '../runtime/conditions.js';

export interface NodePool {
  /** Short pool name: nodes are `gpu-<name>-<i>` and carry `kaito.sh/sim-pool: <name>`. */
  name: string;
  count: number;
  instanceType: string;
  gpu: { product: string; count: number; memoryMiB: number };
  cpu: string;
  memory: string;
  /** Present on NVMe SKUs: local PVs per node. */
  nvme?: { volumes: number; size: string };
  /** Extra node labels (e.g. `apps: llama`). */
  labels?: Record<string, string>;
}

/** client-node's generated API (~75 MiB of RSS) loads only where it is used: the provisioner process imports the pure parts. */
export const clientNode = (): Promise<typeof import('@kubernetes/client-node')> => import('@kubernetes/client-node');

export const POOL_LABEL = 'kaito.sh/sim-pool';
export const NVME_LABEL = 'kaito.sh/sim-nvme';
export const GPU_RESOURCE = 'nvidia.com/gpu';

/** A bad node pool spec (the user's input, not a failure of the cluster). */
export class NodeSpecError extends Error {}

const NAME_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** Validates a parsed `pools:` document; throws one message naming the first bad field. */
export function parseNodePools(text: string, source = 'nodes file'): NodePool[] {
  const doc = parse(text) as { pools?: unknown } | null;
  if (!doc || !Array.isArray(doc.pools)) throw new NodeSpecError(`${source}: expected a top-level "pools:" list`);
  const seen = new Set<string>();
  return doc.pools.map((raw: unknown, i: number): NodePool => {
    const at = `${source}: pools[${i}]`;
    const p = raw as Partial<NodePool> | null;
    if (!p || typeof p !== 'object') throw new NodeSpecError(`${at} is not a mapping`);
    if (typeof p.name !== 'string' || !NAME_RE.test(p.name)) throw new NodeSpecError(`${at}.name must be a DNS label`);
    if (seen.has(p.name)) throw new NodeSpecError(`${at}.name "${p.name}" is used twice`);
    seen.add(p.name);
    if (!Number.isInteger(p.count) || (p.count as number) < 0) throw new NodeSpecError(`${at}.count must be an integer >= 0`);
    if (typeof p.instanceType !== 'string' || p.instanceType === '') throw new NodeSpecError(`${at}.instanceType is required`);
    const g = p.gpu;
    if (!g || typeof g.product !== 'string' || !Number.isInteger(g.count) || g.count < 1 || !Number.isInteger(g.memoryMiB) || g.memoryMiB < 1) {
      throw new NodeSpecError(`${at}.gpu needs product, count >= 1 and memoryMiB >= 1`);
    }
    if (p.nvme !== undefined && (!Number.isInteger(p.nvme.volumes) || p.nvme.volumes < 1 || typeof p.nvme.size !== 'string')) {
      throw new NodeSpecError(`${at}.nvme needs volumes >= 1 and a size quantity`);
    }
    return {
      name: p.name,
      count: p.count as number,
      instanceType: p.instanceType,
      gpu: { product: g.product, count: g.count, memoryMiB: g.memoryMiB },
      cpu: String(p.cpu ?? '8'),
      memory: String(p.memory ?? '64Gi'),
      ...(p.nvme ? { nvme: { volumes: p.nvme.volumes, size: p.nvme.size } } : {}),
      ...(p.labels ? { labels: Object.fromEntries(Object.entries(p.labels).map(([k, v]) => [k, String(v)])) } : {}),
    };
  });
}

export function loadNodePools(path: string): NodePool[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NodeSpecError(`cannot read nodes file ${path}: ${(err as Error).message}`);
  }
  return parseNodePools(text, path);
}

/** Applies `pool=count` overrides (the CLI's --scale). */
export function scalePools(pools: NodePool[], overrides: Record<string, number>): NodePool[] {
  for (const name of Object.keys(overrides)) {
    if (!pools.some((p) => p.name === name)) throw new NodeSpecError(`no node pool named "${name}" (pools: ${pools.map((p) => p.name).join(', ')})`);
  }
  return pools.map((p) => (overrides[p.name] === undefined ? p : { ...p, count: overrides[p.name] as number }));
}

export function nodeNames(pool: NodePool): string[] {
  return Array.from({ length: pool.count }, (_, i) => `gpu-${pool.name}-${i}`);
}

/** A stable fake InternalIP in 10.128.0.0/9 derived from the name, so nodes added later never reuse one. */
export function fakeIp(name: string): string {
  const h = createHash('sha256').update(name).digest();
  return `10.${128 + ((h[0] ?? 0) & 127)}.${h[1] ?? 0}.${1 + ((h[2] ?? 0) % 254)}`;
}

export function nodeManifests(pools: NodePool[], kubeletVersion: string): V1Node[] {
  return pools.flatMap((pool) =>
    nodeNames(pool).map((name): V1Node => {
      const resources = {
        cpu: pool.cpu,
        memory: pool.memory,
        'ephemeral-storage': '1Ti',
        pods: '110',
        [GPU_RESOURCE]: String(pool.gpu.count),
      };
      return {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
          labels: {
            ...pool.labels,
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            // As a kubelet registers: otherwise the controller-manager adds them seconds later, a label
            // change every controller selecting the node sees (under load, in the middle of a test).
            'beta.kubernetes.io/os': 'linux',
            'beta.kubernetes.io/arch': 'amd64',
            'node.kubernetes.io/instance-type': pool.instanceType,
            'topology.kubernetes.io/region': 'sim',
            'topology.kubernetes.io/zone': 'sim-1',
            'nvidia.com/gpu.present': 'true',
            'nvidia.com/gpu.product': pool.gpu.product,
            'nvidia.com/gpu.count': String(pool.gpu.count),
            'nvidia.com/gpu.memory': String(pool.gpu.memoryMiB),
            [POOL_LABEL]: pool.name,
            [NVME_LABEL]: String(pool.nvme !== undefined),
          },
        },
        // No kwok taint: nothing else runs here, so the operator's pods need no extra toleration.
        spec: { providerID: `kwok://${name}` },
        status: {
          capacity: resources,
          allocatable: resources,
          addresses: [
            { type: 'InternalIP', address: fakeIp(name) },
            { type: 'Hostname', address: name },
          ],
          nodeInfo: {
            architecture: 'amd64',
            operatingSystem: 'linux',
            kubeletVersion,
            containerRuntimeVersion: 'kwok',
            kernelVersion: 'kwok',
            osImage: 'kwok',
            kubeProxyVersion: '',
            bootID: '',
            machineID: '',
            systemUUID: name,
          },
        },
      };
    }),
  );
}

/**
 * Creates the pools' nodes; existing ones are left alone. Node create keeps `.status`, so capacity
 * and allocatable (with `nvidia.com/gpu`) are there from the start; kwok then marks them Ready.
 */
export async function addNodes(kc: KubeConfig, pools: NodePool[], kubeletVersion = 'v1.36.3'): Promise<string[]> {
  const core = kc.makeApiClient((await clientNode()).CoreV1Api);
  const nodes = nodeManifests(pools, kubeletVersion);
  await Promise.all(
    nodes.map(async (body) => {
      try {
        await core.createNode({ body });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }),
  );
  return nodes.map((n) => n.metadata?.name ?? '');
}

/** Deletes the pools' nodes (for tests that added their own). */
export async function removeNodes(kc: KubeConfig, pools: NodePool[]): Promise<void> {
  const core = kc.makeApiClient((await clientNode()).CoreV1Api);
  await Promise.all(
    pools.flatMap(nodeNames).map(async (name) => {
      await core.deleteNode({ name }).catch(ignoreNotFound);
    }),
  );
}

export function isNodeReady(node: V1Node): boolean {
  return isReady(node);
}
