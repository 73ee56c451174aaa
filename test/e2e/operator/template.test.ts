// Template workspaces on the real control plane: quantities in non-canonical forms and a field
// Kubernetes does not know. Go's decoding (KAITO) drops the field and server-side apply would refuse
// it, so the StatefulSet must come without it; status and a Warning event name it; the converged
// workspace then costs zero writes (the template StatefulSet carries the revision annotation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../../../src/api/labels.js';
import { kubectl, waitFor } from '../harness.js';
import {
  applyWorkspace,
  assertNoWritesWhenTouched,
  conditionOf,
  getOne,
  pool,
  selectorFor,
  waitReady,
  waitRolledOut,
  warningEvents,
  world,
} from '../support/operator.js';

test('template with quantities and an unknown field: converges without the field, says so, then 0 writes when touched', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'tmpl' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: {
      template: {
        metadata: { labels: { app: 'tmpl' } },
        spec: {
          containers: [
            {
              name: 'server',
              image: 'nginx:1.27',
              warmup: true,
              resources: { requests: { cpu: '1000m', memory: '0.5Gi' }, limits: { cpu: 1.5, memory: '2048Mi', 'nvidia.com/gpu': 1 } },
            },
          ],
        },
      },
    },
  });
  const ws = await waitReady(w.ns, 'tmpl');
  assert.match(conditionOf(ws, 'InferenceReady')?.message ?? '', /dropped: spec\.containers\[0\]\.warmup$/);

  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'tmpl');
  assert.equal(sts?.metadata?.annotations?.[ANNOTATION_REVISION], '1');
  const server = sts?.spec?.template.spec?.containers[0];
  assert.equal((server as Record<string, unknown> | undefined)?.warmup, undefined);
  assert.deepEqual(server?.resources, { requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1500m', memory: '2Gi', 'nvidia.com/gpu': '1' } });

  const events = await waitFor('TemplateFieldsDropped event', async () => {
    const found = (await warningEvents(w.ns, 'tmpl')).filter((e) => e.reason === 'TemplateFieldsDropped');
    return found.length ? found : undefined;
  });
  assert.match(events[0]!.note, /spec\.containers\[0\]\.warmup/);

  await assertNoWritesWhenTouched(w.op!, w.ns, 'tmpl');
});

test('a template StatefulSet as KAITO v0.8.0 leaves it (no revision annotation) is taken over without a write', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  const template = {
    metadata: { labels: { app: 'kaito-made' } },
    spec: { containers: [{ name: 'server', image: 'nginx:1.27', resources: { limits: { 'nvidia.com/gpu': 1 } } }] },
  };
  await applyWorkspace(w.ns, { metadata: { name: 'kaito-made' }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { template } });
  await waitReady(w.ns, 'kaito-made');
  // Make it look like KAITO's: stop the operator, drop the annotation KAITO never writes, start again.
  await w.op!.stop();
  await kubectl(['annotate', 'statefulset', 'kaito-made', `${ANNOTATION_REVISION}-`], { namespace: w.ns });
  const before = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'kaito-made');
  await w.start();
  await waitReady(w.ns, 'kaito-made');
  await assertNoWritesWhenTouched(w.op!, w.ns, 'kaito-made');
  const after = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'kaito-made');
  assert.equal(after?.metadata?.resourceVersion, before?.metadata?.resourceVersion, 'the StatefulSet was not written');
  assert.equal(after?.metadata?.annotations?.[ANNOTATION_REVISION], undefined);
});

test("the first spec change after taking over a template StatefulSet another manager wrote: our template whole, KAITO's exec probe gone", async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  const container = { name: 'server', image: 'nginx:1.27', resources: { limits: { 'nvidia.com/gpu': 1 } } };
  const probe = { httpGet: { path: '/healthz', port: 80 } };
  const spec = (env: string) => ({
    metadata: { name: 'taken' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: {
      template: { metadata: { labels: { app: 'taken' } }, spec: { containers: [{ ...container, startupProbe: probe, env: [{ name: 'E', value: env }] }] } },
    },
  });
  await applyWorkspace(w.ns, spec('1'));
  await waitReady(w.ns, 'taken');
  // Make it KAITO's: stop the operator, create the StatefulSet again under another field manager,
  // with KAITO's image and an exec startup probe (SSA would keep that probe beside our httpGet one).
  await w.op!.stop();
  const ours = (await getOne<V1StatefulSet>(w.ns, 'statefulset', 'taken'))!;
  await kubectl(['delete', 'statefulset', 'taken', '--cascade=orphan'], { namespace: w.ns });
  const main = ours.spec!.template.spec!.containers[0]!;
  const theirs = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'taken', labels: ours.metadata?.labels, annotations: ours.metadata?.annotations, ownerReferences: ours.metadata?.ownerReferences },
    spec: {
      ...ours.spec,
      template: {
        ...ours.spec!.template,
        spec: { ...ours.spec!.template.spec, containers: [{ ...main, image: 'kaito-base:0.5.0', startupProbe: { exec: { command: ['true'] } } }] },
      },
    },
  };
  await kubectl(['create', '--field-manager=manager', '-f', '-'], { namespace: w.ns, input: JSON.stringify(theirs) });
  await applyWorkspace(w.ns, spec('2'));
  await w.start();
  await waitRolledOut(w.ns, 'taken', 2);
  const after = (await getOne<V1StatefulSet>(w.ns, 'statefulset', 'taken'))!;
  const server = after.spec!.template.spec!.containers[0]!;
  assert.equal(server.image, 'nginx:1.27', "our image, not KAITO's");
  assert.deepEqual(server.startupProbe?.httpGet?.path, '/healthz');
  assert.equal(server.startupProbe?.exec, undefined, "KAITO's exec probe is gone");
  assert.deepEqual(server.env, [{ name: 'E', value: '2' }]);
  const fields = await kubectl(['get', 'statefulset', 'taken', '-o', 'json', '--show-managed-fields'], { namespace: w.ns });
  const writers = (JSON.parse(fields) as V1StatefulSet).metadata!.managedFields!;
  const template = (m: (typeof writers)[number]) => !!(m.fieldsV1 as { 'f:spec'?: { 'f:template'?: object } } | undefined)?.['f:spec']?.['f:template'];
  assert.deepEqual(
    writers.filter(template).map((m) => `${m.manager} ${m.operation}`),
    ['kaito-ts Apply'],
    'only kaito-ts owns the pod template',
  );
});
