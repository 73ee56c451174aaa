// Limits on the real control plane: what no workspace can use is refused at apply (a name too long
// for its derived names, a count past the ceiling); a template asking for more replicas than its
// bring-your-own nodes hold gets one per node, growing as nodes appear; a child object the API
// server refuses becomes a False condition and a Warning event with the server's words, retried
// with the queue's backoff (never sooner than 5 min), not in a loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { RESOURCE_COUNT_MAX, WORKSPACE_NAME_MAX } from '../../../src/api/crd.js';
import { kubectl, waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  createPools,
  deletePools,
  getAll,
  getOne,
  getWorkspace,
  pool,
  selectorFor,
  sleep,
  waitCondition,
  waitReady,
  warningEvents,
  world,
} from '../support/operator.js';

const container = { name: 'c', image: 'nginx' };
const template = (spec: Record<string, unknown>) => ({ template: { spec } });

test('the API server refuses a name too long for its derived names and a count past the ceiling; the longest name works', async (t) => {
  const a10 = pool('a10', 1);
  const w = await world(t, { pools: [a10] });
  const sel = selectorFor(a10);
  const refused: { what: string; ws: Record<string, unknown>; message: RegExp }[] = [
    {
      what: `a ${WORKSPACE_NAME_MAX + 1}-character name`,
      ws: { metadata: { name: 'n'.repeat(WORKSPACE_NAME_MAX + 1) }, resource: { labelSelector: sel }, inference: template({ containers: [container] }) },
      message: new RegExp(
        `metadata\\.name must be no more than ${WORKSPACE_NAME_MAX} characters: the StatefulSet controller labels each pod controller-revision-hash`,
      ),
    },
    ...[RESOURCE_COUNT_MAX + 1, 100_000, 2_147_483_647, 2_147_483_648].map((count) => ({
      what: `count ${count}`,
      ws: { metadata: { name: `count-${count}` }, resource: { count, labelSelector: sel }, inference: template({ containers: [container] }) },
      message: new RegExp(`resource\\.count: Invalid value: ${count}: .*less than or equal to ${RESOURCE_COUNT_MAX}`),
    })),
  ];
  for (const c of refused) {
    await assert.rejects(applyWorkspace(w.ns, c.ws), c.message, c.what);
    assert.equal(await getWorkspace(w.ns, String((c.ws.metadata as { name: string }).name)), undefined, `${c.what}: nothing stored`);
  }
  // Exactly at the ceiling every derived name fits: the pods are created and serve.
  const longest = 'l'.repeat(WORKSPACE_NAME_MAX);
  await applyWorkspace(w.ns, { metadata: { name: longest }, resource: { labelSelector: sel }, inference: template({ containers: [container] }) });
  await waitReady(w.ns, longest);
  const pods = await getAll<{ metadata: { labels?: Record<string, string> } }>(w.ns, 'pods', `kaito.sh/workspace=${longest}`);
  const hash = pods[0]?.metadata.labels?.['controller-revision-hash'] ?? '';
  t.diagnostic(`controller-revision-hash of a ${WORKSPACE_NAME_MAX}-character workspace: ${hash.length} characters`);
  assert.ok(hash.startsWith(`${longest}-`) && hash.length <= 63, hash);
});

test('a template asking for far more replicas than its BYO nodes hold gets one per node, a condition says so, and it grows with the nodes', async (t) => {
  const a10 = pool('a10', 2);
  const w = await world(t, { pools: [a10] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'greedy' },
    resource: { count: RESOURCE_COUNT_MAX, labelSelector: selectorFor(a10) },
    inference: template({ containers: [container] }),
  });
  const ws = await waitCondition(w.ns, 'greedy', 'ResourceReady', 'False', { reason: 'InsufficientMatchingNodes' });
  assert.match(conditionOf(ws, 'ResourceReady')?.message ?? '', new RegExp(`targetNodeCount is ${RESOURCE_COUNT_MAX} but 2 node\\(s\\) match`));
  assert.equal(ws.status?.targetNodeCount, RESOURCE_COUNT_MAX);
  assert.equal((await getOne<V1StatefulSet>(w.ns, 'statefulset', 'greedy'))?.spec?.replicas, 2);
  await waitReady(w.ns, 'greedy');

  // A third node matching the selector: the StatefulSet grows to it (never past the nodes).
  const grown = { ...a10, count: 3 };
  t.after(() => deletePools([grown]));
  await createPools([grown]);
  await waitFor('replicas raised to 3', async () => (await getOne<V1StatefulSet>(w.ns, 'statefulset', 'greedy'))?.spec?.replicas === 3);
  await waitCondition(w.ns, 'greedy', 'ResourceReady', 'False', { reason: 'InsufficientMatchingNodes' });
  assert.match(conditionOf(await getWorkspace(w.ns, 'greedy'), 'ResourceReady')?.message ?? '', /but 3 node\(s\) match/);
});

