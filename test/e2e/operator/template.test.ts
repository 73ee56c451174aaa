// Template workspaces on the real control plane: quantities in non-canonical forms and a field
// Kubernetes does not know. Go's decoding (KAITO) drops the field and server-side apply would refuse
// it, so the StatefulSet must come without it; status and a Warning event name it; the converged
// workspace then costs zero writes (the template StatefulSet carries the revision annotation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../../../src/api/labels.js';
import { kubectl, waitFor } from '../harness.js';
import { applyWorkspace, assertNoWritesWhenTouched, conditionOf, getOne, pool, selectorFor, waitReady, warningEvents, world } from '../support/operator.js';

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
