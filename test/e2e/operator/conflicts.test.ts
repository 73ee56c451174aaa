// Persistent conflicts on the real control plane (issue 14: no silent failure). Other clients keep
// changing the workspace, so the operator's conditional metadata writes (finalizer and revision
// annotations, guarded by resourceVersion) keep getting 409. After CONFLICTS_BEFORE_REPORT of them in
// a row the workspace must say so: InferenceReady=False PersistentConflict and a Warning event. Once
// the writers stop, it must converge. Both for a new workspace (no finalizer yet) and for a spec change.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_HASH, ANNOTATION_REVISION, WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import { Reason } from '../../../src/controllers/workspace/reasons.js';
import { bed, waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  getOne,
  getWorkspace,
  pool,
  selectorFor,
  waitReady,
  waitRolledOut,
  warningEvents,
  world,
  type World,
} from '../support/operator.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';

const WS = { group: 'kaito.sh', version: 'v1beta1', plural: 'workspaces' };
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/**
 * Writers in parallel, each patching a label back to back, so the resourceVersion moves faster than
 * the operator can read it and write. (One writer every 50 ms is not enough: a pass that starts on
 * the watch event of a write usually gets its own write in before the next one.)
 */
const WRITERS = 16;
const NAME = 'busy';

async function patcher(ns: string): Promise<(body: object) => Promise<unknown>> {
  const api = (await bed()).kc.makeApiClient(CustomObjectsApi);
  return (body) => api.patchNamespacedCustomObject({ ...WS, namespace: ns, name: NAME, body }, MERGE);
}

/** Starts the writers; `stop` ends them and says how many patches they made (every one must have passed). */
async function startWriters(t: TestContext, ns: string): Promise<{ stop(): Promise<number>; running(): Promise<void> }> {
  const patch = await patcher(ns);
  let writing = true;
  let patches = 0;
  const failures: string[] = [];
  const writers = Array.from({ length: WRITERS }, async (_, i) => {
    while (writing)
      await patch({ metadata: { labels: { [`e2e.kaito.sh/writer-${i}`]: String(patches++) } } }).catch((err: unknown) => failures.push(String(err)));
  });
  const stop = async () => {
    writing = false;
    await Promise.all(writers);
    return patches;
  };
  t.after(stop);
  return {
    /** Resolves once the writers are in full swing (a change made before would race only their first patches). */
    async running() {
      const from = patches;
      await waitFor('the writers in full swing', () => Promise.resolve(patches - from >= 10 * WRITERS || undefined));
    },
    async stop() {
      const n = await stop();
      assert.deepEqual(failures.slice(0, 3), [], `the writers' patches failed ${failures.length} times`);
      return n;
    },
  };
}

/** The condition's message and the Warning event of a reported conflict. */
async function assertReported(w: World, reported: WorkspaceObject): Promise<void> {
  assert.match(conditionOf(reported, 'InferenceReady')?.message ?? '', /409 Conflict \d+ times in a row/);
  const events = await waitFor('a PersistentConflict Warning event', async () => {
    const found = (await warningEvents(w.ns, NAME)).filter((e) => e.reason === Reason.PersistentConflict);
    return found.length ? found : undefined;
  });
  assert.match(events[0]!.note, /409 Conflict/);
}

/**
 * The seconds until the conflict was reported, or undefined when the operator's metadata write got
 * through first (`written` says it did: every writer paused at that moment, so there was no persistent
 * conflict to report).
 */
async function reportedOrWritten(w: World, since: number, what: string, written: (ws: WorkspaceObject) => boolean): Promise<number | undefined> {
  const outcome = await waitFor(
    `${w.ns}/${NAME}: PersistentConflict reported, or ${what}`,
    async () => {
      const ws = await getWorkspace(w.ns, NAME);
      const c = conditionOf(ws, 'InferenceReady');
      if (c?.status === 'False' && c.reason === Reason.PersistentConflict && c.observedGeneration === ws?.metadata.generation) return { reported: ws };
      return ws && written(ws) ? { written: true } : undefined;
    },
    { timeoutMs: 120_000 },
  );
  if (!('reported' in outcome) || !outcome.reported) return undefined;
  const seconds = (Date.now() - since) / 1000;
  await assertReported(w, outcome.reported);
  return seconds;
}

