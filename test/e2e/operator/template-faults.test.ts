// Template workspaces with faults a fault-injection run found (issue #18): a pod template whose spec is
// not an object (the API server must refuse it: a builder would trip over it, and KAITO's Go decoder
// cannot read it either), and a template that pins its pod with spec.nodeName to a node that does not
// exist (the status must name the cause instead of saying PodsNotReady forever).
// The same wrong-typed object stored before the CRD declared the type cannot be made on a current
// cluster; validation's refusal of it is a unit test (test/unit/builders/wrong-types.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../harness.js';
import { applyWorkspace, conditionOf, getAll, getWorkspace, pool, selectorFor, waitCondition, warningEvents, world } from '../support/operator.js';

const container = { name: 'server', image: 'nginx:1.27' };

test('the API server refuses a pod template, or its spec or metadata, that is not an object, naming the field', async (t) => {
  const w = await world(t, { operator: false });
  const sel = { matchLabels: { 'kaito.sh/sim-pool': 'a10' } };
  const cases: { name: string; template: unknown; message: RegExp }[] = [
    { name: 'spec-string', template: { spec: 'oops' }, message: /inference\.template\.spec: Invalid value: "string": .*must be of type object/ },
    { name: 'spec-list', template: { spec: [container] }, message: /inference\.template\.spec: Invalid value: "array": .*must be of type object/ },
    {
      name: 'metadata-string',
      template: { metadata: 'app=x', spec: { containers: [container] } },
      message: /inference\.template\.metadata: Invalid value: "string": .*must be of type object/,
    },
    { name: 'template-string', template: 'oops', message: /inference\.template: Invalid value: "string": .*must be of type object/ },
  ];
  for (const c of cases) {
    await assert.rejects(
      applyWorkspace(w.ns, { metadata: { name: c.name }, resource: { labelSelector: sel }, inference: { template: c.template } }),
      c.message,
      c.name,
    );
    assert.equal(await getWorkspace(w.ns, c.name), undefined, `${c.name}: nothing stored`);
  }
  // What KAITO's schema accepts inside the template still goes through as written (fields unknown to the
  // pod spec included: the operator drops them as Go does, see template.test.ts).
  await applyWorkspace(w.ns, {
    metadata: { name: 'fine' },
    resource: { labelSelector: sel },
    inference: { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [container], futureField: { a: 1 } } } },
  });
  const stored = await getWorkspace(w.ns, 'fine');
  assert.deepEqual((stored?.inference?.template?.spec as Record<string, unknown> | undefined)?.futureField, { a: 1 });
});

test('a template pinned by spec.nodeName to a node that does not exist: InferenceReady=False NodeNotFound and a Warning event, not PodsNotReady forever', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'pinned' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { template: { metadata: { labels: { app: 'pinned' } }, spec: { nodeName: 'no-such-node', containers: [container] } } },
  });

  // The StatefulSet controller creates the pod bound to the missing node; nothing will ever run it.
  const pods = await waitFor('pod pinned-0 bound to no-such-node', async () => {
    const found = (await getAll<V1Pod>(w.ns, 'pods')).filter((p) => p.metadata?.name === 'pinned-0' && p.spec?.nodeName === 'no-such-node');
    return found.length ? found : undefined;
  });
  assert.equal(pods[0]?.status?.phase === 'Running', false);

  const ws = await waitCondition(w.ns, 'pinned', 'InferenceReady', 'False', { reason: 'NodeNotFound', timeoutMs: 60_000 });
  const message = conditionOf(ws, 'InferenceReady')?.message ?? '';
  assert.match(message, /^pod pinned-0 is bound to node no-such-node, which does not exist; a pod template's spec\.nodeName bypasses the scheduler/);

  const events = await waitFor(
    'NodeNotFound Warning event',
    async () => {
      const found = (await warningEvents(w.ns, 'pinned')).filter((e) => e.reason === 'NodeNotFound');
      return found.length ? found : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.match(events[0]!.note, /no-such-node, which does not exist/);
});
