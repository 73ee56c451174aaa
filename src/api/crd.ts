// The Workspace CustomResourceDefinition, generated from code (`kaito-ts crd`).
// Field layout follows KAITO v0.8.0 (no `spec` wrapper). Unlike KAITO, which checks everything in a
// webhook, every rule that needs no cluster state and no operator flag is a CEL rule or a schema
// constraint here, so `kubectl apply` refuses the object with KAITO's message and no webhook is
// needed. Rules that need the SKU/preset catalogs, feature gates or cluster objects live in
// validation.ts. String/list bounds below exist mainly to keep the API server's static CEL cost
// estimate small (an unbounded string is costed as if it were ~3 MB long).
import { getPreset, presetNames } from '../catalog/presets.js';
import { IMAGE_REF_REGEX } from './image-ref.js';
import { ConditionType, WORKSPACE_STATES } from './labels.js';
import { DNS1123_LABEL_REGEX, DNS1123_SUBDOMAIN_MAX, DNS1123_SUBDOMAIN_REGEX, MAX_ADAPTERS, Msg } from './messages.js';
import type { CelRule, OpenApiSchema } from './openapi-schema.js';
import { ALPHA_VERSION, GROUP, KIND, PLURAL, VERSION } from './types.js';

export const CRD_NAME = `${PLURAL}.${GROUP}`;
/** KAITO v1alpha1 defaults `resource.instanceType` to this SKU. */
export const V1ALPHA1_DEFAULT_INSTANCE_TYPE = 'Standard_NC24ads_A100_v4';

// Bounds. Names are Kubernetes object names; the rest are generous ceilings no real workspace reaches.
const NAME_MAX = DNS1123_SUBDOMAIN_MAX;
const IMAGE_MAX = 1024;
const LIST_MAX = 64;
const LABEL_KEY_MAX = 317; // prefix (253) + '/' + name (63)
const LABEL_VALUE_MAX = 63;
const STRENGTH_MAX = 32;
const METHOD_MAX = 32;
/** 63 minus the 27 characters of `docker-config-` + `-tuning-input`. */
const TUNING_INPUT_NAME_MAX = 36;

/**
 * The longest workspace name whose derived names all fit. The StatefulSet controller labels every pod
 * `controller-revision-hash: <StatefulSet name>-<hash>`, the hash being a 32-bit FNV printed in
 * decimal (up to 10 characters), and a label value holds 63: 63 - 1 - 10 = 52. The other derived
 * names are looser: `<name>-headless` (Service, 63 → 54), `<name>-<ordinal>` (pod hostname, 63 →
 * 59 with 3-digit ordinals), `<name>-<hash[:5]>` (ControllerRevision, 253).
 */
export const WORKSPACE_NAME_MAX = 52;
/**
 * Ceiling of `resource.count`: KAITO's estimator never asks for more than 153 nodes for any preset of
 * the catalog on any SKU of the catalogs (deepseek-r1/v3 on 8 GiB single-GPU SKUs); the next power of
 * two leaves room and keeps one workspace from asking the StatefulSet controller for 10^5 pods.
 */
export const RESOURCE_COUNT_MAX = 256;

// ---------- tiny schema constructors (keep the tree below readable) ----------

type Extra = Omit<OpenApiSchema, 'type'>;

export const str = (description: string, extra: Extra = {}): OpenApiSchema => ({ description, type: 'string', ...extra });
export const int = (description: string, extra: Extra = {}): OpenApiSchema => ({ description, type: 'integer', ...extra });
const strList = (description: string, maxItems = LIST_MAX, itemMax = NAME_MAX): OpenApiSchema => ({
  description,
  type: 'array',
  maxItems,
  items: { type: 'string', maxLength: itemMax },
});
export const obj = (description: string, properties: Record<string, OpenApiSchema>, extra: Extra = {}): OpenApiSchema => ({
  description,
  type: 'object',
  ...extra,
  properties,
});
/** An opaque Kubernetes sub-object (pod template, volume source) kept as-is; typed `object` so CEL can `has()` it. */
export const opaque = (description: string): OpenApiSchema => ({
  description,
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
});
export const rules = (...list: CelRule[]): Pick<OpenApiSchema, 'x-kubernetes-validations'> => ({ 'x-kubernetes-validations': list });
export const immutable = (message: string = Msg.immutable): CelRule => ({ rule: 'self == oldSelf', message });

