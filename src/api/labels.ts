// Every key, finalizer and condition string of the Workspace API, spelled exactly as KAITO v0.8.0
// spells them (spec §2.7, §2.8). Import these; never retype a key.

// --- Workspace annotations (set by users) ---
/** `vllm` | `transformers`; see inference-runtime.ts for how it is resolved. */
export const ANNOTATION_RUNTIME = 'kaito.sh/runtime';
/** Exact value `True` → main Service type LoadBalancer. */
export const ANNOTATION_ENABLE_LB = 'kaito.sh/enablelb';
export const ENABLE_LB_VALUE = 'True';
/** Presence (any value) turns GPU count/memory validation errors into warnings. */
export const ANNOTATION_BYPASS_RESOURCE_CHECKS = 'kaito.sh/bypass-resource-checks';

// --- Revision bookkeeping (operator-owned) ---
export const ANNOTATION_REVISION = 'workspace.kaito.io/revision';
/** KAITO v0.10: vLLM's --performance-mode (balanced, interactivity, throughput); read for models named by Hugging Face id. */
export const ANNOTATION_PERFORMANCE_MODE = 'kaito.sh/performance-mode';
export const ANNOTATION_HASH = 'workspace.kaito.io/hash';
/** ControllerRevision label carrying the workspace name. */
export const LABEL_REVISION_WORKSPACE_NAME = 'workspace.kaito.io/name';

// --- Labels on generated objects ---
export const LABEL_WORKSPACE_NAME = 'kaito.sh/workspace';
export const LABEL_WORKSPACE_NAMESPACE = 'kaito.sh/workspacenamespace';
/** Set on a Workspace by the InferenceSet controller; copied to the StatefulSet selector and pod labels. */
export const LABEL_INFERENCESET_CREATED_BY = 'inferenceset.kaito.sh/created-by';
export const LABEL_STATEFULSET_POD_NAME = 'statefulset.kubernetes.io/pod-name';
export const LABEL_POD_INDEX = 'apps.kubernetes.io/pod-index';

// --- Karpenter / node keys ---
export const LABEL_KARPENTER_NODEPOOL = 'karpenter.sh/nodepool';
export const KARPENTER_NODEPOOL_KAITO = 'kaito';
export const ANNOTATION_KARPENTER_DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
export const LABEL_ACCELERATOR = 'accelerator';
export const ACCELERATOR_NVIDIA = 'nvidia';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';

// --- Karpenter NodePool mode (KAITO v0.12 `--node-provisioner=karpenter`, pkg/utils/consts) ---
export const NODE_PROVISIONER_KARPENTER = 'karpenter';
/** On a Workspace: which of the configured NodeClasses its NodePool uses (default: the entry marked default). */
export const ANNOTATION_NODE_CLASS_NAME = 'kaito.sh/node-class-name';
/** On NodePools and NodeClasses KAITO creates. */
export const LABEL_KARPENTER_MANAGED_BY = 'karpenter.kaito.sh/managed-by';
export const KARPENTER_MANAGED_BY_KAITO = 'kaito';
/** `"true"` on the NodeClass made from the entry marked default. */
export const LABEL_KARPENTER_DEFAULT_NODECLASS = 'karpenter.kaito.sh/default';
/** On the NodePool and its template (so on NodeClaims and Nodes): the owning workspace. */
export const LABEL_KARPENTER_WORKSPACE_NAME = 'karpenter.kaito.sh/workspace-name';
export const LABEL_KARPENTER_WORKSPACE_NAMESPACE = 'karpenter.kaito.sh/workspace-namespace';
/** On the NodePool and its template when the workspace is an InferenceSet member (drift handling). */
export const LABEL_KARPENTER_INFERENCESET = 'karpenter.kaito.sh/inferenceset';
export const LABEL_KARPENTER_INFERENCESET_NAMESPACE = 'karpenter.kaito.sh/inferenceset-namespace';
/** The NodeClass group of karpenter-provider-azure, whose NodePools also need the placement scope. */
export const KARPENTER_AZURE_GROUP = 'karpenter.azure.com';
export const LABEL_AZURE_PLACEMENT_SCOPE = 'karpenter.azure.com/placement-scope';
export const AZURE_PLACEMENT_REGIONAL = 'regional';
export const LABEL_RAGENGINE_NAME = 'kaito.sh/ragengine';
export const LABEL_RAGENGINE_NAMESPACE = 'kaito.sh/ragenginenamespace';

// --- GPU Feature Discovery node labels (BYO GPU facts) ---
export const LABEL_GPU_PRODUCT = 'nvidia.com/gpu.product';
export const LABEL_GPU_COUNT = 'nvidia.com/gpu.count';
/** Per-GPU memory in MiB (GFD semantics). */
export const LABEL_GPU_MEMORY = 'nvidia.com/gpu.memory';
export const RESOURCE_NVIDIA_GPU = 'nvidia.com/gpu';

// --- Finalizers ---
export const WORKSPACE_FINALIZER = 'workspace.finalizer.kaito.sh';

