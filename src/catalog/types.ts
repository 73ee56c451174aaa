// Shapes shared by the GPU SKU catalog and the preset catalog. Facts only; no behaviour here.
import type { GeneratedModel } from './model-generator.js';

export type CloudProvider = 'azure' | 'aws' | 'arc';

/** GPU facts about one node. `gpuMemGiB` is the NODE TOTAL (all GPUs summed), as KAITO uses it. */
export interface GpuConfig {
  sku: string;
  gpuCount: number;
  gpuModel: string;
  gpuMemGiB: number;
  nvmeDiskEnabled: boolean;
}

export type Runtime = 'vllm' | 'transformers';

export interface VllmParams {
  baseCommand: string;
  servedModelName: string;
  /** Flag → value; '' means a bare flag. Insertion order is the rendered order. */
  modelRunParams: Record<string, string>;
  rayLeaderBaseCommand?: string;
  rayWorkerBaseCommand?: string;
  disallowLoRA: boolean;
}

export interface TransformersParams {
  baseCommand: string;
  accelerateParams: Record<string, string>;
  inferenceMainFile: string;
  modelRunParams: Record<string, string>;
}

export interface Preset {
  name: string;
  family: string;
  /** Hugging Face repo, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
  hfRepo: string;
  /** Commit the weights are pinned to. */
  hfRevision: string;
  /** true: weights downloaded at runtime from Hugging Face; false: OCI artifact pulled by an init container. */
  downloadAtRuntime: boolean;
  downloadAuthRequired: boolean;
  /** Tag of the OCI weights artifact `<registry>/kaito-<name>:<tag>`. */
  tag: string;
  gpuCountRequirement: number;
  /** Model weight size as a Kubernetes quantity string, e.g. `131.42Gi`. */
  totalSafeTensorFileSize: string;
  /** Disk for the weights (NVMe claim size / emptyDir sizeLimit), e.g. `220Gi`. */
  diskStorageRequirement: string;
  bytesPerToken: number;
  modelTokenLimit: number;
  supportDistributedInference: boolean;
  disableTensorParallelism: boolean;
  supportTuning: boolean;
  /** Readiness timeout in seconds (KAITO: 30m, 45m or 60m). */
  readinessTimeoutSeconds: number;
  vllm: VllmParams;
  transformers: TransformersParams;
  /**
   * Set for a model named by its Hugging Face id (KAITO v0.12's catalog or the hub): what v0.12's
   * generator derived, and the sign that the builders render it as v0.12 does. Absent for the legacy
   * short names, which render as KAITO v0.8.0 did.
   */
  generated?: GeneratedModel;
}
