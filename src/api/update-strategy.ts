// How a workspace's serving pod is replaced when its template changes (docs/controller.md, "Updates").
// KAITO rolls the StatefulSet in place: the pod is deleted before the new one loads its model.
import { ANNOTATION_SURGE_TIMEOUT, ANNOTATION_UPDATE_STRATEGY } from './labels.js';
import { positiveDurationAnnotation } from '../runtime/duration.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import type { Workspace } from './types.js';

export const UPDATE_STRATEGIES = ['Surge', 'SurgeIfCapacity', 'Recreate'] as const;
/**
 * - `Surge`: a second pod with the new template serves before the old one goes; waits for capacity, never a gap.
 * - `SurgeIfCapacity`: the same when capacity comes within the surge timeout, else a pre-pulled restart in place.
 * - `Recreate`: KAITO's restart in place, after the new images are pulled onto the node.
 */
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];

export const DEFAULT_UPDATE_STRATEGY: UpdateStrategy = 'SurgeIfCapacity';
/** How long SurgeIfCapacity waits for a surge node before it restarts in place. */
export const DEFAULT_UPDATE_SURGE_TIMEOUT_MS = 15 * 60_000;

export function isUpdateStrategy(v: string): v is UpdateStrategy {
  return (UPDATE_STRATEGIES as readonly string[]).includes(v);
}

export interface UpdatePolicy {
  strategy: UpdateStrategy;
  surgeTimeoutMs: number;
  /** Annotations that could not be read, each with the value used instead. */
  notes: string[];
}

/** The workspace's annotations over the operator's default; a bad value is noted and the default used. */
export function updatePolicyOf(ws: DeepReadonly<Workspace>, fallback: UpdateStrategy): UpdatePolicy {
  const annotations = ws.metadata.annotations ?? {};
  const notes: string[] = [];
  let strategy = fallback;
  const asked = annotations[ANNOTATION_UPDATE_STRATEGY];
  if (asked !== undefined) {
    if (isUpdateStrategy(asked)) strategy = asked;
    else notes.push(`${ANNOTATION_UPDATE_STRATEGY} ${JSON.stringify(asked)} is not one of ${UPDATE_STRATEGIES.join(', ')}: ${fallback}`);
  }
  const timeout = positiveDurationAnnotation(annotations, ANNOTATION_SURGE_TIMEOUT, DEFAULT_UPDATE_SURGE_TIMEOUT_MS);
  if (timeout.note) notes.push(timeout.note);
  return { strategy, surgeTimeoutMs: timeout.ms, notes };
}
