// GPU SKU catalogs per cloud (facts from KAITO `pkg/sku`, baseline 0.8.0-rc.0; spec §7).
// One compact row per instance type: [instance type, GPU count, GPU model, node-total GPU GiB, NVMe local disk].
import type { CloudProvider, GpuConfig } from './types.js';
import type { KaitoGeneration } from '../api/legacy-presets.js';

type SkuRow = readonly [sku: string, gpuCount: number, gpuModel: string, gpuMemGiB: number, nvme: boolean];

// Azure — 29 SKUs (`azure_sku_handler.go`). Fractional-GPU SKUs (NG8/NG16 V620, NV4/8/16as_v4) are unsupported there too.
const AZURE: readonly SkuRow[] = [
  ['Standard_NC6s_v3', 1, 'NVIDIA V100', 16, false],
  ['Standard_NC12s_v3', 2, 'NVIDIA V100', 32, false],
  ['Standard_NC24s_v3', 4, 'NVIDIA V100', 64, false],
  ['Standard_NC24rs_v3', 4, 'NVIDIA V100', 64, false],
  ['Standard_NC4as_T4_v3', 1, 'NVIDIA T4', 16, false],
  ['Standard_NC8as_T4_v3', 1, 'NVIDIA T4', 16, false],
  ['Standard_NC16as_T4_v3', 1, 'NVIDIA T4', 16, false],
  ['Standard_NC64as_T4_v3', 4, 'NVIDIA T4', 64, false],
  ['Standard_NV36ads_A10_v5', 1, 'NVIDIA A10', 24, false],
  ['Standard_NV72ads_A10_v5', 2, 'NVIDIA A10', 48, false],
  ['Standard_NC24ads_A100_v4', 1, 'NVIDIA A100', 80, true],
  ['Standard_NC48ads_A100_v4', 2, 'NVIDIA A100', 160, true],
  ['Standard_NC96ads_A100_v4', 4, 'NVIDIA A100', 320, true],
  ['Standard_ND96asr_A100_v4', 8, 'NVIDIA A100', 320, false],
  ['Standard_ND96amsr_A100_v4', 8, 'NVIDIA A100', 640, true],
  ['Standard_NC40ads_H100_v5', 1, 'NVIDIA H100', 94, true],
  ['Standard_NC80adis_H100_v5', 2, 'NVIDIA H100', 188, true],
  ['Standard_ND96isr_H100_v5', 8, 'NVIDIA H100', 640, true],
  ['Standard_NCC40ads_H100_v5', 1, 'NVIDIA H100', 94, false],
  ['Standard_ND96isr_H200_v5', 8, 'NVIDIA H200', 1128, true],
  ['Standard_NG32ads_V620_v1', 1, 'AMD Radeon PRO V620', 32, false],
  ['Standard_NG32adms_V620_v1', 1, 'AMD Radeon PRO V620', 32, false],
  ['Standard_NV6', 1, 'NVIDIA M60', 8, false],
  ['Standard_NV12', 2, 'NVIDIA M60', 16, false],
  ['Standard_NV24', 4, 'NVIDIA M60', 32, false],
  ['Standard_NV12s_v3', 1, 'NVIDIA M60', 8, false],
  ['Standard_NV24s_v3', 2, 'NVIDIA M60', 16, false],
  ['Standard_NV48s_v3', 4, 'NVIDIA M60', 32, false],
  ['Standard_NV32as_v4', 1, 'AMD Radeon Instinct MI25', 16, false],
];

