// An availability oracle for a Service, for the e2e tests and the benchmark's update scenario: a watch
// on its EndpointSlices (label kubernetes.io/service-name) that records, with the arrival time, every
// change of the set of pods with a serving endpoint, and reports the gaps: the intervals with no serving
// endpoint after the first instant with one. The watch is the project's reflector (list, then watch
// with bookmarks, resumed on disconnects), so a long run misses no change. The pure parts
// (`readyPodsOf`, `gapsOf`, `gapsWithin`) are unit-tested. Simcluster tooling, never the operator.
import type { KubeConfig, V1EndpointSlice } from '@kubernetes/client-node';
import { KubeClient } from '../runtime/client.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { Reflector } from '../runtime/reflector.js';
import type { ResourceType } from '../runtime/resources.js';
import { KubeTransport } from '../runtime/transport.js';

const ENDPOINT_SLICES: ResourceType = { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true };
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** The pods with a ready endpoint (sorted names) from `atMs` (Date.now() when the change arrived) on. */
export interface ReadySample {
  atMs: number;
  pods: string[];
}

/** An interval with no ready endpoint; `toMs` undefined while it lasts (then `ms` runs to now). */
export interface Gap {
  fromMs: number;
  toMs?: number;
  ms: number;
}

/**
 * Pods with at least one serving endpoint in any of the slices, named by `targetRef` (else the first
 * address). Sorted, each once. `serving` first: a Service that publishes not-ready addresses (KAITO's
 * main Service does) marks every endpoint `ready`, a loading or terminating pod too; `serving` is the
 * pod's own readiness. Where a server sets no `serving`, `ready` (unset means ready, as the API says).
 */
export function readyPodsOf(slices: readonly DeepReadonly<V1EndpointSlice>[]): string[] {
  const serves = (c: DeepReadonly<V1EndpointSlice>['endpoints'][number]['conditions']) => (c?.serving ?? c?.ready) !== false;
  const names = slices.flatMap((s) => (s.endpoints ?? []).filter((e) => serves(e.conditions)).map((e) => e.targetRef?.name ?? e.addresses[0] ?? ''));
  return [...new Set(names)].filter(Boolean).sort();
}

/** Intervals with zero ready pods after the first sample with one; an open one ends at `nowMs`. */
export function gapsOf(timeline: readonly ReadySample[], nowMs: number): Gap[] {
  const gaps: Gap[] = [];
  let seenReady = false;
  let open: number | undefined;
  for (const s of timeline) {
    if (s.pods.length > 0) {
      if (open !== undefined) gaps.push({ fromMs: open, toMs: s.atMs, ms: s.atMs - open });
      open = undefined;
      seenReady = true;
    } else if (seenReady && open === undefined) {
      open = s.atMs;
    }
  }
  if (open !== undefined) gaps.push({ fromMs: open, ms: nowMs - open });
  return gaps;
}

/**
 * The gaps inside the window [fromMs, toMs], for a Service that was serving before it (an update of a
 * serving workload): the state at `fromMs` is the last sample at or before it, so an outage already
 * under way then counts from `fromMs`; one still open at `toMs` is cut there (`toMs` unset, as open).
 */
export function gapsWithin(timeline: readonly ReadySample[], fromMs: number, toMs: number): Gap[] {
  const gaps: Gap[] = [];
  let open = (timeline.filter((s) => s.atMs <= fromMs).at(-1)?.pods.length ?? 0) === 0 ? fromMs : undefined;
  for (const s of timeline.filter((x) => x.atMs > fromMs && x.atMs <= toMs)) {
    if (s.pods.length > 0 && open !== undefined) {
      gaps.push({ fromMs: open, toMs: s.atMs, ms: s.atMs - open });
      open = undefined;
    } else if (s.pods.length === 0 && open === undefined) {
      open = s.atMs;
    }
  }
  if (open !== undefined) gaps.push({ fromMs: open, ms: toMs - open });
  return gaps;
}

export interface AvailabilityWatch {
  /** Every change of the ready set, the first sample being the state when the watch synced. */
  timeline(): ReadySample[];
  gaps(): Gap[];
  /** Pods with a ready endpoint now (sorted). */
  readyPods(): string[];
  stop(): Promise<void>;
}

/**
 * Watches the EndpointSlices of Service `serviceName` in `namespace` (the Service need not exist yet);
 * resolves once the first list is in. `kc` is any KubeConfig, e.g. `(await bed()).kc` in a test.
 */
export async function watchAvailability(kc: KubeConfig, namespace: string, serviceName: string): Promise<AvailabilityWatch> {
  const transport = new KubeTransport(kc, { qps: 20, burst: 40 });
  const slices = new Reflector<V1EndpointSlice>({
    client: new KubeClient(transport),
    type: ENDPOINT_SLICES,
    namespace,
    labelSelector: `${SERVICE_NAME_LABEL}=${serviceName}`,
  });
  const samples: ReadySample[] = [];
  const sample = (): void => {
    const pods = readyPodsOf(slices.cache.list());
    const last = samples.at(-1);
    if (!last || last.pods.join(',') !== pods.join(',')) samples.push({ atMs: Date.now(), pods });
  };
  // Events of the initial list arrive before `synced`; the first sample is taken at sync.
  slices.on(() => {
    if (slices.hasSynced) sample();
  });
  slices.start();
  if (!(await slices.waitForSync(60_000))) {
    await slices.stop();
    transport.close();
    throw new Error(`EndpointSlices of ${namespace}/${serviceName} not listed within 60s: ${slices.lastError?.message ?? 'no error'}`);
  }
  sample();
  return {
    timeline: () => samples.map((s) => ({ atMs: s.atMs, pods: [...s.pods] })),
    gaps: () => gapsOf(samples, Date.now()),
    readyPods: () => readyPodsOf(slices.cache.list()),
    stop: async () => {
      await slices.stop();
      transport.close();
    },
  };
}
