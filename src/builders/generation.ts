// The KAITO release a live workload was rendered as, read from its objects, and what a workspace keeps
// of it. A legacy short name's workload is KAITO v0.8.0-shaped (kaito-base:0.1.1, the weights from an
// OCI artifact, an unnamed port) or KAITO v0.12.0-shaped (kaito-base:0.5.0, the weights from the hub,
// ports `http` and `kv-events`). A workspace keeps its live generation until its own spec changes, and
// a generation move keeps the served model names clients already use (docs/api.md, "Behaviours by KAITO release").
import type { V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_HASH, ANNOTATION_REVISION } from '../api/labels.js';
import { DEFAULT_LEGACY_PRESETS, LEGACY_PRESETS_FLAG, releaseName, type KaitoGeneration } from '../api/legacy-presets.js';
import { isHuggingFaceId } from '../catalog/model-catalog.js';
import { foundPreset, inferencePresetOf } from '../api/resolved-workspace.js';
import type { Workspace } from '../api/types.js';
import { BASE_IMAGE, BASE_IMAGE_V012 } from '../catalog/presets.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { WEIGHTS_DOWNLOADER } from './pod-spec.js';
import { computeSpecHash } from './revision.js';

const BASE_TAG = /\/kaito-base:([^@/]+)(?:@.*)?$/;

/**
 * The generation of a live StatefulSet's pod template, or undefined when nothing says (a template
 * workspace, a foreign image). Strongest sign first: the base image's tag (0.1.1 is v0.8.0's, 0.5.0
 * v0.12.0's); else the weights downloader init container (only v0.8.0 pulls an OCI artifact); else the
 * main container's port named `http` (only v0.12 names it).
 */
export function workloadGeneration(sts: DeepReadonly<V1StatefulSet> | undefined): KaitoGeneration | undefined {
  const pod = sts?.spec?.template?.spec;
  const main = pod?.containers?.[0];
  if (!main) return undefined;
  const tag = BASE_TAG.exec(main.image ?? '')?.[1];
  if (tag === BASE_IMAGE.tag) return 'v0.8';
  if (tag === BASE_IMAGE_V012.tag) return 'v0.12';
  if (pod.initContainers?.some((c) => c.name === WEIGHTS_DOWNLOADER)) return 'v0.8';
  if (tag !== undefined && main.ports?.some((p) => p.name === 'http')) return 'v0.12';
  return undefined;
}

/**
 * Whether the live StatefulSet is the workload of the workspace's current spec: the spec hashes to the
 * hash annotated on the workspace and the StatefulSet carries the workspace's revision. A spec edit
 * breaks the first; a revision not rolled out yet (a held update) the second.
 */
export function liveAtSpec(ws: Workspace, live: DeepReadonly<V1StatefulSet> | undefined): boolean {
  const annotations = ws.metadata.annotations ?? {};
  const revision = annotations[ANNOTATION_REVISION];
  if (!live || revision === undefined || live.metadata?.annotations?.[ANNOTATION_REVISION] !== revision) return false;
  return annotations[ANNOTATION_HASH] === specHashOf(ws);
}

/** Every steady pass asks again; a cached workspace is one frozen object until it changes. */
const hashes = new WeakMap<object, string>();
function specHashOf(ws: Workspace): string {
  let hash = hashes.get(ws);
  if (hash === undefined) {
    hash = computeSpecHash(ws);
    if (Object.isFrozen(ws)) hashes.set(ws, hash);
  }
  return hash;
}

/**
 * The releases a workspace is resolved as: legacy names as its live workload's generation while that
 * workload is at the spec (so a flip of the setting rewrites nothing), else as the setting; the SKU
 * table of the setting for new workloads, and v0.8.0's (which holds every row) for one that runs at its spec.
 */
export function keptGeneration(
  ws: Workspace,
  live: DeepReadonly<V1StatefulSet> | undefined,
  setting: KaitoGeneration,
): { legacyNames: KaitoGeneration; skuTable: KaitoGeneration; kept?: KaitoGeneration } {
  if (!liveAtSpec(ws, live)) return { legacyNames: setting, skuTable: setting };
  const kept = workloadGeneration(live);
  return { legacyNames: kept ?? setting, skuTable: 'v0.8', ...(kept ? { kept } : {}) };
}

const SERVED_FLAG = /^--served[-_]model[-_]name(?:=(.*))?$/;
const SHELL_END = /[;&|'"]+$/;

/**
 * The served model names of a vLLM command line: `--served-model-name=a` (one value, as argparse reads
 * it), or `--served-model-name a b` (vLLM takes several) up to the next flag or the end of the shell
 * command; none when the flag is absent.
 */
export function servedModelNames(command: string): string[] {
  const words = command.split(/\s+/);
  const at = words.findIndex((w) => SERVED_FLAG.test(w));
  if (at < 0) return [];
  const inline = SERVED_FLAG.exec(words[at]!)?.[1];
  if (inline !== undefined) return [inline.replace(SHELL_END, '')].filter((n) => n !== '');
  const names: string[] = [];
  for (const w of words.slice(at + 1)) {
    if (w === '' || w.startsWith('-') || SHELL_END.test(w.slice(0, 1))) break;
    names.push(w.replace(SHELL_END, ''));
    if (SHELL_END.test(w)) break;
  }
  return names.filter((n) => n !== '');
}

/** The live main container's served model names (the shell string after `/bin/sh -c`). */
export function liveServedModelNames(live: DeepReadonly<V1StatefulSet> | undefined): string[] {
  const command = live?.spec?.template?.spec?.containers?.[0]?.command ?? [];
  return servedModelNames(command[command.length - 1] ?? '');
}

/**
 * The names to serve besides `primary`: those the live workload serves that this workspace's model
 * answered to in either generation (`known`), so a generation move breaks no client. A name of another
 * model (the preset was changed) is not carried.
 */
export function carriedServedNames(live: readonly string[], primary: string, known: readonly string[]): string[] {
  return [...new Set(live)].filter((n) => n !== primary && known.includes(n));
}

/** The names the workspace's preset is served as in each generation (v0.8.0's preset, v0.12.0's catalog entry). */
export function servedNamesAcrossGenerations(ws: DeepReadonly<Pick<Workspace, 'inference'>>): string[] {
  return (['v0.8', 'v0.12'] as const).flatMap((g) => foundPreset(inferencePresetOf(ws, undefined, g))?.vllm.servedModelName ?? []);
}

/**
 * For `render --explain` and `kaito-ts diff`: the generation the workspace's workload has and the one it
 * would get, for legacy short names (catalog and Hugging Face ids are always v0.12.0's, templates neither).
 */
export function generationLines(ws: Workspace, live: DeepReadonly<V1StatefulSet> | undefined, setting: KaitoGeneration = DEFAULT_LEGACY_PRESETS): string[] {
  const name = ws.inference?.preset?.name;
  if (ws.tuning || typeof name !== 'string' || isHuggingFaceId(name)) return [];
  const flag = `--${LEGACY_PRESETS_FLAG}=${setting}`;
  const has = workloadGeneration(live);
  const hasText = !live ? 'none yet (no StatefulSet)' : has ? `${releaseName(has)} (live StatefulSet)` : 'not recognised (live StatefulSet)';
  const kept = keptGeneration(ws, live, setting).kept;
  const gets = kept
    ? `keeps ${releaseName(kept)} until its spec changes, then ${releaseName(setting)} (${flag})`
    : `${live ? 'the next revision gets' : 'gets'} ${releaseName(setting)} (${flag})`;
  return [`generation: has ${hasText}; ${gets}`];
}
