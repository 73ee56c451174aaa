import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FEATURE_GATES, type FeatureGates } from '../../../src/api/feature-gates.js';
import { ANNOTATION_BYPASS_RESOURCE_CHECKS, ANNOTATION_RUNTIME } from '../../../src/api/labels.js';
import type { Workspace } from '../../../src/api/types.js';
import {
  errorsOf,
  formatIssues,
  parseWorkspace,
  validateWorkspace,
  WorkspaceParseError,
  type InferenceConfigLookup,
  type ValidationContext,
} from '../../../src/api/validation.js';
import { labelSelectorAsMap } from '../../../src/api/selector.js';
import { resolveWorkspace, type ResolveInput } from '../../../src/api/resolved-workspace.js';
import type { NodeLabelsSource } from '../../../src/catalog/node-gpu.js';
import { builtinTrainingConfig } from '../../../src/builders/tuning/config.js';

const NAP: FeatureGates = DEFAULT_FEATURE_GATES;
const BYO: FeatureGates = { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: true };

function ws(opts: {
  preset?: string;
  instanceType?: string | null;
  count?: number;
  runtime?: 'vllm' | 'transformers';
  bypass?: boolean;
  secret?: string;
  adapters?: { name: string; strength?: string }[];
  template?: boolean;
  tuning?: string;
  /** Written as kaito.sh/v1alpha1. */
  alpha?: boolean;
  accessMode?: 'public' | 'private';
  image?: string;
}): Workspace {
  const annotations: Record<string, string> = {};
  if (opts.runtime) annotations[ANNOTATION_RUNTIME] = opts.runtime;
  if (opts.bypass) annotations[ANNOTATION_BYPASS_RESOURCE_CHECKS] = '';
  const w: Workspace = {
    apiVersion: opts.alpha ? 'kaito.sh/v1alpha1' : 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'w', namespace: 'ns', annotations },
    resource: {
      labelSelector: { matchLabels: { apps: 'w' } },
      ...(opts.instanceType === null ? {} : { instanceType: opts.instanceType ?? 'Standard_NC24ads_A100_v4' }),
      count: opts.count ?? 1,
    },
  };
  if (opts.tuning) {
    w.tuning = { preset: { name: opts.tuning }, method: 'lora', input: { urls: ['https://x/y'] }, output: { image: 'r/o:1', imagePushSecret: 's' } };
  } else {
    w.inference = opts.template
      ? { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } }
      : {
          preset: {
            name: opts.preset ?? 'phi-4-mini-instruct',
            ...(opts.accessMode ? { accessMode: opts.accessMode } : {}),
            ...(opts.secret || opts.image
              ? { presetOptions: { ...(opts.secret ? { modelAccessSecret: opts.secret } : {}), ...(opts.image ? { image: opts.image } : {}) } }
              : {}),
          },
          ...(opts.adapters
            ? { adapters: opts.adapters.map((a) => ({ source: { name: a.name, image: 'r/a:1' }, ...(a.strength ? { strength: a.strength } : {}) })) }
            : {}),
        };
  }
  return w;
}

const gpuNode = (name: string, product = 'NVIDIA-A10', count = '1', memMiB = '24576') => ({
  metadata: { name, labels: { 'nvidia.com/gpu.product': product, 'nvidia.com/gpu.count': count, 'nvidia.com/gpu.memory': memMiB } },
});

const tcm = (yaml: string | undefined, found = true): InferenceConfigLookup => ({
  name: 'lora-params-template',
  namespace: 'ns',
  found,
  data: yaml === undefined ? {} : { 'training_config.yaml': yaml },
});
/** What a case gives: the resolver's inputs (matching nodes, any readiness) and the rest of the context. */
type Ctx = Omit<ValidationContext, 'resolved'> & Pick<ResolveInput, 'gates' | 'cloud' | 'legacyNames'> & { nodes?: NodeLabelsSource[] };
const ctx = (over: Partial<Ctx> = {}): Ctx => ({ gates: NAP, cloud: 'azure', operation: 'create', ...over });
/**
 * Resolves the workspace as the operator does, then validates it. Short names are KAITO v0.8.0's
 * (`--legacy-presets=v0.8`) unless a case says: these tables check v0.8.0's webhook rules on its presets.
 */
