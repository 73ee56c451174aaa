// The controller runtime against the real local control plane: reflector, SSA, status no-op,
// events, error classes and the controller loop. Each test gets a fresh namespace.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubernetesObject, type V1ConfigMap, type V1Service } from '@kubernetes/client-node';
import { bed, freshNamespace, waitFor } from './harness.js';
import { installCrd } from './support/operator.js';
import type { ObjectEvent } from '../../src/runtime/cache.js';
import { FIELD_MANAGER, KubeClient } from '../../src/runtime/client.js';
import { Controller } from '../../src/runtime/controller.js';
import { toKubeError } from '../../src/runtime/errors.js';
import { clientEventSink, EventRecorder, type EventBody } from '../../src/runtime/events.js';
import { enqueueSelf } from '../../src/runtime/mappers.js';
import { Reflector } from '../../src/runtime/reflector.js';
import { Resources } from '../../src/runtime/resources.js';
import { writeStatusIfChanged, type Condition } from '../../src/runtime/status.js';
import { KubeTransport } from '../../src/runtime/transport.js';

async function client(t: { after: (fn: () => void) => void }): Promise<KubeClient> {
  const transport = new KubeTransport((await bed()).kc, { qps: 50, burst: 100 });
  t.after(() => transport.close());
  return new KubeClient(transport);
}

const configMap = (ns: string, name: string, data: Record<string, string>): V1ConfigMap => ({ metadata: { namespace: ns, name }, data });

test('reflector: sees add, update and delete of ConfigMaps, and survives a forced watch restart', async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  const reflector = new Reflector<V1ConfigMap>({ client: c, type: Resources.configMaps, namespace: ns });
  t.after(() => reflector.stop());
  const seen: string[] = [];
  reflector.on((e: ObjectEvent<V1ConfigMap>) => {
    if (e.obj.metadata?.name?.startsWith('cm-')) seen.push(`${e.type}:${e.obj.metadata.name}:${e.obj.data?.k ?? ''}`);
  });
  await c.apply(Resources.configMaps, configMap(ns, 'cm-pre', { k: '0' }));
  reflector.start();
  assert.equal(await reflector.waitForSync(30_000), true);
  assert.equal(reflector.cache.get(ns, 'cm-pre')?.data?.k, '0', 'initial list fills the cache');
  assert.deepEqual(
    reflector.cache.get(ns, 'cm-pre')?.metadata?.managedFields,
    [{ manager: FIELD_MANAGER, operation: 'Apply' }],
    'managedFields stripped to who wrote it',
  );

  await c.apply(Resources.configMaps, configMap(ns, 'cm-a', { k: '1' }));
  await c.apply(Resources.configMaps, configMap(ns, 'cm-a', { k: '2' }));
  await waitFor('update seen', () => seen.includes('update:cm-a:2'), { timeoutMs: 15_000 });

  const listsBefore = reflector.stats.lists;
  reflector.restartWatch();
  await c.apply(Resources.configMaps, configMap(ns, 'cm-b', { k: '3' }));
  const cmA = reflector.cache.get(ns, 'cm-a');
  await c.delete(Resources.configMaps, { namespace: ns, name: 'cm-a' }, { uid: cmA?.metadata?.uid });
  await waitFor('delete seen after the restart', () => seen.includes('delete:cm-a:2'), { timeoutMs: 15_000 });
  assert.ok(seen.includes('add:cm-b:3'), `events: ${seen.join(', ')}`);
  assert.equal(reflector.stats.lists, listsBefore, 'a restarted watch resumes from its resourceVersion, no relist');
  assert.ok(reflector.stats.watches >= 2);
  assert.deepEqual(seen, ['add:cm-pre:0', 'add:cm-a:1', 'update:cm-a:2', 'add:cm-b:3', 'delete:cm-a:2']);
  assert.equal(reflector.cache.get(ns, 'cm-a'), undefined);
});

// A custom resource: its watch cache starts when the CRD is established, so on a cluster started a
// moment ago resourceVersion "2" is already outside its window (a ConfigMap watch cache, started with
// the apiserver, may still hold it, and then the server answers without 410).
const workspace = (ns: string, name: string): KubernetesObject & Record<string, unknown> => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { namespace: ns, name },
  resource: { labelSelector: { matchLabels: { 'kaito.sh/sim-pool': 'none' } } },
  inference: { preset: { name: 'phi-4-mini-instruct' } },
});

