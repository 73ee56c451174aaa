// A workspace resolved once per pass: its runtime, its presets and the GPU facts of its nodes, looked up
// from the catalogs and the nodes the caller observed. Validation (validation.ts) and the builders read
// this one value, so both judge the same facts and nothing is looked up twice. Pure: the caller passes
// the matching nodes; messages stay with whoever reports them.
import { lookupSku } from '../catalog/gpu-skus.js';
import { gpuConfigFromNodeLabels, type NodeGpuResult, type NodeLabelsSource } from '../catalog/node-gpu.js';
import { getPreset, isDeprecatedPreset } from '../catalog/presets.js';
import type { CloudProvider, GpuConfig, Preset } from '../catalog/types.js';
import type { FeatureGates } from './feature-gates.js';
import { runtimeDecision } from './inference-runtime.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import type { Workspace } from './types.js';

/** A preset named by the workspace: none named, found in the catalog, deprecated (inference only), or unknown. */
export type PresetLookup =
  { kind: 'none' } | { kind: 'found'; name: string; preset: Preset } | { kind: 'deprecated'; name: string } | { kind: 'unknown'; name: string };

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
}

export interface ResolvedWorkspace {
  cloud: CloudProvider;
  /** Nodes are brought by the user (gate disableNodeAutoProvisioning), not auto-provisioned. */
  byo: boolean;
  runtime: ReturnType<typeof runtimeDecision>;
  inferencePreset: PresetLookup;
  tuningPreset: PresetLookup;
  /** Auto-provisioned nodes: the catalog entry of resource.instanceType (gpu undefined: not in the catalog). */
  sku?: { instanceType: string; gpu?: GpuConfig };
  /** Bring-your-own nodes, when looked up: every matching node's GPU facts, in name order. */
  nodes?: NodeGpu[];
}

export function resolveWorkspace(ws: Workspace, input: ResolveInput): ResolvedWorkspace {
  const { cloud } = input;
  const byo = input.gates.disableNodeAutoProvisioning;
  const instanceType = typeof ws.resource?.instanceType === 'string' ? ws.resource.instanceType : '';
  return {
    cloud,
    byo,
    runtime: runtimeDecision(ws, input.gates),
    inferencePreset: inferencePresetOf(ws),
    tuningPreset: ws.tuning ? lookupPreset(ws.tuning.preset ? presetName(ws.tuning.preset) : '') : { kind: 'none' },
    ...(byo ? {} : { sku: { instanceType, gpu: lookupSku(cloud, instanceType) } }),
    ...(byo && input.nodes
      ? { nodes: input.nodes.map(({ node, ready }) => ({ name: node.metadata?.name ?? '', ready, gpu: gpuConfigFromNodeLabels(node, cloud) })) }
      : {}),
  };
}

/** The inference preset alone (event mappers that need no full resolution). Deprecated names match in any case. */
export function inferencePresetOf(ws: DeepReadonly<Pick<Workspace, 'inference'>>): PresetLookup {
  const named = ws.inference?.preset;
  if (!named) return { kind: 'none' };
  const name = presetName(named);
  if (isDeprecatedPreset(name.toLowerCase())) return { kind: 'deprecated', name };
  return lookupPreset(name);
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
