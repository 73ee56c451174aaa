// Decisions worth explaining to a user, as data (Decision in src/api/types.ts): the controller can copy
// them to status, `kaito-ts render --explain` prints them. Topics, in the order they are decided:
//   runtime, gpu, inferenceConfig, targetNodeCount, distributed, maxModelLen, modelWeightsVolume,
//   weightsSource, serviceType.
import type { Decision } from '../api/types.js';
import type { Preset } from '../catalog/types.js';
import { modelWeightsImage } from '../catalog/presets.js';
import { WEIGHTS_DOWNLOADER } from './pod-spec.js';

export function weightsSourceDecision(preset: Preset, registry: string, secret: string | undefined, secretNames?: readonly string[]): Decision {
  if (!preset.downloadAtRuntime) {
    return {
      topic: 'weightsSource',
      choice: 'oci',
      reason: `OCI artifact ${modelWeightsImage(preset, registry)} pulled by init container ${WEIGHTS_DOWNLOADER}`,
    };
  }
  let reason = `downloaded at startup from huggingface.co/${preset.hfRepo} ${preset.hfRevision ? `at ${preset.hfRevision}` : 'at the head of main (no commit pin, as KAITO v0.12)'}`;
  if (secret) {
    reason += ` with HF_TOKEN from Secret ${secret}`;
    if (secretNames && !secretNames.includes(secret)) reason += ` (WARNING: Secret ${secret} not found; the pod cannot start until it exists)`;
  }
  return { topic: 'weightsSource', choice: 'huggingface', reason };
}

/** `topic: choice (reason)` lines, e.g. for YAML comments or stderr. */
export function formatDecisions(decisions: readonly Decision[]): string[] {
  const width = Math.max(0, ...decisions.map((d) => d.topic.length));
  return decisions.map((d) => `${`${d.topic}:`.padEnd(width + 1)} ${d.choice} — ${d.reason}`);
}