test('reflector: a watch from an expired resourceVersion gets 410 Gone, relists and keeps watching', async (t) => {
  await installCrd();
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  const reflector = new Reflector<KubernetesObject>({ client: c, type: Resources.workspaces, namespace: ns });
  t.after(() => reflector.stop());
  const seen: string[] = [];
  reflector.on((e: ObjectEvent<KubernetesObject>) => seen.push(`${e.type}:${e.obj.metadata?.name}`));
  await c.apply(Resources.workspaces, workspace(ns, 'old'));
  assert.equal(await reflector.start().waitForSync(30_000), true);
  const lists = reflector.stats.lists;
  // The delete may reach the old watch or only the relist; either way the cache must drop it.
  await c.delete(Resources.workspaces, { namespace: ns, name: 'old' });
  reflector.restartWatch('2');
  await waitFor('relist after 410', () => reflector.stats.expired >= 1 && reflector.stats.lists > lists, { timeoutMs: 15_000 });
  await waitFor('delete noticed', () => seen.includes('delete:old'), { timeoutMs: 15_000 });
  assert.equal(reflector.lastError?.kind, 'Gone');
  assert.match(reflector.lastError?.message ?? '', /too old resource version/);
  await c.apply(Resources.workspaces, workspace(ns, 'new'));
  await waitFor('watching again after the relist', () => seen.includes('add:new'), { timeoutMs: 15_000 });
});

test('server-side apply: one field manager, re-applying the same object is a no-op', async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  const first = await c.apply<V1ConfigMap>(Resources.configMaps, configMap(ns, 'ssa', { a: '1' }));
  const again = await c.apply<V1ConfigMap>(Resources.configMaps, configMap(ns, 'ssa', { a: '1' }));
  assert.equal(again.metadata?.resourceVersion, first.metadata?.resourceVersion, 'same intent → resourceVersion unchanged');
  assert.deepEqual(
    first.metadata?.managedFields?.map((m) => [m.manager, m.operation]),
    [[FIELD_MANAGER, 'Apply']],
  );
  const changed = await c.apply<V1ConfigMap>(Resources.configMaps, configMap(ns, 'ssa', { a: '2' }));
  assert.notEqual(changed.metadata?.resourceVersion, first.metadata?.resourceVersion);
  assert.equal(c.counter.get('apply'), 3);

  // Fields we stop sending are removed; fields another manager owns stay.
  await c.patch(Resources.configMaps, { namespace: ns, name: 'ssa' }, { data: { user: 'x' } });
  const pruned = await c.apply<V1ConfigMap>(Resources.configMaps, configMap(ns, 'ssa', { b: '1' }));
  assert.deepEqual(pruned.data, { b: '1', user: 'x' });
});

test("client-node's typed patch with setHeaderOptions(ServerSideApply) works on this server (checks the notes' claim)", async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const core = (await bed()).kc.makeApiClient(CoreV1Api);
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed', namespace: ns }, data: { x: '1' } };
  const res = await core.patchNamespacedConfigMap(
    { name: 'typed', namespace: ns, body, fieldManager: 'typed-check', force: true },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  );
  assert.equal(res.data?.x, '1');
  assert.deepEqual(
    res.metadata?.managedFields?.map((m) => [m.manager, m.operation]),
    [['typed-check', 'Apply']],
  );
});

test('status: written through the status subresource only when something changed', async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  // A ClusterIP Service: status.conditions is a Condition list no built-in controller writes.
  await c.apply(Resources.services, { metadata: { namespace: ns, name: 'st' }, spec: { ports: [{ port: 80 }] } });
  const cond = (message: string, lastTransitionTime: string): Condition => ({
    type: 'Probed',
    status: 'True',
    reason: 'Checked',
    message,
    lastTransitionTime,
    observedGeneration: 1,
  });
  const get = () => c.get<V1Service & KubernetesObject>(Resources.services, ns, 'st');

  assert.equal(await writeStatusIfChanged(c, Resources.services, await get(), { conditions: [cond('ok', '2026-01-01T00:00:00Z')] }), true);
  const written = await get();
  assert.equal(written.status?.conditions?.[0]?.message, 'ok');

  const writesBefore = c.counter.writes;
  const skipped = await writeStatusIfChanged(c, Resources.services, written, { conditions: [cond('ok', '2026-06-01T00:00:00Z')] });
  assert.equal(skipped, false, 'same status, only lastTransitionTime differs → no write');
  assert.equal(c.counter.writes, writesBefore, 'no request was sent');
  assert.equal((await get()).metadata?.resourceVersion, written.metadata?.resourceVersion);

  assert.equal(await writeStatusIfChanged(c, Resources.services, written, { conditions: [cond('changed', '2026-01-01T00:00:00Z')] }, { mode: 'merge' }), true);
  const after = await get();
  assert.equal(after.status?.conditions?.[0]?.message, 'changed');
  assert.equal(after.spec?.ports?.[0]?.port, 80, 'status writes never touch spec');
});

