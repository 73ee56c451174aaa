// Drift replacement of an InferenceSet's members against real Karpenter (its kwok provider, static
// NodePools) in a private cluster: both members' pools start with the Drifted budget "0"; a template
// edit makes Karpenter mark every claim Drifted (a hand-patched condition would not hold: Karpenter's
// nodeclaim drift controller clears it when it finds no drift); kaito-ts opens one pool at a time,
// Karpenter replaces that member's node, and the pool is closed before the next one opens.
import { KARPENTER_ARGS, stopPrivateCluster } from '../support/karpenter-cluster.js';
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { driftBudgetOf, type NodePool } from '../../../src/builders/nodepool.js';
import { LABEL_INFERENCESET_CREATED_BY } from '../../../src/api/labels.js';
import { kubectl, waitFor } from '../harness.js';
import { conditionOf, getAll, listWorkspaces, record, world } from '../support/operator.js';

after(stopPrivateCluster);

const A100 = 'Standard_NC24ads_A100_v4';

interface Claim extends KubernetesObject {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}

const setLabel = (ns: string) => `karpenter.kaito.sh/inferenceset=x,karpenter.kaito.sh/inferenceset-namespace=${ns}`;

async function readyMembers(ns: string): Promise<string[]> {
  const all = (await listWorkspaces(ns)).filter((ws) => ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] === 'x');
  return all.filter((ws) => conditionOf(ws, 'WorkspaceSucceeded')?.status === 'True').map((ws) => ws.metadata.name ?? '');
}

test('InferenceSet drift: one member replaced at a time, each pool closed again, replicas and the other fields kept', async (t) => {
  const w = await world(t, { operatorArgs: KARPENTER_ARGS });
  const pools = await record<NodePool>(t, '/apis/karpenter.sh/v1/nodepools');
  const body = {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'InferenceSet',
    metadata: { name: 'x', namespace: w.ns },
    spec: {
      replicas: 2,
      labelSelector: { matchLabels: { apps: 'drift' } },
      template: { resource: { instanceType: A100 }, inference: { preset: { name: 'phi-4-mini-instruct' } } },
    },
  };
  await kubectl(['apply', '--server-side', '--field-manager=e2e', '-f', '-'], { namespace: w.ns, input: JSON.stringify(body) });
  await waitFor('2 Ready members', async () => (await readyMembers(w.ns)).length === 2, { timeoutMs: 180_000 });
  const before = await getAll<NodePool>('', 'nodepools.karpenter.sh', setLabel(w.ns));
  assert.equal(before.length, 2);
  for (const p of before) assert.equal(driftBudgetOf(p), '0', `${p.metadata.name}: drift replacement blocked`);
  const oldClaims = (await getAll<Claim>('', 'nodeclaims.karpenter.sh', setLabel(w.ns))).map((c) => c.metadata.name).sort();
  assert.equal(oldClaims.length, 2);

  // Someone else edits both templates (another field manager): Karpenter's hash moves, every claim drifts.
  for (const p of before)
    await kubectl([
      'patch',
      'nodepool',
      p.metadata.name,
      '--type=merge',
      '--field-manager=e2e-user',
      '-p',
      '{"spec":{"template":{"metadata":{"labels":{"drift":"v2"}}}}}',
    ]);

  const replaced = await waitFor(
    'both claims replaced, both pools closed, both members Ready',
    async () => {
      const claims = await getAll<Claim>('', 'nodeclaims.karpenter.sh', setLabel(w.ns));
      const now = await getAll<NodePool>('', 'nodepools.karpenter.sh', setLabel(w.ns));
      const done =
        claims.length === 2 &&
        claims.every((c) => !oldClaims.includes(c.metadata.name)) &&
        now.every((p) => driftBudgetOf(p) === '0') &&
        (await readyMembers(w.ns)).length === 2;
      return done && { claims, now };
    },
    { timeoutMs: 300_000, intervalMs: 1000 },
  );

  // Never two pools open at once; each was opened once and closed once.
  const budgets = new Map<string, string | undefined>();
  let maxOpen = 0;
  const opened: string[] = [];
  for (const e of [...pools].sort((a, b) => (a.rv < b.rv ? -1 : 1))) {
    if (!e.obj.metadata.labels?.['karpenter.kaito.sh/inferenceset']) continue;
    const name = e.obj.metadata.name;
    const next = e.type === 'DELETED' ? undefined : driftBudgetOf(e.obj);
    if (next === '1' && budgets.get(name) !== '1') opened.push(name);
    budgets.set(name, next);
    maxOpen = Math.max(maxOpen, [...budgets.values()].filter((v) => v === '1').length);
  }
  t.diagnostic(`opened in order: ${opened.join(', ')}`);
  assert.equal(maxOpen, 1, 'one member at a time');
  assert.deepEqual([...opened].sort(), before.map((p) => p.metadata.name).sort(), 'each member opened once');
  for (const p of replaced.now) {
    assert.equal(p.spec.replicas, 1, `${p.metadata.name}: replicas kept`);
    assert.equal(p.spec.template.metadata.labels.drift, 'v2', "the other manager's edit kept");
    assert.equal(p.spec.disruption.consolidateAfter, '0s');
  }
});
