// A workspace resolved once per pass: its runtime, its presets and the GPU facts of its nodes, looked up
// from the catalogs and the nodes the caller observed. Validation (validation.ts) and the builders read
// this one value, so both judge the same facts and nothing is looked up twice. Pure: the caller passes
// the matching nodes; messages stay with whoever reports them.
import { lookupSku } from '../catalog/gpu-skus.js';
import { gpuConfigFromNodeLabels, type NodeGpuResult, type NodeLabelsSource } from '../catalog/node-gpu.js';
import { catalogEntry, isHuggingFaceId, LEGACY_TO_CATALOG } from '../catalog/model-catalog.js';
import { modelFromCatalog, modelFromHub, type GenerateResult, type HubModelState } from '../catalog/model-generator.js';
import { getPreset, isDeprecatedPreset, presetFromModel, presetNames } from '../catalog/presets.js';
import type { CloudProvider, GpuConfig, Preset } from '../catalog/types.js';
import type { FeatureGates } from './feature-gates.js';
import { DEFAULT_LEGACY_PRESETS, type KaitoGeneration } from './legacy-presets.js';
import { runtimeDecision } from './inference-runtime.js';
import { specVersionOf, type SpecVersion } from './spec-version.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { perFrozenList } from '../runtime/memo.js';
import type { Workspace } from './types.js';

/**
 * A preset named by the workspace: none named, found (a legacy preset, a KAITO v0.12 catalog id, or a
 * Hugging Face id whose metadata is known), deprecated (inference only), unknown; for a Hugging Face id
 * outside the catalog also `resolving` (its metadata is being read) or `hubFailed` (it could not be).
 */
export type PresetLookup =
  | { kind: 'none' }
  | { kind: 'found'; name: string; preset: Preset }
  | { kind: 'deprecated'; name: string }
  | { kind: 'unknown'; name: string }
  | { kind: 'resolving'; name: string; endpoint: string }
  | { kind: 'hubFailed'; name: string; reason: string; message: string; retryInMs?: number };

/** One node matching resource.labelSelector, with the GPU facts its labels give. */
export interface NodeGpu {
  name: string;
  ready: boolean;
  gpu: NodeGpuResult;
}

export interface ResolveInput {
  gates: Pick<FeatureGates, 'vLLM' | 'disableNodeAutoProvisioning'>;
  cloud: CloudProvider;
  /**
   * Bring-your-own nodes: those matching resource.labelSelector (any readiness), in name order, each
   * with whether it is Ready. Omitted: not looked up (offline), so nothing about nodes is judged.
   */
  nodes?: readonly { node: NodeLabelsSource; ready: boolean }[];
  /** Hub metadata of Hugging Face ids outside the catalog, by lowercase id; a missing id is still being read. */
  hubModels?: ReadonlyMap<string, HubModelState>;
  /**
   * The KAITO release whose legacy short names apply: the operator's `--legacy-presets`, or the live
   * workload's own while the spec is unchanged (src/builders/generation.ts). Absent: the default (v0.12).
   */
  legacyNames?: KaitoGeneration;
  /** The release whose SKU table applies (v0.12 dropped older GPUs); absent: as legacyNames. */
  skuTable?: KaitoGeneration;
}

export interface ResolvedWorkspace {
  cloud: CloudProvider;
  /** The apiVersion the spec was written in: v1alpha1 workspaces meet a few more of KAITO's rules. */
  specVersion: SpecVersion;
  /** The KAITO releases whose legacy short names and SKU table apply. */
  legacyNames: KaitoGeneration;
  skuTable: KaitoGeneration;
  /** Nodes are brought by the user (gate disableNodeAutoProvisioning), not auto-provisioned. */
  byo: boolean;
  runtime: ReturnType<typeof runtimeDecision>;
  inferencePreset: PresetLookup;
  tuningPreset: PresetLookup;
  /** Auto-provisioned nodes: the catalog entry of resource.instanceType (gpu undefined: not in the catalog). */
  sku?: { instanceType: string; gpu?: GpuConfig };
  /** Bring-your-own nodes, when looked up: every matching node's GPU facts, in name order. */
  nodes?: readonly NodeGpu[];
}

export function resolveWorkspace(ws: Workspace, input: ResolveInput): ResolvedWorkspace {
  const { cloud } = input;
  const byo = input.gates.disableNodeAutoProvisioning;
  const instanceType = typeof ws.resource?.instanceType === 'string' ? ws.resource.instanceType : '';
  const legacyNames = input.legacyNames ?? DEFAULT_LEGACY_PRESETS;
  const skuTable = input.skuTable ?? legacyNames;
  return {
    cloud,
    specVersion: specVersionOf(ws),
    legacyNames,
    skuTable,
    byo,
    runtime: runtimeDecision(ws, input.gates),
    inferencePreset: inferencePresetOf(ws, input.hubModels, legacyNames),
    tuningPreset: ws.tuning ? lookupPreset(ws.tuning.preset ? presetName(ws.tuning.preset) : '') : { kind: 'none' },
    ...(byo ? {} : { sku: { instanceType, gpu: lookupSku(cloud, instanceType, skuTable) } }),
    ...(byo && input.nodes ? { nodes: nodeGpus(input.nodes, cloud) } : {}),
  };
}