test('a workspace that others keep changing reports PersistentConflict with a Warning event, and converges once they stop', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)], operator: false });
  // The env is what a new revision may change on a template StatefulSet (KAITO's selective update).
  const template = (mode: string) => ({
    spec: { containers: [{ name: 'server', image: 'nginx:1.27', env: [{ name: 'MODE', value: mode }], resources: { limits: { 'nvidia.com/gpu': 1 } } }] },
  });
  await applyWorkspace(w.ns, { metadata: { name: NAME }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { template: template('first') } });

  // 1. A new workspace: the operator starts while the writers run, so even its finalizer cannot be
  // added. Should its first write win the race all the same, the operator is stopped, the workspace
  // made new again (no finalizer, no revision annotations) and the operator started again.
  let writers = await startWriters(t, w.ns);
  let started = Date.now();
  let newReported: number | undefined;
  for (let attempt = 1; attempt <= 3 && newReported === undefined; attempt++) {
    if (attempt > 1) {
      t.diagnostic(`new workspace, start ${attempt - 1}: the operator's metadata write got through before 10 conflicts in a row`);
      await w.op?.stop();
      await (
        await patcher(w.ns)
      )({ metadata: { finalizers: null, annotations: { [ANNOTATION_HASH]: null, [ANNOTATION_REVISION]: null } } });
    }
    started = Date.now();
    await w.start();
    newReported = await reportedOrWritten(w, started, 'the finalizer added', (ws) => !!ws.metadata.finalizers?.includes(WORKSPACE_FINALIZER));
  }
  assert.ok(newReported !== undefined, 'no PersistentConflict in three starts under the writers');
  let patches = await writers.stop();
  let stopped = Date.now();
  let ready = await waitReady(w.ns, NAME, 120_000);
  const newConverged = (Date.now() - stopped) / 1000;
  assert.ok(ready.metadata.finalizers?.includes(WORKSPACE_FINALIZER));
  assert.equal(ready.metadata.annotations?.[ANNOTATION_REVISION], '1');
  t.diagnostic(
    `new workspace: ${patches} label patches by ${WRITERS} writers; PersistentConflict ${newReported.toFixed(1)} s after the operator started; Ready ${newConverged.toFixed(1)} s after the writers stopped`,
  );

  // 2. A spec change (a new revision) while the writers run: its annotations cannot be written. The
  // operator can still win one race to its write (every writer paused at that moment, the machine
  // busy): that change then had no persistent conflict to report, and the next change is tried.
  writers = await startWriters(t, w.ns);
  await writers.running();
  let revision = 1;
  let mode = '';
  let changeReported: number | undefined;
  for (let attempt = 1; attempt <= 3 && changeReported === undefined; attempt++) {
    revision++;
    mode = `second-${attempt}`;
    started = Date.now();
    await (
      await patcher(w.ns)
    )({ inference: { template: template(mode) } });
    changeReported = await reportedOrWritten(
      w,
      started,
      `revision ${revision} written`,
      (ws) => ws.metadata.annotations?.[ANNOTATION_REVISION] === String(revision),
    );
    if (changeReported === undefined) t.diagnostic(`spec change ${attempt}: the operator's metadata write got through before 10 conflicts in a row`);
  }
  assert.ok(changeReported !== undefined, 'no PersistentConflict in three spec changes under the writers');
  patches = await writers.stop();
  stopped = Date.now();
  ready = await waitRolledOut(w.ns, NAME, revision);
  const changeConverged = (Date.now() - stopped) / 1000;
  assert.equal(ready.metadata.annotations?.[ANNOTATION_REVISION], String(revision));
  assert.equal(
    ready.status?.conditions?.some((c) => c.reason === Reason.PersistentConflict),
    false,
    'the conflict condition is gone',
  );
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', NAME);
  assert.equal(sts?.metadata?.annotations?.[ANNOTATION_REVISION], String(revision));
  assert.deepEqual(sts?.spec?.template.spec?.containers[0]?.env, [{ name: 'MODE', value: mode }]);
  t.diagnostic(
    `spec change: ${patches} label patches; PersistentConflict ${changeReported.toFixed(1)} s after the change; Ready on revision ${revision} ${changeConverged.toFixed(1)} s after the writers stopped`,
  );
});
