// The Workspace rules the API server cannot enforce from the CRD alone, because they depend on the
// operator's feature gates, the SKU and preset catalogs, or cluster objects (nodes, the inference
// ConfigMap). Pure: the caller resolves the workspace (resolved-workspace.ts, the same value the builders
// read) and looks up the ConfigMaps, and passes them in `ctx`. Messages are KAITO's (§3);
// field paths name the real field (KAITO sometimes reports e.g. `resource.presetName`).
// Everything the CRD's CEL rules already refuse at `kubectl apply` is not repeated here.
import { parse as parseYaml } from 'yaml';
import { isLenientAzureSku, supportedSkus } from '../catalog/gpu-skus.js';
import { closestPresetNames, getPreset } from '../catalog/presets.js';
import { formatBinaryQuantity, GIB, tryParseQuantity } from '../catalog/quantity.js';
import type { GpuConfig, Preset } from '../catalog/types.js';
import { goTypeMismatches } from '../builders/gojson/type-check.js';
import type { OpenApiSchema } from './openapi-schema.js';
import { applyDefaults, checkSchema, refusedOnCreate } from './schema-check.js';
import { workspaceSchema } from './crd.js';
import { ANNOTATION_BYPASS_RESOURCE_CHECKS, INFERENCE_CONFIG_KEY } from './labels.js';
import { Msg } from './messages.js';
import { ANNOTATION_USE_LOCAL_WEIGHTS, localWeightsAnnotationProblem } from './local-weights.js';
import { checkTrainingConfig, TRAINING_CONFIG_KEY, tuningMethod } from './tuning-config.js';
import { foundPreset, legacyNamesIn, type NodeGpu, type PresetLookup, type ResolvedWorkspace } from './resolved-workspace.js';
import { perFrozenList } from '../runtime/memo.js';
import { maxModelLenMissing, maxModelLenRequired, privateWithoutImage } from './v1alpha1-rules.js';
import { ALPHA_VERSION, API_VERSION, GROUP, KIND, VERSION, type InferenceSpec, type TuningSpec, type Workspace } from './types.js';

export interface ValidationIssue {
  field: string;
  message: string;
  /** `warning`: reported but not blocking (GPU shortfalls under `kaito.sh/bypass-resource-checks`). */
  severity: 'error' | 'warning';
}

/** The inference ConfigMap the operator will actually mount (see W37), as looked up by the caller. */
export interface InferenceConfigLookup {
  name: string;
  namespace: string;
  found: boolean;
  data?: Record<string, string>;
}

export interface ValidationContext {
  /** The workspace resolved from the gates, the cloud and (BYO) its matching nodes; without nodes, node checks are skipped. */
  resolved: ResolvedWorkspace;
  operation: 'create' | 'update';
  /** The stored object, on update. */
  old?: Workspace;
  /** BYO: the error from listing nodes, if listing failed. */
  nodeListError?: string;
  /** Omit to skip the inference-config checks. */
  inferenceConfig?: InferenceConfigLookup;
  /** The tuning ConfigMap the Job would mount (same shape); omit to skip its checks. */
  tuningConfig?: InferenceConfigLookup;
}

const error = (field: string, message: string): ValidationIssue => ({ field, message, severity: 'error' });

/**
 * All issues; callers usually block on `errorsOf(...)` and log the warnings. A workspace written in
 * v1alpha1 also meets the rules KAITO applies to that version only (v1alpha1-rules.ts).
 */
export function validateWorkspace(ws: Workspace, ctx: ValidationContext): ValidationIssue[] {
  // A value of the wrong JSON type stops here: the checks below (and the builders) read the spec as typed.
  const shape = validateShape(ws);
  if (shape.length > 0) return shape;
  const issues = [...validateInstanceType(ws, ctx)];
  // Create and update alike: a partitioned workspace is never served as a whole-GPU one.
  const partition = ws.resource?.partition;
  if (partition !== undefined && partition !== null) issues.push(error('resource.partition', Msg.partitionUnsupported(partition.mode)));
  const localWeights = localWeightsAnnotationProblem(ws);
  if (localWeights) issues.push(error(`metadata.annotations[${ANNOTATION_USE_LOCAL_WEIGHTS}]`, localWeights));
  if (ctx.operation === 'update') return issues; // everything else that applies on update lives in the CRD
  if (ws.inference) issues.push(...validateInferenceCreate(ws, ws.inference, ctx, ctx.resolved.specVersion === ALPHA_VERSION));
  if (ws.tuning) issues.push(...validateTuningCreate(ws.tuning, ctx.resolved.tuningPreset, ctx.tuningConfig));
  return issues;
}

