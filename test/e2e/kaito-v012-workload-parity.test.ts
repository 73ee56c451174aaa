// KAITO v0.12's own workload generator against `kaito-ts render`: no cluster, but KAITO built from
// source with our render harness (bash simcluster/build-kaito.sh v0.12.0 → bin/kaito-render, mode
// `workload`). Each case (a workspace and the cluster objects both read) goes through both; the
// Services, the StatefulSet, the ConfigMap copy and the target node count are diffed field by field,
// and every difference must be classified by RULES below. A difference no rule covers fails the test,
// and so does a rule no case needs any more. Legacy short names (the default, --legacy-presets=v0.12)
// are compared field by field: no adoption rule, and every rule that classifies one of their
// differences names exactly that field. The cases include every Workspace and InferenceSet of KAITO
// v0.12.0's own examples/ that it accepts (an InferenceSet through its child Workspace).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseWorkspace } from '../../src/api/validation.js';
import { main } from '../../src/cli/main.js';
import { isHuggingFaceId, LEGACY_TO_CATALOG } from '../../src/catalog/model-catalog.js';
import { parseInferenceSet, planInferenceSetOffline } from '../../src/diff/inferenceset-intent.js';
import { QWEN3_0_6B, QWEN3_8B } from '../../src/simcluster/fake-hub.js';
import { startHubStandIn, type HubStandIn } from '../../src/simcluster/hub-standin.js';
import { ensurePki } from '../../src/simcluster/pki.js';
import { kaitoTree } from '../unit/support/kaito-source.js';
import { withOwnerUids } from '../../src/api/render-admission.js';
import { KAITO_RENDER, runKaitoRenderAsync } from './support/kaito-render.js';

// ---------------------------------------------------------------------------------------------
// The cluster objects the cases read.

/** What the cases are; the rules are scoped by these tags. */
type Tag =
  | 'legacy'
  | 'catalog'
  | 'template'
  | 'byo'
  | 'nap'
  | 'multinode'
  | 'adapters'
  | 'config'
  | 'benchmarkOff'
  | 'aws'
  | 'loadBalancer'
  | 'transformers'
  | 'inferenceSet'
  | 'cudaToolkit'
  | 'localWeights'
  | 'mixedCase'
  | 'example'
  | 'hub';

interface Case {
  name: string;
  tags: Tag[];
  workspace: Record<string, unknown>;
  cloud: 'azure' | 'aws';
  state: K8sObject[];
  /** KAITO v0.12's webhook refuses it (its generator is not asked): kaito-ts must refuse it with KAITO's words. */
  webhookRefuses?: RegExp;
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

const NVME_CLASS: K8sObject = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'kaito-local-nvme-disk' },
  provisioner: 'localdisk.csi.acstor.io',
  volumeBindingMode: 'WaitForFirstConsumer',
};

/** The default inference ConfigMap of KAITO v0.12.0's chart (charts/kaito/workspace/templates/inference-params.yaml). */
const CHART_CONFIG: K8sObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'inference-params-template', namespace: 'kaito-workspace' },
  data: {
    'inference_config.yaml':
      '# Optional: CPU memory utilization for the vllm engine in kv cache offload mode. (default: 0.5, set to 0 to disable)\n' +
      'kv_cache_cpu_memory_utilization: 0.5\n\nvllm:\n  cpu-offload-gb: 0\n',
  },
};

const HF_SECRET: K8sObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'hf-token', namespace: 'default' },
  type: 'Opaque',
  data: { HF_TOKEN: Buffer.from('hf_placeholder').toString('base64') },
};

/** A user's inference config with an explicit context length (read by both estimators). */
const USER_CONFIG: K8sObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'long-context', namespace: 'default' },
  data: { 'inference_config.yaml': 'vllm:\n  cpu-offload-gb: 0\n  max-model-len: 16384\n' },
};

/** A Ready GPU node labelled as GPU Feature Discovery labels it. */
function gpuNode(name: string, pool: string, instanceType: string, product: string, count: number, memoryMiB: number): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'node.kubernetes.io/instance-type': instanceType,
        'nvidia.com/gpu.product': product,
        'nvidia.com/gpu.count': String(count),
        'nvidia.com/gpu.memory': String(memoryMiB),
        pool,
      },
    },
    status: { capacity: { 'nvidia.com/gpu': String(count) }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

const H100_NODES = [gpuNode('h100-0', 'h100', 'Standard_NC80adis_H100_v5', 'NVIDIA-H100-NVL', 2, 96256)];
const A10_NODES = [0, 1].map((i) => gpuNode(`a10-${i}`, 'a10', 'Standard_NV36ads_A10_v5', 'NVIDIA-A10', 1, 24576));

const NAP_STATE = [NVME_CLASS, CHART_CONFIG, HF_SECRET];

// ---------------------------------------------------------------------------------------------
// The cases. Hugging Face ids outside KAITO v0.12's catalog read the hub: both generators read the
// same stand-in (src/simcluster/fake-hub.ts), kaito-ts through --hf-endpoint, KAITO's through
// HTTPS_PROXY and a huggingface.co certificate of a test CA (src/simcluster/hub-proxy.ts).

/** Models the stand-in hub serves to both sides. */
const HUB_MODELS = { 'acme/Qwen3-8B-copy': QWEN3_8B, 'acme/qwen3-small': QWEN3_0_6B };

let uid = 0;
function workspace(
  name: string,
  preset: string | undefined,
  o: {
    instanceType?: string;
    pool?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    secret?: string;
    config?: string;
    adapters?: object[];
    template?: object;
  } = {},
): Record<string, unknown> {
  uid += 1;
  const metadata = {
    name,
    namespace: 'default',
    uid: `00000000-0000-4000-8000-${String(uid).padStart(12, '0')}`,
    ...(o.annotations ? { annotations: o.annotations } : {}),
    ...(o.labels ? { labels: o.labels } : {}),
  };
  const inference = o.template
    ? { template: o.template }
    : {
        preset: { name: preset, ...(o.secret ? { presetOptions: { modelAccessSecret: o.secret } } : {}) },
        ...(o.config ? { config: o.config } : {}),
        ...(o.adapters ? { adapters: o.adapters } : {}),
      };
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata,
    resource: { ...(o.instanceType ? { instanceType: o.instanceType } : {}), labelSelector: { matchLabels: { pool: o.pool ?? name } } },
    inference,
  };
}