function validate(workspace: Workspace, { gates, cloud, nodes, legacyNames = 'v0.8', ...rest }: Ctx) {
  const resolved = resolveWorkspace(workspace, { gates, cloud, legacyNames, ...(nodes ? { nodes: nodes.map((node) => ({ node, ready: true })) } : {}) });
  return validateWorkspace(workspace, { ...rest, resolved });
}
/** The workspace as the controller reads it (v1beta1), its spec written by one manager per apiVersion given. */
const withWriters = (w: Workspace, apiVersions: string[]): Workspace => ({
  ...w,
  metadata: {
    ...w.metadata,
    managedFields: apiVersions.map((apiVersion, i) => ({ manager: `m${i}`, operation: 'Update', apiVersion, fieldsV1: { 'f:inference': {} } })),
  },
});
const MAX_MODEL_LEN_REQUIRED =
  'missing field(s): max-model-len is required in the vllm section of inference_config.yaml when using multi-GPU instances with <20GB of memory per GPU or distributed inference';
const cm = (yaml: string | undefined, found = true): InferenceConfigLookup => ({
  name: 'inference-params-template',
  namespace: 'ns',
  found,
  data: yaml === undefined ? {} : { 'inference_config.yaml': yaml },
});

// [case, workspace, context, expected issues as "severity field: message" (exact, in order)]
const cases: [string, Workspace, Ctx, string[]][] = [
  ['valid NAP preset workspace', ws({}), ctx(), []],
  [
    'kaito.sh/use-local-weights takes only "true" or "false"',
    { ...ws({}), metadata: { name: 'w', namespace: 'ns', annotations: { 'kaito.sh/use-local-weights': 'yes' } } },
    ctx(),
    ['error metadata.annotations[kaito.sh/use-local-weights]: invalid value: "yes" must be "true" or "false"'],
  ],
  [
    'NAP requires instanceType',
    ws({ instanceType: null }),
    ctx(),
    ['error resource.instanceType: instanceType is required when node auto-provisioning is enabled'],
  ],
  [
    'BYO forbids instanceType',
    ws({ preset: 'phi-4-mini-instruct' }),
    ctx({ gates: BYO, nodes: [gpuNode('n1')] }),
    ['error resource.instanceType: instanceType must be empty when node auto-provisioning is disabled (BYO scenario)'],
  ],
  ['BYO update keeps an already stored instanceType', ws({}), ctx({ gates: BYO, operation: 'update', old: ws({}) }), []],
  [
    'BYO update may not add an instanceType',
    ws({}),
    ctx({ gates: BYO, operation: 'update', old: ws({ instanceType: null }) }),
    ['error resource.instanceType: instanceType must be empty when node auto-provisioning is disabled (BYO scenario)'],
  ],
  ['update skips create-only checks (unknown preset)', ws({ preset: 'nope' }), ctx({ operation: 'update', old: ws({ preset: 'nope' }) }), []],
  ['deprecated preset (case-insensitive)', ws({ preset: 'Phi-2' }), ctx(), ['error inference.preset.name: Model phi-2 is deprecated and no longer supported']],
  [
    'unknown preset names the closest ones',
    ws({ preset: 'phi-4-mini' }),
    ctx(),
    [
      // The ranking beyond the two obvious names is the catalog's business.
      /^error inference\.preset\.name: Unsupported inference preset name phi-4-mini \(closest: phi-4-mini-instruct, phi-4, [a-z0-9.-]+\)$/.source,
    ],
  ],
  [
    'unknown SKU',
    ws({ instanceType: 'p9.huge' }),
    ctx({ cloud: 'aws' }),
    [/^error resource\.instanceType: Unsupported instance type p9\.huge\. Supported SKUs: p2\.xlarge, p2\.8xlarge, .*inf2\.48xlarge$/.source],
  ],
  ['azure Standard_N* leniency', ws({ instanceType: 'Standard_NC999_future' }), ctx(), []],
  [
    'transformers: too few GPUs',
    ws({ preset: 'falcon-40b', runtime: 'transformers' }),
    ctx(),
    ['error resource.instanceType: Insufficient number of GPUs: Instance type Standard_NC24ads_A100_v4 provides 1, but preset falcon-40b requires at least 2'],
  ],
  [
    'transformers: too little memory + no multi-node transformers',
    ws({ preset: 'llama-3.3-70b-instruct', runtime: 'transformers', secret: 'hf' }),
    ctx(),
    [
      'error resource.instanceType: Insufficient total GPU memory: Instance type Standard_NC24ads_A100_v4 has a total of 80Gi, but preset llama-3.3-70b-instruct requires at least 131.42Gi',
      'error metadata.annotations[kaito.sh/runtime]: Multi-node distributed inference is not supported with Huggingface Transformers runtime',
    ],
  ],
  [
    'bypass annotation turns shortfalls into warnings',
    ws({ preset: 'falcon-40b', runtime: 'transformers', bypass: true }),
    ctx(),
    [
      'warning resource.instanceType: Insufficient number of GPUs: Instance type Standard_NC24ads_A100_v4 provides 1, but preset falcon-40b requires at least 2',
    ],
  ],
  ['count multiplies the GPUs', ws({ preset: 'falcon-40b', runtime: 'transformers', count: 2 }), ctx(), []],
  ['NAP + vLLM leaves sizing to the estimator', ws({ preset: 'llama-3.3-70b-instruct', secret: 'hf' }), ctx(), []],
  [
    'vLLM gate off means transformers checks',
    ws({ preset: 'falcon-40b' }),
    ctx({ gates: { ...NAP, vLLM: false } }),
    ['error resource.instanceType: Insufficient number of GPUs: Instance type Standard_NC24ads_A100_v4 provides 1, but preset falcon-40b requires at least 2'],
  ],
  [
    'BYO: no matching nodes',
    ws({ instanceType: null }),
    ctx({ gates: BYO, nodes: [] }),
    ['error resource.labelSelector: No nodes found matching the specified label selector'],
  ],
  [
    'BYO: node list failed',
    ws({ instanceType: null }),
    ctx({ gates: BYO, nodeListError: 'forbidden' }),
    ['error resource.labelSelector: Failed to list nodes with labelSelector: forbidden'],
  ],
  [
    'BYO: node without GFD labels',
    ws({ instanceType: null }),
    ctx({ gates: BYO, nodes: [{ metadata: { name: 'bare', labels: {} } }] }),
    ['error resource.labelSelector: Failed to get GPU config from nvidia labels on node bare: missing required nvidia.com labels on node bare'],
  ],
  [
    'BYO: mixed GPU products',
    ws({ instanceType: null }),
    ctx({ gates: BYO, nodes: [gpuNode('a'), gpuNode('b', 'NVIDIA-T4')] }),
    [
      'error resource.labelSelector: Non-uniform GPU product: node b has NVIDIA-T4 GPUs, but previous node has NVIDIA-A10 GPUs, all nodes must have the same GPU product for homogeneous placement',
    ],
  ],
  [
    'BYO: mixed GPU counts',
    ws({ instanceType: null }),
    ctx({ gates: BYO, nodes: [gpuNode('a'), gpuNode('b', 'NVIDIA-A10', '2')] }),
    ['error resource.labelSelector: Non-uniform GPU count: node b has 2 GPUs, but previous node has 1 GPUs'],
  ],
  [
    'BYO: mixed GPU memory',
    ws({ instanceType: null }),
    ctx({ gates: BYO, nodes: [gpuNode('a'), gpuNode('b', 'NVIDIA-A10', '1', '16384')] }),
    ['error resource.labelSelector: Non-uniform GPU memory: node b has 16 GB memory, but previous node has 24 GB memory'],
  ],
  [
    'BYO checks sufficiency even with vLLM (nodes × per-GPU × count)',
    ws({ instanceType: null, preset: 'llama-3.3-70b-instruct', secret: 'hf' }),
    ctx({ gates: BYO, nodes: [gpuNode('a', 'NVIDIA-A10', '2'), gpuNode('b', 'NVIDIA-A10', '2')] }),
    [
      'error resource.instanceType: Insufficient total GPU memory: Instance type of the selected nodes has a total of 96Gi, but preset llama-3.3-70b-instruct requires at least 131.42Gi',
    ],
  ],
  [
    'BYO fits on three 2×A10 nodes',
    ws({ instanceType: null, preset: 'llama-3.3-70b-instruct', secret: 'hf' }),
    ctx({ gates: BYO, nodes: ['a', 'b', 'c'].map((n) => gpuNode(n, 'NVIDIA-A10', '2')) }),
    [],
  ],
  ['BYO template: no node checks', ws({ instanceType: null, template: true }), ctx({ gates: BYO, nodes: [] }), []],
  ['BYO without a node lookup skips node checks (offline render)', ws({ instanceType: null }), ctx({ gates: BYO }), []],
  [
    'vLLM: LoRA not allowed for falcon-7b',
    ws({ preset: 'falcon-7b', adapters: [{ name: 'a' }] }),
    ctx(),
    ['error inference.adapters: Runtime validation: vLLM does not support LoRA adapters for this model: falcon-7b'],
  ],
  [
    'vLLM: LoRA + strength messages joined',
    ws({ preset: 'falcon-7b', adapters: [{ name: 'a', strength: '0.5' }] }),
    ctx(),
    ['error inference.adapters: Runtime validation: vLLM does not support LoRA adapters for this model: falcon-7b; vLLM does not support adapter strength'],
  ],
  ['transformers allows strength', ws({ preset: 'falcon-7b', runtime: 'transformers', adapters: [{ name: 'a', strength: '0.5' }] }), ctx(), []],
  ["transformers: a catalog id in KAITO v0.12's transformers table", ws({ preset: 'Qwen/Qwen2.5-Coder-7B-Instruct', runtime: 'transformers' }), ctx(), []],
  [
    'transformers: a catalog id v0.12 has no transformers parameters for',
    ws({ preset: 'microsoft/Phi-4-mini-instruct', runtime: 'transformers' }),
    ctx(),
    ['error inference.preset.name: Runtime validation: model phi-4-mini-instruct does not support inference with Huggingface Transformers runtime'],
  ],
  [
    "transformers: the catalog's Mistral-Large-3 id misses the table's row (its name ends in -2512)",
    ws({ preset: 'mistralai/Mistral-Large-3-675B-Instruct-2512', runtime: 'transformers', instanceType: 'Standard_ND96isr_H100_v5' }),
    ctx(),
    [
      'error inference.preset.name: Runtime validation: model mistral-large-3-675b-instruct-2512 does not support inference with Huggingface Transformers runtime',
    ],
  ],
  [
    'gated HF model needs modelAccessSecret',
    ws({ preset: 'llama-3.1-8b-instruct' }),
    ctx(),
    [
      'error inference.preset.presetOptions.modelAccessSecret: This preset requires authentication and needs a modelAccessSecret with HF_TOKEN key under presetOptions to download the model',
    ],
  ],
  [
    'OCI preset refuses modelAccessSecret',
    ws({ secret: 'hf' }),
    ctx(),
    ['error inference.preset.presetOptions.modelAccessSecret: This preset does not require a modelAccessSecret with HF_TOKEN key under presetOptions'],
  ],
  ['public HF preset: secret optional', ws({ preset: 'gemma-3-4b-instruct' }), ctx(), []],
  [
    'config map missing',
    ws({}),
    ctx({ inferenceConfig: cm('', false) }),
    ["error inference.config: ConfigMap 'inference-params-template' specified in 'config' not found in namespace 'ns'"],
  ],
  ['config key missing', ws({}), ctx({ inferenceConfig: cm(undefined) }), ['error inference.config: missing field(s): inference_config.yaml in ConfigMap']],
  ['config not YAML', ws({}), ctx({ inferenceConfig: cm('vllm: [unclosed') }), [/^error inference\.config: Failed to parse inference_config\.yaml: .+/.source]],
  [
    'max-model-len not an integer',
    ws({}),
    ctx({ inferenceConfig: cm('vllm:\n  max-model-len: 12.5\n') }),
    ['error inference.config[max-model-len]: max-model-len must be an integer: invalid syntax: "12.5"'],
  ],
  [
    'max-model-len above ModelTokenLimit',
    ws({ preset: 'phi-3-mini-4k-instruct' }),
    ctx({ inferenceConfig: cm('vllm:\n  max-model-len: 8192\n') }),
    ["error inference.config[max-model-len]: max-model-len 8192 exceeds model's maximum supported context window 4096 (ModelTokenLimit)"],
  ],
  ['max-model-len within limit, as a string', ws({ preset: 'phi-3-mini-4k-instruct' }), ctx({ inferenceConfig: cm('vllm:\n  max-model-len: "4096"\n') }), []],
  ['config not checked for transformers', ws({ runtime: 'transformers' }), ctx({ inferenceConfig: cm('', false) }), []],
  // v1alpha1's own rules (KAITO v0.12.0 api/v1alpha1): each fires, does not fire, and leaves v1beta1 alone.
  [
    'v1alpha1: private accessMode without an image',
    ws({ alpha: true, accessMode: 'private' }),
    ctx(),
    ['error inference.preset.presetOptions.image: When AccessMode is private, an image must be provided in PresetOptions'],
  ],
  ['v1alpha1: private accessMode with an image', ws({ alpha: true, accessMode: 'private', image: 'r/m:1' }), ctx(), []],
  ['v1alpha1: public accessMode needs no image', ws({ alpha: true, accessMode: 'public' }), ctx(), []],
  ['v1beta1: private accessMode without an image is accepted', ws({ accessMode: 'private' }), ctx(), []],
  [
    'v1alpha1: written through v1alpha1 (managedFields) though read as v1beta1',
    withWriters(ws({ accessMode: 'private' }), ['kaito.sh/v1alpha1']),
    ctx(),
    ['error inference.preset.presetOptions.image: When AccessMode is private, an image must be provided in PresetOptions'],
  ],
  ['v1alpha1: spec edited through v1beta1 since', withWriters(ws({ accessMode: 'private' }), ['kaito.sh/v1alpha1', 'kaito.sh/v1beta1']), ctx(), []],
  [
    'v1alpha1: count > 1 needs max-model-len',
    ws({ alpha: true, count: 2 }),
    ctx({ inferenceConfig: cm('vllm:\n  swap-space: 4\n') }),
    [`error inference.config[max-model-len]: ${MAX_MODEL_LEN_REQUIRED}`],
  ],
  [
    'v1alpha1: two 16 GiB GPUs need max-model-len',
    ws({ alpha: true, instanceType: 'Standard_NC12s_v3' }),
    ctx({ inferenceConfig: cm('vllm:\n  swap-space: 4\n') }),
    [`error inference.config[max-model-len]: ${MAX_MODEL_LEN_REQUIRED}`],
  ],
  [
    'v1alpha1: an empty max-model-len counts as missing',
    ws({ alpha: true, count: 2 }),
    ctx({ inferenceConfig: cm('vllm:\n  max-model-len: ""\n') }),
    [`error inference.config[max-model-len]: ${MAX_MODEL_LEN_REQUIRED}`],
  ],
  ['v1alpha1: count > 1 with max-model-len', ws({ alpha: true, count: 2 }), ctx({ inferenceConfig: cm('vllm:\n  max-model-len: 2048\n') }), []],
  [
    'v1alpha1: two 80 GiB GPUs need no max-model-len',
    ws({ alpha: true, instanceType: 'Standard_NC48ads_A100_v4' }),
    ctx({ inferenceConfig: cm('vllm:\n  swap-space: 4\n') }),
    [],
  ],
  ['v1alpha1: one node, one GPU needs no max-model-len', ws({ alpha: true }), ctx({ inferenceConfig: cm('vllm:\n  swap-space: 4\n') }), []],
  [
    'v1alpha1: transformers needs no max-model-len',
    ws({ alpha: true, count: 2, runtime: 'transformers' }),
    ctx({ inferenceConfig: cm('vllm:\n  swap-space: 4\n') }),
    [],
  ],
  ['v1beta1: count > 1 needs no max-model-len', ws({ count: 2 }), ctx({ inferenceConfig: cm('vllm:\n  swap-space: 4\n') }), []],
  [
    'v1alpha1: NAP + vLLM still checks the GPU memory of count nodes',
    ws({ alpha: true, preset: 'phi-4', instanceType: 'Standard_NV36ads_A10_v5' }),
    ctx(),
    [
      'error resource.instanceType: Insufficient total GPU memory: Instance type Standard_NV36ads_A10_v5 has a total of 24Gi, but preset phi-4 requires at least 27.31Gi',
    ],
  ],
  [
    'v1alpha1: the bypass annotation makes the memory shortfall a warning',
    ws({ alpha: true, preset: 'phi-4', instanceType: 'Standard_NV36ads_A10_v5', bypass: true }),
    ctx(),
    [
      'warning resource.instanceType: Insufficient total GPU memory: Instance type Standard_NV36ads_A10_v5 has a total of 24Gi, but preset phi-4 requires at least 27.31Gi',
    ],
  ],
  ['v1alpha1: two A10 nodes hold phi-4', ws({ alpha: true, preset: 'phi-4', instanceType: 'Standard_NV36ads_A10_v5', count: 2 }), ctx(), []],
  ['v1alpha1: no GPU count check under NAP + vLLM (gone in v0.12)', ws({ alpha: true, preset: 'falcon-40b' }), ctx(), []],
  ['v1beta1: NAP + vLLM checks no GPU memory', ws({ preset: 'phi-4', instanceType: 'Standard_NV36ads_A10_v5' }), ctx(), []],
  [
    'tuning: unknown preset',
    ws({ tuning: 'phi-5' }),
    ctx(),
    [/^error tuning\.preset\.name: Unsupported tuning preset name phi-5 \(closest tunable: .+\)$/.source],
  ],
  [
    'tuning: preset that cannot be tuned',
    ws({ tuning: 'falcon-7b-instruct' }),
    ctx(),
    ['error tuning.preset.name: Preset falcon-7b-instruct does not support tuning'],
  ],
  ['tuning: tunable preset', ws({ tuning: 'phi-4' }), ctx(), []],
  ['tuning: the chart lora template', ws({ tuning: 'phi-4' }), ctx({ tuningConfig: tcm(builtinTrainingConfig('lora')) }), []],
  [
    'tuning: ConfigMap missing',
    ws({ tuning: 'phi-4' }),
    ctx({ tuningConfig: tcm(undefined, false) }),
    ["error tuning.config: Failed to evaluate validateConfigMap: ConfigMap 'lora-params-template' specified in 'config' not found in namespace 'ns'"],
  ],
  [
    'tuning: qlora settings for a lora workspace',
    ws({ tuning: 'phi-4' }),
    ctx({ tuningConfig: tcm(builtinTrainingConfig('qlora')) }),
    [
      "error tuning.config: Failed to evaluate validateConfigMap: For method 'lora', 'load_in_4bit' or 'load_in_8bit' in ConfigMap 'lora-params-template' must not be true",
    ],
  ],
  [
    'tuning: method not lora/qlora',
    { ...ws({ tuning: 'phi-4' }), tuning: { ...ws({ tuning: 'phi-4' }).tuning!, method: 'full' } },
    ctx(),
    ['error tuning.method: invalid value: full: Method'],
  ],
  // KAITO v0.12's resource.partition: kept by the CRD, refused (never served as whole GPUs), on create and update.
  [
    'resource.partition (MIG) is refused, named',
    { ...ws({ instanceType: null }), resource: { ...ws({ instanceType: null }).resource, partition: { mode: 'mig', profile: '1g.10gb' } } },
    ctx({ gates: BYO, nodes: [gpuNode('n1')] }),
    ['^error resource.partition: GPU partitioning \\(mode "mig"; .*not supported by kaito-ts.*docs/operations.md#feature-gates'],
  ],
  [
    'resource.partition (accelerator) is refused on update too',
    { ...ws({}), resource: { ...ws({}).resource, partition: { mode: 'accelerator', count: 2 } } },
    ctx({ operation: 'update', old: ws({}) }),
    ['^error resource.partition: GPU partitioning \\(mode "accelerator"; '],
  ],
];

