// Which inference runtime serves a workspace (KAITO GetWorkspaceRuntimeName, spec §2.8):
// gate vLLM off → always transformers; gate on → transformers only when the annotation says
// exactly `transformers`, vllm otherwise (absent or any other value).
import type { Runtime } from '../catalog/types.js';
import type { FeatureGates } from './feature-gates.js';
import { ANNOTATION_RUNTIME } from './labels.js';
import type { Decision, Workspace } from './types.js';

export const RUNTIME_VLLM: Runtime = 'vllm';
export const RUNTIME_TRANSFORMERS: Runtime = 'transformers';

type HasAnnotations = Pick<Workspace, 'metadata'>;

/** The runtime together with the reason, for status decisions and `kaito-ts render`. */
export function runtimeDecision(ws: HasAnnotations, gates: Pick<FeatureGates, 'vLLM'>): Decision & { choice: Runtime } {
  const annotation = ws.metadata.annotations?.[ANNOTATION_RUNTIME];
  if (!gates.vLLM) {
    return { topic: 'runtime', choice: RUNTIME_TRANSFORMERS, reason: 'feature gate vLLM is disabled' };
  }
  if (annotation === RUNTIME_TRANSFORMERS) {
    return { topic: 'runtime', choice: RUNTIME_TRANSFORMERS, reason: `annotation ${ANNOTATION_RUNTIME}=transformers` };
  }
  if (annotation === undefined) {
    return { topic: 'runtime', choice: RUNTIME_VLLM, reason: `default (no ${ANNOTATION_RUNTIME} annotation)` };
  }
  if (annotation === RUNTIME_VLLM) {
    return { topic: 'runtime', choice: RUNTIME_VLLM, reason: `annotation ${ANNOTATION_RUNTIME}=vllm` };
  }
  // KAITO silently maps unknown values to vllm; keep the behaviour but say so.
  return {
    topic: 'runtime',
    choice: RUNTIME_VLLM,
    reason: `annotation ${ANNOTATION_RUNTIME}=${JSON.stringify(annotation)} is not "vllm" or "transformers"; using vllm`,
  };
}