const A100 = 'Standard_NC24ads_A100_v4'; // 1 × A100 80 GB, NVMe
const A10 = 'Standard_NV36ads_A10_v5'; // 1 × A10 24 GB, no NVMe
const H100 = 'Standard_NC80adis_H100_v5'; // 2 × H100 94 GB, NVMe
const NO_BENCHMARK = { 'kaito.sh/disable-benchmark': 'true' };
const TRANSFORMERS = { 'kaito.sh/runtime': 'transformers' };

/** A case; a Node-less cluster with the NVMe class, the chart's config and the token Secret unless `state` says. */
function kase(name: string, tags: Tag[], ws: Record<string, unknown>, o: { state?: K8sObject[]; cloud?: Case['cloud'] } = {}): Case {
  return { name, tags, workspace: ws, cloud: o.cloud ?? 'azure', state: o.state ?? NAP_STATE };
}

const H200 = 'Standard_ND96isr_H200_v5'; // 8 × H200, 1128 GiB, NVMe

/** An instance type that holds each of v0.12.0's 25 legacy names (its catalog entry's weights), and whether it is gated. */
const LEGACY_SKU: Record<string, { sku: string; secret?: boolean }> = {
  'phi-4': { sku: A100 },
  'phi-4-mini-instruct': { sku: A10 },
  'llama-3.1-8b-instruct': { sku: A100, secret: true },
  'llama-3.3-70b-instruct': { sku: H100, secret: true },
  'deepseek-r1-distill-llama-8b': { sku: A100 },
  'deepseek-r1-distill-qwen-14b': { sku: A100 },
  'deepseek-r1-0528': { sku: H200 },
  'deepseek-v3-0324': { sku: H200 },
  'phi-3-mini-4k-instruct': { sku: A100 },
  'phi-3-mini-128k-instruct': { sku: A100 },
  'phi-3-medium-4k-instruct': { sku: A100 },
  'phi-3-medium-128k-instruct': { sku: H100 },
  'phi-3.5-mini-instruct': { sku: A10 },
  'qwen2.5-coder-7b-instruct': { sku: A100 },
  'qwen2.5-coder-32b-instruct': { sku: A100 },
  'gpt-oss-20b': { sku: A100 },
  'gpt-oss-120b': { sku: H100 },
  'gemma-3-4b-instruct': { sku: A10, secret: true },
  'gemma-3-27b-instruct': { sku: H100, secret: true },
  'mistral-7b': { sku: A100 },
  'mistral-7b-instruct': { sku: A10 },
  'ministral-3-3b-instruct': { sku: A10 },
  'ministral-3-8b-instruct': { sku: A100 },
  'ministral-3-14b-instruct': { sku: H100 },
  'mistral-large-3-675b-instruct': { sku: H200 },
};

/** Each of the 25 legacy names on an instance type that holds it (default setting: as KAITO v0.12.0 maps it). */
const EVERY_LEGACY_NAME: Case[] = Object.keys(LEGACY_TO_CATALOG).map((name) => {
  const fit = LEGACY_SKU[name]!;
  return kase(
    `${name} (legacy name), ${fit.sku}`,
    ['legacy', 'nap'],
    workspace(`every-${name.replaceAll('.', '-')}`, name, { instanceType: fit.sku, ...(fit.secret ? { secret: 'hf-token' } : {}) }),
  );
});