for (const [name, workspace, context, expected] of cases) {
  test(`validateWorkspace: ${name}`, () => {
    const got = validate(workspace, context).map((i) => `${i.severity} ${i.field}: ${i.message}`);
    assert.equal(got.length, expected.length, `got ${JSON.stringify(got, null, 1)}`);
    expected.forEach((want, i) => {
      const line = got[i] ?? '';
      if (want.startsWith('^')) assert.match(line, new RegExp(want));
      else assert.equal(line, want);
    });
  });
}

test('errorsOf drops warnings; formatIssues joins field: message', () => {
  const issues = validate(ws({ preset: 'falcon-40b', runtime: 'transformers', bypass: true, instanceType: null }), ctx());
  assert.deepEqual(
    errorsOf(issues).map((i) => i.field),
    ['resource.instanceType'],
  );
  assert.equal(formatIssues(errorsOf(issues)), 'resource.instanceType: instanceType is required when node auto-provisioning is enabled');
});

const minimal = () => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'p' },
  resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { a: 'b' } } },
  inference: { preset: { name: 'phi-4' } },
});

test('parseWorkspace returns the object with CRD defaults', () => {
  const parsed = parseWorkspace(minimal());
  assert.equal(parsed.resource.count, 1);
  assert.equal(parsed.inference?.preset?.accessMode, 'public');
  assert.equal(parseWorkspace({ ...minimal(), apiVersion: 'kaito.sh/v1alpha1' }).resource.instanceType, 'Standard_NC24ads_A100_v4');
});