test('events: recorded as events.k8s.io/v1 and aggregated into one series', async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  const cm = await c.apply<V1ConfigMap>(Resources.configMaps, configMap(ns, 'ev', { a: '1' }));
  const recorder = new EventRecorder({ sink: clientEventSink(c), reportingInstance: 'e2e', patchIntervalMs: 0 });
  for (let i = 0; i < 3; i++) await recorder.event(cm, 'Warning', 'ProbeFailed', 'model server not answering', 'Probe');
  await recorder.event(cm, 'Normal', 'Ready', 'all good');
  const list = await c.list<EventBody & KubernetesObject>(Resources.events, { namespace: ns });
  const warning = list.items.filter((e) => e.reason === 'ProbeFailed');
  assert.equal(warning.length, 1, 'one Event for three identical observations');
  const w = warning[0]!;
  assert.equal(w.series?.count, 3);
  assert.equal(w.reportingController, 'kaito-ts');
  assert.equal(w.reportingInstance, 'e2e');
  assert.equal(w.type, 'Warning');
  assert.equal(w.action, 'Probe');
  assert.deepEqual([w.regarding.kind, w.regarding.name, w.regarding.uid], ['ConfigMap', 'ev', cm.metadata?.uid]);
  assert.equal(list.items.filter((e) => e.reason === 'Ready').length, 1);
});

test('errors: the real server classified through one place', async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  const kind = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => toKubeError(e).kind,
    );
  assert.equal(await kind(c.get(Resources.configMaps, ns, 'missing')), 'NotFound');
  const cm = await c.create(Resources.configMaps, configMap(ns, 'dup', {}));
  assert.equal(await kind(c.create(Resources.configMaps, configMap(ns, 'dup', {}))), 'AlreadyExists');
  assert.equal(await kind(c.delete(Resources.configMaps, { namespace: ns, name: 'dup' }, { uid: 'not-the-uid' })), 'Conflict', 'UID precondition refuses');
  const invalid = await c.create(Resources.configMaps, configMap(ns, 'Bad_Name', {})).catch((e: unknown) => toKubeError(e));
  assert.equal((invalid as { kind?: string }).kind, 'Invalid');
  assert.match((invalid as Error).message, /Bad_Name/, "422 keeps the server's message");
  assert.equal(await kind(c.delete(Resources.configMaps, { namespace: ns, name: 'dup' }, { uid: cm.metadata?.uid })), 'ok');
  assert.equal(await kind(c.get({ ...Resources.workspaces, plural: 'nosuchthings' }, ns, 'x')), 'NotFound', 'a resource type the server does not serve');
});

test('controller: a ConfigMap change reaches reconcile(key) once per burst, with nothing written when nothing changed', async (t) => {
  const ns = await freshNamespace(t, 'rt');
  const c = await client(t);
  const reflector = new Reflector<V1ConfigMap>({ client: c, type: Resources.configMaps, namespace: ns });
  const seen: string[] = [];
  const ctl = new Controller({
    name: 'e2e',
    maxConcurrentReconciles: 2,
    reconcile: async (key) => {
      seen.push(key);
      const [namespace, name] = key.split('/') as [string, string];
      const cm = reflector.cache.get(namespace, name);
      // Level-triggered: converge to "label present" from the cache, write only on a difference.
      if (cm && cm.metadata?.labels?.seen !== 'yes') {
        await c.apply(Resources.configMaps, { metadata: { namespace, name, labels: { seen: 'yes' } }, data: cm.data });
      }
    },
  }).watch(reflector, enqueueSelf);
  t.after(() => ctl.stop(5_000));
  await ctl.start();
  await c.create(Resources.configMaps, configMap(ns, 'work', { a: '1' }));
  await waitFor('label applied by the reconciler', () => reflector.cache.get(ns, 'work')?.metadata?.labels?.seen === 'yes', { timeoutMs: 15_000 });
  await waitFor('queue idle', () => ctl.queue.len === 0 && ctl.queue.inFlight === 0);
  const writes = c.counter.writes;
  ctl.enqueue(`${ns}/work`);
  await waitFor('one more pass', () => seen.filter((k) => k === `${ns}/work`).length >= 3 && ctl.queue.inFlight === 0);
  assert.equal(c.counter.writes, writes, 'a converged object causes no writes');
});