const CASES: Case[] = [
  // Legacy short names: by default kaito-ts renders them as KAITO v0.12.0 does (its catalog entry).
  ...EVERY_LEGACY_NAME,
  kase('Phi-4-Mini-Instruct (mixed case), A100', ['legacy', 'nap', 'mixedCase'], workspace('phi4-case', 'Phi-4-Mini-Instruct', { instanceType: A100 })),
  kase('MISTRAL-7B-INSTRUCT (upper case), A10', ['legacy', 'nap', 'mixedCase'], workspace('mistral-case', 'MISTRAL-7B-INSTRUCT', { instanceType: A10 })),
  kase(
    'Qwen2.5-Coder-7B-Instruct (mixed case), BYO H100 node',
    ['legacy', 'byo', 'mixedCase'],
    workspace('byo-qwen-case', 'Qwen2.5-Coder-7B-Instruct', { pool: 'h100' }),
    { state: [...NAP_STATE, ...H100_NODES] },
  ),
  kase('phi-3-mini-4k-instruct, A10 (no NVMe)', ['legacy', 'nap'], workspace('phi3', 'phi-3-mini-4k-instruct', { instanceType: A10 })),
  kase('phi-4-mini-instruct, A100 (NVMe)', ['legacy', 'nap'], workspace('phi4', 'phi-4-mini-instruct', { instanceType: A100 })),
  kase('mistral-7b-instruct, A100', ['legacy', 'nap'], workspace('mistral', 'mistral-7b-instruct', { instanceType: A100 })),
  kase(
    'llama-3.1-8b-instruct, H100, token Secret',
    ['legacy', 'nap'],
    workspace('llama8b', 'llama-3.1-8b-instruct', { instanceType: H100, secret: 'hf-token' }),
  ),
  kase('qwen2.5-coder-7b-instruct, BYO H100 node', ['legacy', 'byo'], workspace('byo-qwen', 'qwen2.5-coder-7b-instruct', { pool: 'h100' }), {
    state: [...NAP_STATE, ...H100_NODES],
  }),
  kase(
    'qwen2.5-coder-7b-instruct, transformers runtime',
    ['legacy', 'nap', 'transformers'],
    workspace('qwen-tf', 'qwen2.5-coder-7b-instruct', { instanceType: H100, annotations: TRANSFORMERS }),
  ),
  kase(
    'phi-4-mini-instruct with two adapters',
    ['legacy', 'nap', 'adapters'],
    workspace('phi4-lora', 'phi-4-mini-instruct', {
      instanceType: A100,
      adapters: [
        { source: { name: 'private-lora', image: 'myregistry.azurecr.io/adapters/phi-4-mini-lora:0.0.1', imagePullSecrets: ['acr-pull'] } },
        { source: { name: 'public-lora', image: 'kaito/phi-4-mini-lora' } },
      ],
    }),
  ),
  kase(
    'llama-3.3-70b-instruct, multi-node on A100',
    ['legacy', 'nap', 'multinode'],
    workspace('llama70b', 'llama-3.3-70b-instruct', { instanceType: A100, secret: 'hf-token' }),
  ),
  kase(
    'phi-4-mini-instruct, AWS g6.xlarge (NVMe)',
    ['legacy', 'nap', 'aws'],
    workspace('phi4-legacy-aws', 'phi-4-mini-instruct', { instanceType: 'g6.xlarge' }),
    {
      cloud: 'aws',
    },
  ),

  // KAITO v0.12 catalog ids: kaito-ts renders them as v0.12 does.
  kase('Qwen/Qwen3-8B-AWQ, A100', ['catalog', 'nap'], workspace('qwen3', 'Qwen/Qwen3-8B-AWQ', { instanceType: A100 })),
  kase('microsoft/Phi-4-mini-instruct, A10 (no NVMe)', ['catalog', 'nap'], workspace('phi4-cat', 'microsoft/Phi-4-mini-instruct', { instanceType: A10 })),
  kase(
    'microsoft/Phi-4-mini-instruct, benchmark off',
    ['catalog', 'nap', 'benchmarkOff'],
    workspace('phi4-nobench', 'microsoft/Phi-4-mini-instruct', { instanceType: A100, annotations: NO_BENCHMARK }),
  ),
  kase(
    'microsoft/Phi-4-mini-instruct, AWS g6.xlarge (NVMe)',
    ['catalog', 'nap', 'aws'],
    workspace('phi4-aws', 'microsoft/Phi-4-mini-instruct', { instanceType: 'g6.xlarge' }),
    { cloud: 'aws' },
  ),
  kase(
    'google/gemma-3-4b-it, LoadBalancer',
    ['catalog', 'nap', 'loadBalancer'],
    workspace('gemma3', 'google/gemma-3-4b-it', { instanceType: A100, secret: 'hf-token', annotations: { 'kaito.sh/enablelb': 'True' } }),
  ),
  kase('openai/gpt-oss-20b, H100', ['catalog', 'nap'], workspace('gpt-oss', 'openai/gpt-oss-20b', { instanceType: H100 })),
  kase(
    'mistralai/Ministral-3-8B-Instruct-2512 (Mistral format), A100',
    ['catalog', 'nap'],
    workspace('ministral', 'mistralai/Ministral-3-8B-Instruct-2512', { instanceType: A100 }),
  ),
  kase(
    'deepseek-ai/DeepSeek-R1-Distill-Qwen-14B, BYO A10 nodes (2 nodes)',
    ['catalog', 'byo', 'multinode'],
    workspace('byo-r1', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', { pool: 'a10' }),
    { state: [...NAP_STATE, ...A10_NODES] },
  ),
  kase(
    'meta-llama/Llama-3.3-70B-Instruct, multi-node on A100',
    ['catalog', 'nap', 'multinode'],
    workspace('llama70b-cat', 'meta-llama/Llama-3.3-70B-Instruct', { instanceType: A100, secret: 'hf-token' }),
  ),
  kase(
    'meta-llama/Llama-3.3-70B-Instruct, multi-node, benchmark off',
    ['catalog', 'nap', 'multinode', 'benchmarkOff'],
    workspace('llama70b-nobench', 'meta-llama/Llama-3.3-70B-Instruct', { instanceType: A100, secret: 'hf-token', annotations: NO_BENCHMARK }),
  ),
  kase(
    'Qwen/Qwen2.5-Coder-7B-Instruct, custom config',
    ['catalog', 'nap', 'config'],
    workspace('qwen-cfg', 'Qwen/Qwen2.5-Coder-7B-Instruct', { instanceType: A10, config: 'long-context' }),
    { state: [...NAP_STATE, USER_CONFIG] },
  ),
  kase(
    'Qwen/Qwen2.5-Coder-7B-Instruct, transformers runtime',
    ['catalog', 'nap', 'transformers'],
    workspace('qwen-cat-tf', 'Qwen/Qwen2.5-Coder-7B-Instruct', { instanceType: H100, annotations: TRANSFORMERS }),
  ),
  kase(
    'meta-llama/Llama-3.1-8B-Instruct, transformers runtime, token Secret, A100 (NVMe)',
    ['catalog', 'nap', 'transformers'],
    workspace('llama-cat-tf', 'meta-llama/Llama-3.1-8B-Instruct', { instanceType: A100, secret: 'hf-token', annotations: TRANSFORMERS }),
  ),
  kase(
    'microsoft/phi-4 as an InferenceSet member, throughput mode',
    ['catalog', 'nap', 'inferenceSet'],
    workspace('set-phi4-0', 'microsoft/phi-4', {
      instanceType: A100,
      labels: { 'inferenceset.kaito.sh/created-by': 'set-phi4' },
      annotations: { 'kaito.sh/performance-mode': 'throughput' },
    }),
  ),
  kase(
    'mistralai/Mistral-Small-4-119B-2603 (needs a CUDA toolkit), 8 × H100',
    ['catalog', 'nap', 'cudaToolkit'],
    workspace('mistral-small', 'mistralai/Mistral-Small-4-119B-2603', { instanceType: 'Standard_ND96isr_H100_v5' }),
  ),
  kase(
    'google/gemma-3-27b-it, weights from the node image',
    ['catalog', 'nap', 'localWeights'],
    workspace('gemma-local', 'google/gemma-3-27b-it', { instanceType: H100, secret: 'hf-token', annotations: { 'kaito.sh/use-local-weights': 'true' } }),
  ),

  kase(
    'acme/Qwen3-8B-copy (Hugging Face id from the hub), A100',
    ['catalog', 'nap', 'hub'],
    workspace('hub-qwen', 'acme/Qwen3-8B-copy', { instanceType: A100 }),
  ),
  kase('acme/qwen3-small (Hugging Face id from the hub), A10', ['catalog', 'nap', 'hub'], workspace('hub-small', 'acme/qwen3-small', { instanceType: A10 })),

  kase(
    'template (nginx)',
    ['template', 'nap'],
    workspace('nginx', undefined, {
      instanceType: A10,
      template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } },
    }),
  ),
];

