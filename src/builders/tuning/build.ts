// buildTuning: tuning Workspace + observed facts → the Job, the ConfigMaps it needs, the ControllerRevision,
// the decisions that explain them, or the problems that prevent them. Shared by the controller and
// `kaito-ts render`. Pure: no client, no clock.
import type { V1ConfigMap, V1ControllerRevision, V1Job } from '@kubernetes/client-node';
import { Msg } from '../../api/messages.js';
import { tuningMethod } from '../../api/tuning-config.js';
import type { Decision, Workspace } from '../../api/types.js';
import { validateShape } from '../../api/validation.js';
import { foundPreset, type ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { resolveFromFacts, type ClusterFacts } from '../facts.js';
import { resolveGpuConfig } from '../gpu.js';
import { problem, type Problem } from '../problems.js';
import { buildControllerRevision, computeSpecHash } from '../revision.js';
import { chooseRevision } from '../workspace.js';
import { resolveTuningConfig } from './config.js';
import { tuningJob } from './job.js';

export interface TuningObjects {
  controllerRevision: V1ControllerRevision;
  /** The default template copied into the workspace namespace, when missing there (unowned, shared). */
  configMap?: V1ConfigMap;
  /** The owned copy with output_dir rewritten, when the chosen file needs it. */
  trainingConfig?: V1ConfigMap;
  job: V1Job;
}

interface Common {
  revisionHash: string;
  revision: number;
  decisions: Decision[];
}

export type TuningBuildResult = (Common & { ok: true; objects: TuningObjects }) | (Common & { ok: false; problems: Problem[] });

/** In the order the operator applies them. */
export function tuningObjectList(o: TuningObjects): object[] {
  return [o.controllerRevision, ...(o.configMap ? [o.configMap] : []), ...(o.trainingConfig ? [o.trainingConfig] : []), o.job];
}

/** `resolved` is the pass's resolved workspace (the one validation read); by default resolved from `facts`. */
export function buildTuning(ws: Workspace, facts: ClusterFacts, resolved: ResolvedWorkspace = resolveFromFacts(ws, facts)): TuningBuildResult {
  const revisionHash = computeSpecHash(ws);
  const revision = chooseRevision(ws, revisionHash, facts);
  const decisions: Decision[] = [];
  const fail = (p: Problem): TuningBuildResult => ({ ok: false, revisionHash, revision, decisions, problems: [p] });
  const tuning = ws.tuning;
  if (!tuning) return fail(problem('tuning', 'NotTuning', 'the workspace has no tuning section'));
  // The controller builds before it validates: a value of the wrong JSON type is a problem here, not a TypeError below.
  const shape = validateShape(ws)[0];
  if (shape) return fail(problem(shape.field, 'InvalidSpec', shape.message));

  const name = tuning.preset?.name ?? '';
  const preset = foundPreset(resolved.tuningPreset);
  if (!preset) return fail(problem('tuning.preset.name', 'UnknownPreset', Msg.unsupportedTuningPreset(name)));
  if (!preset.supportTuning) return fail(problem('tuning.preset.name', 'PresetNotTunable', `preset ${name} does not support tuning`));
  // Lower-cased here: KAITO's controller compares case-sensitively and cannot build `LoRA` (W8).
  const method = tuningMethod(tuning.method);
  if (!method) return fail(problem('tuning.method', 'InvalidMethod', Msg.tuningMethod(tuning.method ?? '')));

  const gpu = resolveGpuConfig(resolved);
  if (!gpu.ok) return fail(gpu.problem);
  decisions.push(gpu.decision);

  const config = resolveTuningConfig(ws, facts, method);
  if (!config.ok) return fail(config.problem);
  decisions.push(config.decision, {
    topic: 'output',
    choice: tuning.output?.image ? 'image' : 'volume',
    reason: tuning.output?.image
      ? `the pusher pushes ${config.outputDir} to ${tuning.output.image} after the trainer succeeded`
      : `the trainer writes to ${config.outputDir} on the output volume`,
  });

  const job = tuningJob({
    ws,
    preset,
    gpuCount: gpu.gpuConfig.gpuCount,
    revision,
    configMapName: config.name,
    outputDir: config.outputDir,
    registry: facts.presetRegistry,
  });
  return {
    ok: true,
    revisionHash,
    revision,
    decisions,
    objects: {
      controllerRevision: buildControllerRevision(ws, revisionHash, revision),
      ...(config.copy ? { configMap: config.copy } : {}),
      ...(config.rewritten ? { trainingConfig: config.rewritten } : {}),
      job,
    },
  };
}