export function errorsOf(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.filter((i) => i.severity === 'error');
}

/** One line per issue, for status messages, events and CLI output. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.message}`).join('; ');
}

// --- JSON types: what the API server checks on write, for objects it did not (stored before a CRD
// change, written with an older CRD), and the pod template and volume sources, which the CRD keeps as-is ---

const SPEC_ROOTS = ['resource', 'inference', 'tuning'] as const;
const schemas = new Map<string, OpenApiSchema>();

function schemaFor(apiVersion: unknown): OpenApiSchema {
  const version = apiVersion === `${GROUP}/${ALPHA_VERSION}` ? ALPHA_VERSION : VERSION;
  let schema = schemas.get(version);
  if (!schema) schemas.set(version, (schema = workspaceSchema(version)));
  return schema;
}

/** Go types of the opaque parts (src/builders/gojson/k8s-types.ts): KAITO's decoder refuses the same values. */
function opaqueParts(ws: Workspace): { field: string; value: unknown; goType: string; what: string }[] {
  const parts: { field: string; value: unknown; goType: string; what: string }[] = [];
  const template = ws.inference?.template;
  if (template !== undefined) parts.push({ field: 'inference.template', value: template, goType: 'PodTemplateSpec', what: 'a core/v1 PodTemplateSpec' });
  const adapters = ws.inference?.adapters;
  (Array.isArray(adapters) ? adapters : []).forEach((a, i) => {
    parts.push({
      field: `inference.adapters[${i}].source.volumeSource`,
      value: a?.source?.volumeSource,
      goType: 'VolumeSource',
      what: 'a core/v1 VolumeSource',
    });
  });
  parts.push(
    { field: 'tuning.input.volumeSource', value: ws.tuning?.input?.volumeSource, goType: 'VolumeSource', what: 'a core/v1 VolumeSource' },
    { field: 'tuning.output.volumeSource', value: ws.tuning?.output?.volumeSource, goType: 'VolumeSource', what: 'a core/v1 VolumeSource' },
  );
  return parts.filter((p) => p.value !== undefined && p.value !== null);
}

/** Values of the wrong JSON type anywhere in resource, inference and tuning (a string where an object belongs...). */
export function validateShape(ws: Workspace): ValidationIssue[] {
  const schema = schemaFor(ws.apiVersion);
  const record = ws as unknown as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  for (const root of SPEC_ROOTS) {
    const value = record[root];
    const child = schema.properties?.[root];
    if (value === undefined || !child) continue;
    for (const e of checkSchema(value, child)) {
      // A null field: Go leaves the zero value and the API server drops it. A null list item is kept
      // (the API server refuses it on write; the builders read items as objects).
      if (e.kind === 'type' && (e.got !== 'null' || e.field.endsWith(']'))) issues.push(error(e.field === '<root>' ? root : `${root}.${e.field}`, e.message));
    }
  }
  if (issues.length > 0) return issues; // the parts below may not even be reachable
  for (const part of opaqueParts(ws)) {
    for (const m of goTypeMismatches(part.value, part.goType)) {
      issues.push(error(m.path ? `${part.field}.${m.path}` : part.field, Msg.wrongJsonType(m.got, m.want, part.what)));
    }
  }
  return issues;
}

// --- §3.2: instanceType vs node auto-provisioning ---

function validateInstanceType(ws: Workspace, ctx: ValidationContext): ValidationIssue[] {
  const instanceType = ws.resource.instanceType ?? '';
  if (ctx.resolved.byo) {
    // On update an instanceType already stored (workspaces created before BYO was switched on) may stay.
    const unchanged = ctx.operation === 'update' && instanceType === (ctx.old?.resource.instanceType ?? '');
    return instanceType !== '' && !unchanged ? [error('resource.instanceType', Msg.instanceTypeMustBeEmpty)] : [];
  }
  return instanceType === '' ? [error('resource.instanceType', Msg.instanceTypeRequired)] : [];
}

// --- §3.3 inference on create ---

