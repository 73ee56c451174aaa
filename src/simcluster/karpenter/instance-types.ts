// The instance types Karpenter's kwok provider offers (its INSTANCE_TYPES_FILE_PATH), made from the
// GPU SKU catalog of the cloud the simcluster plays (Azure). Pure: pools in, JSON-ready objects out.
import { supportedSkus } from '../../catalog/gpu-skus.js';
import { GPU_RESOURCE, type NodePool } from '../nodes.js';
import { skuFacts, type SkuFacts } from '../provisioner/node.js';

/** The zone and region of every simulated node (static, provisioned or Karpenter's). */
export const SIM_ZONE = 'sim-1';
export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

interface Requirement {
  key: string;
  operator: 'In';
  values: string[];
}

/**
 * One entry of the file as kwok/cloudprovider/helpers.go decodes it (InstanceTypeOptions). An offering
 * is cloudprovider.Offering without JSON tags, so its fields are `Price`, `Available` and
 * `Requirements`; the `{capacityType, zone, price}` of kwok/examples/instance_types.json are ignored
 * (its zones would be empty, and no claim could launch). Karpenter sets Available to true on load.
 */
export interface KwokInstanceType {
  name: string;
  offerings: { Price: number; Available: boolean; Requirements: Requirement[] }[];
  architecture: 'amd64';
  operatingSystems: ['linux'];
  resources: Record<string, string>;
}

/** What a kubelet with the NVIDIA device plugin reports for a node of this size (also the node's capacity). */
export function instanceResources(facts: SkuFacts): Record<string, string> {
  return { cpu: facts.cpu, memory: facts.memory, 'ephemeral-storage': '1Ti', pods: '110', [GPU_RESOURCE]: String(facts.gpuCount) };
}

/** A made-up hourly price that grows with the GPUs, so Karpenter's "cheapest offering" is stable. */
function priceOf(facts: SkuFacts): number {
  return Math.round((facts.gpuCount * 3 + Number.parseInt(facts.cpu, 10) * 0.05) * 1000) / 1000;
}

/** Every SKU of the catalog: one on-demand offering in the simulated zone. */
export function kwokInstanceTypes(pools: readonly NodePool[], withheld: readonly string[] = []): KwokInstanceType[] {
  return supportedSkus('azure').flatMap((sku) => {
    if (withheld.includes(sku)) return [];
    const facts = skuFacts(sku, pools);
    if (!facts) return [];
    return [
      {
        name: sku,
        offerings: [
          {
            Price: priceOf(facts),
            Available: true,
            Requirements: [
              { key: CAPACITY_TYPE_LABEL, operator: 'In', values: ['on-demand'] },
              { key: ZONE_LABEL, operator: 'In', values: [SIM_ZONE] },
            ],
          },
        ],
        architecture: 'amd64',
        operatingSystems: ['linux'],
        resources: instanceResources(facts),
      },
    ];
  });
}

/**
 * SKUs left out of the file, so no offering exists for them (a cloud without that SKU in the region):
 * how a test makes Karpenter fail a launch. Comma-separated.
 */
export const WITHHELD_SKUS_ENV = 'KAITO_TS_SIM_KARPENTER_WITHHELD_SKUS';

export function withheldSkus(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[WITHHELD_SKUS_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
