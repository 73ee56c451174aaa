// buildWorkspace: Workspace + observed facts → every object the operator applies for it, the spec hash,
// the decisions that explain the result, or the problems that prevent it. The one entry point shared by
// the controller and `kaito-ts render`. Pure: no client, no clock, no globals.
import type { V1ConfigMap, V1ControllerRevision, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import {
  ANNOTATION_HASH,
  ANNOTATION_PERFORMANCE_MODE,
  ANNOTATION_REVISION,
  LABEL_INFERENCESET_CREATED_BY,
  LABEL_MULTIROLE_INFERENCE_PARENT,
} from '../api/labels.js';
import { legacyNamesIn, type PresetLookup, type ResolvedWorkspace } from '../api/resolved-workspace.js';
import type { Decision, Workspace } from '../api/types.js';
import { validateShape } from '../api/validation.js';
import { Msg } from '../api/messages.js';
import { catalogEntry, isHuggingFaceId, LEGACY_TO_CATALOG, V012_REFUSED } from '../catalog/model-catalog.js';
import { closestPresetNames } from '../catalog/presets.js';
import type { Preset, Runtime } from '../catalog/types.js';
import { usableAdapters } from './adapters.js';
import type { CommandContext } from './command.js';
import { weightsSourceDecision } from './decisions.js';
import { isDistributed } from './distributed.js';
import { estimateNodeCount, estimateNodeCountV012, targetNodeCount } from './estimator.js';
import { matchingNodes, resolveFromFacts, type ClusterFacts, type WeightsVolumeKind } from './facts.js';
import { resolveGpuConfig } from './gpu.js';
import { resolveInferenceConfig, type InferenceConfigResult } from './inference-config.js';
import { chooseMaxModelLen, DEFAULT_MAX_MODEL_LEN, parseExplicitMaxModelLen } from './max-model-len.js';
import { presetPodSpec } from './pod-spec.js';
import { carriedServedNames, servedNamesAcrossGenerations } from './generation.js';
import { problem, type Problem } from './problems.js';
import { buildControllerRevision, computeSpecHash, revisionNumberFor } from './revision.js';
import { headlessService, mainService, serviceTypeDecision } from './services.js';
import { replicaBound, replicasFor } from './replicas.js';
import { pinningFor, pinToWorkspaceNodes } from './scheduling.js';
import { presetStatefulSet } from './statefulset.js';
import { droppedFieldsMessage, templateStatefulSet } from './template.js';
import { chooseWeightsVolume, modelWeightsClaimTemplate } from './volumes.js';
import { localWeightsPath } from '../api/local-weights.js';

export interface WorkspaceObjects {
  statefulSet: V1StatefulSet;
  mainService: V1Service;
  headlessService: V1Service;
  controllerRevision: V1ControllerRevision;
  /** The default inference ConfigMap to create in the workspace namespace, when it is not there yet. */
  configMap?: V1ConfigMap;
}

interface Common {
  /** Full SHA-256 spec hash (annotation `workspace.kaito.io/hash`). */
  revisionHash: string;
  /** Revision number (annotation `workspace.kaito.io/revision`). */
  revision: number;
  decisions: Decision[];
}

export type BuildResult =
  | (Common & {
      ok: true;
      objects: WorkspaceObjects;
      targetNodeCount: number;
      problems: [];
      droppedFields?: string[];
      /** BYO: the most replicas the matching nodes hold. */
      replicaBound?: number;
      /** The weights volume a new StatefulSet would get (preset workspaces; claim templates are immutable). */
      freshWeightsVolume?: WeightsVolumeKind;
    })
  | (Common & { ok: false; problems: Problem[] });

/** Objects in the order the operator applies them (revision, config, services, workload). */
export function objectList(objects: WorkspaceObjects): object[] {
  const { controllerRevision, configMap, mainService: main, headlessService: headless, statefulSet } = objects;
  return [controllerRevision, ...(configMap ? [configMap] : []), main, headless, statefulSet];
}

/** The workspace's own annotation when it already describes this hash, else from the existing revisions. */
export function chooseRevision(ws: Workspace, hash: string, facts: ClusterFacts): number {
  const annotated = ws.metadata.annotations;
  const current = Number(annotated?.[ANNOTATION_REVISION]);
  if (annotated?.[ANNOTATION_HASH] === hash && Number.isInteger(current) && current > 0) return current;
  return revisionNumberFor(hash, facts.controllerRevisions ?? []);
}

/** Replicas for a new StatefulSet: the target, bounded by the matching nodes in BYO mode (a decision says so). */
function boundedReplicas(ws: Workspace, facts: ClusterFacts, target: number, decisions: Decision[]): { replicas: number; replicaBound?: number } {
  const bound = replicaBound(facts.featureGates.disableNodeAutoProvisioning, matchingNodes(ws, facts.nodes).length);
  const replicas = replicasFor(target, bound, undefined);
  if (replicas < target)
    decisions.push({ topic: 'replicas', choice: String(replicas), reason: `targetNodeCount ${target}, but only ${bound} node(s) can hold a replica` });
  return { replicas, ...(bound !== undefined ? { replicaBound: bound } : {}) };
}

function unknownPreset(lookup: Exclude<PresetLookup, { kind: 'found' }>, resolved: ResolvedWorkspace): Problem {
  const name = lookup.kind === 'none' ? '' : lookup.name;
  if (lookup.kind === 'resolving') return problem('inference.preset.name', HUB_RESOLVING, resolvingMessage(name, lookup.endpoint));
  if (lookup.kind === 'hubFailed') return problem('inference.preset.name', lookup.reason, lookup.message);
  if (lookup.kind === 'deprecated') return problem('inference.preset.name', 'DeprecatedPreset', Msg.deprecatedPreset(name.toLowerCase()));
  return problem(
    'inference.preset.name',
    'UnknownPreset',
    `${Msg.unsupportedInferencePreset(name)}; closest names: ${closestPresetNames(name, 3, legacyNamesIn(resolved.legacyNames)).join(', ')}`,
  );
}

/** Reason while a Hugging Face id's metadata is being read. */
export const HUB_RESOLVING = 'ResolvingModelMetadata';

export function resolvingMessage(id: string, endpoint: string): string {
  return `reading the Hugging Face metadata of ${id}${endpoint ? ` from ${endpoint}` : ''} (file list and config.json) to size the workspace`;
}

/** Where the model's sizes came from, and what KAITO v0.12 makes of a legacy name (for `render --explain`). */
function modelDecision(preset: Preset, name?: string): Decision {
  const g = preset.generated;
  const legacy = name !== undefined && !isHuggingFaceId(name) ? `legacy name ${name}, mapped as KAITO v0.12.0 maps it: ` : '';
  if (!g) return { topic: 'model', choice: preset.name, reason: `kaito-ts preset, rendered as KAITO v0.8.0 does; ${legacyNameInV012(preset.name)}` };
  const where = g.source === 'catalog' ? `KAITO v0.12 catalog entry ${g.id}` : `Hugging Face metadata of ${g.id}`;
  return {
    topic: 'model',
    choice: g.id,
    reason:
      `${legacy}${where}: ${g.modelFileSize} weights (disk ${g.diskStorageRequirement}), ${g.bytesPerToken} KV bytes per token (${g.attnType}), ` +
      `context limit ${g.modelTokenLimit}, architectures ${g.architectures.join(', ') || 'none named'}; rendered as KAITO v0.12.0 does`,
  };
}

/** What KAITO v0.12 makes of a short name: the catalog entry it maps to, or how it refuses it. */
function legacyNameInV012(name: string): string {
  const lower = name.toLowerCase();
  const mapped = LEGACY_TO_CATALOG[lower];
  if (mapped) return `KAITO v0.12 maps it to catalog entry ${catalogEntry(mapped)?.name ?? mapped} (served as ${mapped.slice(mapped.indexOf('/') + 1)})`;
  const refused = V012_REFUSED[lower];
  if (refused === 'deprecated') return `KAITO v0.12 refuses it: ${Msg.deprecatedPreset(lower)}`;
  if (refused === 'unregistered') return `KAITO v0.12 refuses it: ${Msg.unsupportedInferencePreset(name)}`;
  return 'not a KAITO v0.12 name';
}

function nodeCountFor(ws: Workspace, facts: ClusterFacts, runtime: Runtime, estimate: Parameters<typeof targetNodeCount>[0]['estimate']) {
  return targetNodeCount({
    current: facts.targetNodeCount,
    hasTuning: ws.tuning !== undefined,
    hasInference: ws.inference !== undefined,
    runtime,
    count: ws.resource?.count,
    estimate,
  });
}

/** `resolved` is the pass's resolved workspace (the one validation read); by default resolved from `facts`. */
export function buildWorkspace(ws: Workspace, facts: ClusterFacts, resolved: ResolvedWorkspace = resolveFromFacts(ws, facts)): BuildResult {
  const revisionHash = computeSpecHash(ws);
  const revision = chooseRevision(ws, revisionHash, facts);
  const decisions: Decision[] = [];
  const fail = (...problems: Problem[]): BuildResult => ({ ok: false, revisionHash, revision, decisions, problems });

  if (!ws.inference) {
    return fail(problem('tuning', 'NotInference', 'tuning workspaces are built by buildTuning (src/builders/tuning/build.ts)'));
  }
  // Validation refuses these first; a caller that skipped it gets a problem, not a TypeError below.
  const shape = validateShape(ws)[0];
  if (shape) return fail(problem(shape.field, 'InvalidSpec', shape.message));
  const { runtime } = resolved;
  decisions.push({ ...runtime });
  const controllerRevision = buildControllerRevision(ws, revisionHash, revision);
  const services = { mainService: mainService(ws), headlessService: headlessService(ws) };

  if (ws.inference.template && !ws.inference.preset) {
    const nodes = nodeCountFor(ws, facts, runtime.choice, () => estimateNodeCount({ count: ws.resource?.count, maxModelLen: DEFAULT_MAX_MODEL_LEN }));
    if (!nodes.ok) return fail(problem('resource.count', 'TargetNodeCount', nodes.message));
    decisions.push({ topic: 'targetNodeCount', choice: String(nodes.nodes), reason: nodes.reason }, serviceTypeDecision(ws));
    const { replicas, ...bound } = boundedReplicas(ws, facts, nodes.nodes, decisions);
    const { statefulSet, dropped } = templateStatefulSet(ws, replicas, revision);
    pinToWorkspaceNodes(statefulSet.spec!.template.spec!, pinningFor(facts.podNodePinning, false));
    if (dropped.length) decisions.push({ topic: 'templateFields', choice: 'dropped', reason: droppedFieldsMessage(dropped) });
    return {
      ok: true,
      revisionHash,
      revision,
      decisions,
      problems: [],
      targetNodeCount: nodes.nodes,
      ...bound,
      objects: { statefulSet, controllerRevision, ...services },
      ...(dropped.length ? { droppedFields: dropped } : {}),
    };
  }

  const lookup = resolved.inferencePreset;
  if (lookup.kind !== 'found') return fail(unknownPreset(lookup, resolved));
  return buildPreset(ws, facts, resolved, lookup.preset, { revisionHash, revision, decisions }, controllerRevision, services, fail);
}

function buildPreset(
  ws: Workspace,
  facts: ClusterFacts,
  resolved: ResolvedWorkspace,
  preset: Preset,
  common: Common,
  controllerRevision: V1ControllerRevision,
  services: Pick<WorkspaceObjects, 'mainService' | 'headlessService'>,
  fail: (...p: Problem[]) => BuildResult,
): BuildResult {
  const { decisions } = common;
  const runtime = resolved.runtime.choice;
  const secret = ws.inference?.preset?.presetOptions?.modelAccessSecret;
  if (preset.downloadAtRuntime && preset.downloadAuthRequired && !secret) {
    return fail(problem('inference.preset.presetOptions.modelAccessSecret', 'ModelAccessSecretRequired', Msg.secretRequired));
  }
  const generated = preset.generated;
  decisions.push(modelDecision(preset, ws.inference?.preset?.name));
  // Validation refuses it first (KAITO v0.12's webhook); kept for callers that skip validation.
  if (runtime === 'transformers' && preset.transformers.baseCommand === '') {
    return fail(problem('inference.preset.name', 'UnsupportedRuntime', Msg.transformersUnsupported(preset.name)));
  }

  const gpu = resolveGpuConfig(resolved);
  if (!gpu.ok) return fail(gpu.problem);
  decisions.push(gpu.decision);

  // KAITO v0.11+ mounts no default config for these models: vLLM runs with its own defaults.
  const config: InferenceConfigResult =
    generated && !ws.inference?.config
      ? { ok: true, name: '', decision: { topic: 'inferenceConfig', choice: 'none', reason: 'inference.config is empty: no config is mounted (KAITO v0.11+)' } }
      : resolveInferenceConfig(ws, facts);
  if (!config.ok) return fail(config.problem);
  decisions.push(config.decision);

  // KAITO's estimator reads an explicit max-model-len only from a user-named ConfigMap.
  const explicit = ws.inference?.config && config.content ? parseExplicitMaxModelLen(config.content) : undefined;
  const estimator = generated ? estimateNodeCountV012 : estimateNodeCount;
  const nodes = nodeCountFor(ws, facts, runtime, () =>
    estimator({ preset, gpuConfig: gpu.gpuConfig, count: ws.resource?.count, maxModelLen: explicit ?? DEFAULT_MAX_MODEL_LEN }),
  );
  if (!nodes.ok) return fail(problem('resource', 'TargetNodeCount', nodes.message));
  decisions.push({ topic: 'targetNodeCount', choice: String(nodes.nodes), reason: nodes.reason });

  const distributed = isDistributed(preset, runtime, nodes.nodes);
  if (nodes.nodes > 1) {
    decisions.push({
      topic: 'distributed',
      choice: distributed ? 'ray' : 'replicas',
      reason: distributed
        ? `one vLLM server over ${nodes.nodes} nodes: pipeline parallel ${nodes.nodes} × tensor parallel ${gpu.gpuConfig.gpuCount}, Ray head on pod 0`
        : `${nodes.nodes} independent single-node replicas (${runtime}${preset.supportDistributedInference ? '' : ', preset not distributed-capable'}); the Service routes to pod 0 only`,
    });
  }

  const maxModelLen = chooseMaxModelLen({ runtime, inferenceConfigYaml: config.content, preset, gpuConfig: gpu.gpuConfig, numNodes: nodes.nodes });
  if (generated && runtime === 'vllm')
    decisions.push({
      topic: 'maxModelLen',
      choice: 'auto',
      reason: 'KAITO v0.12: vLLM fits the context to the KV cache it measures; a max-model-len in inference.config wins',
    });
  else if (runtime === 'vllm') decisions.push({ topic: 'maxModelLen', choice: String(maxModelLen.value), reason: maxModelLen.reason });

  // v0.12 reads node-image weights for any preset; legacy names keep v0.8.0's shape, so only catalog and hub ids.
  const localWeights = generated ? localWeightsPath(ws) : undefined;
  const volume = chooseWeightsVolume(gpu.gpuConfig, preset.diskStorageRequirement, facts, localWeights);
  decisions.push(volume.decision, weightsSourceDecision(preset, facts.presetRegistry, secret, facts.secretNames), serviceTypeDecision(ws));

  const adapters = usableAdapters(ws.inference?.adapters);
  const command: CommandContext = {
    preset,
    runtime,
    gpusPerNode: gpu.gpuConfig.gpuCount,
    numNodes: nodes.nodes,
    maxModelLen: maxModelLen.value,
    adaptersEnabled: adapters.length > 0,
    distributed,
    ...memberServedModelName(ws),
    ...servedAlsoAs(ws, preset, runtime, facts, decisions),
    ...(generated
      ? {
          gpu: gpu.gpuConfig,
          configMounted: config.name !== '',
          performanceMode: ws.metadata.annotations?.[ANNOTATION_PERFORMANCE_MODE] ?? 'balanced',
          ...(localWeights ? { localWeightsPath: localWeights } : {}),
        }
      : {}),
  };
  const podSpec = presetPodSpec({
    ws,
    preset,
    gpu: gpu.gpuConfig,
    command,
    adapters,
    configMapName: config.name,
    weightsVolume: volume.kind,
    ...(localWeights ? { localWeightsPath: localWeights } : {}),
    registry: facts.presetRegistry,
    cloud: facts.cloudProvider,
  });
  pinToWorkspaceNodes(podSpec, pinningFor(facts.podNodePinning, generated !== undefined));
  const { replicas, ...bound } = boundedReplicas(ws, facts, nodes.nodes, decisions);
  const statefulSet = presetStatefulSet({
    ws,
    revision: common.revision,
    replicas,
    podSpec,
    ...(volume.kind === 'nvme' ? { weightsClaim: modelWeightsClaimTemplate(ws, preset.diskStorageRequirement) } : {}),
  });
  return {
    ok: true,
    ...common,
    problems: [],
    targetNodeCount: nodes.nodes,
    ...bound,
    freshWeightsVolume: volume.fresh,
    objects: {
      statefulSet,
      controllerRevision,
      ...services,
      // KAITO v0.12's vLLM pods publish KV-cache events; its main Service routes them (ClusterIP only).
      ...(generated ? { mainService: mainService(ws, { kvEvents: runtime === 'vllm' }) } : {}),
      ...(config.copy ? { configMap: config.copy } : {}),
    },
  };
}

/**
 * After a generation move the model keeps answering to the names its live workload served (vLLM only:
 * it takes several): a client of `mistral-7b-instruct` still works once it is served as `mistral-7b-instruct-v0.3`.
 */
function servedAlsoAs(ws: Workspace, preset: Preset, runtime: Runtime, facts: ClusterFacts, decisions: Decision[]): { alsoServedAs?: string[] } {
  const primary = memberServedModelName(ws).servedModelName ?? preset.vllm.servedModelName;
  if (runtime !== 'vllm' || !primary || !facts.liveServedModelNames?.length) return {};
  const also = carriedServedNames(facts.liveServedModelNames, primary, servedNamesAcrossGenerations(ws));
  if (!also.length) return {};
  decisions.push({
    topic: 'servedModelName',
    choice: [primary, ...also].join(' '),
    reason: `also served as ${also.join(', ')}, the name(s) its live workload served, so clients keep working after the move`,
  });
  return { alsoServedAs: also };
}

/** KAITO #2004: a member of an InferenceSet serves as the set's name; a MultiRoleInference member keeps the preset's. */
function memberServedModelName(ws: Workspace): { servedModelName?: string } {
  const set = ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY];
  return set && ws.metadata.labels?.[LABEL_MULTIROLE_INFERENCE_PARENT] === undefined ? { servedModelName: set } : {};
}
