// Validation messages, worded as KAITO words them (api/v1beta1/workspace_validation.go and the
// apimachinery validators it calls). Shared by the CRD's CEL rules and the in-code validator so the
// same mistake reads the same wherever it is caught.

export const DNS1123_LABEL_REGEX = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_SUBDOMAIN_REGEX = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const MAX_ADAPTERS = 10;

export const Msg = {
  // apimachinery validation.IsDNS1123Label / IsDNS1123Subdomain
  labelFormat:
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '" +
    DNS1123_LABEL_REGEX +
    "')",
  subdomainTooLong: `must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`,
  subdomainFormat:
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '" +
    DNS1123_SUBDOMAIN_REGEX +
    "')",

  workspaceNameTooLong: (max: number) =>
    `metadata.name must be no more than ${max} characters: the StatefulSet controller labels each pod controller-revision-hash=<name>-<hash of up to 10 characters>, and a label value holds at most ${DNS1123_LABEL_MAX}`,

  /** kaito-ts's own: KAITO v0.12 serves it behind its enableMIG / enableAccelerator gates, which kaito-ts does not implement. */
  partitionUnsupported: (mode: unknown) =>
    `GPU partitioning (mode ${JSON.stringify(mode)}; KAITO's enableMIG and enableAccelerator feature gates) is not supported by kaito-ts: the field is kept, nothing is created (docs/operations.md#feature-gates)`,

  // Workspace shape
  /** A value of the wrong JSON type inside a Kubernetes object the CRD keeps as-is (pod template, volume source). */
  wrongJsonType: (got: string, want: string, what: string) => `Invalid value: "${got}": must be ${want}, as in ${what}`,
  neitherInferenceNorTuning: 'Either Inference or Tuning must be specified, not neither',
  bothInferenceAndTuning: 'Either Inference or Tuning must be specified, but not both',
  inferenceToggled: 'Inference field cannot be toggled once set',
  tuningToggled: 'Tuning field cannot be toggled once set',

  // resource
  instanceTypeMustBeEmpty: 'instanceType must be empty when node auto-provisioning is disabled (BYO scenario)',
  instanceTypeRequired: 'instanceType is required when node auto-provisioning is enabled',
  immutable: 'field is immutable',
  labelSelectorFlat: "Only allow matchLabels or 'IN' matchExpression",
  tuningMultiNode: 'Tuning does not currently support multinode configurations. Please set the node count to 1. Future support with DeepSpeed will allow this.',
  unsupportedInstanceType: (t: string, supported: readonly string[]) => `Unsupported instance type ${t}. Supported SKUs: ${supported.join(', ')}`,
  insufficientGpuCount: (t: string, provided: string, preset: string, required: number) =>
    `Insufficient number of GPUs: Instance type ${t} provides ${provided}, but preset ${preset} requires at least ${required}`,
  insufficientGpuMemory: (t: string, total: string, preset: string, required: string) =>
    `Insufficient total GPU memory: Instance type ${t} has a total of ${total}, but preset ${preset} requires at least ${required}`,
  transformersUnsupported: (model: string) => `model ${model} does not support inference with Huggingface Transformers runtime`,
  transformersMultiNode: 'Multi-node distributed inference is not supported with Huggingface Transformers runtime',
  listNodesFailed: (err: string) => `Failed to list nodes with labelSelector: ${err}`,
  noMatchingNodes: 'No nodes found matching the specified label selector',
  nodeGpuLabels: (node: string, err: string) => `Failed to get GPU config from nvidia labels on node ${node}: ${err}`,
  nonUniformProduct: (node: string, got: string, prev: string) =>
    `Non-uniform GPU product: node ${node} has ${got} GPUs, but previous node has ${prev} GPUs, all nodes must have the same GPU product for homogeneous placement`,
  nonUniformCount: (node: string, got: number, prev: number) => `Non-uniform GPU count: node ${node} has ${got} GPUs, but previous node has ${prev} GPUs`,
  nonUniformMemory: (node: string, got: number, prev: number) =>
    `Non-uniform GPU memory: node ${node} has ${got} GB memory, but previous node has ${prev} GB memory`,

  // inference
  presetOrTemplate: 'Preset or Template must be specified',
  presetAndTemplate: 'Preset and Template cannot be set at the same time',
  templateToggled: 'field cannot be unset/set if it was set/unset',
  deprecatedPreset: (name: string) => `Model ${name} is deprecated and no longer supported`,
  unsupportedInferencePreset: (name: string) => `Unsupported inference preset name ${name}`,
  vllmNoLoRA: (model: string) => `vLLM does not support LoRA adapters for this model: ${model}`,
  vllmNoStrength: 'vLLM does not support adapter strength',
  runtimeValidation: (msgs: readonly string[]) => `Runtime validation: ${msgs.join('; ')}`,
  secretRequired: 'This preset requires authentication and needs a modelAccessSecret with HF_TOKEN key under presetOptions to download the model',
  secretNotAllowed: 'This preset does not require a modelAccessSecret with HF_TOKEN key under presetOptions',
  /** v1alpha1 only (api/v1alpha1/workspace_validation.go). */
  privateAccessNeedsImage: 'When AccessMode is private, an image must be provided in PresetOptions',
  tooManyAdapters: `Number of Adapters exceeds the maximum limit, maximum of ${MAX_ADAPTERS} allowed`,
  duplicateAdapter: (name: string) => `Duplicate adapter source name found: ${name}`,
  duplicateAdapterStatic: 'Duplicate adapter source name found (adapter source names must be unique)',
  adapterSourceRequired: 'missing field(s): Source',
  adapterNameRequired: 'Name of Adapter field must be specified',
  adapterImageRequired: 'Image of Adapter field must be specified',
  exactlyOneSource: 'Exactly one of URLs, Volume, or Image must be specified',
  invalidStrength: (adapter: string, err: string) => `Invalid strength value for Adapter '${adapter}': ${err}`,
  strengthRange: (adapter: string) => `Strength value for Adapter '${adapter}' must be between 0 and 1`,

  // inference config
  configMapNotFound: (name: string, ns: string) => `ConfigMap '${name}' specified in 'config' not found in namespace '${ns}'`,
  configKeyMissing: 'missing field(s): inference_config.yaml in ConfigMap',
  configParse: (err: string) => `Failed to parse inference_config.yaml: ${err}`,
  maxModelLenNotInt: (err: string) => `max-model-len must be an integer: ${err}`,
  maxModelLenTooBig: (value: number, limit: number) => `max-model-len ${value} exceeds model's maximum supported context window ${limit} (ModelTokenLimit)`,
  /** v1alpha1 only (api/v1alpha1/inference_config_validation.go). */
  maxModelLenRequired:
    'missing field(s): max-model-len is required in the vllm section of inference_config.yaml when using multi-GPU instances with <20GB of memory per GPU or distributed inference',

  // tuning
  tuningMethod: (method: string) => `invalid value: ${method}: Method`,
  tuningMethodChanged: 'Method cannot be changed',
  tuningPresetChanged: 'Preset cannot be changed',
  tuningInputNameChanged: 'During tuning Name field cannot be changed once set',
  unsupportedTuningPreset: (name: string) => `Unsupported tuning preset name ${name}`,
  exactlyOneDestination: 'Exactly one of Volume or Image must be specified',
  pushSecretRequired: 'Must specify imagePushSecret with destination image',
  inputRequired: 'missing field(s): Input',
  outputRequired: 'missing field(s): Output',
  badImageReference: (which: 'input' | 'output', err: string) => `Unable to parse ${which} image reference: ${err}`,
} as const;