// --- Storage / config names ---
/** StorageClass for local NVMe PVs (installed by the chart). */
export const LOCAL_NVME_STORAGE_CLASS = 'kaito-local-nvme-disk';
/** Default inference ConfigMap, copied from the release namespace when `inference.config` is empty. */
export const DEFAULT_INFERENCE_CONFIG_TEMPLATE = 'inference-params-template';
/** Key inside the inference ConfigMap. */
export const INFERENCE_CONFIG_KEY = 'inference_config.yaml';
export const DEFAULT_LORA_TUNING_CONFIG_TEMPLATE = 'lora-params-template';
export const DEFAULT_QLORA_TUNING_CONFIG_TEMPLATE = 'qlora-params-template';
/** Key holding the Hugging Face token in `presetOptions.modelAccessSecret`. */
export const HF_TOKEN_KEY = 'HF_TOKEN';

// --- Condition types (v1beta1) ---
export const ConditionType = {
  NodeClaimsReady: 'NodeClaimsReady',
  NodesReady: 'NodesReady',
  ResourceReady: 'ResourceReady',
  InferenceReady: 'InferenceReady',
  JobStarted: 'JobStarted',
  WorkspaceDeleting: 'WorkspaceDeleting',
  WorkspaceSucceeded: 'WorkspaceSucceeded',
  /** Defined by KAITO, unused by the workspace controller. */
  ScalingDownCompleted: 'ScalingDownCompleted',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** v1alpha1 spells the NodeClaims condition in the singular (and has no NodesReady). */
export const V1ALPHA1_CONDITION_NODECLAIM_READY = 'NodeClaimReady';

// --- Condition reasons (v1beta1), exact case as KAITO writes them ---
export const ConditionReason = {
  CreatingUpNodeClaims: 'CreatingUpNodeClaims',
  NodeClaimsReady: 'NodeClaimsReady',
  NodeClaimNotReady: 'NodeClaimNotReady',
  NodePluginsNotReady: 'NodePluginsNotReady',
  NodeNotReady: 'NodeNotReady',
  NodesReady: 'NodesReady',
  ResourceStatusSuccess: 'workspaceResourceStatusSuccess',
  InferenceStatusFailed: 'WorkspaceInferenceStatusFailed',
  InferenceStatusSuccess: 'WorkspaceInferenceStatusSuccess',
  TuningJobStatusFailed: 'WorkspaceTuningJobStatusFailed',
  TuningJobStatusStarted: 'WorkspaceTuningJobStatusStarted',
  WorkspaceFailed: 'workspaceFailed',
  WorkspaceSucceeded: 'workspaceSucceeded',
  WorkspacePending: 'workspacePending',
  WorkspaceDeleted: 'workspaceDeleted',
} as const;
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];

// --- status.state (KAITO v0.9): Pending is common, then inference or tuning values ---
export const WorkspaceState = {
  Pending: 'Pending',
  Ready: 'Ready',
  NotReady: 'NotReady',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
} as const;
export type WorkspaceState = (typeof WorkspaceState)[keyof typeof WorkspaceState];
export const WORKSPACE_STATES: readonly WorkspaceState[] = Object.values(WorkspaceState);

/** Fixed condition messages; the parameterised ones are functions so callers cannot misspell them. */
export const ConditionMessage = {
  resourceReady: 'workspace resource is ready',
  inferenceReady: 'Inference has been deployed successfully',
  tuningJobStarted: 'Tuning job has started',
  workspaceSucceeded: 'workspace succeeds',
  workspaceDeleting: 'workspace is being deleted',
  nodePluginsWaiting: 'waiting all node plugins to be ready',
  creatingNodeClaims: (n: number) => `Creating up ${n} additional NodeClaims`,
  nodeClaimsReady: (target: number, ready: number) => `Enough NodeClaims are ready (TargetNodeClaims: ${target}, CurrentReadyNodeClaims: ${ready})`,
  nodeClaimsNotReady: (target: number, ready: number) => `Ready NodeClaims are not enough (TargetNodeClaims: ${target}, CurrentReadyNodeClaims: ${ready})`,
  nodesReady: (target: number, ready: number, selected: number) =>
    `Enough Nodes are ready (TargetNodes: ${target}, CurrentReadyNodes: ${ready}, SelectedNodes: ${selected})`,
  nodesNotReady: (target: number, ready: number, selected: number) =>
    `Not enough Nodes are ready (TargetNodes: ${target}, CurrentReadyNodes: ${ready}, SelectedNodes: ${selected})`,
  nodeMissingInstanceType: (node: string) => `Node ${node} is missing required instance type label`,
  nodeInstanceTypeMismatch: (node: string, label: string, want: string) =>
    `Node ${node} instance type label ${label} does not match workspace instance type ${want}`,
  tuningPending: (active: number, ready: number) => `workspace has not completed, tuning job has ${active} active pod, ${ready} ready pod`,
} as const;

