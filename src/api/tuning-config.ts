// The tuning ConfigMap (`training_config.yaml`): KAITO's checks (api/v1beta1/tuning_config_validation.go,
// reference §1.5) and the one output directory that the trainer, the results volume and the pusher share.
// Pure: callers look the ConfigMap up and pass its data.
import { posix } from 'node:path';
import { Document, isMap, parse as parseYaml, parseDocument } from 'yaml';
import { DEFAULT_LORA_TUNING_CONFIG_TEMPLATE, DEFAULT_QLORA_TUNING_CONFIG_TEMPLATE } from './labels.js';

export const TRAINING_CONFIG_KEY = 'training_config.yaml';
export const TUNING_METHODS = ['lora', 'qlora'] as const;
export type TuningMethod = (typeof TUNING_METHODS)[number];
const SECTIONS = ['ModelConfig', 'QuantizationConfig', 'LoraConfig', 'TrainingArguments', 'DatasetConfig', 'DataCollator'];
const MNT = '/mnt';
export const DEFAULT_OUTPUT_DIR = '/mnt/output';

/** `LoRA` → `lora`; anything else → undefined (KAITO compares case-insensitively at admission only: W8). */
export function tuningMethod(method: string | undefined): TuningMethod | undefined {
  const m = typeof method === 'string' ? method.toLowerCase() : ''; // any other JSON type: no method (validateShape says why)
  return (TUNING_METHODS as readonly string[]).includes(m) ? (m as TuningMethod) : undefined;
}

/** `lora-params-template` / `qlora-params-template`. */
export function defaultTuningTemplate(method: TuningMethod): string {
  return method === 'lora' ? DEFAULT_LORA_TUNING_CONFIG_TEMPLATE : DEFAULT_QLORA_TUNING_CONFIG_TEMPLATE;
}

export type OutputDir = { ok: true; dir: string; raw?: unknown } | { ok: false; message: string };

/**
 * The output directory as KAITO's controller resolves it: empty or missing → /mnt/output; a path not
 * starting with /mnt is joined under /mnt; the cleaned result must lie strictly under /mnt.
 */
export function resolveOutputDir(raw: unknown): OutputDir {
  if (raw === undefined || raw === null || raw === '') return { ok: true, dir: DEFAULT_OUTPUT_DIR, raw };
  if (typeof raw !== 'string') return { ok: false, message: `output_dir must be a string, got ${typeof raw}` };
  const joined = raw.startsWith(MNT) ? raw : posix.join(MNT, raw);
  const dir = posix.normalize(joined).replace(/(.)\/+$/, '$1');
  if (dir === MNT || !dir.startsWith(`${MNT}/`)) return { ok: false, message: `Invalid output_dir specified: '${raw}', must be a directory` };
  return { ok: true, dir, raw };
}

export interface TrainingConfigCheck {
  /** KAITO's messages; empty when the config is usable. */
  errors: string[];
  /** The resolved output directory (when output_dir is usable). */
  outputDir?: string;
  /** True when the file does not already say `output_dir: <outputDir>` (the trainer would write elsewhere: W6). */
  needsOutputDirRewrite: boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function boolOrNil(v: unknown): { ok: true; value: boolean } | { ok: false; message: string } {
  if (v === undefined || v === null) return { ok: true, value: false };
  if (typeof v === 'boolean') return { ok: true, value: v };
  return { ok: false, message: `value must be either nil or a boolean, got type ${Array.isArray(v) ? 'array' : typeof v}` };
}

/** KAITO's checks of `training_config.yaml` for `method`, in KAITO's order; `cmName` appears in messages. */
export function checkTrainingConfig(text: string | undefined, method: TuningMethod, cmName: string): TrainingConfigCheck {
  const fail = (message: string): TrainingConfigCheck => ({ errors: [message], needsOutputDirRewrite: false });
  if (text === undefined) return fail(`ConfigMap '${cmName}' has no key '${TRAINING_CONFIG_KEY}'`);
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return fail(`Failed to parse ${TRAINING_CONFIG_KEY}: ${(err as Error).message.split('\n')[0]}`);
  }
  const config = isRecord(doc) ? doc.training_config : undefined;
  if (!isRecord(config)) return fail("Expected 'training_config' key to contain a map");
  const unknown = Object.keys(config).find((s) => !SECTIONS.includes(s));
  if (unknown !== undefined) return fail(`Unrecognized section: ${unknown}`);

  const errors: string[] = [];
  const quant = isRecord(config.QuantizationConfig) ? config.QuantizationConfig : undefined;
  const in4 = boolOrNil(quant?.load_in_4bit);
  const in8 = boolOrNil(quant?.load_in_8bit);
  if (!in4.ok) errors.push(in4.message);
  else if (!in8.ok) errors.push(in8.message);
  else if (in4.value && in8.value) errors.push(`Cannot set both 'load_in_4bit' and 'load_in_8bit' to true in ConfigMap '${cmName}'`);
  else if (method === 'lora' && (in4.value || in8.value))
    errors.push(`For method 'lora', 'load_in_4bit' or 'load_in_8bit' in ConfigMap '${cmName}' must not be true`);
  else if (method === 'qlora' && !in4.value && !in8.value)
    errors.push(`For method 'qlora', either 'load_in_4bit' or 'load_in_8bit' must be true in ConfigMap '${cmName}'`);

  const args = isRecord(config.TrainingArguments) ? config.TrainingArguments : undefined;
  const raw = args?.output_dir;
  // KAITO's webhook refuses an explicit empty output_dir (it joins it to /mnt itself).
  const out = raw === '' ? { ok: false as const, message: "Invalid output_dir specified: '', must be a directory" } : resolveOutputDir(raw);
  if (!out.ok) return { errors: [...errors, out.message], needsOutputDirRewrite: false };
  return { errors, outputDir: out.dir, needsOutputDirRewrite: raw !== out.dir };
}

/** `text` with `training_config.TrainingArguments.output_dir` set to `dir`; comments and order kept. */
export function withOutputDir(text: string, dir: string): string {
  const doc: Document = parseDocument(text);
  const args = doc.getIn(['training_config', 'TrainingArguments']);
  if (!isMap(args)) doc.setIn(['training_config', 'TrainingArguments'], doc.createNode({ output_dir: dir }));
  else doc.setIn(['training_config', 'TrainingArguments', 'output_dir'], dir);
  return doc.toString();
}
