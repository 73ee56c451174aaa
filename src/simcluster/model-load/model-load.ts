// What the model-load simulation does with one workspace pod, without a clock or a client: when a pod
// bound to a node is not yet Ready, how long its model takes to load (cold: weights not on its disk
// yet; warm: every claim it mounts already held loaded weights), and, once it is Ready, which of its
// claims now hold loaded weights. Pure; main.ts reads the caches and writes the annotations.
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { isReady } from '../../runtime/conditions.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { READY_AT_ANNOTATION } from '../kwok-stages.js';
import { WORKSPACE_LABEL } from '../provisioner/claim-view.js';
import type { ModelLoadDelays } from './model-load-options.js';

/** On the pod with ready-at: `cold` or `warm`, as decided. */
export const LOAD_KIND_ANNOTATION = 'sim.kaito-ts.io/model-load';
/** On a claim: when (RFC 3339) a pod mounting it turned Ready, so the weights on it are loaded. */
export const WEIGHTS_LOADED_ANNOTATION = 'sim.kaito-ts.io/weights-loaded';

export type LoadKind = 'cold' | 'warm';

type Pod = DeepReadonly<V1Pod>;
type Claim = DeepReadonly<V1PersistentVolumeClaim>;

export type ModelLoadStep =
  | { action: 'none' }
  /** A claim the pod mounts is not in the cache yet: look again shortly. */
  | { action: 'wait'; missing: string[] }
  /** Annotate the pod: kwok's pod-ready-model-load Stage turns it Ready at `readyAt`. */
  | { action: 'load'; kind: LoadKind; delayMs: number; annotations: Record<string, string> }
  /** The pod is Ready: these claims (names in its namespace) now hold loaded weights. */
  | { action: 'mark-loaded'; claims: string[]; loadedAt: string };

/** The claims a pod mounts: `persistentVolumeClaim` volumes and generic ephemeral ones (`<pod>-<volume>`). */
export function claimsOf(pod: Pod): string[] {
  const names = (pod.spec?.volumes ?? []).flatMap((v) => {
    if (v.persistentVolumeClaim) return [v.persistentVolumeClaim.claimName];
    if (v.ephemeral) return [`${pod.metadata?.name ?? ''}-${v.name}`];
    return [];
  });
  return [...new Set(names)];
}

/** Warm when the pod mounts at least one claim and every one of them holds loaded weights. */
export function loadKind(claims: readonly Claim[]): LoadKind {
  return claims.length > 0 && claims.every((c) => c.metadata?.annotations?.[WEIGHTS_LOADED_ANNOTATION] !== undefined) ? 'warm' : 'cold';
}

/**
 * The one step for `pod` now. `claim(name)` reads the claim cache of the pod's namespace. A pod
 * already annotated keeps its time (a restart of the simulation resumes); a terminating or finished
 * pod, or one without the workspace label, gets nothing.
 */
export function modelLoadStep(pod: Pod, claim: (name: string) => Claim | undefined, nowMs: number, delays: ModelLoadDelays): ModelLoadStep {
  const none: ModelLoadStep = { action: 'none' };
  if (pod.metadata?.labels?.[WORKSPACE_LABEL] === undefined || pod.metadata.deletionTimestamp) return none;
  const names = claimsOf(pod);
  const missing = names.filter((n) => claim(n) === undefined);
  if (isReady(pod)) {
    const unmarked = names.filter((n) => {
      const c = claim(n);
      return c !== undefined && c.metadata?.annotations?.[WEIGHTS_LOADED_ANNOTATION] === undefined;
    });
    if (unmarked.length === 0) return none;
    // The Ready transition's time, so that a second pass before the claim's watch event writes the same value.
    const since = Date.parse(String(pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? ''));
    return { action: 'mark-loaded', claims: unmarked, loadedAt: new Date(Number.isNaN(since) ? nowMs : since).toISOString() };
  }
  const phase = pod.status?.phase ?? 'Pending';
  if (!pod.spec?.nodeName || phase !== 'Pending' || pod.metadata.annotations?.[READY_AT_ANNOTATION] !== undefined) return none;
  if (missing.length > 0) return { action: 'wait', missing };
  const kind = loadKind(names.map((n) => claim(n) as Claim));
  const delayMs = kind === 'warm' ? delays.warmMs : delays.coldMs;
  return {
    action: 'load',
    kind,
    delayMs,
    annotations: { [READY_AT_ANNOTATION]: new Date(nowMs + delayMs).toISOString(), [LOAD_KIND_ANNOTATION]: kind },
  };
}