const LABEL_RE = `^${DNS1123_LABEL_REGEX}$`;
const SUBDOMAIN_RE = `^${DNS1123_SUBDOMAIN_REGEX}$`;
const FLOAT_RE = '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$';

// ---------- shared sub-schemas ----------

function presetSchema(version: string): OpenApiSchema {
  const beta = version === VERSION;
  const options: Record<string, OpenApiSchema> = {
    image: str(beta ? 'Deprecated and ignored in v1beta1.' : 'Model image.', { maxLength: IMAGE_MAX }),
    imagePullSecrets: strList(beta ? 'Deprecated and ignored in v1beta1.' : 'Secrets for pulling the model image.'),
  };
  if (beta) {
    options.modelAccessSecret = str('Secret in the workspace namespace whose key HF_TOKEN authorises downloading the model from Hugging Face.', {
      maxLength: NAME_MAX,
    });
  }
  return obj(
    'The preset model to run.',
    {
      name: str('Preset model name, e.g. phi-4-mini-instruct.', { maxLength: NAME_MAX }),
      accessMode: str(beta ? 'Deprecated and ignored in v1beta1.' : 'Whether the model image is public or private.', {
        enum: ['public', 'private'],
        default: 'public',
      }),
      presetOptions: obj('Preset options.', options),
    },
    { required: ['name'] },
  );
}

function dataSourceSchema(description: string): OpenApiSchema {
  return obj(
    description,
    {
      name: str('Name of the data set; also used as a container name.', { maxLength: NAME_MAX }),
      urls: strList('Public URLs of the data.', LIST_MAX, 4096),
      volumeSource: opaque('A volume holding the data.'),
      image: str('Image whose /data directory holds the data.', { maxLength: IMAGE_MAX }),
      imagePullSecrets: strList('Secrets in the workspace namespace for pulling the image.'),
    },
    rules({
      rule: '(has(self.urls) && size(self.urls) > 0 ? 1 : 0) + (has(self.volumeSource) ? 1 : 0) + (has(self.image) && size(self.image) > 0 ? 1 : 0) == 1',
      message: Msg.exactlyOneSource,
    }),
  );
}

export function labelSelectorSchema(description = 'Labels of the GPU nodes to use. Immutable.', transitionRules = true): OpenApiSchema {
  return obj(
    description,
    {
      matchLabels: {
        description: 'Label key/value pairs a node must carry.',
        type: 'object',
        maxProperties: LIST_MAX,
        additionalProperties: { type: 'string', maxLength: LABEL_VALUE_MAX },
        ...rules({
          rule: `self.all(k, size(k) <= ${LABEL_KEY_MAX})`,
          message: `label keys must be no more than ${LABEL_KEY_MAX} characters`,
        }),
      },
      matchExpressions: {
        description: "Only 'In' with exactly one value is accepted (equivalent to a matchLabels entry).",
        type: 'array',
        maxItems: LIST_MAX,
        'x-kubernetes-list-type': 'atomic',
        items: obj(
          'A label selector requirement.',
          {
            key: str('Label key.', { maxLength: LABEL_KEY_MAX }),
            operator: str('Must be In.', { maxLength: 16 }),
            values: {
              type: 'array',
              maxItems: LIST_MAX,
              'x-kubernetes-list-type': 'atomic',
              items: { type: 'string', maxLength: LABEL_VALUE_MAX },
            },
          },
          {
            required: ['key', 'operator'],
            ...rules({ rule: "self.operator == 'In' && has(self.values) && size(self.values) == 1", message: Msg.labelSelectorFlat }),
          },
        ),
      },
    },
    { 'x-kubernetes-map-type': 'atomic', ...(transitionRules ? rules(immutable()) : {}) },
  );
}

