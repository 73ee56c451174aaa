// InferenceSets on the real control plane: children Ready, `kubectl scale` through the scale
// subresource, deletion, and a storm of scale writes while the operator is SIGKILLed, then an audit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { LABEL_INFERENCESET_CREATED_BY } from '../../../src/api/labels.js';
import type { InferenceSet } from '../../../src/api/inferenceset-types.js';
import { kubectl, waitFor } from '../harness.js';
import { conditionOf, getAll, getOne, killHard, listWorkspaces, pool, record, selectorFor, sleep, spawnOperator, world } from '../support/operator.js';

type IS = InferenceSet & KubernetesObject;

async function applyInferenceSet(ns: string, name: string, replicas: number, selector: { matchLabels: Record<string, string> }): Promise<void> {
  const body = {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'InferenceSet',
    metadata: { name, namespace: ns },
    spec: { replicas, labelSelector: selector, template: { metadata: { labels: { team: 'e2e' } }, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } } },
  };
  await kubectl(['apply', '--server-side', '--field-manager=e2e', '-f', '-'], { namespace: ns, input: JSON.stringify(body) });
}

const members = async (ns: string, name: string) => (await listWorkspaces(ns)).filter((ws) => ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] === name);
const succeeded = (ws: Awaited<ReturnType<typeof members>>[number]) => conditionOf(ws, 'WorkspaceSucceeded')?.status === 'True';

async function waitReplicas(ns: string, name: string, n: number, timeoutMs = 120_000): Promise<IS> {
  return waitFor(
    `${name}: ${n} Ready children and nothing else`,
    async () => {
      const all = await members(ns, name);
      const is = await getOne<IS>(ns, 'inferenceset', name);
      const ok = all.length === n && all.filter(succeeded).length === n && is?.status?.readyReplicas === n;
      return ok ? is : undefined;
    },
    { timeoutMs },
  );
}

test("InferenceSet: 2 BYO replicas become 2 Ready child Workspaces with KAITO's labels, owner and status", async (t) => {
  const w = await world(t, { pools: [pool('a10', 2)] });
  await applyInferenceSet(w.ns, 'x', 2, selectorFor(w.pools[0]!));
  const is = await waitReplicas(w.ns, 'x', 2);
  const kids = await members(w.ns, 'x');
  for (const ws of kids) {
    assert.match(ws.metadata.name ?? '', /^x-[a-z0-9]{5}$/);
    assert.equal(ws.metadata.labels?.team, 'e2e');
    const owner = ws.metadata.ownerReferences?.find((r) => r.controller);
    assert.deepEqual([owner?.kind, owner?.name, owner?.uid], ['InferenceSet', 'x', is.metadata?.uid]);
    assert.deepEqual(ws.resource.labelSelector, selectorFor(w.pools[0]!));
  }
  assert.equal(is.status?.selector, 'inferenceset.kaito.sh/created-by=x');
  assert.equal(is.status?.replicas, 2);
  assert.deepEqual(is.metadata?.finalizers, ['inferenceset.finalizer.kaito.sh']);
  assert.equal(conditionOf(is as never, 'InferenceSetReady')?.status, 'True');
  const revisions = await getAll(w.ns, 'controllerrevisions', 'inferenceset.kaito.io/name=x');
  assert.equal(revisions.length, 1);
  assert.equal(is.metadata?.annotations?.['inferenceset.kaito.io/revision'], '1');
  // The members' StatefulSets select and label pods with created-by (the scale selector matches them).
  for (const ws of kids) {
    const sts = await getOne<
      { spec?: { selector?: { matchLabels?: Record<string, string> }; template?: { metadata?: { labels?: Record<string, string> } } } } & KubernetesObject
    >(w.ns, 'statefulset', ws.metadata.name ?? '');
    assert.equal(sts?.spec?.selector?.matchLabels?.[LABEL_INFERENCESET_CREATED_BY], 'x');
    assert.equal(sts?.spec?.template?.metadata?.labels?.[LABEL_INFERENCESET_CREATED_BY], 'x');
  }
});

