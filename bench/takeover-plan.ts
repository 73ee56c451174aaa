// What a takeover run (bench/takeover.ts) does, as data: its flags, the workspaces of each mode, and the
// comparison of the Karpenter objects (NodePools, NodeClaims, nodes, the NodeClass) before and after
// kaito-ts took over. Pure.
import { parseArgs } from 'node:util';
import { fieldChanges, formatChange } from '../src/diff/changes.js';
import type { ControllerId } from './controllers.js';

export type TakeoverMode = 'byo' | 'karpenter';
export interface TakeoverOptions {
  from: Extract<ControllerId, 'kaito-v0.8.0' | 'kaito-v0.12.0'>;
  mode: TakeoverMode;
}

export const TAKEOVER_USAGE = `Usage: npm run takeover -- [--from kaito-v0.8.0|kaito-v0.12.0] [--mode byo|karpenter]

  --from C    the KAITO controller taken over (default kaito-v0.8.0)
  --mode M    byo: bring-your-own GPU nodes (default); karpenter: --node-provisioner=karpenter on a
              cluster with real Karpenter (needs --from kaito-v0.12.0, the only KAITO with that mode)
`;

export function parseTakeoverArgs(argv: string[]): TakeoverOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: { from: { type: 'string' }, mode: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return 'help';
  const from = values.from ?? 'kaito-v0.8.0';
  if (from !== 'kaito-v0.8.0' && from !== 'kaito-v0.12.0') throw new Error(`--from must be kaito-v0.8.0 or kaito-v0.12.0, got "${from}"`);
  const mode = values.mode ?? 'byo';
  if (mode !== 'byo' && mode !== 'karpenter') throw new Error(`--mode must be byo or karpenter, got "${mode}"`);
  if (mode === 'karpenter' && from !== 'kaito-v0.12.0') throw new Error(`${from} has no Karpenter mode: use --from kaito-v0.12.0`);
  return { from, mode };
}

export const POOL = 'kaito.sh/sim-pool';
export const A100 = 'Standard_NC24ads_A100_v4';
export const A10 = 'Standard_NV36ads_A10_v5';
export const HF_SECRET = 'hf-token';
/** From KAITO v0.12.0 (bring-your-own): a model outside the catalog, read from the fake hub. */
export const GENERIC_HF_ID = 'Qwen/Qwen3-8B';
/** The docker-registry Secret of the private adapter (bring-your-own mode). */
export const ADAPTER_PULL_SECRET = 'adapter-pull';

const nginx = (name: string) => ({
  metadata: { labels: { app: name } },
  spec: { containers: [{ name: 'server', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { 'nvidia.com/gpu': 1 } } }] },
});

/**
 * Workspace bodies (KAITO's YAML: no `spec` wrapper) without apiVersion, kind or namespace. From KAITO
 * v0.12.0 a model named by its Hugging Face id from the catalog joins the bring-your-own set (v0.8.0 knows
 * no such name).
 */