// AWS — 59 SKUs (`aws_sku_handler.go`). AMD, Trainium and Inferentia rows still get `nvidia.com/gpu` requests (W28).
const AWS: readonly SkuRow[] = [
  ['p2.xlarge', 1, 'NVIDIA K80', 12, false],
  ['p2.8xlarge', 8, 'NVIDIA K80', 96, false],
  ['p2.16xlarge', 16, 'NVIDIA K80', 192, false],
  ['p3.2xlarge', 1, 'NVIDIA V100', 16, false],
  ['p3.8xlarge', 4, 'NVIDIA V100', 64, false],
  ['p3.16xlarge', 8, 'NVIDIA V100', 128, false],
  ['p3dn.24xlarge', 8, 'NVIDIA V100', 256, false],
  ['p4d.24xlarge', 8, 'NVIDIA A100', 320, true],
  ['p4de.24xlarge', 8, 'NVIDIA A100', 640, true],
  ['p5.48xlarge', 8, 'NVIDIA H100', 640, true],
  ['p5e.48xlarge', 8, 'NVIDIA H200', 1128, true],
  ['p5en.48xlarge', 8, 'NVIDIA H200', 1128, true],
  ['g6.xlarge', 1, 'NVIDIA L4', 24, true],
  ['g6.2xlarge', 1, 'NVIDIA L4', 24, true],
  ['g6.4xlarge', 1, 'NVIDIA L4', 24, true],
  ['g6.8xlarge', 1, 'NVIDIA L4', 24, true],
  ['g6.16xlarge', 1, 'NVIDIA L4', 24, true],
  ['gr6.4xlarge', 1, 'NVIDIA L4', 24, true],
  ['gr6.8xlarge', 1, 'NVIDIA L4', 24, true],
  ['g6.12xlarge', 4, 'NVIDIA L4', 96, true],
  ['g6.24xlarge', 4, 'NVIDIA L4', 96, true],
  ['g6.48xlarge', 8, 'NVIDIA L4', 192, true],
  ['g5g.xlarge', 1, 'NVIDIA T4', 16, false],
  ['g5g.2xlarge', 1, 'NVIDIA T4', 16, false],
  ['g5g.4xlarge', 1, 'NVIDIA T4', 16, false],
  ['g5g.8xlarge', 1, 'NVIDIA T4', 16, false],
  ['g5g.16xlarge', 2, 'NVIDIA T4', 32, false],
  ['g5g.metal', 2, 'NVIDIA T4', 32, false],
  ['g5.xlarge', 1, 'NVIDIA A10G', 24, true],
  ['g5.2xlarge', 1, 'NVIDIA A10G', 24, true],
  ['g5.4xlarge', 1, 'NVIDIA A10G', 24, true],
  ['g5.8xlarge', 1, 'NVIDIA A10G', 24, true],
  ['g5.12xlarge', 4, 'NVIDIA A10G', 96, true],
  ['g5.16xlarge', 1, 'NVIDIA A10G', 24, true],
  ['g5.24xlarge', 4, 'NVIDIA A10G', 96, true],
  ['g5.48xlarge', 8, 'NVIDIA A10G', 192, true],
  ['g4dn.xlarge', 1, 'NVIDIA T4', 16, true],
  ['g4dn.2xlarge', 1, 'NVIDIA T4', 16, true],
  ['g4dn.4xlarge', 1, 'NVIDIA T4', 16, true],
  ['g4dn.8xlarge', 1, 'NVIDIA T4', 16, true],
  ['g4dn.16xlarge', 1, 'NVIDIA T4', 16, true],
  ['g4dn.12xlarge', 4, 'NVIDIA T4', 64, true],
  ['g4dn.metal', 8, 'NVIDIA T4', 128, true],
  ['g4ad.xlarge', 1, 'AMD Radeon Pro V520', 8, true],
  ['g4ad.2xlarge', 1, 'AMD Radeon Pro V520', 8, true],
  ['g4ad.4xlarge', 1, 'AMD Radeon Pro V520', 8, true],
  ['g4ad.8xlarge', 2, 'AMD Radeon Pro V520', 16, true],
  ['g4ad.16xlarge', 4, 'AMD Radeon Pro V520', 32, true],
  ['g3s.xlarge', 1, 'NVIDIA M60', 8, false],
  ['g3s.4xlarge', 1, 'NVIDIA M60', 8, false],
  ['g3s.8xlarge', 2, 'NVIDIA M60', 16, false],
  ['g3s.16xlarge', 4, 'NVIDIA M60', 32, false],
  ['trn1.2xlarge', 1, 'AWS Trainium accelerators', 32, true],
  ['trn1.32xlarge', 16, 'AWS Trainium accelerators', 512, true],
  ['trn1n.32xlarge', 16, 'AWS Trainium accelerators', 512, true],
  ['inf2.xlarge', 1, 'AWS Inferentia2 accelerators', 32, false],
  ['inf2.8xlarge', 1, 'AWS Inferentia2 accelerators', 32, false],
  ['inf2.24xlarge', 6, 'AWS Inferentia2 accelerators', 192, false],
  ['inf2.48xlarge', 12, 'AWS Inferentia2 accelerators', 384, false],
];

// Azure Arc / AKS on Azure Local — 10 SKUs (`arc_sku_handker.go`); none has NVMe.
const ARC: readonly SkuRow[] = [
  ['Standard_NK6', 1, 'NVIDIA T4', 8, false],
  ['Standard_NK12', 2, 'NVIDIA T4', 16, false],
  ['Standard_NC4_A2', 1, 'NVIDIA A2', 16, false],
  ['Standard_NC8_A2', 1, 'NVIDIA A2', 16, false],
  ['Standard_NC16_A2', 2, 'NVIDIA A2', 32, false],
  ['Standard_NC32_A2', 2, 'NVIDIA A2', 32, false],
  ['Standard_NC4_A16', 1, 'NVIDIA A16', 16, false],
  ['Standard_NC8_A16', 1, 'NVIDIA A16', 16, false],
  ['Standard_NC16_A16', 2, 'NVIDIA A16', 32, false],
  ['Standard_NC32_A16', 2, 'NVIDIA A16', 32, false],
];

