// What the simcluster supervisor decides, without a clock or a process: restart a component that exited
// or outgrew its memory limit, with backoff when it keeps dying. Pure; src/simcluster/supervisor/ acts.
import { formatBinaryQuantity, tryParseQuantity } from '../catalog/quantity.js';
import type { ComponentName } from './components.js';

export type MemoryLimits = Record<ComponentName, number>;

const MI = 1024 * 1024;
const GI = 1024 * MI;

/**
 * RSS ceilings, 8–20 × the measured idle RSS (docs/simcluster.md), 17 GiB in all with the opt-ins on a 23 GiB host: a
 * busy run stays far below, a runaway (the controller-manager once grew to 23 GB) is stopped early.
 */
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = {
  etcd: 2 * GI,
  'kube-apiserver': 3 * GI,
  'kube-controller-manager': 2 * GI,
  'kube-scheduler': 1 * GI,
  kwok: 2 * GI,
  'gpu-provisioner': 1 * GI,
  'metrics-adapter': 1 * GI,
  'model-load': 1 * GI,
  karpenter: 2 * GI,
  'keda-operator': 1 * GI,
  'keda-adapter': 1 * GI,
};

const NAMES = Object.keys(DEFAULT_MEMORY_LIMITS) as ComponentName[];

/** "kube-apiserver=4Gi,etcd=1Gi" (commas or repeated entries) → the limits it names; throws on a bad entry. */
export function parseMemoryLimits(entries: string[]): Partial<MemoryLimits> {
  const out: Partial<MemoryLimits> = {};
  for (const entry of entries
    .flatMap((e) => e.split(','))
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq) as ComponentName;
    if (eq <= 0 || !NAMES.includes(name)) throw new Error(`memory limit "${entry}": expected <component>=<size>, component one of ${NAMES.join(', ')}`);
    const bytes = tryParseQuantity(entry.slice(eq + 1));
    if (bytes === undefined || bytes < MI) throw new Error(`memory limit "${entry}": the size must be a quantity of at least 1Mi (e.g. 2Gi)`);
    out[name] = bytes;
  }
  return out;
}

/** The defaults, then KAITO_TS_SIM_MEMORY_LIMITS, then the `up --memory-limit` flags. */
export function resolveMemoryLimits(env: NodeJS.ProcessEnv, flags: string[] = []): MemoryLimits {
  return { ...DEFAULT_MEMORY_LIMITS, ...parseMemoryLimits([env.KAITO_TS_SIM_MEMORY_LIMITS ?? '']), ...parseMemoryLimits(flags) };
}

export function formatMemoryLimits(limits: MemoryLimits): string {
  return NAMES.map((n) => `${n}=${formatBinaryQuantity(limits[n])}`).join(',');
}

/** A process that ran this long before dying starts the backoff over. */
export const STABLE_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 60_000;

/** Wait before restart number `consecutive` + 1 of a run of quick deaths: 0, 1 s, 2 s, 4 s … 60 s. */
export function backoffMs(consecutive: number): number {
  return consecutive <= 0 ? 0 : Math.min(1000 * 2 ** (consecutive - 1), MAX_BACKOFF_MS);
}

/** The supervisor's memory of one component. */
export interface Watched {
  /** When the current process was started or first seen (ms). */
  since: number;
  /** Restarts in the current run of quick deaths. */
  consecutive: number;
  /** When it was first seen dead (ms); unset while it runs. */
  deadSince?: number;
}

export interface Observation {
  alive: boolean;
  rssBytes?: number;
  limitBytes: number;
  now: number;
}

export type Verdict = { action: 'none' } | { action: 'wait'; ms: number } | { action: 'restart'; reason: 'exited' | 'memory'; consecutive: number };

export function decide(w: Watched, o: Observation): Verdict {
  if (o.alive) {
    if (o.rssBytes === undefined || o.rssBytes <= o.limitBytes) return { action: 'none' };
    // Over the limit: restarted once it has run for its backoff, so a too-low limit cannot loop.
    const { consecutive, waitMs } = backoff(w, o.now);
    return o.now < w.since + waitMs ? { action: 'wait', ms: w.since + waitMs - o.now } : { action: 'restart', reason: 'memory', consecutive };
  }
  const diedAt = w.deadSince ?? o.now;
  const { consecutive, waitMs } = backoff(w, diedAt);
  const due = diedAt + waitMs;
  return o.now < due ? { action: 'wait', ms: due - o.now } : { action: 'restart', reason: 'exited', consecutive };
}

/** A process that lived long enough starts a new run of restarts; a quick death waits longer each time. */
function backoff(w: Watched, endedAt: number): { consecutive: number; waitMs: number } {
  if (endedAt - w.since >= STABLE_AFTER_MS) return { consecutive: 1, waitMs: 0 };
  return { consecutive: w.consecutive + 1, waitMs: backoffMs(w.consecutive) };
}

export function formatBytes(bytes: number): string {
  return bytes >= GI ? `${(bytes / GI).toFixed(1)} GiB` : `${Math.round(bytes / MI)} MiB`;
}