/**
 * KAITO v0.12.0's PartitionSpec (v1beta1 only; KAITO's v1alpha1 has no such field): MIG slices or whole
 * accelerators. Declared so the API server keeps it; kaito-ts refuses a workload that sets it
 * (validation.ts), it never drops it. The profile's bound only keeps the CEL cost estimate small.
 */
export function partitionSchema(description: string): OpenApiSchema {
  return obj(
    description,
    {
      mode: str('mig (NVIDIA Multi-Instance GPU) or accelerator (whole GPUs).', { enum: ['mig', 'accelerator'] }),
      profile: str('The partition profile, e.g. 1g.10gb for MIG.', { maxLength: 63 }),
      count: int('Whole GPUs per workload (accelerator mode only).', { minimum: 1 }),
    },
    { required: ['mode'] },
  );
}

function resourceSchema(version: string): OpenApiSchema {
  const beta = version === VERSION;
  return obj(
    'GPU nodes the workload runs on.',
    {
      count: int(beta ? 'Deprecated. Requested GPU node count. Immutable.' : 'Requested GPU node count. Immutable.', {
        default: 1,
        minimum: 1,
        maximum: RESOURCE_COUNT_MAX,
        ...rules(immutable()),
      }),
      instanceType: str(
        beta
          ? 'GPU node SKU. Required when node auto-provisioning is enabled; must be empty when it is disabled (BYO). Immutable.'
          : 'GPU node SKU. Immutable.',
        { maxLength: NAME_MAX, ...(beta ? {} : { default: V1ALPHA1_DEFAULT_INSTANCE_TYPE }), ...rules(immutable()) },
      ),
      labelSelector: labelSelectorSchema(),
      preferredNodes: strList(beta ? 'Deprecated; not used.' : 'Nodes to prefer; not used by kaito-ts.'),
      ...(beta
        ? {
            partition: partitionSchema(
              'GPU partitioning (KAITO v0.12: needs the enableMIG or enableAccelerator feature gate and BYO nodes). Kept, but refused by kaito-ts.',
            ),
          }
        : {}),
    },
    { required: ['labelSelector'] },
  );
}

function adapterSchema(): OpenApiSchema {
  const name = "(has(self.source.name) ? self.source.name : '')";
  return obj(
    'A LoRA adapter applied to the base model.',
    {
      source: dataSourceSchema('Where the adapter comes from (an image whose /data holds it).'),
      strength: str('Default weight multiplier, a decimal number in [0, 1].', { maxLength: STRENGTH_MAX }),
    },
    {
      required: ['source'],
      ...rules(
        {
          rule: 'has(self.source.name) && size(self.source.name) > 0',
          message: Msg.adapterNameRequired,
          fieldPath: '.source.name',
        },
        {
          rule: `!has(self.source.name) || size(self.source.name) == 0 || self.source.name.matches(r'${SUBDOMAIN_RE}')`,
          message: Msg.subdomainFormat,
          fieldPath: '.source.name',
        },
        {
          rule: 'has(self.source.image) && size(self.source.image) > 0',
          message: Msg.adapterImageRequired,
          fieldPath: '.source.image',
        },
        {
          rule: `!has(self.strength) || self.strength.matches('${FLOAT_RE}')`,
          message: Msg.invalidStrength('<name>', 'not a decimal number'),
          messageExpression: `"Invalid strength value for Adapter '" + ${name} + "': " + self.strength + " is not a decimal number"`,
          fieldPath: '.strength',
        },
        {
          rule: `!has(self.strength) || !self.strength.matches('${FLOAT_RE}') || (double(self.strength) >= 0.0 && double(self.strength) <= 1.0)`,
          message: Msg.strengthRange('<name>'),
          messageExpression: `"Strength value for Adapter '" + ${name} + "' must be between 0 and 1"`,
          fieldPath: '.strength',
        },
      ),
    },
  );
}

