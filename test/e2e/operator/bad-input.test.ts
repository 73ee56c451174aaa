// Bad input on the real control plane: what the CRD can judge is refused at apply (CEL); what only
// the operator can know is reported in status with a Warning event, with bounded retries, while a
// good workspace next to it still converges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
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

test('the API server refuses invalid workspaces at apply (CEL)', async (t) => {
  const w = await world(t, { operator: false });
  const sel = { matchLabels: { 'kaito.sh/sim-pool': 'a10' } };
  const cases: { what: string; ws: Record<string, unknown>; message: RegExp }[] = [
    {
      what: 'both preset and template',
      ws: {
        metadata: { name: 'both' },
        resource: { labelSelector: sel },
        inference: { preset: { name: 'phi-3-mini-4k-instruct' }, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      },
      message: /Preset and Template cannot be set at the same time/,
    },
    {
      what: 'neither preset nor template',
      ws: { metadata: { name: 'neither' }, resource: { labelSelector: sel }, inference: {} },
      message: /Preset or Template must be specified/,
    },
    {
      what: 'bad name',
      ws: { metadata: { name: 'bad.name' }, resource: { labelSelector: sel }, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } },
      message: /metadata\.name/,
    },
    {
      what: 'duplicate adapter names',
      ws: {
        metadata: { name: 'dup' },
        resource: { labelSelector: sel },
        inference: { preset: { name: 'phi-3-mini-4k-instruct' }, adapters: [{ source: { name: 'a', image: 'x/a' } }, { source: { name: 'a', image: 'x/b' } }] },
      },
      message: /Duplicate adapter source name/,
    },
  ];
  for (const c of cases) {
    await assert.rejects(applyWorkspace(w.ns, c.ws), c.message, c.what);
    assert.equal(await getWorkspace(w.ns, String((c.ws.metadata as { name: string }).name)), undefined, `${c.what}: nothing stored`);
  }
});

test('unknown preset and too little GPU memory: False condition naming the problem, Warning event, bounded retries; a good workspace still converges', async (t) => {
  const a10 = pool('a10', 2);
  const w = await world(t, { pools: [a10] });
  const sel = selectorFor(a10);
  await applyWorkspace(w.ns, { metadata: { name: 'typo' }, resource: { labelSelector: sel }, inference: { preset: { name: 'phi-4-mini-instruc' } } });
  await applyWorkspace(w.ns, {
    metadata: { name: 'too-big' },
    resource: { labelSelector: sel },
    inference: { preset: { name: 'qwen2.5-coder-32b-instruct' } },
  });

  const typo = await waitCondition(w.ns, 'typo', 'InferenceReady', 'False');
  const typoMsg = conditionOf(typo, 'InferenceReady')?.message ?? '';
  assert.match(typoMsg, /phi-4-mini-instruc/);
  assert.match(typoMsg, /phi-4-mini-instruct/, 'closest names suggested');
  assert.equal(conditionOf(typo, 'WorkspaceSucceeded')?.status, 'False');

  const big = await waitCondition(w.ns, 'too-big', 'InferenceReady', 'False');
  assert.match(conditionOf(big, 'InferenceReady')?.message ?? '', /Insufficient total GPU memory/);

  await waitFor('Warning events for both', async () => (await warningEvents(w.ns, 'typo')).length > 0 && (await warningEvents(w.ns, 'too-big')).length > 0);
  for (const name of ['typo', 'too-big']) assert.equal(await getOne(w.ns, 'statefulset', name), undefined, `${name}: no workload created`);

  // The operator keeps serving others meanwhile.
  await applyWorkspace(w.ns, { metadata: { name: 'good' }, resource: { labelSelector: sel }, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } });
  await waitReady(w.ns, 'good');

  // No hot loop: with nothing changing, requests over 10 s stay bounded.
  const op = w.op!;
  const counter = op.mgr.client.counter;
  const total = () => (['get', 'list', 'create', 'update', 'patch', 'apply', 'delete'] as const).reduce((s, v) => s + counter.get(v), 0);
  await sleep(1000);
  const [requests0, reconciles0] = [total(), op.reconciles()];
  await sleep(10_000);
  const requests = total() - requests0;
  const reconciles = op.reconciles() - reconciles0;
  t.diagnostic(`over 10 s with two bad workspaces: ${requests} requests, ${reconciles} reconciles`);
  assert.ok(requests <= 10, `requests in 10 s: ${requests} (${JSON.stringify(counter.snapshot())})`);
  assert.ok(reconciles <= 10, `reconciles in 10 s: ${reconciles}`);
  const events = (await warningEvents(w.ns, 'typo')).length;
  assert.ok(events <= 3, `Warning events for typo: ${events} (deduplicated/bounded)`);
});