function validateInferenceCreate(ws: Workspace, inference: InferenceSpec, ctx: ValidationContext, alpha: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const runtime = ctx.resolved.runtime.choice;
  const lookup = ctx.resolved.inferencePreset;
  if (lookup.kind === 'deprecated') return [error('inference.preset.name', Msg.deprecatedPreset(lookup.name.toLowerCase()))];
  if (lookup.kind === 'unknown') {
    const hint = closestPresetNames(lookup.name, 3, legacyNamesIn(ctx.resolved.legacyNames));
    const suffix = hint.length > 0 ? ` (closest: ${hint.join(', ')})` : '';
    return [error('inference.preset.name', `${Msg.unsupportedInferencePreset(lookup.name)}${suffix}`)];
  }
  // Metadata still being read, or unreadable: the plan reports it with its own reason (plan-inference.ts).
  if (lookup.kind === 'resolving' || lookup.kind === 'hubFailed') return [];
  const preset = foundPreset(lookup);
  issues.push(...validateResourcesForInference(ws, preset, runtime, ctx, alpha));
  if (preset) {
    issues.push(...validateRuntime(inference, preset, runtime));
    issues.push(...validateModelAccessSecret(inference, preset));
    if (alpha && inference.preset && privateWithoutImage(inference.preset)) {
      issues.push(error('inference.preset.presetOptions.image', Msg.privateAccessNeedsImage));
    }
  }
  if (runtime === 'vllm' && ctx.inferenceConfig) {
    const maxModelLenNeeded = alpha && maxModelLenRequired(ws.resource.count, ctx.resolved.sku?.gpu);
    issues.push(...validateInferenceConfig(ctx.inferenceConfig, preset, maxModelLenNeeded));
  }
  return issues;
}

function byoGpuConfig(ctx: ValidationContext): { gpu?: GpuConfig; machines: number; issues: readonly ValidationIssue[] } {
  if (ctx.nodeListError !== undefined) return { machines: 0, issues: [error(BYO_FIELD, Msg.listNodesFailed(ctx.nodeListError))] };
  return uniformGpu(ctx.resolved.nodes ?? []);
}

const BYO_FIELD = 'resource.labelSelector';

/** The one GPU shape every selected node has, or why there is none; once per node list (every pass asks again). */
const uniformGpu = perFrozenList((nodes: readonly NodeGpu[]): { gpu?: GpuConfig; machines: number; issues: readonly ValidationIssue[] } => {
  const field = BYO_FIELD;
  if (nodes.length === 0) return { machines: 0, issues: [error(field, Msg.noMatchingNodes)] };
  let first: GpuConfig | undefined;
  for (const { name, gpu: result } of nodes) {
    if (!result.ok) return { machines: 0, issues: [error(field, Msg.nodeGpuLabels(name, result.message))] };
    const gpu = result.gpuConfig;
    if (!first) {
      first = gpu;
      continue;
    }
    const mismatch =
      gpu.gpuModel !== first.gpuModel
        ? Msg.nonUniformProduct(name, gpu.gpuModel, first.gpuModel)
        : gpu.gpuCount !== first.gpuCount
          ? Msg.nonUniformCount(name, gpu.gpuCount, first.gpuCount)
          : gpu.gpuMemGiB !== first.gpuMemGiB
            ? Msg.nonUniformMemory(name, gpu.gpuMemGiB, first.gpuMemGiB)
            : undefined;
    if (mismatch) return { machines: 0, issues: [error(field, mismatch)] };
  }
  return { gpu: first, machines: nodes.length, issues: [] };
});

