// The kaito.sh Workspace API (v1beta1 storage, v1alpha1 served). No `spec` wrapper:
// `resource`, `inference` and `tuning` sit at the top level, exactly as in KAITO v0.8.0.
import type { V1LabelSelector, V1ObjectMeta, V1PodTemplateSpec, V1Volume } from '@kubernetes/client-node';

export const GROUP = 'kaito.sh';
export const VERSION = 'v1beta1';
export const ALPHA_VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'Workspace';
export const PLURAL = 'workspaces';

export interface ResourceSpec {
  /** Deprecated in v1beta1; CRD default 1. */
  count?: number;
  instanceType?: string;
  labelSelector: V1LabelSelector;
  /** Deprecated; only enters the spec hash. */
  preferredNodes?: string[];
  /** KAITO v0.12 (v1beta1 only): GPU partitioning. Kept by the CRD; kaito-ts refuses a workspace that sets it. */
  partition?: PartitionSpec;
}

/** KAITO v0.12's PartitionSpec (v1beta1 only): MIG slices or whole accelerators. */
export interface PartitionSpec {
  mode: 'mig' | 'accelerator';
  profile?: string;
  count?: number;
}

export interface PresetOptions {
  /** Deprecated, ignored. */
  image?: string;
  /** Deprecated, ignored. */
  imagePullSecrets?: string[];
  /** Secret in the workspace namespace with key HF_TOKEN. */
  modelAccessSecret?: string;
}

export interface PresetSpec {
  name: string;
  /** Deprecated; CRD default `public`. */
  accessMode?: 'public' | 'private';
  presetOptions?: PresetOptions;
}

export interface DataSource {
  name?: string;
  urls?: string[];
  volumeSource?: Omit<V1Volume, 'name'>;
  image?: string;
  imagePullSecrets?: string[];
}

export interface DataDestination {
  volumeSource?: Omit<V1Volume, 'name'>;
  image?: string;
  imagePushSecret?: string;
}

export interface AdapterSpec {
  source?: DataSource;
  /** A float in [0, 1] written as a string. */
  strength?: string;
}

export interface InferenceSpec {
  preset?: PresetSpec;
  template?: V1PodTemplateSpec;
  /** ConfigMap in the workspace namespace holding `inference_config.yaml`. */
  config?: string;
  adapters?: AdapterSpec[];
}

export interface TuningSpec {
  preset: PresetSpec;
  method?: string;
  config?: string;
  input?: DataSource;
  output?: DataDestination;
}

/**
 * metav1.Condition as it travels over the wire: times are RFC 3339 strings (client-node's
 * V1Condition claims `Date`, which is not what a custom-object read returns).
 */
export interface WorkspaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface WorkspaceStatus {
  workerNodes?: string[];
  conditions?: WorkspaceCondition[];
  targetNodeCount?: number;
  /** KAITO v0.9's `status.state` (WorkspaceState): Pending, Ready or NotReady for inference; Running, Succeeded or Failed for tuning. */
  state?: string;
  /** kaito-ts extension: the decisions a user should see (volume kind, node count...). */
  decisions?: Decision[];
}

export interface Workspace {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  resource: ResourceSpec;
  inference?: InferenceSpec;
  tuning?: TuningSpec;
  status?: WorkspaceStatus;
}

/** One decision that matters to a user, with the reason, as data (shown by the CLI and in status). */
export interface Decision {
  /** e.g. `modelWeightsVolume`, `targetNodeCount`, `runtime`. */
  topic: string;
  /** e.g. `nvme`, `emptyDir`, `3`. */
  choice: string;
  reason: string;
}