export function takeoverWorkspaces(
  mode: TakeoverMode,
  from: TakeoverOptions['from'] = 'kaito-v0.8.0',
): { metadata: { name: string }; resource: object; inference?: object; tuning?: object }[] {
  if (mode === 'byo') {
    const v012 =
      from === 'kaito-v0.12.0'
        ? [
            {
              metadata: { name: 'catalog-phi-4-mini' },
              resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a10' } } },
              inference: { preset: { name: 'microsoft/Phi-4-mini-instruct' } },
            },
            // Sized by both controllers from the fake hub's file list and config.json.
            {
              metadata: { name: 'generic-qwen3-8b' },
              resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a100' } } },
              inference: { preset: { name: GENERIC_HF_ID } },
            },
            // 140 GB of weights on 80 GB GPUs: a 3-node group on the user's nodes.
            {
              metadata: { name: 'llama-70b-group' },
              resource: { count: 3, labelSelector: { matchLabels: { [POOL]: 'a100-group' } } },
              inference: { preset: { name: 'llama-3.3-70b-instruct', presetOptions: { modelAccessSecret: HF_SECRET } } },
            },
          ]
        : [];
    // Bring-your-own nodes: no instanceType with disableNodeAutoProvisioning=true.
    return [
      ...v012,
      {
        // With two LoRA adapters: KAITO's puller init containers (one with a pull secret) are taken over too.
        metadata: { name: 'preset-a10' },
        resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a10' } } },
        inference: {
          preset: { name: 'phi-3-mini-4k-instruct' },
          adapters: [
            { source: { name: 'public-lora', image: 'kaito/phi-3-lora:0.0.1' } },
            { source: { name: 'private-lora', image: 'registry.example/adapters/phi-3-lora:0.0.1', imagePullSecrets: [ADAPTER_PULL_SECRET] } },
          ],
        },
      },
      {
        metadata: { name: 'preset-a100' },
        resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a100' } } },
        inference: { preset: { name: 'phi-4-mini-instruct' } },
      },
      {
        metadata: { name: 'template-nginx' },
        resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a10' } } },
        inference: { template: nginx('template-nginx') },
      },
    ];
  }
  // Karpenter: each workspace names its SKU and a label of its own, which its NodePool's nodes get.
  const karpenter = (name: string, instanceType: string) => ({ instanceType, labelSelector: { matchLabels: { apps: name } } });
  return [
    // An NVMe SKU: the weights go on a local NVMe claim.
    { metadata: { name: 'phi4-a100' }, resource: karpenter('phi4-a100', A100), inference: { preset: { name: 'phi-4-mini-instruct' } } },
    // 140 GB of weights on 80 GB GPUs: 3 nodes, one NodePool with replicas 3, a multi-node StatefulSet.
    {
      metadata: { name: 'llama-70b' },
      resource: karpenter('llama-70b', A100),
      inference: { preset: { name: 'llama-3.3-70b-instruct', presetOptions: { modelAccessSecret: HF_SECRET } } },
    },
    { metadata: { name: 'template-nginx' }, resource: { count: 1, ...karpenter('template-nginx', A10) }, inference: { template: nginx('template-nginx') } },
    // Tuning needs an instanceType in KAITO v0.12.0 (its tuning reads the GPU from the SKU), so it is
    // taken over here and not on bring-your-own nodes, where KAITO v0.12.0 cannot run it.
    {
      metadata: { name: 'tuning-qlora' },
      resource: { count: 1, ...karpenter('tuning-qlora', A100) },
      tuning: {
        preset: { name: 'phi-3-mini-128k-instruct' },
        method: 'qlora',
        input: { urls: ['https://example.com/data/train.parquet?download=true'] },
        output: { image: 'registry.example/adapters/phi-3-tuned:0.0.1', imagePushSecret: ADAPTER_PULL_SECRET },
      },
    },
  ];
}

/**
 * InferenceSet bodies (without namespace), from KAITO v0.12.0, one created through each served version
 * (`kaito.sh/v1beta1` and `kaito.sh/v1alpha1`), so KAITO's webhook and both schemas see them. On
 * bring-your-own nodes each has a pool of its own; in Karpenter mode each names its SKU and its children
 * get NodePools of their own. Their children are taken over with everything else.
 */
export function takeoverInferenceSets(
  mode: TakeoverMode,
  from: TakeoverOptions['from'] = 'kaito-v0.8.0',
): { apiVersion: string; metadata: { name: string }; spec: { replicas: number; labelSelector: object; template: object } }[] {
  if (from !== 'kaito-v0.12.0') return [];
  const phi3 = { inference: { preset: { name: 'phi-3-mini-4k-instruct' } } };
  if (mode === 'karpenter')
    return [
      {
        apiVersion: 'kaito.sh/v1beta1',
        metadata: { name: 'phi3-set' },
        spec: { replicas: 1, labelSelector: { matchLabels: { apps: 'phi3-set' } }, template: { resource: { instanceType: A10 }, ...phi3 } },
      },
      {
        apiVersion: 'kaito.sh/v1alpha1',
        metadata: { name: 'phi3-set-alpha' },
        spec: { replicas: 1, labelSelector: { matchLabels: { apps: 'phi3-set-alpha' } }, template: { resource: { instanceType: A10 }, ...phi3 } },
      },
    ];
  return [
    {
      apiVersion: 'kaito.sh/v1beta1',
      metadata: { name: 'phi3-set' },
      spec: { replicas: 2, labelSelector: { matchLabels: { [POOL]: 'a10-set' } }, template: phi3 },
    },
    {
      apiVersion: 'kaito.sh/v1alpha1',
      metadata: { name: 'phi3-set-alpha' },
      spec: { replicas: 1, labelSelector: { matchLabels: { [POOL]: 'a10-set-alpha' } }, template: phi3 },
    },
  ];
}

