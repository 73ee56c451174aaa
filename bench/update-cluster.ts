// The update scenario on the cluster (docs/benchmarks.md, "Updates: time without a serving endpoint"):
// once a controller's workspace serves, change its template `repeat` times (an adapter added, removed, …)
// and record each update with the availability watch on the main Service's EndpointSlices and watches on
// the workspace, its StatefulSets and pods. The figures are computed by bench/update.ts.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { GROUP, PLURAL, VERSION, type Workspace } from '../src/api/types.js';
import { watchAvailability } from '../src/simcluster/availability.js';
import { recycleReleasedPvs } from '../src/simcluster/storage.js';
import { UPDATE_SETTLE_MS, UpdateTracker, adapterChange, measureUpdate, updateFigures, updateRunLine, type UpdateFigures, type UpdateRun } from './update.js';
import { waitUntil } from './wait.js';
import { watchForever } from './watch.js';

export interface UpdateRunContext {
  kc: KubeConfig;
  namespace: string;
  workspace: string;
  /** kaito-ts: it writes the Updating condition and may surge. */
  surges: boolean;
  repeat: number;
  coldLoadSeconds: number;
  warmLoadSeconds: number;
  /** False once the controller process has exited. */
  alive: () => boolean;
  log: (line: string) => void;
}

/** Extra time over one cold and one warm load before an update counts as not done. */
const UPDATE_SLACK_MS = 10 * 60_000;

export async function runUpdates(ctx: UpdateRunContext): Promise<UpdateFigures> {
  const { kc, namespace: ns, workspace: name } = ctx;
  const avail = await watchAvailability(kc, ns, name);
  const tracker = new UpdateTracker(name, ctx.surges);
  const watches = [
    watchForever(
      kc,
      `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`,
      (type, obj) => {
        if (type !== 'DELETED' && type !== 'BOOKMARK') tracker.onWorkspace(obj as Workspace, Date.now());
      },
      { fieldSelector: `metadata.name=${name}` },
    ),
    watchForever(kc, `/apis/apps/v1/namespaces/${ns}/statefulsets`, (type, obj) => {
      if (type !== 'BOOKMARK') tracker.onStatefulSet(type, obj as never);
    }),
    watchForever(kc, `/api/v1/namespaces/${ns}/pods`, (type, obj) => {
      if (type !== 'BOOKMARK') tracker.onPod(type, obj as never, Date.now());
    }),
  ];
  const api = kc.makeApiClient(CustomObjectsApi);
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const runs: UpdateRun[] = [];
  const loadsMs = (ctx.coldLoadSeconds + ctx.warmLoadSeconds) * 1000;
  try {
    for (let run = 1; run <= ctx.repeat; run++) {
      // A surge's weights claim goes with it and leaves its local volume Released: make it Available again.
      await recycleReleasedPvs(kc);
      const steady = await waitUntil(`before update ${run}`, () => tracker.steady(avail.readyPods()), loadsMs + UPDATE_SLACK_MS, ctx);
      if (steady === undefined) break;
      const { change, patch } = adapterChange(run);
      const startMs = Date.now();
      tracker.begin(startMs);
      await api.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL, name, body: patch }, merge);
      ctx.log(`update ${run}/${ctx.repeat}: ${change}`);
      const doneAtMs = await waitUntil(`update ${run}`, () => tracker.missing(avail.readyPods()), loadsMs + UPDATE_SLACK_MS, ctx);
      // The window stays open a moment, so that a drop right after "done" still counts.
      if (doneAtMs !== undefined) await sleep(UPDATE_SETTLE_MS);
      const r = measureUpdate({
        run,
        change,
        workspace: name,
        surges: ctx.surges,
        startMs,
        ...(doneAtMs !== undefined ? { doneAtMs } : {}),
        endMs: Date.now(),
        samples: avail.timeline(),
        ...tracker.events(),
      });
      runs.push(r);
      ctx.log(updateRunLine(r));
      if (doneAtMs === undefined) break;
    }
  } finally {
    for (const w of watches) w.stop();
    await avail.stop();
  }
  return updateFigures(runs);
}