// ---------------------------------------------------------------------------------------------
// KAITO v0.12.0's own examples: every Workspace, and the child Workspace of every InferenceSet, with
// the ConfigMaps and Secrets of the same file in the cluster. arc-examples/ name a placeholder SKU
// (`<your-vm-sku>`) KAITO refuses; what KAITO's generator refuses is listed as left out, not compared.

/** KAITO v0.12.0's examples/ ($KAITO_SRC or ../shared/kaito-src, as simcluster/build-kaito.sh reads the tree). */
function kaitoExamplesDir(): string {
  const tree = kaitoTree('v0.12.0', ['examples']);
  assert.ok(tree, "KAITO v0.12.0's source tree is not on this machine: set KAITO_SRC (a directory kaito-v0.12.0/ or kaito-v0.12.0.tar.gz)");
  return join(tree.root, 'examples');
}

const inNamespace = (o: K8sObject): K8sObject => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? 'default' } });
const objectKeyOf = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The base cluster with the file's own objects, a file's object replacing a base one of the same kind and name. */
function withObjects(base: K8sObject[], own: K8sObject[]): K8sObject[] {
  const keys = new Set(own.map(objectKeyOf));
  return [...base.filter((o) => !keys.has(objectKeyOf(o))), ...own];
}

/** A Secret's placeholder (`HF_TOKEN: <base64-encoded-huggingface-token>`) filled in, as a user does before applying it. */
function filledIn(o: K8sObject): K8sObject {
  const data = o.kind === 'Secret' ? (o as { data?: Record<string, string> }).data : undefined;
  if (!data) return o;
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, /^[A-Za-z0-9+/]*={0,2}$/.test(v) ? v : Buffer.from(v).toString('base64')]));
  return { ...o, data: encoded };
}

/** The child Workspace the InferenceSet controller's first pass creates, named as its first member. */
function childOf(doc: K8sObject): K8sObject | string {
  let is;
  try {
    is = parseInferenceSet(doc);
  } catch (err) {
    return `kaito-ts cannot read it: ${(err as Error).message}`;
  }
  const byo = !is.spec.template.resource?.instanceType;
  const plan = planInferenceSetOffline(is, { workspaces: [], controllerRevisions: [] }, { byo });
  const created = plan.actions.find((a) => a.kind === 'create' && a.type.kind === 'Workspace');
  if (created?.kind !== 'create') return `its controller's first pass creates no child Workspace${plan.failure ? `: ${plan.failure.message}` : ''}`;
  // The owner's uid, as the API server stores the child (the example InferenceSet has none offline).
  const child = withOwnerUids(created.object as K8sObject);
  return { ...child, metadata: { ...child.metadata, name: `${is.metadata.name}-0` } };
}

/** Examples KAITO v0.12.0's webhook refuses, by file, with its message (validateRuntime → model.Validate). */
const WEBHOOK_REFUSES: Record<string, RegExp> = {
  'inference/kaito_workspace_phi_3_with_adapters.yaml': /Runtime validation: vLLM does not support adapter strength/,
};

