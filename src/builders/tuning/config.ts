// Which ConfigMap the trainer reads at /mnt/config (reference §2.5): the user's `tuning.config` in the
// workspace namespace, else `<method>-params-template` there, copied from the release namespace when
// missing (no owner: shared by the namespace's tuning workspaces, as in KAITO). Without a template in
// the release namespace, the chart's content is used. When the chosen file's output_dir is not the
// directory the results volume is mounted at (relative, missing, outside /mnt: W6), the trainer gets an
// owned copy `<ws>-training-config` with output_dir set to that directory.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { checkTrainingConfig, defaultTuningTemplate, TRAINING_CONFIG_KEY, tuningMethod, withOutputDir, type TuningMethod } from '../../api/tuning-config.js';
import type { Decision, Workspace } from '../../api/types.js';
import { findConfigMap, type ClusterFacts } from '../facts.js';
import { COPIED_FROM_ANNOTATION, copyOfDefault } from '../inference-config.js';
import { ownedMeta, workspaceName, workspaceNamespace } from '../meta.js';
import { problem, type Problem } from '../problems.js';

const COMMON_SECTIONS = ['ModelConfig:', '  torch_dtype: "bfloat16"', '  local_files_only: true', '  device_map: "auto"'];
const LATER_SECTIONS = [
  'LoraConfig:',
  '  r: 8',
  '  lora_alpha: 8',
  '  lora_dropout: 0.0',
  'TrainingArguments:',
  '  output_dir: "/mnt/results"',
  '  ddp_find_unused_parameters: false',
  '  save_strategy: "no"',
  '  per_device_train_batch_size: 1',
  'DataCollator:',
  '  mlm: true',
  'DatasetConfig:',
  '  shuffle_dataset: true',
  '  train_test_split: 1',
];
const QUANTIZATION: Record<TuningMethod, string[]> = {
  lora: ['QuantizationConfig:', '  load_in_4bit: false'],
  qlora: [
    'QuantizationConfig:',
    '  load_in_4bit: true',
    '  bnb_4bit_quant_type: "nf4"',
    '  bnb_4bit_compute_dtype: "bfloat16"',
    '  bnb_4bit_use_double_quant: true',
  ],
};

/** The chart's `lora-params-template` / `qlora-params-template` content (reference §1.5). */
export function builtinTrainingConfig(method: TuningMethod): string {
  const body = [...COMMON_SECTIONS, ...QUANTIZATION[method], ...LATER_SECTIONS].map((l) => `  ${l}`);
  return ['training_config:', ...body, ''].join('\n');
}

export interface TuningConfig {
  /** The ConfigMap mounted as `config-volume`. */
  name: string;
  /** Where the trainer writes and the results volume is mounted. */
  outputDir: string;
  /** The default template copy to create when missing (unowned, shared). */
  copy?: V1ConfigMap;
  /** The owned copy with output_dir rewritten, when needed. */
  rewritten?: V1ConfigMap;
  decision: Decision;
}

export type TuningConfigResult = ({ ok: true } & TuningConfig) | { ok: false; problem: Problem };

export function trainingConfigCopyName(ws: Workspace): string {
  return `${workspaceName(ws)}-training-config`;
}

export function resolveTuningConfig(ws: Workspace, facts: ClusterFacts, method: TuningMethod): TuningConfigResult {
  const ns = workspaceNamespace(ws);
  const source = chooseSource(ws, facts, method);
  if (!source.ok) return source;
  const check = checkTrainingConfig(source.content, method, source.name);
  const [first] = check.errors;
  if (first !== undefined || !check.outputDir) return { ok: false, problem: problem('tuning.config', 'InvalidTuningConfig', first ?? 'no output directory') };
  const base = { name: source.name, outputDir: check.outputDir, ...(source.copy ? { copy: source.copy } : {}) };
  if (!check.needsOutputDirRewrite || source.content === undefined) {
    return { ok: true, ...base, decision: { topic: 'tuningConfig', choice: source.name, reason: `${source.reason}; output_dir ${check.outputDir}` } };
  }
  const name = trainingConfigCopyName(ws);
  const rewritten: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...ownedMeta(ws, name), namespace: ns },
    data: { [TRAINING_CONFIG_KEY]: withOutputDir(source.content, check.outputDir) },
  };
  return {
    ok: true,
    ...base,
    name,
    rewritten,
    decision: {
      topic: 'tuningConfig',
      choice: name,
      reason: `${source.reason}; its output_dir is not the absolute directory the results volume is mounted at, so the trainer reads a copy with output_dir ${check.outputDir}`,
    },
  };
}

type Source = { ok: true; name: string; content?: string; copy?: V1ConfigMap; reason: string } | { ok: false; problem: Problem };

function chooseSource(ws: Workspace, facts: ClusterFacts, method: TuningMethod): Source {
  const ns = workspaceNamespace(ws);
  const user = ws.tuning?.config;
  if (user) {
    const cm = findConfigMap(facts, ns, user);
    if (!cm) return { ok: false, problem: problem('tuning.config', 'ConfigMapNotFound', `user specified ConfigMap ${user} not found in namespace ${ns}`) };
    return { ok: true, name: user, content: cm.data?.[TRAINING_CONFIG_KEY], reason: 'tuning.config names it' };
  }
  const name = defaultTuningTemplate(method);
  const local = findConfigMap(facts, ns, name);
  if (local) {
    return {
      ok: true,
      name,
      content: local.data?.[TRAINING_CONFIG_KEY],
      reason: local.metadata?.annotations?.[COPIED_FROM_ANNOTATION] ?? `default, already present in namespace ${ns}`,
    };
  }
  const { copy, reason } = copyOfDefault(name, ns, facts, { [TRAINING_CONFIG_KEY]: builtinTrainingConfig(method) });
  return { ok: true, name, content: copy.data?.[TRAINING_CONFIG_KEY], copy, reason };
}

/** What validation needs to know about the ConfigMap the Job would read (before any rewrite). */
export function tuningConfigLookup(ws: Workspace, facts: ClusterFacts): { name: string; namespace: string; found: boolean; data?: Record<string, string> } {
  const namespace = workspaceNamespace(ws);
  const method = tuningMethod(ws.tuning?.method);
  if (!method) return { name: ws.tuning?.config ?? '', namespace, found: false };
  const source = chooseSource(ws, facts, method);
  if (!source.ok) return { name: ws.tuning?.config ?? '', namespace, found: false };
  return { name: source.name, namespace, found: true, data: source.content === undefined ? {} : { [TRAINING_CONFIG_KEY]: source.content } };
}