const parseErrors: [string, unknown, RegExp][] = [
  ['not an object', 'hello', /^a Workspace must be an object, got string$/],
  ['null', null, /got null/],
  ['wrong apiVersion', { ...minimal(), apiVersion: 'kaito.sh/v1' }, /^apiVersion must be one of kaito\.sh\/v1beta1, kaito\.sh\/v1alpha1, got "kaito\.sh\/v1"$/],
  ['wrong kind', { ...minimal(), kind: 'RAGEngine' }, /^kind must be Workspace, got "RAGEngine"$/],
  ['no name', { ...minimal(), metadata: {} }, /^metadata\.name is required$/],
  ['no resource', { ...minimal(), resource: undefined }, /^workspace p: resource is required$/],
  ['no labelSelector', { ...minimal(), resource: { instanceType: 'x' } }, /^workspace p: resource\.labelSelector is required$/],
  ['spec wrapper', { ...minimal(), spec: {} }, /unexpected field spec \(KAITO Workspaces have resource\/inference\/tuning at the top level\)/],
  [
    'schema violation',
    { ...minimal(), resource: { labelSelector: {}, count: 'two' } },
    /^workspace p: resource\.count: Invalid value: "string": must be of type integer$/,
  ],
];
for (const [name, value, message] of parseErrors) {
  test(`parseWorkspace rejects: ${name}`, () => {
    assert.throws(
      () => parseWorkspace(value),
      (err: unknown) => {
        assert.ok(err instanceof WorkspaceParseError);
        assert.match(err.message, message);
        assert.equal(err.message.includes('\n'), false);
        return true;
      },
    );
  });
}

test('labelSelectorAsMap flattens single-value In and refuses the rest', () => {
  assert.deepEqual(labelSelectorAsMap({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'In', values: ['2'] }] }), {
    ok: true,
    map: { a: '1', b: '2' },
  });
  assert.deepEqual(labelSelectorAsMap(undefined), { ok: true, map: {} });
  for (const expr of [
    { key: 'b', operator: 'In', values: ['2', '3'] },
    { key: 'b', operator: 'Exists' },
  ]) {
    assert.deepEqual(labelSelectorAsMap({ matchExpressions: [expr] }), { ok: false, message: "Only allow matchLabels or 'IN' matchExpression" });
  }
});
