// Every condition and event reason the workspace controller writes beyond KAITO's own, in one place
// (docs/controller.md lists them). KAITO's reasons live in src/api/labels.ts.
import { SecretReason } from './model-secret.js';

export const Reason = {
  InvalidSpec: 'InvalidSpec',
  SecretNotFound: SecretReason.NotFound,
  SecretKeyMissing: SecretReason.KeyMissing,
  NotOwned: 'ObjectNotOwned',
  RevisionConflict: 'RevisionConflict',
  WorkloadMigration: 'WorkloadMigration',
  NodeClaimCrdMissing: 'NodeClaimCRDNotInstalled',
  NodePoolCrdMissing: 'NodePoolCRDNotInstalled',
  /** The API server refused a child object (its own words in the message). */
  ChildObjectRejected: 'ChildObjectRejected',
  /** A 409 that keeps coming back. */
  PersistentConflict: 'PersistentConflict',
  /** The plan itself threw: a spec shape no rule caught. */
  PlanFailed: 'ReconcilePlanFailed',
  WaitingForNodes: 'WaitingForNodes',
  TemplateFieldsDropped: 'TemplateFieldsDropped',
  WeightsVolumeChange: 'WeightsVolumeChange',
  WeightsClaimStranded: 'WeightsClaimStranded',
  /** Tuning: the API server refused the Job. */
  InvalidJob: 'InvalidJob',
} as const;

export { NotReadyReason, PodProblem } from './readiness.js';
export { ProvisioningReason } from './provisioning-plan.js';
export { KarpenterReason } from './karpenter-plan.js';
export { SecretReason } from './model-secret.js';
export { TuningReason } from './tuning-status.js';