function exampleCase(file: string, doc: K8sObject, own: K8sObject[], set?: string): Case {
  uid += 1;
  const ws = inNamespace({ ...doc, metadata: { ...doc.metadata, uid: `00000000-0000-4000-8000-${String(uid).padStart(12, '0')}` } });
  const inference = (ws as { inference?: { template?: unknown; preset?: { name?: unknown }; adapters?: unknown[]; config?: string } }).inference;
  const preset = inference?.preset?.name;
  const byo = !(ws as { resource?: { instanceType?: string } }).resource?.instanceType;
  const tags: Tag[] = ['example', byo ? 'byo' : 'nap'];
  if (inference?.template) tags.push('template');
  else if (typeof preset === 'string') tags.push(isHuggingFaceId(preset) ? 'catalog' : 'legacy');
  if (inference?.adapters?.length) tags.push('adapters');
  if (inference?.config) tags.push('config');
  if (set) tags.push('inferenceSet');
  const name = `example ${file}: ${set ? `InferenceSet ${set}, child ${ws.metadata.name}` : ws.metadata.name}`;
  const refuses = WEBHOOK_REFUSES[file];
  return { ...kase(name, tags, ws, { state: withObjects(NAP_STATE, own) }), ...(refuses ? { webhookRefuses: refuses } : {}) };
}

/** Every Workspace and InferenceSet of KAITO's examples as cases, and what is left out with why. */
function exampleCases(): { cases: Case[]; leftOut: string[] } {
  const dir = kaitoExamplesDir();
  const files = ['inference', 'custom-model-integration'].flatMap((sub) =>
    readdirSync(join(dir, sub))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => join(sub, f)),
  );
  const cases: Case[] = [];
  const leftOut = ['inference/arc-examples/: every file names the placeholder instance type <your-vm-sku>, which KAITO refuses'];
  for (const file of files) {
    const docs = parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
      .map((d) => d.toJS() as K8sObject | null)
      .filter((d): d is K8sObject => d !== null);
    const own = docs.filter((d) => d.kind === 'ConfigMap' || d.kind === 'Secret').map((d) => inNamespace(filledIn(d)));
    for (const doc of docs) {
      if (doc.kind === 'Workspace') cases.push(exampleCase(file, doc, own));
      else if (doc.kind === 'InferenceSet') {
        const child = childOf(doc);
        if (typeof child !== 'string') cases.push(exampleCase(file, child, own, doc.metadata.name));
        else leftOut.push(`${file}: InferenceSet ${doc.metadata.name}: ${child}`);
      } else if (doc.kind !== 'ConfigMap' && doc.kind !== 'Secret')
        leftOut.push(`${file}: ${doc.kind} ${doc.metadata.name} (not a Workspace or an InferenceSet)`);
    }
  }
  return { cases, leftOut };
}

// ---------------------------------------------------------------------------------------------
// Running both sides.

interface Objects {
  /** kaito-ts render refused the workspace (exit 2): its message. */
  refused?: string;
  targetNodeCount?: number;
  service?: object;
  headlessService?: object;
  statefulSet?: object;
  configMap?: object;
}

interface KaitoResult extends Objects {
  name: string;
  error?: string;
}

async function kaito(cases: Case[], workspaces: object[], hub: HubStandIn): Promise<KaitoResult[]> {
  const of = (c: Case, kind: string) => c.state.filter((o) => o.kind === kind);
  const input = {
    cases: cases.map((c, i) => ({
      name: c.name,
      cloudProvider: c.cloud,
      presetRegistry: 'mcr.microsoft.com/aks/kaito',
      disableNodeAutoProvisioning: c.tags.includes('byo'),
      nodes: of(c, 'Node'),
      storageClasses: of(c, 'StorageClass'),
      configMaps: of(c, 'ConfigMap'),
      secrets: of(c, 'Secret'),
      workspace: workspaces[i],
    })),
  };
  const out = (await runKaitoRenderAsync(['workload'], input, { HTTPS_PROXY: hub.proxy.url, SSL_CERT_FILE: hub.caFile })) as { cases?: KaitoResult[] };
  // A harness built before the workload mode answers in the NodePool mode's shape.
  assert.ok(Array.isArray(out.cases), `${KAITO_RENDER} has no workload mode: rebuild it with \`bash simcluster/build-kaito.sh v0.12.0\``);
  return out.cases;
}

/** `kaito-ts render -o json --explain` on the case's workspace and state, as a user runs it (`setting`: --legacy-presets). */
async function ours(c: Case, ws: object, dir: string, setting?: 'v0.8' | 'v0.12', hub?: HubStandIn): Promise<Objects> {
  const wsFile = join(dir, 'workspace.json');
  const stateFile = join(dir, 'state.json');
  writeFileSync(wsFile, JSON.stringify(ws));
  writeFileSync(stateFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: c.state }));
  const out: string[] = [];
  const err: string[] = [];
  const args = ['render', '-f', wsFile, '--state', stateFile, '-o', 'json', '--explain', '--cloud-provider', c.cloud];
  if (c.tags.includes('byo')) args.push('--feature-gates', 'disableNodeAutoProvisioning=true');
  if (setting) args.push('--legacy-presets', setting);
  if (hub) args.push('--hf-endpoint', hub.hub.url);
  const code = await main(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
  if (code === 2) return { refused: err.join('').trim() };
  assert.equal(code, 0, `${c.name}: kaito-ts render failed: ${err.join('')}`);
  const items = (JSON.parse(out.join('')) as { items: { kind: string; metadata: { name: string } }[] }).items;
  const name = (ws as { metadata: { name: string } }).metadata.name;
  const target = /^targetNodeCount: +(\d+) /m.exec(err.join(''));
  return {
    ...(target ? { targetNodeCount: Number(target[1]) } : {}),
    service: items.find((o) => o.kind === 'Service' && o.metadata.name === name),
    headlessService: items.find((o) => o.kind === 'Service' && o.metadata.name === `${name}-headless`),
    statefulSet: items.find((o) => o.kind === 'StatefulSet'),
    configMap: items.find((o) => o.kind === 'ConfigMap'),
  };
}