function validateResourcesForInference(ws: Workspace, preset: Preset | undefined, runtime: string, ctx: ValidationContext, alpha: boolean): ValidationIssue[] {
  const byo = ctx.resolved.byo;
  const instanceType = ws.resource.instanceType ?? '';
  let gpu: GpuConfig | undefined;
  let machines: number;
  if (byo) {
    // Template workspaces have no known GPU need, and without a node lookup there is nothing to check.
    if (!preset || (ctx.resolved.nodes === undefined && ctx.nodeListError === undefined)) return [];
    const found = byoGpuConfig(ctx);
    if (found.issues.length > 0) return [...found.issues];
    gpu = found.gpu;
    machines = found.machines;
  } else {
    if (instanceType === '') return []; // already reported by validateInstanceType
    machines = ws.resource.count ?? 1;
    gpu = ctx.resolved.sku?.gpu;
    const { cloud } = ctx.resolved;
    if (!gpu && !isLenientAzureSku(cloud, instanceType)) {
      return [error('resource.instanceType', Msg.unsupportedInstanceType(instanceType, supportedSkus(cloud, ctx.resolved.skuTable)))];
    }
  }
  if (!preset || !gpu) return [];
  const severity = ws.metadata.annotations?.[ANNOTATION_BYPASS_RESOURCE_CHECKS] !== undefined ? 'warning' : 'error';
  const label = byo ? 'of the selected nodes' : instanceType;
  const modelBytes = tryParseQuantity(preset.totalSafeTensorFileSize);
  const totalBytes = machines * gpu.gpuMemGiB * GIB;
  const memory: ValidationIssue[] =
    modelBytes !== undefined && totalBytes < modelBytes
      ? [
          {
            field: 'resource.instanceType',
            message: Msg.insufficientGpuMemory(label, formatBinaryQuantity(totalBytes), preset.name, preset.totalSafeTensorFileSize),
            severity,
          },
        ]
      : [];
  // NAP + vLLM: the node estimator sizes the workspace, so KAITO's v1beta1 checks nothing; its
  // v1alpha1 still checks the memory of `count` nodes (no GPU count since v0.12).
  if (!byo && runtime === 'vllm') return alpha ? memory : [];
  const issues: ValidationIssue[] = [];
  const totalGpus = machines * gpu.gpuCount;
  if (totalGpus < preset.gpuCountRequirement) {
    issues.push({
      field: 'resource.instanceType',
      message: Msg.insufficientGpuCount(label, String(totalGpus), preset.name, preset.gpuCountRequirement),
      severity,
    });
  }
  issues.push(...memory);
  if (modelBytes !== undefined && preset.supportDistributedInference && modelBytes > gpu.gpuMemGiB * GIB && runtime === 'transformers') {
    issues.push(error('metadata.annotations[kaito.sh/runtime]', Msg.transformersMultiNode));
  }
  return issues;
}

function validateRuntime(inference: InferenceSpec, preset: Preset, runtime: string): ValidationIssue[] {
  // KAITO v0.12 has transformers parameters for only some models (its table); the rest are refused.
  if (runtime === 'transformers' && preset.transformers.baseCommand === '') {
    return [error('inference.preset.name', Msg.runtimeValidation([Msg.transformersUnsupported(preset.name)]))];
  }
  if (runtime !== 'vllm') return [];
  const adapters = inference.adapters ?? [];
  const problems: string[] = [];
  if (adapters.length > 0 && preset.vllm.disallowLoRA) problems.push(Msg.vllmNoLoRA(preset.vllm.servedModelName));
  if (adapters.some((a) => a.strength !== undefined)) problems.push(Msg.vllmNoStrength);
  return problems.length > 0 ? [error('inference.adapters', Msg.runtimeValidation(problems))] : [];
}

function validateModelAccessSecret(inference: InferenceSpec, preset: Preset): ValidationIssue[] {
  const secret = inference.preset?.presetOptions?.modelAccessSecret ?? '';
  const field = 'inference.preset.presetOptions.modelAccessSecret';
  if (preset.downloadAtRuntime && preset.downloadAuthRequired && secret === '') return [error(field, Msg.secretRequired)];
  if (!preset.downloadAtRuntime && secret !== '') return [error(field, Msg.secretNotAllowed)];
  return [];
}

/** `maxModelLenNeeded`: v1alpha1's rule that the config set max-model-len (v1alpha1-rules.ts). */
function validateInferenceConfig(cm: InferenceConfigLookup, preset: Preset | undefined, maxModelLenNeeded: boolean): ValidationIssue[] {
  const field = 'inference.config';
  if (!cm.found) return [error(field, Msg.configMapNotFound(cm.name, cm.namespace))];
  const text = cm.data?.[INFERENCE_CONFIG_KEY];
  if (text === undefined) return [error(field, Msg.configKeyMissing)];
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return [error(field, Msg.configParse(err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)))];
  }
  const vllm = isRecord(doc) ? doc.vllm : undefined;
  if (maxModelLenNeeded && maxModelLenMissing(vllm)) return [error('inference.config[max-model-len]', Msg.maxModelLenRequired)];
  const raw = isRecord(vllm) ? vllm['max-model-len'] : undefined;
  const rawText = typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : (JSON.stringify(raw) ?? '');
  if (raw === undefined || raw === null || rawText.trim() === '' || !preset || preset.modelTokenLimit <= 0) return [];
  const text2 = rawText.trim();
  const field2 = 'inference.config[max-model-len]';
  if (!/^[+-]?\d+$/.test(text2)) return [error(field2, Msg.maxModelLenNotInt(`invalid syntax: ${JSON.stringify(text2)}`))];
  const value = Number(text2);
  return value > preset.modelTokenLimit ? [error(field2, Msg.maxModelLenTooBig(value, preset.modelTokenLimit))] : [];
}

