// Persistent conflicts on the real control plane (issue 14: no silent failure). Other clients keep
// changing the workspace while its spec moves to a new revision, so the operator's conditional
// metadata write (the revision annotations, guarded by resourceVersion) keeps getting 409. After
// CONFLICTS_BEFORE_REPORT of them in a row the workspace must say so: InferenceReady=False
// PersistentConflict and a Warning event. Once the writers stop, it must converge on the new revision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../../../src/api/labels.js';
import { PERSISTENT_CONFLICT } from '../../../src/controllers/workspace/failures.js';
import { bed, waitFor } from '../harness.js';
import { applyWorkspace, conditionOf, getOne, getWorkspace, pool, selectorFor, waitCondition, waitReady, warningEvents, world } from '../support/operator.js';

const WS = { group: 'kaito.sh', version: 'v1beta1', plural: 'workspaces' };
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/**
 * Writers in parallel, each patching a label back to back, so the resourceVersion moves faster than
 * the operator can read it and write. (One writer every 50 ms is not enough: a pass that starts on
 * the watch event of a write usually gets its own write in before the next one.)
 */
const WRITERS = 16;

test('a workspace that others keep changing reports PersistentConflict with a Warning event, and converges once they stop', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  // The env is what a new revision may change on a template StatefulSet (KAITO's selective update).
  const template = (mode: string) => ({ spec: { containers: [{ name: 'server', image: 'nginx:1.27', env: [{ name: 'MODE', value: mode }], resources: { limits: { 'nvidia.com/gpu': 1 } } }] } });
  await applyWorkspace(w.ns, { metadata: { name: 'busy' }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { template: template('first') } });
  await waitReady(w.ns, 'busy');

  const api = (await bed()).kc.makeApiClient(CustomObjectsApi);
  const patch = (body: object) => api.patchNamespacedCustomObject({ ...WS, namespace: w.ns, name: 'busy', body }, MERGE);
  let writing = true;
  let patches = 0;
  const failures: string[] = [];
  const writers = Array.from({ length: WRITERS }, async (_, i) => {
    while (writing) {
      await patch({ metadata: { labels: { [`e2e.kaito.sh/writer-${i}`]: String(patches++) } } }).catch((err: unknown) => failures.push(String(err)));
    }
  });
  t.after(async () => {
    writing = false;
    await Promise.allSettled(writers);
  });

  // A new revision: the operator must write its annotations, conditionally on the resourceVersion it saw.
  const started = Date.now();
  await patch({ inference: { template: template('second') } });
  const progress = setInterval(() => t.diagnostic(`${((Date.now() - started) / 1000).toFixed(0)} s: ${patches} patches, ${failures.length} failed`), 5000);
  const reported = await waitCondition(w.ns, 'busy', 'InferenceReady', 'False', { reason: PERSISTENT_CONFLICT, timeoutMs: 120_000 }).finally(() => clearInterval(progress));
  const reportedAfter = (Date.now() - started) / 1000;
  assert.match(conditionOf(reported, 'InferenceReady')?.message ?? '', /409 Conflict \d+ times in a row/);
  const events = await waitFor('a PersistentConflict Warning event', async () => {
    const found = (await warningEvents(w.ns, 'busy')).filter((e) => e.reason === PERSISTENT_CONFLICT);
    return found.length ? found : undefined;
  });
  assert.match(events[0]!.note, /409 Conflict/);
  assert.notEqual(reported.metadata.annotations?.[ANNOTATION_REVISION], '2', 'the new revision is not recorded while the conflicts last');

  writing = false;
  await Promise.all(writers);
  assert.deepEqual(failures.slice(0, 3), [], `writers' patches failed ${failures.length} times`);
  const stopped = Date.now();
  const ready = await waitReady(w.ns, 'busy', 120_000);
  const convergedAfter = (Date.now() - stopped) / 1000;
  assert.equal(ready.metadata.annotations?.[ANNOTATION_REVISION], '2');
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'busy');
  assert.equal(sts?.metadata?.annotations?.[ANNOTATION_REVISION], '2');
  assert.deepEqual(sts?.spec?.template.spec?.containers[0]?.env, [{ name: 'MODE', value: 'second' }]);
  assert.equal((await getWorkspace(w.ns, 'busy'))?.status?.conditions?.some((c) => c.reason === PERSISTENT_CONFLICT), false, 'the conflict condition is gone');
  t.diagnostic(`${WRITERS} writers, ${patches} label patches; PersistentConflict reported ${reportedAfter.toFixed(1)} s after the spec change; Ready on revision 2 ${convergedAfter.toFixed(1)} s after the writers stopped`);
});