/**
 * A core/v1 PodTemplateSpec, kept as-is except that it and its two halves must be objects: KAITO declares
 * the template with no type at all, but its Go type is a struct, so KAITO cannot decode a string there
 * either (and a builder would trip over it). Deeper type errors are caught by validation.ts.
 */
function podTemplateSchema(): OpenApiSchema {
  return {
    ...opaque('Custom pod template (instead of a preset), a core/v1 PodTemplateSpec. Cannot be added or removed after creation.'),
    properties: {
      metadata: opaque("The pods' metadata (labels, annotations)."),
      spec: opaque('The pod spec (core/v1 PodSpec).'),
    },
  };
}

export function inferenceSchema(version: string): OpenApiSchema {
  const preset = presetSchema(version);
  preset['x-kubernetes-validations'] = [immutable()];
  return obj(
    'Inference workload: a preset model or a custom pod template.',
    {
      preset,
      template: podTemplateSchema(),
      config: str('ConfigMap in the workspace namespace with key inference_config.yaml.', { maxLength: NAME_MAX }),
      adapters: {
        description: `LoRA adapters, at most ${MAX_ADAPTERS}, with unique names.`,
        type: 'array',
        maxItems: MAX_ADAPTERS,
        items: adapterSchema(),
        ...rules({
          rule: 'self.all(a, !has(a.source.name) || self.filter(b, has(b.source.name) && b.source.name == a.source.name).size() == 1)',
          // Static text: a messageExpression that picks out the duplicate is costed >100x over budget.
          message: Msg.duplicateAdapterStatic,
        }),
      },
    },
    rules(
      { rule: 'has(self.preset) || has(self.template)', message: Msg.presetOrTemplate },
      { rule: '!(has(self.preset) && has(self.template))', message: Msg.presetAndTemplate },
      { rule: 'has(self.template) == has(oldSelf.template)', message: Msg.templateToggled, fieldPath: '.template' },
    ),
  );
}

/** `image` must parse as an image reference (KAITO: reference.ParseDockerRef). */
const imageRefRule = (which: 'input' | 'output'): CelRule => ({
  rule: `!has(self.image) || size(self.image) == 0 || self.image.matches(r'${IMAGE_REF_REGEX}')`,
  message: Msg.badImageReference(which, 'invalid reference format'),
  fieldPath: '.image',
});

/** Tuning presets: registered and tunable (KAITO admits any registered preset and then crashes on it: W3). */
function tunablePresetRule(): CelRule {
  const names = presetNames();
  const tunable = names.filter((n) => getPreset(n)?.supportTuning);
  const list = (xs: string[]) => `[${xs.map((n) => `'${n}'`).join(', ')}]`;
  return {
    rule: `self.name in ${list(tunable)}`,
    message: Msg.unsupportedTuningPreset('<name>'),
    messageExpression: `self.name in ${list(names.filter((n) => !tunable.includes(n)))} ? "preset " + self.name + " does not support tuning; tunable presets: ${tunable.join(', ')}" : "Unsupported tuning preset name " + self.name + " (tunable presets: ${tunable.join(', ')})"`,
    fieldPath: '.name',
  };
}