test('child objects the API server refuses: ChildObjectRejected with the server message, a Warning event, not retried until the spec changes', async (t) => {
  const a10 = pool('a10', 1);
  const w = await world(t, { pools: [a10] });
  const sel = selectorFor(a10);
  const cases: { name: string; spec: Record<string, unknown>; message: RegExp }[] = [
    { name: 'never-restart', spec: { restartPolicy: 'Never', containers: [container] }, message: /restartPolicy: Unsupported value: "Never"/ },
    { name: 'no-image', spec: { containers: [{ name: 'c' }] }, message: /image: Required value/ },
    { name: 'twin-containers', spec: { containers: [container, container] }, message: /duplicate entries for key \[name="c"\]/ },
    {
      name: 'gpu-abc',
      spec: { containers: [{ ...container, resources: { limits: { 'nvidia.com/gpu': 'abc' } } }] },
      message: /quantities must match the regular expression/,
    },
    {
      name: 'gpu-negative',
      spec: { containers: [{ ...container, resources: { limits: { 'nvidia.com/gpu': '-1' } } }] },
      message: /must be greater than or equal to 0/,
    },
  ];
  for (const c of cases) await applyWorkspace(w.ns, { metadata: { name: c.name }, resource: { labelSelector: sel }, inference: template(c.spec) });
  for (const c of cases) {
    const ws = await waitCondition(w.ns, c.name, 'InferenceReady', 'False', { reason: 'ChildObjectRejected' });
    const message = conditionOf(ws, 'InferenceReady')?.message ?? '';
    t.diagnostic(`${c.name}: ${message.slice(0, 200)}`);
    assert.match(message, /the API server refused an object of this workspace \(HTTP (400|422|500)\)/, c.name);
    assert.match(message, c.message, c.name);
    assert.equal(conditionOf(ws, 'WorkspaceSucceeded')?.status, 'False', c.name);
    await waitFor(`Warning event for ${c.name}`, async () =>
      (await warningEvents(w.ns, c.name)).some((e) => e.reason === 'ChildObjectRejected' && c.message.test(e.note)),
    );
    assert.equal(await getOne(w.ns, 'statefulset', c.name), undefined, `${c.name}: nothing half-made`);
  }

  // Terminal, not a loop: the refusal comes from the spec, so no retry is scheduled and nothing is
  // sent until an event (a spec change) or the periodic resync brings the key back.
  const op = w.op!;
  const queue = op.mgr.workspace.controller.queue;
  await sleep(2_000);
  // What the operator's caches saw in the window, so a failure names what woke the keys.
  const seen: string[] = [];
  const unsubscribe = op.mgr.workspace.reflectors.map((r) =>
    r.on((e) => seen.push(`${r.name} ${e.type} ${e.obj.metadata?.namespace ?? ''}/${e.obj.metadata?.name ?? ''}`)),
  );
  const [reconciles0, writes0] = [op.reconciles(), op.writes()];
  await sleep(10_000);
  unsubscribe.forEach((off) => off());
  const reconciles = op.reconciles() - reconciles0;
  const writes = op.writes() - writes0;
  const requeues = cases.map((c) => queue.numRequeues(`${w.ns}/${c.name}`));
  t.diagnostic(`over 10 s with ${cases.length} refused workspaces: ${reconciles} reconciles, ${writes} writes; failures per key: ${requeues.join(', ')}`);
  t.diagnostic(`events in the window: ${seen.length ? seen.join('; ') : 'none'}`);
  for (const [i, c] of cases.entries()) assert.equal(requeues[i], 0, `${c.name}: no retry is scheduled (${requeues[i]} failures kept)`);
  assert.equal(reconciles, 0, `reconciles in 10 s: ${reconciles}; events seen: ${seen.join('; ') || 'none'}`);
  assert.equal(writes, 0, `writes in 10 s: ${writes}`);

  // Fixed by the user: the next event brings it back at once and it converges.
  await kubectl(['delete', 'workspace', 'never-restart'], { namespace: w.ns });
  await applyWorkspace(w.ns, { metadata: { name: 'never-restart' }, resource: { labelSelector: sel }, inference: template({ containers: [container] }) });
  await waitReady(w.ns, 'never-restart');
});