// ---------------------------------------------------------------------------------------------
// Comparing.

/**
 * The two sides in one form: what the API server would store alike is written alike. Empty values
 * (null, "", {}, []) are dropped: decoded into the API's Go types they are the zero value either way
 * (Go's `omitempty` leaves out what kaito-ts writes as `[]`; `creationTimestamp: null` is Go's zero
 * time; a Go string field without `omitempty`, such as a template StatefulSet's `serviceName`, is `""`). The flags of a shell command are sorted: KAITO v0.12
 * builds the vLLM command line (and the probes' commands) by iterating a Go map, so its order changes from run to run (kaito-ts
 * fixes one: docs/api.md, "What inference.preset.name may be").
 */
function normalise(v: unknown, inCommand = false): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => normalise(x, inCommand)).filter((x) => x !== undefined);
    return items.length ? items : undefined;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v)
      .map(([k, x]) => [k, normalise(x, k === 'command' || k === 'args')] as const)
      .filter(([, x]) => x !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  if (v === '') return undefined;
  if (typeof v === 'string' && inCommand) return sortFlags(v);
  return v ?? undefined;
}

/** Each run of ` --flag[=value]` words sorted, so `a --y --x; b` and `a --x --y; b` compare equal. */
function sortFlags(command: string): string {
  return command.replace(/(?: --[^\s;]+)+/g, (run) => ` ${run.trim().split(' ').sort().join(' ')}`);
}

/** How the items of a list are matched: by their name, key or port, so an extra item is one difference. */
function itemKey(item: unknown): string | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const o = item as Record<string, unknown>;
  const key = o.name ?? o.key ?? o.containerPort;
  return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
}