function tuningSchema(version: string): OpenApiSchema {
  const preset = presetSchema(version);
  preset['x-kubernetes-validations'] = [immutable(Msg.tuningPresetChanged), tunablePresetRule()];
  const input = dataSourceSchema('Training data.');
  input['x-kubernetes-validations'] = [
    ...(input['x-kubernetes-validations'] ?? []),
    {
      rule: 'has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name)',
      message: Msg.tuningInputNameChanged,
    },
    // It names a volume, docker-config-<name>-tuning-input (KAITO checks nothing and the Job is refused: W12).
    {
      rule: `!has(self.name) || size(self.name) == 0 || (size(self.name) <= ${TUNING_INPUT_NAME_MAX} && self.name.matches('${LABEL_RE}'))`,
      message: `${Msg.labelFormat}, at most ${TUNING_INPUT_NAME_MAX} characters (it names the volume docker-config-<name>-tuning-input)`,
      fieldPath: '.name',
    },
    imageRefRule('input'),
  ];
  return obj(
    'Fine-tuning job.',
    {
      preset,
      method: str('lora or qlora (case-insensitive). Immutable.', { maxLength: METHOD_MAX }),
      config: str('ConfigMap with training_config.yaml; defaults to the method template.', { maxLength: NAME_MAX }),
      input,
      output: obj(
        'Where the tuned adapter goes: exactly one of volumeSource or image.',
        {
          volumeSource: opaque('A volume that receives the output.'),
          image: str('Image to push the output to.', { maxLength: IMAGE_MAX }),
          imagePushSecret: str('Secret for pushing the image.', { maxLength: NAME_MAX }),
        },
        rules(
          {
            rule: '(has(self.volumeSource) ? 1 : 0) + (has(self.image) && size(self.image) > 0 ? 1 : 0) == 1',
            message: Msg.exactlyOneDestination,
          },
          {
            rule: '!has(self.image) || size(self.image) == 0 || (has(self.imagePushSecret) && size(self.imagePushSecret) > 0)',
            message: Msg.pushSecretRequired,
            fieldPath: '.imagePushSecret',
          },
          imageRefRule('output'),
        ),
      ),
    },
    {
      required: ['preset', 'input', 'output'],
      ...rules(
        {
          rule: "has(self.method) && self.method.lowerAscii() in ['lora', 'qlora']",
          message: Msg.tuningMethod('<method>'),
          messageExpression: `"invalid value: " + (has(self.method) ? self.method : "") + ": Method (must be lora or qlora)"`,
          fieldPath: '.method',
        },
        {
          rule: '!has(self.method) || !has(oldSelf.method) || self.method.lowerAscii() == oldSelf.method.lowerAscii()',
          message: Msg.tuningMethodChanged,
          fieldPath: '.method',
        },
      ),
    },
  );
}

export function conditionSchema(): OpenApiSchema {
  return obj(
    'metav1.Condition.',
    {
      type: str('Condition type.', { maxLength: 316 }),
      status: str('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
      reason: str('Machine-readable reason.', { maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
      message: str('Human-readable message.', { maxLength: 32768 }),
      lastTransitionTime: str('When status last changed.', { format: 'date-time' }),
      observedGeneration: int('metadata.generation the condition was computed for.', { format: 'int64', minimum: 0 }),
    },
    { required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'] },
  );
}

function statusSchema(version: string): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {
    workerNodes: { description: 'Sorted names of the nodes matching the label selector.', type: 'array', items: { type: 'string' } },
    conditions: {
      description: `Conditions: ${Object.values(ConditionType).join(', ')}.`,
      type: 'array',
      items: conditionSchema(),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
  };
  if (version === VERSION) {
    properties.targetNodeCount = int('Number of GPU nodes/replicas the workspace runs on.', { format: 'int32', minimum: 0 });
    // KAITO v0.9's high-level state (inference: Pending, Ready, NotReady; tuning: Running, Succeeded, Failed).
    properties.state = str('High-level state: Pending, Ready or NotReady (inference); Running, Succeeded or Failed (tuning).', {
      enum: [...WORKSPACE_STATES],
    });
    properties.decisions = {
      description: 'kaito-ts: the choices the operator made for this workspace and why.',
      type: 'array',
      items: obj(
        'One decision.',
        { topic: str('What was decided.'), choice: str('The choice.'), reason: str('Why.') },
        { required: ['topic', 'choice', 'reason'] },
      ),
    };
  }
  return obj('Observed state.', properties);
}

function rootSchema(version: string): OpenApiSchema {
  const name = 'self.metadata.name';
  return obj(
    'A KAITO Workspace: a model served for inference (preset or custom template) or a fine-tuning job, on GPU nodes.',
    {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      // Declaring name/generateName bounds the CEL cost of the name rule below.
      // (The API server allows nothing but name/generateName here, not even a description.)
      metadata: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: DNS1123_SUBDOMAIN_MAX },
          generateName: { type: 'string', maxLength: DNS1123_SUBDOMAIN_MAX },
        },
      },
      resource: resourceSchema(version),
      inference: inferenceSchema(version),
      tuning: tuningSchema(version),
      status: statusSchema(version),
    },
    {
      required: ['resource'],
      ...rules(
        { rule: `size(${name}) <= ${WORKSPACE_NAME_MAX}`, message: Msg.workspaceNameTooLong(WORKSPACE_NAME_MAX), fieldPath: '.metadata.name' },
        { rule: `${name}.matches('${LABEL_RE}')`, message: Msg.labelFormat, fieldPath: '.metadata.name' },
        { rule: 'has(self.inference) || has(self.tuning)', message: Msg.neitherInferenceNorTuning },
        { rule: '!(has(self.inference) && has(self.tuning))', message: Msg.bothInferenceAndTuning },
        { rule: 'has(self.inference) == has(oldSelf.inference)', message: Msg.inferenceToggled, fieldPath: '.inference' },
        { rule: 'has(self.tuning) == has(oldSelf.tuning)', message: Msg.tuningToggled, fieldPath: '.tuning' },
        {
          rule: '!has(self.tuning) || !has(self.resource.count) || self.resource.count <= 1',
          message: Msg.tuningMultiNode,
          fieldPath: '.resource.count',
        },
      ),
    },
  );
}

const PRINTER_COLUMNS = [
  { name: 'Instance', type: 'string', jsonPath: '.resource.instanceType' },
  ...[ConditionType.ResourceReady, ConditionType.InferenceReady, ConditionType.JobStarted, ConditionType.WorkspaceSucceeded].map((t) => ({
    name: t,
    type: 'string',
    jsonPath: `.status.conditions[?(@.type=="${t}")].status`,
  })),
  // KAITO v0.9's columns.
  { name: 'TargetNodeCount', type: 'integer', jsonPath: '.status.targetNodeCount' },
  { name: 'State', type: 'string', jsonPath: '.status.state' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] };
    scope: 'Namespaced';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never>; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string } };
      additionalPrinterColumns: { name: string; type: string; jsonPath: string }[];
      schema: { openAPIV3Schema: OpenApiSchema };
    }[];
  };
}

