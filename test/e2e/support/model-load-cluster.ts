// Import this FIRST in a test file that needs model loads that take time: a private cluster
// (private-cluster.ts) whose `bed()` starts the model-load simulation too, with the short test delays
// below. Workspace pods (label kaito.sh/workspace) turn Ready COLD_MS after binding when their claims
// hold no loaded weights yet, WARM_MS when every claim they mount does; other pods at once, as
// always. Private, because the shared cluster's workspace pods must keep turning Ready at once.
// The file's `after` calls `stopPrivateCluster`.
import { stopPrivateCluster } from './private-cluster.js';
import { formatModelLoad, MODEL_LOAD_ENV, type ModelLoadDelays } from '../../../src/simcluster/model-load/model-load-options.js';

/** Weights not on the pod's disk yet. */
export const COLD_MS = 30_000;
/** A restart on claims that already held loaded weights: well under COLD_MS even on a busy host. */
export const WARM_MS = 8_000;

export const MODEL_LOAD_DELAYS: ModelLoadDelays = { coldMs: COLD_MS, warmMs: WARM_MS };

process.env[MODEL_LOAD_ENV] = formatModelLoad(MODEL_LOAD_DELAYS);

export { stopPrivateCluster };
export { READY_AT_ANNOTATION } from '../../../src/simcluster/kwok-stages.js';
export { LOAD_KIND_ANNOTATION, WEIGHTS_LOADED_ANNOTATION } from '../../../src/simcluster/model-load/model-load.js';
