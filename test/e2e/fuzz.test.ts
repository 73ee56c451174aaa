// Property test on the real control plane: a seeded generator of invalid and odd workspaces. Every
// workspace ends refused (the API server rejects it), converged (InferenceReady True) or explained
// (a False condition with reason and message plus a Warning event); none may be unexplained. Then a
// quiet minute: no write, reconciles near 0 (refusals back off, events bring them back).
//   KAITO_TS_FUZZ_COUNT (default 300) workspaces, KAITO_TS_FUZZ_SEED (default 14) picks them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CustomObjectsApi, EventsV1Api } from '@kubernetes/client-node';
import { bed, waitFor } from './harness.js';
import { pool, selectorFor, sleep, world } from './support/operator.js';
import type { WorkspaceObject } from '../../src/controllers/workspace/context.js';
import { generate } from './support/workspace-fuzz.js';

const COUNT = Number(process.env.KAITO_TS_FUZZ_COUNT ?? 300);
const SEED = Number(process.env.KAITO_TS_FUZZ_SEED ?? 14);
const WS = { group: 'kaito.sh', version: 'v1beta1', plural: 'workspaces' };

/** Runs `fn` over `items`, at most `limit` at a time. */
async function inBatches<T>(items: T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

type Verdict = 'refused' | 'converged' | 'explained';

test(`fuzz: ${COUNT} seeded odd/invalid workspaces (seed ${SEED}) each end refused, converged or explained; then a quiet minute`, async (t) => {
  const a10 = pool('a10', 2);
  const w = await world(t, { pools: [a10] });
  const { kc } = await bed();
  const api = kc.makeApiClient(CustomObjectsApi);
  const events = kc.makeApiClient(EventsV1Api);
  const cases = generate(SEED, COUNT, selectorFor(a10));

  const verdicts = new Map<string, Verdict>();
  const shapeOf = new Map(cases.map((c) => [c.name, c.shape]));
  const started = Date.now();
  await inBatches(cases, 8, async (c) => {
    try {
      await api.createNamespacedCustomObject({ ...WS, namespace: w.ns, body: c.body });
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 400 && code !== 422) throw err;
      verdicts.set(c.name, 'refused');
    }
  });
  const applied = Date.now();

  const judge = async (): Promise<Map<string, string>> => {
    const list = ((await api.listNamespacedCustomObject({ ...WS, namespace: w.ns })) as { items: WorkspaceObject[] }).items;
    const warned = new Set(
      (await events.listNamespacedEvent({ namespace: w.ns, fieldSelector: 'type=Warning,regarding.kind=Workspace' })).items.map((e) => e.regarding?.name),
    );
    const open = new Map<string, string>();
    for (const ws of list) {
      const name = ws.metadata.name ?? '';
      const c = ws.status?.conditions?.find((x) => x.type === 'InferenceReady');
      const current = c && c.observedGeneration === ws.metadata.generation;
      if (current && c.status === 'True') verdicts.set(name, 'converged');
      else if (current && c.status === 'False' && c.reason && c.message && warned.has(name)) verdicts.set(name, 'explained');
      else {
        verdicts.delete(name);
        open.set(name, c ? `${c.status} ${c.reason}: ${c.message}; warning event: ${warned.has(name)}` : 'no InferenceReady');
      }
    }
    return open;
  };
  const statuses = async (): Promise<Map<string, string>> => {
    const list = ((await api.listNamespacedCustomObject({ ...WS, namespace: w.ns })) as { items: WorkspaceObject[] }).items;
    return new Map(list.map((ws) => [ws.metadata.name ?? '', JSON.stringify(ws.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]))]));
  };
  let open = new Map<string, string>();
  await waitFor('every workspace classified', async () => (open = await judge()).size === 0, { timeoutMs: 180_000, intervalMs: 2_000 }).catch(() => undefined);
  const classified = Date.now();

  const counts = { refused: 0, converged: 0, explained: 0, unexplained: open.size };
  for (const v of verdicts.values()) counts[v]++;
  const byShape: Record<string, Record<string, number>> = {};
  for (const [name, v] of [...verdicts, ...[...open.keys()].map((n) => [n, 'unexplained'] as const)]) {
    const s = (byShape[shapeOf.get(name) ?? '?'] ??= {});
    s[v] = (s[v] ?? 0) + 1;
  }
  const summary = `fuzz seed ${SEED}: ${COUNT} workspaces (${verdicts.size + open.size} distinct names): ${counts.refused} refused, ${counts.converged} converged, ${counts.explained} explained, ${counts.unexplained} unexplained; applied in ${((applied - started) / 1000).toFixed(1)} s, all classified ${((classified - applied) / 1000).toFixed(1)} s after the last apply`;
  t.diagnostic(summary);
  t.diagnostic(`by shape: ${JSON.stringify(byShape)}`);
  for (const [name, why] of [...open].slice(0, 20)) t.diagnostic(`unexplained ${name} (${shapeOf.get(name)}): ${why}`);
  assert.equal(counts.unexplained, 0, `unexplained workspaces: ${[...open.keys()].slice(0, 20).join(', ')}`);
  assert.ok(counts.refused > 0 && counts.converged > 0 && counts.explained > 0, 'every class is exercised');

  // Quiet: once the storm's echoes have settled, a minute with no write and reconciles near 0.
  const op = w.op!;
  await waitFor(
    'operator idle',
    async () => {
      const before = op.reconciles();
      await sleep(3_000);
      return op.reconciles() === before && op.mgr.workspace.controller.queue.len === 0;
    },
    { timeoutMs: 120_000 },
  );
  const counter = op.mgr.client.counter;
  const requests = () => Object.entries(counter.snapshot()).reduce((sum, [verb, n]) => sum + (verb === 'watch' ? 0 : (n ?? 0)), 0);
  const [writes0, reconciles0, snapshot0, requests0] = [op.writes(), op.reconciles(), JSON.stringify(counter.snapshot()), requests()];
  const before = await statuses();
  await sleep(60_000);
  const writes = op.writes() - writes0;
  const reconciles = op.reconciles() - reconciles0;
  const sent = requests() - requests0;
  t.diagnostic(
    `quiet minute after the storm: ${writes} writes, ${reconciles} reconciles, ${sent} requests besides watches = ${(sent / 60).toFixed(3)}/s (requests before ${snapshot0}, after ${JSON.stringify(op.mgr.client.counter.snapshot())})`,
  );
  if (writes > 0) {
    const after = await statuses();
    const changed = [...after].filter(([name, st]) => before.get(name) !== st).slice(0, 10);
    for (const [name, st] of changed) t.diagnostic(`changed in the quiet minute: ${name} (${shapeOf.get(name)}): ${before.get(name)} → ${st}`);
  }
  assert.equal(writes, 0, 'writes in the quiet minute');
  assert.ok(reconciles <= 5, `reconciles in the quiet minute: ${reconciles}`);
  // Issue 18: with any number of bad workspaces an idle minute costs at most 0.1 requests per second.
  assert.ok(sent <= 6, `requests besides watches in the quiet minute: ${sent}`);
});