/** One Karpenter-side object as the snapshot keeps it. */
export interface KarpenterObjectState {
  uid: string;
  resourceVersion: string;
  generation?: number;
  /** `comparable()` of the object: metadata and spec, no status, no resourceVersion. */
  body: unknown;
  /** `manager:operation[/subresource]` of its managedFields, sorted. */
  managers: string[];
  /** NodeClaims: the node it launched. */
  nodeName?: string;
}

export interface KarpenterSnapshot {
  nodePools: Map<string, KarpenterObjectState>;
  nodeClaims: Map<string, KarpenterObjectState>;
  nodes: Map<string, KarpenterObjectState>;
  nodeClasses: Map<string, KarpenterObjectState>;
}

/**
 * What changed on the Karpenter side. Problems: an object gone, new or re-created (uid), a NodePool's
 * generation moved, any metadata or spec field changed, a claim now on another node. Notes: a
 * resourceVersion that moved without any of those (status writes, Karpenter's own), with the field
 * managers before and after, so who wrote is visible.
 */
export function compareKarpenter(before: KarpenterSnapshot, after: KarpenterSnapshot): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  const kinds: [string, keyof KarpenterSnapshot][] = [
    ['NodePool', 'nodePools'],
    ['NodeClaim', 'nodeClaims'],
    ['Node', 'nodes'],
    ['NodeClass', 'nodeClasses'],
  ];
  for (const [kind, key] of kinds) {
    for (const [name, b] of before[key]) {
      const a = after[key].get(name);
      const title = `${kind} ${name}`;
      if (!a) {
        problems.push(`${title} is gone`);
        continue;
      }
      if (a.uid !== b.uid) {
        problems.push(`${title} was re-created (uid ${b.uid} → ${a.uid})`);
        continue;
      }
      if (a.generation !== b.generation) problems.push(`${title}: generation ${b.generation} → ${a.generation}`);
      if (a.nodeName !== b.nodeName) problems.push(`${title}: node ${b.nodeName} → ${a.nodeName}`);
      const changes = fieldChanges(b.body, a.body);
      for (const c of changes) problems.push(`${title} changed: ${formatChange(c)}`);
      if (a.resourceVersion !== b.resourceVersion && changes.length === 0 && a.generation === b.generation)
        notes.push(
          `${title}: resourceVersion ${b.resourceVersion} → ${a.resourceVersion} (no metadata or spec change); field managers ${b.managers.join(' ')} → ${a.managers.join(' ')}`,
        );
      else if (a.managers.join(' ') !== b.managers.join(' ')) notes.push(`${title}: field managers ${b.managers.join(' ')} → ${a.managers.join(' ')}`);
    }
    for (const name of after[key].keys()) if (!before[key].has(name)) problems.push(`${kind} ${name} is new`);
  }
  return { problems, notes };
}

/** What clients of a workspace see of its main container: the names it answers to and the engine image. */
export interface Serving {
  servedNames: readonly string[];
  image: string;
}

/** `…/kaito-base:<x.y.z>`: KAITO's engine image and its version, for "the same or a newer engine". */
function baseImageVersion(image: string): number[] | undefined {
  const m = /\/kaito-base:(\d+)\.(\d+)\.(\d+)$/.exec(image);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/**
 * Problems a spec change after the takeover caused to clients: a served name that no longer answers,
 * or an engine older than before (or another image where neither is KAITO's base image). Empty: none.
 */
export function servingProblems(before: Serving, after: Serving): string[] {
  const problems: string[] = [];
  const lost = before.servedNames.filter((n) => !after.servedNames.includes(n));
  if (lost.length) problems.push(`served names ${lost.join(', ')} no longer answer (now ${after.servedNames.join(', ') || 'none'})`);
  if (before.image !== after.image) {
    const [was, now] = [baseImageVersion(before.image), baseImageVersion(after.image)];
    const first = was && now ? now.findIndex((v, i) => v !== was[i]) : -1;
    const newer = was !== undefined && now !== undefined && first >= 0 && now[first]! > was[first]!;
    if (!newer) problems.push(`image ${before.image} → ${after.image}: not the same or a newer engine`);
  }
  return problems;
}