// --- tuning on create (the parts needing the preset catalog) ---

function validateTuningCreate(tuning: TuningSpec, lookup: PresetLookup, cm: InferenceConfigLookup | undefined): ValidationIssue[] {
  const name = tuning.preset?.name ?? '';
  const preset = foundPreset(lookup);
  if (!preset) {
    const hint = closestPresetNames(name).filter((n) => getPreset(n)?.supportTuning);
    const suffix = hint.length > 0 ? ` (closest tunable: ${hint.join(', ')})` : '';
    return [error('tuning.preset.name', `${Msg.unsupportedTuningPreset(name)}${suffix}`)];
  }
  // KAITO accepts any registered preset here and fails later; refuse what cannot be tuned up front.
  if (!preset.supportTuning) return [error('tuning.preset.name', `Preset ${name} does not support tuning`)];
  const method = tuningMethod(tuning.method);
  if (!method) return [error('tuning.method', Msg.tuningMethod(tuning.method ?? ''))];
  if (!cm) return [];
  const field = 'tuning.config';
  if (!cm.found) return [error(field, `Failed to evaluate validateConfigMap: ${Msg.configMapNotFound(cm.name, cm.namespace)}`)];
  const check = checkTrainingConfig(cm.data?.[TRAINING_CONFIG_KEY], method, cm.name);
  return check.errors.map((m) => error(field, `Failed to evaluate validateConfigMap: ${m}`));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// --- shape check for files and watch events ---

export class WorkspaceParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspaceParseError';
  }
}

const API_VERSIONS = [API_VERSION, `${GROUP}/${ALPHA_VERSION}`];

/**
 * Checks that `value` is a Workspace (apiVersion, kind, metadata.name, resource.labelSelector, then the
 * CRD's structural schema) and returns it with the CRD defaults applied. Throws WorkspaceParseError with
 * one line naming the first offending field. CEL rules are not evaluated here.
 */
export function parseWorkspace(value: unknown): Workspace {
  if (!isRecord(value)) throw new WorkspaceParseError(`a Workspace must be an object, got ${value === null ? 'null' : typeof value}`);
  const { apiVersion, kind, metadata, resource } = value;
  if (typeof apiVersion !== 'string' || !API_VERSIONS.includes(apiVersion)) {
    throw new WorkspaceParseError(`apiVersion must be one of ${API_VERSIONS.join(', ')}, got ${JSON.stringify(apiVersion ?? null)}`);
  }
  if (kind !== KIND) throw new WorkspaceParseError(`kind must be ${KIND}, got ${JSON.stringify(kind ?? null)}`);
  if (!isRecord(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
    throw new WorkspaceParseError('metadata.name is required');
  }
  if (!isRecord(resource)) throw new WorkspaceParseError(`workspace ${metadata.name}: resource is required`);
  if (!isRecord(resource.labelSelector)) {
    throw new WorkspaceParseError(`workspace ${metadata.name}: resource.labelSelector is required`);
  }
  if ('spec' in value) {
    throw new WorkspaceParseError(`workspace ${metadata.name}: unexpected field spec (KAITO Workspaces have resource/inference/tuning at the top level)`);
  }
  const schema = workspaceSchema(apiVersion.slice(GROUP.length + 1));
  const defaulted = applyDefaults(value, schema);
  const [first] = checkSchema(defaulted, schema).filter(refusedOnCreate);
  if (first) throw new WorkspaceParseError(`workspace ${metadata.name}: ${first.field}: ${first.message}`);
  return defaulted as unknown as Workspace;
}