// --- InferenceSet (KAITO v0.12.0) ---
export const INFERENCESET_FINALIZER = 'inferenceset.finalizer.kaito.sh';
/** ControllerRevision label carrying the InferenceSet name. */
export const LABEL_REVISION_INFERENCESET_NAME = 'inferenceset.kaito.io/name';
/** On the InferenceSet and its ControllerRevisions: sha256 of the spec's JSON. */
export const ANNOTATION_INFERENCESET_HASH = 'inferenceset.kaito.io/hash';
/** On the InferenceSet: the revision number of its current ControllerRevision. */
export const ANNOTATION_INFERENCESET_REVISION = 'inferenceset.kaito.io/revision';
/** Copied from the InferenceSet's own labels onto its children (prefill/decode roles). */
export const LABEL_INFERENCE_ROLE = 'kaito.sh/inference-role';
export const LABEL_MULTIROLE_INFERENCE_PARENT = 'multiroleinference.kaito.sh/created-by';
/** `"true"` on a child when the InferenceSet turned its benchmark off. */
export const ANNOTATION_DISABLE_BENCHMARK = 'kaito.sh/disable-benchmark';

export const InferenceSetConditionType = {
  Ready: 'InferenceSetReady',
  Deleting: 'InferenceSetDeleting',
  /** kaito-ts: the state of a template rollout (KAITO has none); set once a rollout starts. */
  Progressing: 'InferenceSetProgressing',
} as const;

export const InferenceSetConditionReason = {
  Ready: 'inferencesetReady',
  NotReady: 'inferencesetNotReady',
  Failed: 'inferencesetFailed',
  Deleted: 'inferencesetDeleted',
  /** kaito-ts, on InferenceSetReady: spec.nodeCountLimit caps spec.replicas. */
  NodeCountLimitReached: 'NodeCountLimitReached',
  /** kaito-ts, on InferenceSetProgressing. */
  RollingUpdate: 'RollingUpdate',
  RolloutComplete: 'RolloutComplete',
  SurgeTimeout: 'SurgeTimeout',
  RolloutDisabled: 'RolloutDisabled',
} as const;

// --- InferenceSet, kaito-ts extensions (docs/inferenceset.md) ---
/** On a child we create: the template hash it was made from (KAITO records none on its children). */
export const ANNOTATION_CHILD_TEMPLATE_HASH = 'kaito-ts.io/template-hash';
/**
 * On the InferenceSet: the template hash at the first pass kaito-ts made over it. Children with no
 * template hash (made before, e.g. by KAITO) are taken to be of this template, so a takeover rolls nothing.
 */
export const ANNOTATION_ADOPTED_TEMPLATE_HASH = 'kaito-ts.io/adopted-hash';
/** On the InferenceSet: `"false"` keeps KAITO's behaviour (template changes never reach existing children). */
export const ANNOTATION_ROLLOUT = 'kaito-ts.io/rollout';
/** On the InferenceSet: children beyond spec.replicas during a rollout, an integer or a percentage (default 1). */
export const ANNOTATION_MAX_SURGE = 'kaito-ts.io/max-surge';
/** On the InferenceSet: how long a rollout waits for a new child to become Ready (default 10m). */
export const ANNOTATION_SURGE_TIMEOUT = 'kaito-ts.io/surge-timeout';
/** On the InferenceSet: `"false"` leaves spec.nodeCountLimit unenforced, as in KAITO. */
export const ANNOTATION_ENFORCE_NODE_COUNT_LIMIT = 'kaito-ts.io/enforce-node-count-limit';
/** On the InferenceSet: `"all-pods"` gives status.selector as KAITO does (every pod of every child, workers too). */
export const ANNOTATION_SCALE_SELECTOR = 'kaito-ts.io/scale-selector';

export const InferenceSetConditionMessage = {
  ready: 'inferenceset is ready',
  deleting: 'inferenceset is being deleted',
  notReady: (ready: number, desired: number) => `inferenceset is not ready, ${ready}/${desired} replicas are ready`,
} as const;

// --- Zero-downtime updates of a workspace, kaito-ts extensions (docs/controller.md, "Updates") ---
/** On the Workspace: `Surge`, `SurgeIfCapacity` or `Recreate` (default: --default-update-strategy). */
export const ANNOTATION_UPDATE_STRATEGY = 'kaito-ts.io/update-strategy';
/** On a surge StatefulSet, its pods' selector and template, its NodeClaim: the revision hash it serves (5 characters). */
export const LABEL_SURGE = 'kaito-ts.io/surge';
/** On the Workspace: the surge hash whose surge failed; that revision is not tried again until the spec changes. */
export const ANNOTATION_SURGE_FAILED = 'kaito-ts.io/surge-failed';
/** On a pre-pull Job: the surge hash whose images it pulls. */
export const LABEL_PREPULL = 'kaito-ts.io/prepull';
/** The condition an update reports on (unknown condition types are ignored by KAITO's clients). */
export const CONDITION_UPDATING = 'Updating';