/** Every place where the two differ, as `path: ours ≠ KAITO`. Keyed lists also report a changed order. */
function differences(ours: unknown, theirs: unknown, path: string): { path: string; text: string }[] {
  const leaf = () =>
    JSON.stringify(ours) === JSON.stringify(theirs)
      ? []
      : [{ path, text: `${path}: ours ${JSON.stringify(ours) ?? '(none)'} ≠ KAITO ${JSON.stringify(theirs) ?? '(none)'}` }];
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    const oursKeys = ours.map(itemKey);
    const theirKeys = theirs.map(itemKey);
    const keyed =
      [...oursKeys, ...theirKeys].every((k) => k !== undefined) && new Set(oursKeys).size === ours.length && new Set(theirKeys).size === theirs.length;
    if (!keyed)
      return Object.keys(ours.length >= theirs.length ? ours : theirs).flatMap((i) => differences(ours[Number(i)], theirs[Number(i)], `${path}.${i}`));
    const byKey = (list: unknown[]) => new Map(list.map((x) => [itemKey(x)!, x]));
    const [a, b] = [byKey(ours), byKey(theirs)];
    const diffs = [...new Set([...a.keys(), ...b.keys()])].flatMap((k) => differences(a.get(k), b.get(k), `${path}[${k}]`));
    const shared = (keys: (string | undefined)[], other: Map<string, unknown>) => keys.filter((k) => other.has(k!)).join(',');
    if (shared(oursKeys, b) !== shared(theirKeys, a))
      diffs.push({ path: `${path}[#order]`, text: `${path}: order ours ${oursKeys.join(',')} ≠ KAITO ${theirKeys.join(',')}` });
    return diffs;
  }
  if (ours && theirs && typeof ours === 'object' && typeof theirs === 'object' && !Array.isArray(ours) && !Array.isArray(theirs)) {
    const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
    return [...keys].flatMap((k) => differences((ours as Record<string, unknown>)[k], (theirs as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return leaf();
}

// ---------------------------------------------------------------------------------------------
// The classification. `path` is a prefix of the difference's path, in its segments: `.x` a field,
// `[k]` a list item by name/key/port, `*` any one segment. `only`: the rule applies to cases with
// that tag. The first matching rule classifies a difference.

type Class = 'deliberate' | 'adoption' | 'gap';
interface Rule {
  path: string;
  only?: Tag;
  class: Class;
  reason: string;
}

const POD = 'statefulSet.spec.template.spec';
const TERMS = `${POD}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
const MAIN = `${POD}.containers[*]`;
const API_MD = 'docs/api.md "What inference.preset.name may be"';
const TEMPLATE = `a template carries no sign of the KAITO release that made it, so kaito-ts renders it as KAITO v0.8.0 did and a v0.8.0 takeover changes nothing (${API_MD})`;

const RULES: Rule[] = [
  // kaito-ts does better, and the docs say why.
  {
    path: `${POD}.volumes[model-weights-volume].emptyDir`,
    class: 'deliberate',
    reason:
      'emptyDir weights get sizeLimit = the disk requirement, so a runaway download evicts the pod instead of filling the node (docs/builders.md "The model weights volume")',
  },
  {
    path: 'statefulSet.spec.volumeClaimTemplates',
    only: 'byo',
    class: 'deliberate',
    reason:
      'a BYO node whose instance type is an NVMe SKU gets the NVMe claim; KAITO never gives BYO nodes NVMe (W18: docs/builders.md "The model weights volume", docs/catalogs.md "BYO nodes")',
  },
  {
    path: `${POD}.volumes[model-weights-volume]`,
    only: 'byo',
    class: 'deliberate',
    reason: 'the same W18 choice: the weights are on the claim, not an emptyDir',
  },
  {
    path: 'service.spec.ports[kv-events]',
    only: 'template',
    class: 'deliberate',
    reason:
      'a template runs the user\'s containers, which publish no vLLM KV-cache events; v0.12 adds the port only because the runtime annotation defaults to vLLM (its own comment: advertising the port elsewhere misleads), and a v0.8.0 template workspace\'s Service must not be rewritten on takeover (docs/api.md "What inference.preset.name may be")',
  },
  {
    path: `${TERMS}.1`,
    only: 'nap',
    class: 'deliberate',
    reason:
      'pinned to its gpu-provisioner nodes as v0.12 pins them (first term), plus a second term that admits the label selector\'s nodes no provisioner made (no karpenter.sh/nodepool), which kaito-ts counts as covering the workspace: KAITO counts them too and then pins the pods away from them (docs/controller.md "Node auto-provisioning")',
  },
  {
    path: 'statefulSet.metadata.annotations',
    only: 'template',
    class: 'deliberate',
    reason:
      'template StatefulSets carry the revision annotation (StatefulSet metadata: no pod restarts; a converged workspace is not re-applied) (docs/builders.md "Where kaito-ts does better than KAITO", kept-for-parity list)',
  },

  ...['private-lora', 'public-lora'].map((adapter) => ({
    path: `${POD}.initContainers[puller-${adapter}].args.0`,
    only: 'adapters' as const,
    class: 'deliberate' as const,
    reason:
      'the puller script is kaito-ts\'s own (the same steps: skopeo copy anonymously then with each mounted docker config, the layers unpacked, /data moved to the adapter directory); a StatefulSet KAITO made keeps KAITO\'s script at its revision and gets ours with the next one (docs/builders.md "The adapter puller")',
  })),
  // Templates carry no sign of the KAITO release that made them: kaito-ts renders them as KAITO v0.8.0 did.
  {
    path: `${POD}.tolerations[kubernetes.azure.com/scalesetpriority]`,
    only: 'template',
    class: 'adoption',
    reason: `the user's tolerations and v0.8.0's two; ${TEMPLATE}`,
  },
  ...['kaito.sh/workspace', 'kaito.sh/workspacenamespace'].map((key) => ({
    path: `${TERMS}.0.matchExpressions[${key}]`,
    only: 'template' as const,
    class: 'adoption' as const,
    reason: `v0.8.0's node affinity (the label selector only); ${TEMPLATE}`,
  })),

  // The benchmark is left out on every path: the probe v0.12 renders with it off, field by field.
  ...(
    [
      ['exec.command.2', 'multi-node: the readiness exec check (v0.12 with the benchmark off) where v0.12 runs benchmark_entrypoint.py on pod 0'],
      ['exec', "single node: no exec probe running benchmark_entrypoint.py, v0.12's own benchmark-off probe instead"],
      ['httpGet', "single node: GET /health, v0.12's own probe with the benchmark off"],
      ['timeoutSeconds', "the probe's default timeout, where v0.12 gives the benchmark 600 s"],
    ] as const
  ).map(([field, what]) => ({
    path: `${MAIN}.startupProbe.${field}`,
    class: 'deliberate' as const,
    reason: `no post-load benchmark: ${what}; the same window, on every path; BenchmarkCompleted is never set (docs/api.md "No startup benchmark")`,
  })),
];

function segments(path: string): string[] {
  return path.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
}

function matches(rule: Rule, path: string, tags: Tag[]): boolean {
  if (rule.only && !tags.includes(rule.only)) return false;
  const want = segments(rule.path);
  const got = segments(path);
  return want.length <= got.length && want.every((s, i) => s === '*' || s === '[*]' || s === got[i]);
}

const CLASSES: Class[] = ['deliberate', 'adoption', 'gap'];

function ruleName(r: Rule): string {
  return `${r.path.replace(`${POD}.`, '…pod.')}${r.only ? ` (${r.only})` : ''}`;
}

