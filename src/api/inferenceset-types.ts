// The kaito.sh InferenceSet API (v1beta1 storage, v1alpha1 served), exactly as KAITO v0.12.0 declares it
// (api/v1beta1/inferenceset_types.go): a replica set of Workspaces with a scale subresource.
import type { KubernetesObject, V1LabelSelector, V1ObjectMeta } from '@kubernetes/client-node';
import type { InferenceSpec, PartitionSpec, WorkspaceCondition } from './types.js';

export const INFERENCESET_KIND = 'InferenceSet';
export const INFERENCESET_PLURAL = 'inferencesets';

export type { PartitionSpec } from './types.js';

export interface InferenceSetResourceSpec {
  /** Required with node auto-provisioning; must be empty for BYO nodes. */
  instanceType?: string;
  /** v1beta1 only; immutable. */
  partition?: PartitionSpec;
}

export interface InferenceSetTemplate {
  /** Schemaless: only labels and annotations are read. */
  metadata?: Pick<V1ObjectMeta, 'labels' | 'annotations'> & Record<string, unknown>;
  resource?: InferenceSetResourceSpec;
  inference: InferenceSpec;
}

export interface MaintenanceWindow {
  schedule: string;
  /** A Go duration; CRD default `4h`. */
  duration?: string;
}

export interface AutoUpgradePolicy {
  enabled?: boolean;
  strategy?: 'InPlace' | 'Surge';
  maintenanceWindow?: MaintenanceWindow;
}

export interface InferenceSetSpec {
  template: InferenceSetTemplate;
  /** CRD default 1, minimum 0. */
  replicas?: number;
  nodeCountLimit?: number;
  labelSelector: V1LabelSelector;
  /** appsv1.StatefulSetUpdateStrategy, schemaless; CRD default {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}. */
  updateStrategy?: Record<string, unknown>;
  autoUpgrade?: AutoUpgradePolicy;
}

export interface InferenceSetStatus {
  replicas?: number;
  readyReplicas?: number;
  /** `inferenceset.kaito.sh/created-by=<name>`: the scale subresource's selector. */
  selector?: string;
  conditions?: WorkspaceCondition[];
  performance?: { metrics?: Record<string, { description: string; value: string; unit?: string; config?: Record<string, string> }> };
  autoUpgrade?: { numDriftedWorkspaces?: number; lastSuccessfulUpgradeTime?: string };
}

export interface InferenceSet extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: InferenceSetSpec;
  status?: InferenceSetStatus;
}