test('InferenceSet: kubectl scale 0 → 3 → 1 → 0 through the scale subresource; delete cleans up', async (t) => {
  const w = await world(t, { pools: [pool('a10', 3)] });
  await applyInferenceSet(w.ns, 'x', 0, selectorFor(w.pools[0]!));
  await waitReplicas(w.ns, 'x', 0);
  const scale = JSON.parse(await kubectl(['get', '--raw', `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/inferencesets/x/scale`])) as {
    status?: { selector?: string };
  };
  assert.equal(scale.status?.selector, 'inferenceset.kaito.sh/created-by=x');
  for (const n of [3, 1, 0]) {
    await kubectl(['scale', 'inferenceset/x', `--replicas=${n}`], { namespace: w.ns });
    await waitReplicas(w.ns, 'x', n);
  }
  await kubectl(['scale', 'inferenceset/x', '--replicas=2'], { namespace: w.ns });
  await waitReplicas(w.ns, 'x', 2);
  await kubectl(['delete', 'inferenceset', 'x', '--wait=false'], { namespace: w.ns });
  await waitFor(
    'the InferenceSet, its children and their StatefulSets gone',
    async () => !(await getOne(w.ns, 'inferenceset', 'x')) && (await members(w.ns, 'x')).length === 0 && (await getAll(w.ns, 'statefulsets')).length === 0,
    { timeoutMs: 60_000 },
  );
});

test('InferenceSet: 50 random scale writes while the operator is SIGKILLed 3 times: no duplicate child, no orphan, the final count right', async (t) => {
  const w = await world(t, { pools: [pool('a10', 4)], operator: false });
  const seen = await record(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  await applyInferenceSet(w.ns, 'x', 1, selectorFor(w.pools[0]!));
  let op = await spawnOperator(w.ns);
  t.after(() => killHard(op.child));
  const writes: number[] = [1];
  let kills = 0;
  for (let i = 0; i < 50; i++) {
    const n = Math.floor(Math.random() * 5);
    writes.push(n);
    await kubectl(['scale', 'inferenceset/x', `--replicas=${n}`], { namespace: w.ns });
    await sleep(Math.floor(Math.random() * 200));
    if (i % 15 === 14 && kills < 3) {
      await killHard(op.child);
      assert.equal(op.child.signalCode, 'SIGKILL');
      kills++;
      op = await spawnOperator(w.ns);
    }
  }
  const final = writes.at(-1)!;
  try {
    await waitReplicas(w.ns, 'x', final, 180_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\noperator output:\n${op.output().slice(-3000)}`);
  }
  // Settled: nothing more is created or deleted.
  const before = seen.length;
  await sleep(5_000);
  assert.deepEqual(
    seen
      .slice(before)
      .filter((e) => e.type !== 'MODIFIED')
      .map((e) => `${e.type} ${e.obj.metadata?.name}`),
    [],
  );
  // No duplicate: every child was created by an upward step of the writes (at most the sum of the rises).
  const created = new Set(seen.filter((e) => e.type === 'ADDED').map((e) => e.obj.metadata?.uid));
  const rises = writes.reduce((sum, n, i) => sum + Math.max(0, n - (i ? writes[i - 1]! : 0)), 0);
  assert.ok(created.size <= rises, `${created.size} children created for ${rises} upward replicas`);
  // No orphan: every Workspace of the namespace is a live child of x, every StatefulSet belongs to one.
  const is = await getOne<IS>(w.ns, 'inferenceset', 'x');
  const all = await listWorkspaces(w.ns);
  assert.equal(all.length, final);
  for (const ws of all) assert.equal(ws.metadata.ownerReferences?.find((r) => r.controller)?.uid, is?.metadata?.uid, `${ws.metadata.name} owned by x`);
  const names = new Set(all.map((ws) => ws.metadata.name));
  for (const sts of await getAll(w.ns, 'statefulsets')) assert.ok(names.has(sts.metadata?.name), `StatefulSet ${sts.metadata?.name} has its workspace`);
  assert.equal(is?.status?.replicas, final);
  await killHard(op.child);
  await w.start();
});
