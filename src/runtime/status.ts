// Status writes only when something changed. A pure comparison (what the "no writes when nothing
// changed" promise rests on) plus one write helper through the status subresource.
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from './client.js';
import type { DeepReadonly } from './readonly.js';
import type { ResourceType } from './resources.js';

/** The metav1.Condition shape, with timestamps as the API server sends them (strings). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

type WithConditions = { conditions?: Condition[] } & Record<string, unknown>;

/**
 * True when writing `desired` would change `current`. Conditions are compared as a map by type;
 * a condition whose status is unchanged ignores lastTransitionTime (only a flip moves it).
 * Undefined fields and key order do not count.
 */
export function statusChanged(desired: WithConditions | undefined, current: WithConditions | undefined): boolean {
  const { conditions: dc, ...dRest } = normalize(desired);
  const { conditions: cc, ...cRest } = normalize(current);
  if (!isDeepStrictEqual(dRest, cRest)) return true;
  const d = dc ?? [];
  const c = cc ?? [];
  if (d.length !== c.length) return true;
  return d.some((want) => {
    const have = c.find((x) => x.type === want.type);
    if (!have) return true;
    // Equal statuses make the time irrelevant; a flipped status differs anyway.
    const { lastTransitionTime: _wt, ...w } = want;
    const { lastTransitionTime: _ht, ...h } = have;
    return !isDeepStrictEqual(w, h);
  });
}

/**
 * JSON round trip (drops undefined, turns Dates into the strings the server sends), then drops
 * empty objects and lists: the server fills in empty structs (a Service's `loadBalancer: {}`)
 * that mean the same as absent.
 */
function normalize(s: WithConditions | undefined): WithConditions {
  return s ? ((pruneEmpty(JSON.parse(JSON.stringify(s))) ?? {}) as WithConditions) : {};
}

function pruneEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(pruneEmpty) : undefined;
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const p = pruneEmpty(x);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length ? out : undefined;
}

export interface StatusWriteOptions {
  /** `apply` (SSA, default) or `merge` (merge patch of {status}). */
  mode?: 'apply' | 'merge';
  /** Receives the object the server returned (e.g. to write it through to the cache). */
  onWritten?: (obj: KubernetesObject) => void;
}

/**
 * Writes `desired` to the status subresource of `obj` (the cached object) unless it equals the
 * cached status. Returns whether a write was made.
 */
export async function writeStatusIfChanged(
  client: KubeClient,
  type: ResourceType,
  obj: DeepReadonly<KubernetesObject> & { readonly status?: unknown },
  desired: WithConditions,
  opts: StatusWriteOptions = {},
): Promise<boolean> {
  if (!statusChanged(desired, obj.status as WithConditions | undefined)) return false;
  const ref = { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' };
  const written = opts.mode === 'merge' ? await client.mergePatchStatus(type, ref, desired) : await client.applyStatus(type, ref, desired);
  opts.onWritten?.(written);
  return true;
}