test("workloads equal KAITO v0.12.0's generator, every difference classified", async () => {
  const examples = exampleCases();
  const all = [...CASES, ...examples.cases];
  // Both sides get the workspace with kaito-ts's defaults applied; one kaito-ts cannot parse goes as written (render refuses it).
  const workspaces = all.map((c) => {
    try {
      return parseWorkspace(c.workspace);
    } catch {
      return c.workspace;
    }
  });
  const dir = mkdtempSync(join(tmpdir(), 'kaito-v012-workload-'));
  await ensurePki(join(dir, 'pki'));
  const hub = await startHubStandIn(join(dir, 'pki'), HUB_MODELS);
  let theirs: KaitoResult[];
  try {
    theirs = await kaito(all, workspaces, hub);
  } catch (err) {
    await hub.close();
    throw err;
  }
  const hits = new Map<Rule, { differences: number; cases: number }>();
  const unclassified: string[] = [];
  // Legacy names are compared field by field: an adoption rule, or one wider than the field it classifies, is a failure.
  const tooBroad: string[] = [];
  const leftOut = [...examples.leftOut];
  const perCase: [string, Record<Class, number>][] = [];
  try {
    for (const [i, c] of all.entries()) {
      const k = theirs[i]!;
      if (c.webhookRefuses) {
        const o = await ours(c, workspaces[i]!, dir);
        assert.match(o.refused ?? '(rendered)', c.webhookRefuses, `${c.name}: KAITO's webhook refuses it; kaito-ts must too`);
        leftOut.push(`${c.name}: KAITO v0.12's webhook refuses it, and so does kaito-ts: ${o.refused}`);
        continue;
      }
      if (k.error && c.tags.includes('example')) {
        leftOut.push(`${c.name}: KAITO v0.12's generator refuses it: ${k.error}`);
        continue;
      }
      assert.equal(k.error, undefined, `${c.name}: KAITO v0.12 refused it: ${k.error}`);
      const o = await ours(c, workspaces[i]!, dir, undefined, hub);
      const counts: Record<Class, number> = { deliberate: 0, adoption: 0, gap: 0 };
      const seen = new Set<Rule>();
      // A workspace kaito-ts refuses is one difference, whatever KAITO made of it.
      const fields = o.refused ? (['refused'] as const) : (['targetNodeCount', 'service', 'headlessService', 'statefulSet', 'configMap'] as const);
      for (const field of fields) {
        for (const d of differences(normalise(o[field]), normalise(k[field]), field)) {
          const rule = RULES.find((r) => matches(r, d.path, c.tags));
          if (!rule) {
            unclassified.push(`${c.name}: ${d.text}`);
            continue;
          }
          if (c.tags.includes('legacy') && (rule.class === 'adoption' || segments(rule.path).length !== segments(d.path).length))
            tooBroad.push(`${c.name}: ${d.path} classified by ${rule.class} rule ${ruleName(rule)}`);
          counts[rule.class] += 1;
          const hit = hits.get(rule) ?? { differences: 0, cases: 0 };
          hits.set(rule, { differences: hit.differences + 1, cases: hit.cases + (seen.has(rule) ? 0 : 1) });
          seen.add(rule);
        }
      }
      perCase.push([c.name, counts]);
    }
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const width = Math.max(...perCase.map(([name]) => name.length));
  const total = (cls: Class) => perCase.reduce((n, [, counts]) => n + counts[cls], 0);
  console.log(
    [
      'differences by class, per case:',
      `cases: ${perCase.length} compared (${perCase.filter(([name]) => all.find((c) => c.name === name)?.tags.includes('legacy')).length} legacy names), ${leftOut.length} left out:`,
      ...leftOut.map((l) => `  ${l}`),
      ...perCase.map(([name, counts]) => `  ${name.padEnd(width)}  ${CLASSES.map((cls) => `${cls} ${String(counts[cls]).padStart(2)}`).join('  ')}`),
      `  ${'all cases'.padEnd(width)}  ${CLASSES.map((cls) => `${cls} ${total(cls)}`).join('  ')}`,
      'by rule (differences, cases):',
      ...RULES.filter((r) => hits.has(r)).map(
        (r) => `  ${r.class.padEnd(10)} ${String(hits.get(r)!.differences).padStart(3)} ${String(hits.get(r)!.cases).padStart(3)}  ${ruleName(r)}`,
      ),
    ].join('\n'),
  );
  assert.deepEqual(unclassified, [], `differences no rule classifies:\n  ${unclassified.join('\n  ')}`);
  assert.deepEqual(tooBroad, [], `legacy names compared less than field by field:\n  ${tooBroad.join('\n  ')}`);
  const unused = RULES.filter((r) => !hits.has(r)).map(ruleName);
  assert.deepEqual(unused, [], `rules no case needs any more (drop them):\n  ${unused.join('\n  ')}`);
});

test("--legacy-presets=v0.8 keeps KAITO v0.8.0's rendering of a legacy name", async () => {
  const c = kase('mistral-7b-instruct, --legacy-presets=v0.8', ['legacy', 'nap'], workspace('mistral-v08', 'mistral-7b-instruct', { instanceType: A100 }));
  const dir = mkdtempSync(join(tmpdir(), 'kaito-v012-workload-'));
  try {
    const v08 = await ours(c, parseWorkspace(c.workspace), dir, 'v0.8');
    const pod = (
      v08.statefulSet as { spec: { template: { spec: { containers: { image: string; command: string[] }[]; initContainers?: { name: string }[] } } } }
    ).spec.template.spec;
    assert.match(pod.containers[0]!.image, /\/kaito-base:0\.1\.1$/);
    assert.match(pod.containers[0]!.command[2]!, / --served-model-name=mistral-7b-instruct /, "v0.8.0's served name");
    assert.ok(
      pod.initContainers?.some((i) => i.name === 'model-weights-downloader'),
      "weights from the preset's OCI artifact",
    );
    assert.ok(v08.configMap, "v0.8.0's copy of inference-params-template");
    const v012 = await ours(c, parseWorkspace(c.workspace), dir);
    const main = (v012.statefulSet as typeof v08.statefulSet & { spec: { template: { spec: { containers: { image: string; command: string[] }[] } } } }).spec
      .template.spec.containers[0]!;
    assert.match(main.image, /\/kaito-base:0\.5\.0$/);
    assert.match(main.command[2]!, / --served-model-name=mistral-7b-instruct-v0\.3 /, "the default: the catalog's served name");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
