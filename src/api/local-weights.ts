// `kaito.sh/use-local-weights: "true"` (KAITO v0.12): the weights are already on the node (a custom GPU
// node image) under /opt/kaito/models/<preset name as one path segment>, so nothing is downloaded.
import type { Workspace } from './types.js';

export const ANNOTATION_USE_LOCAL_WEIGHTS = 'kaito.sh/use-local-weights';
const LOCAL_WEIGHTS_PREFIX = '/opt/kaito/models';

/** The node directory of the preset's weights, or undefined when off or when the name is no safe single segment. */
export function localWeightsPath(ws: Workspace): string | undefined {
  if (ws.metadata.annotations?.[ANNOTATION_USE_LOCAL_WEIGHTS] !== 'true') return undefined;
  const name = ws.inference?.preset?.name;
  if (typeof name !== 'string') return undefined;
  const segment = name.trim().toLowerCase().replaceAll('/', '-').replaceAll('\\', '-');
  return segment === '' || segment === '.' || segment === '..' ? undefined : `${LOCAL_WEIGHTS_PREFIX}/${segment}`;
}

/** KAITO's webhook accepts only the two words; the message is its own. */
export function localWeightsAnnotationProblem(ws: Workspace): string | undefined {
  const v = ws.metadata.annotations?.[ANNOTATION_USE_LOCAL_WEIGHTS];
  return v === undefined || v === 'true' || v === 'false' ? undefined : `invalid value: "${v}" must be "true" or "false"`;
}