export const CLOUD_PROVIDERS: readonly CloudProvider[] = ['azure', 'aws', 'arc'];
export const DEFAULT_CLOUD_PROVIDER: CloudProvider = 'azure';
export const CLOUD_PROVIDER_ENV = 'CLOUD_PROVIDER';

function toCatalog(rows: readonly SkuRow[]): ReadonlyMap<string, Readonly<GpuConfig>> {
  return new Map(
    rows.map(([sku, gpuCount, gpuModel, gpuMemGiB, nvmeDiskEnabled]) => [sku, Object.freeze({ sku, gpuCount, gpuModel, gpuMemGiB, nvmeDiskEnabled })]),
  );
}

const CATALOGS: Readonly<Record<CloudProvider, ReadonlyMap<string, Readonly<GpuConfig>>>> = {
  azure: toCatalog(AZURE),
  aws: toCatalog(AWS),
  arc: toCatalog(ARC),
};

export function isCloudProvider(value: string): value is CloudProvider {
  return (CLOUD_PROVIDERS as readonly string[]).includes(value);
}

/**
 * The cloud whose catalog applies: the flag if given, else `CLOUD_PROVIDER`, else `azure`.
 * KAITO has no default (lookups fail without the env); kaito-ts defaults to azure so a plain start works.
 * An unknown value throws, naming the valid clouds.
 */
export function resolveCloudProvider(flagValue?: string, env: NodeJS.ProcessEnv = process.env): CloudProvider {
  const fromFlag = flagValue?.trim();
  const fromEnv = env[CLOUD_PROVIDER_ENV]?.trim();
  const [value, source] = fromFlag ? [fromFlag, '--cloud-provider'] : fromEnv ? [fromEnv, CLOUD_PROVIDER_ENV] : [DEFAULT_CLOUD_PROVIDER, 'default'];
  if (!isCloudProvider(value)) {
    throw new Error(`unsupported cloud provider ${JSON.stringify(value)} (from ${source}); valid clouds: ${CLOUD_PROVIDERS.join(', ')}`);
  }
  return value;
}

/**
 * GPUs KAITO v0.12.0 dropped from its tables (CUDA compute capability under 8.0: Turing, Volta, Maxwell,
 * Kepler, and the MI25): 15 Azure, 24 AWS and 2 Arc rows. KAITO v0.8.0 still lists them.
 */
const DROPPED_IN_V012 = new Set(['NVIDIA K80', 'NVIDIA V100', 'NVIDIA T4', 'NVIDIA M60', 'AMD Radeon Instinct MI25']);

function inTable(gpu: Readonly<GpuConfig>, generation: KaitoGeneration): boolean {
  return generation === 'v0.8' || !DROPPED_IN_V012.has(gpu.gpuModel);
}

/** Exact-name lookup in the table of a KAITO release (v0.8.0's by default), like KAITO's map lookup. A fresh copy. */
export function lookupSku(cloud: CloudProvider, instanceType: string, generation: KaitoGeneration = 'v0.8'): GpuConfig | undefined {
  const found = CATALOGS[cloud].get(instanceType);
  return found && inTable(found, generation) ? { ...found } : undefined;
}

/** All instance types of the cloud in a release's table (v0.8.0's by default), in catalog order. */
export function supportedSkus(cloud: CloudProvider, generation: KaitoGeneration = 'v0.8'): string[] {
  return [...CATALOGS[cloud].values()].filter((gpu) => inTable(gpu, generation)).map((gpu) => gpu.sku);
}

/** Whether KAITO v0.12.0 dropped an instance type that v0.8.0 lists. */
export function droppedInV012(cloud: CloudProvider, instanceType: string): boolean {
  return lookupSku(cloud, instanceType) !== undefined && lookupSku(cloud, instanceType, 'v0.12') === undefined;
}

/** KAITO's message for an instance type missing from the catalog (`utils.GetGPUConfigBySKU`). */
export function unsupportedSkuMessage(instanceType: string): string {
  return `invalid value: Unsupported SKU '${instanceType}' for cloud provider: sku`;
}

/**
 * Azure-only webhook leniency: an instance type outside the catalog is still admitted when it starts
 * with `Standard_N` or `Standard_D` (KAITO then fails later for preset workspaces; see W26).
 */
export function isLenientAzureSku(cloud: CloudProvider, instanceType: string): boolean {
  return cloud === 'azure' && (instanceType.startsWith('Standard_N') || instanceType.startsWith('Standard_D'));
}
