// The scale probes on the cluster (bench/scale-probes.ts): the set back to 0 with nothing of its children
// left, then K times a scale write 0 → 1, the watch's first sight of the child, and 1 → 0 until that child,
// its StatefulSet, pods and claims are gone. Through the admin identity, so nothing is charged to the controller.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { performance } from 'node:perf_hooks';
import { GROUP, PLURAL, VERSION } from '../src/api/types.js';
import { recycleReleasedPvs } from '../src/simcluster/storage.js';
import { scaleInferenceSet } from './inferenceset-cluster.js';
import { FIRST_CHILD_TARGET_MS, type ScaleProbeFigures, type ScaleProbeTracker } from './scale-probes.js';
import { waitUntil, type WaitContext } from './wait.js';

export interface ScaleProbeContext extends WaitContext {
  kc: KubeConfig;
  namespace: string;
  /** The InferenceSet; the namespace holds nothing else of the run. */
  name: string;
  probes: number;
  /** Fed by the bench's Workspace watch. */
  tracker: ScaleProbeTracker;
}

/** A probe whose child is not seen this long after the scale write fails the run. */
const PROBE_CHILD_TIMEOUT_MS = 30 * FIRST_CHILD_TARGET_MS;
/** Scale 1 → 0 until nothing of the child is left. */
const PROBE_CLEAN_TIMEOUT_MS = 120_000;
/** The first scale-down, from the N Ready children of the main measurement. */
const SCALE_DOWN_TIMEOUT_MS = 600_000;
const CLEAN_POLL_MS = 200;
const PROGRESS_EVERY = 10;

/** What is left of the children in the namespace ("2 Workspaces, 1 pod"), or undefined when nothing is. */
async function childrenLeft(kc: KubeConfig, namespace: string): Promise<string | undefined> {
  const core = kc.makeApiClient(CoreV1Api);
  const [workspaces, statefulSets, pods, claims] = await Promise.all([
    kc
      .makeApiClient(CustomObjectsApi)
      .listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL })
      .then((l) => (l as { items: unknown[] }).items.length),
    kc
      .makeApiClient(AppsV1Api)
      .listNamespacedStatefulSet({ namespace })
      .then((l) => l.items.length),
    core.listNamespacedPod({ namespace }).then((l) => l.items.length),
    core.listNamespacedPersistentVolumeClaim({ namespace }).then((l) => l.items.length),
  ]);
  const left = Object.entries({ Workspaces: workspaces, StatefulSets: statefulSets, pods, PersistentVolumeClaims: claims }).filter(([, n]) => n > 0);
  return left.length === 0 ? undefined : left.map(([kind, n]) => `${n} ${kind}`).join(', ');
}

/** Scales to 0 and waits until nothing of a child is left; throws with `what` when that takes longer than `timeoutMs`. */
async function scaleToClean(ctx: ScaleProbeContext, what: string, timeoutMs: number): Promise<void> {
  await scaleInferenceSet(ctx.kc, ctx.namespace, ctx.name, 0);
  // A failed list (a busy API server) is one more poll, not the end of the run.
  const left = (): Promise<string | undefined> => childrenLeft(ctx.kc, ctx.namespace).catch((err: unknown) => `a list failed: ${String(err)}`);
  const clean = await waitUntil(what, left, timeoutMs, ctx, CLEAN_POLL_MS);
  if (clean === undefined) throw new Error(`${what}: the children were not gone within ${timeoutMs / 1000}s, or the controller exited`);
  // The NVMe volumes of deleted claims are Available again for the next child's pod.
  await recycleReleasedPvs(ctx.kc);
}

export async function runScaleProbes(ctx: ScaleProbeContext): Promise<ScaleProbeFigures> {
  const since = performance.now();
  await scaleToClean(ctx, `scale to 0 before the ${ctx.probes} scale probes`, SCALE_DOWN_TIMEOUT_MS);
  ctx.log(`scaled to 0 with nothing left in ${((performance.now() - since) / 1000).toFixed(1)}s; ${ctx.probes} scale writes 0 → 1 follow`);
  for (let i = 1; i <= ctx.probes; i++) {
    const probe = `scale probe ${i}/${ctx.probes}`;
    ctx.tracker.start(performance.now());
    await scaleInferenceSet(ctx.kc, ctx.namespace, ctx.name, 1);
    const seen = await waitUntil(`${probe}: the child`, () => (ctx.tracker.sample() === undefined ? 'no child seen' : undefined), PROBE_CHILD_TIMEOUT_MS, ctx);
    if (seen === undefined) throw new Error(`${probe}: no child Workspace seen within ${PROBE_CHILD_TIMEOUT_MS / 1000}s of the scale write 0 → 1`);
    await scaleToClean(ctx, `${probe}: scale 1 → 0`, PROBE_CLEAN_TIMEOUT_MS);
    if (i % PROGRESS_EVERY === 0) ctx.log(`${probe}: last child after ${ctx.tracker.sample()} ms`);
  }
  const figures = ctx.tracker.figures();
  if (!figures) throw new Error('no scale probe ran');
  return figures;
}