type NodesInput = NonNullable<ResolveInput['nodes']>;
const gpusByCloud = perFrozenList((_nodes: NodesInput) => new Map<CloudProvider, readonly NodeGpu[]>());

/** Each node's GPU facts: once per node list and cloud, since every pass of every workspace asks again. */
function nodeGpus(nodes: NodesInput, cloud: CloudProvider): readonly NodeGpu[] {
  const byCloud = gpusByCloud(nodes);
  let out = byCloud.get(cloud);
  if (!out) {
    out = Object.freeze(nodes.map(({ node, ready }) => ({ name: node.metadata?.name ?? '', ready, gpu: gpuConfigFromNodeLabels(node, cloud) })));
    byCloud.set(cloud, out);
  }
  return out;
}

/**
 * The inference preset alone (event mappers need no full resolution; without hub metadata an id outside
 * the catalog is `resolving`). Deprecated names match in any case. Order: a deprecated name, a legacy
 * short name, then a Hugging Face id: KAITO v0.12's catalog, else the hub. A legacy short name is what
 * `generation` makes of it: KAITO v0.12.0's catalog entry (any letter case; names outside its table are
 * unknown), or KAITO v0.8.0's own preset (exact name).
 */
export function inferencePresetOf(
  ws: DeepReadonly<Pick<Workspace, 'inference'>>,
  hubModels?: ReadonlyMap<string, HubModelState>,
  generation: KaitoGeneration = DEFAULT_LEGACY_PRESETS,
): PresetLookup {
  const named = ws.inference?.preset;
  if (!named) return { kind: 'none' };
  const name = presetName(named);
  if (isDeprecatedPreset(name.toLowerCase())) return { kind: 'deprecated', name };
  if (!isHuggingFaceId(name)) return generation === 'v0.8' ? lookupPreset(name) : legacyAsV012(name);
  const entry = catalogEntry(name);
  if (entry) return generated(name, modelFromCatalog(entry));
  const hub = hubModels?.get(name.toLowerCase());
  if (!hub || hub.state === 'resolving') return { kind: 'resolving', name, endpoint: hub?.endpoint ?? '' };
  if (hub.state === 'failed') return { kind: 'hubFailed', name, reason: hub.reason, message: hub.message, retryInMs: hub.retryInMs };
  return generated(name, modelFromHub(name, hub.facts));
}

/** The short names a generation serves (for "closest" hints): v0.8.0's presets, or v0.12.0's mapped names. */
export function legacyNamesIn(generation: KaitoGeneration): string[] {
  return generation === 'v0.8' ? presetNames() : Object.keys(LEGACY_TO_CATALOG);
}

/** The Hugging Face id of a preset that is one (catalog or hub), lowercase; undefined for short names. */
export function huggingFaceIdOf(lookup: PresetLookup): string | undefined {
  if (lookup.kind === 'found') return lookup.preset.generated?.id;
  return lookup.kind === 'resolving' || lookup.kind === 'hubFailed' ? lookup.name.toLowerCase() : undefined;
}

/** KAITO v0.12.0's `LegacyBuiltinToCatalog`: the name lowercased, then its catalog entry; no entry, unknown. */
function legacyAsV012(name: string): PresetLookup {
  const id = Object.hasOwn(LEGACY_TO_CATALOG, name.toLowerCase()) ? LEGACY_TO_CATALOG[name.toLowerCase()] : undefined;
  const entry = id === undefined ? undefined : catalogEntry(id);
  return entry ? generated(name, modelFromCatalog(entry)) : { kind: 'unknown', name };
}

function generated(name: string, result: GenerateResult): PresetLookup {
  if (!result.ok) return { kind: 'hubFailed', name, reason: 'HuggingFaceModelUnsupported', message: result.message };
  return { kind: 'found', name, preset: presetFromModel(result.model) };
}

/**
 * The preset name as a string. Resolution runs before validation (validation reads the result), so a
 * value of the wrong JSON type must not throw here: it is looked up as the unknown name it prints as,
 * and validation reports the type.
 */
function presetName(preset: unknown): string {
  const name = typeof preset === 'object' && preset !== null ? (preset as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : (JSON.stringify(name) ?? '');
}

function lookupPreset(name: string): PresetLookup {
  const preset = getPreset(name);
  return preset ? { kind: 'found', name, preset } : { kind: 'unknown', name };
}

/** The catalog preset, when found. */
export function foundPreset(lookup: PresetLookup): Preset | undefined {
  return lookup.kind === 'found' ? lookup.preset : undefined;
}

/** The first Ready matching node: the one whose labels give a bring-your-own workspace its GPU facts. */
export function firstReadyNode(resolved: ResolvedWorkspace): NodeGpu | undefined {
  return resolved.nodes?.find((n) => n.ready);
}