/** The whole CRD. Pure and deterministic: same output on every call. */
export function workspaceCrd(): CustomResourceDefinition {
  const version = (name: string, storage: boolean) => ({
    name,
    served: true,
    storage,
    subresources: { status: {} as Record<string, never> },
    additionalPrinterColumns: PRINTER_COLUMNS.map((c) => ({ ...c })),
    schema: { openAPIV3Schema: rootSchema(name) },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME, labels: { 'app.kubernetes.io/part-of': 'kaito-ts' } },
    spec: {
      group: GROUP,
      names: {
        kind: KIND,
        listKind: `${KIND}List`,
        plural: PLURAL,
        singular: 'workspace',
        shortNames: ['wk', 'wks'],
        categories: ['workspace'],
      },
      scope: 'Namespaced',
      versions: [version(ALPHA_VERSION, false), version(VERSION, true)],
    },
  };
}

/** The openAPIV3Schema of one served version. */
export function workspaceSchema(version: string = VERSION): OpenApiSchema {
  const v = workspaceCrd().spec.versions.find((x) => x.name === version);
  if (!v) throw new Error(`Workspace has no version ${version}`);
  return v.schema.openAPIV3Schema;
}

/** Every CEL rule in a schema tree with the path of the node that carries it (for tests and docs). */
export function collectCelRules(schema: OpenApiSchema, path = ''): { path: string; rule: CelRule }[] {
  const here = (schema['x-kubernetes-validations'] ?? []).map((rule) => ({ path: path || '.', rule }));
  const children = [
    ...Object.entries(schema.properties ?? {}).map(([k, s]) => collectCelRules(s, `${path}.${k}`)),
    ...(schema.items ? [collectCelRules(schema.items, `${path}[*]`)] : []),
    ...(typeof schema.additionalProperties === 'object' ? [collectCelRules(schema.additionalProperties, `${path}.*`)] : []),
  ];
  return [here, ...children].flat();
}
