// Node auto-provisioning (KAITO's default mode) on the real control plane, with the simulated
// gpu-provisioner of the simcluster fulfilling the NodeClaims kaito-ts writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Node, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import { kubectl, uniqueName, waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  getAll,
  getOne,
  getWorkspace,
  killHard,
  NAP_ARGS,
  record,
  spawnOperator,
  waitCondition,
  waitReady,
  world,
} from '../support/operator.js';

const WEIGHTS = 'model-weights-volume';
const A100 = 'Standard_NC24ads_A100_v4';
const A10 = 'Standard_NV36ads_A10_v5';

async function claimsOf(ns: string, name: string): Promise<NodeClaim[]> {
  return getAll<NodeClaim>('', 'nodeclaims', `kaito.sh/workspace=${name},kaito.sh/workspacenamespace=${ns}`);
}

function napWorkspace(name: string, instanceType: string, preset: string, extra: Record<string, unknown> = {}) {
  // A label no other node carries: only the nodes provisioned for this workspace match it.
  return {
    metadata: { name },
    resource: { instanceType, labelSelector: { matchLabels: { apps: uniqueName(name) } } },
    inference: { preset: { name: preset, ...extra } },
  };
}

test('NVMe SKU: one KAITO-shaped NodeClaim, a node, the NVMe claim Bound on it, InferenceReady', async (t) => {
  const w = await world(t, { operatorArgs: NAP_ARGS });
  const claimEvents = await record<NodeClaim>(t, '/apis/karpenter.sh/v1/nodeclaims');
  await applyWorkspace(w.ns, napWorkspace('phi4', A100, 'phi-4-mini-instruct'));
  const ws = await waitReady(w.ns, 'phi4', 90_000);

  const claims = await claimsOf(w.ns, 'phi4');
  assert.equal(claims.length, 1, 'exactly one NodeClaim');
  const nc = claims[0]!;
  assert.match(nc.metadata.name, /^ws[0-9a-f]{9}$/);
  assert.equal(nc.metadata.labels['karpenter.sh/nodepool'], 'kaito');
  assert.equal(nc.metadata.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
  assert.deepEqual(nc.spec.taints, [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }]);
  assert.deepEqual(nc.spec.nodeClassRef, { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' });
  assert.equal(claimEvents.filter((e) => e.type === 'ADDED' && e.obj.metadata.labels?.['kaito.sh/workspacenamespace'] === w.ns).length, 1, 'one create');

  const node = await getOne<V1Node>('', 'node', nc.status?.nodeName ?? '');
  assert.ok(node, `node ${nc.status?.nodeName} exists`);
  assert.equal(node.metadata?.labels?.['node.kubernetes.io/instance-type'], A100);
  assert.equal(node.metadata?.labels?.accelerator, 'nvidia', 'labelled as KAITO labels its nodes');
  const pod = await getOne<V1Pod>(w.ns, 'pod', 'phi4-0');
  assert.equal(pod?.spec?.nodeName, node.metadata?.name, 'the pod runs on the provisioned node');
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi4');
  assert.ok(
    sts?.spec?.volumeClaimTemplates?.some((c) => c.metadata?.name === WEIGHTS),
    'NVMe claim template',
  );
  const pvc = await getOne<V1PersistentVolumeClaim>(w.ns, 'pvc', `${WEIGHTS}-phi4-0`);
  assert.equal(pvc?.status?.phase, 'Bound');
  for (const type of ['NodeClaimsReady', 'NodeClaimReady', 'NodesReady', 'ResourceReady']) {
    assert.equal(conditionOf(ws, type)?.status, 'True', `${type}: ${conditionOf(ws, type)?.message}`);
  }
  assert.equal(ws.status?.decisions?.find((d) => d.topic === 'modelWeightsVolume')?.choice, 'nvme');

  // Deletion: the finalizer deletes the claim and waits; nothing of ours is left.
  await kubectl(['delete', 'workspace', 'phi4', '--wait=false'], { namespace: w.ns });
  await waitFor('workspace phi4 gone', async () => !(await getWorkspace(w.ns, 'phi4')), { timeoutMs: 60_000 });
  assert.deepEqual(await claimsOf(w.ns, 'phi4'), [], 'no NodeClaim left');
  assert.equal(await getOne('', 'node', node.metadata?.name ?? ''), undefined, 'no node left');
});

test('SKU without NVMe (A10): emptyDir, no claim template', async (t) => {
  const w = await world(t, { operatorArgs: NAP_ARGS });
  await applyWorkspace(w.ns, napWorkspace('phi3', A10, 'phi-3-mini-4k-instruct'));
  const ws = await waitReady(w.ns, 'phi3', 90_000);
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi3');
  assert.equal(sts?.spec?.volumeClaimTemplates?.length ?? 0, 0);
  assert.ok(sts?.spec?.template.spec?.volumes?.find((v) => v.name === WEIGHTS)?.emptyDir?.sizeLimit, 'sized emptyDir');
  assert.equal(ws.status?.decisions?.find((d) => d.topic === 'modelWeightsVolume')?.choice, 'emptyDir');
  assert.equal((await claimsOf(w.ns, 'phi3')).length, 1);
});

test('llama-3.3-70b on A100: 3 NodeClaims, 3 replicas, one per node', async (t) => {
  const w = await world(t, { operatorArgs: NAP_ARGS });
  await kubectl(['create', 'secret', 'generic', 'hf-token', '--from-literal=HF_TOKEN=hf_e2e_not_a_real_token'], { namespace: w.ns });
  await applyWorkspace(w.ns, napWorkspace('llama', A100, 'llama-3.3-70b-instruct', { presetOptions: { modelAccessSecret: 'hf-token' } }));
  const ws = await waitReady(w.ns, 'llama', 120_000);
  assert.equal(ws.status?.targetNodeCount, 3);
  const claims = await claimsOf(w.ns, 'llama');
  assert.equal(claims.length, 3, 'three claims');
  const pods = await getAll<V1Pod>(w.ns, 'pods', 'kaito.sh/workspace=llama');
  assert.equal(pods.length, 3);
  const nodes = new Set(pods.map((p) => p.spec?.nodeName));
  assert.equal(nodes.size, 3, 'one pod per node');
  assert.deepEqual([...nodes].sort(), claims.map((c) => c.status?.nodeName).sort(), 'on the provisioned nodes');
});

test("launch error: the provisioner's message in the condition, no storm of claims", async (t) => {
  const w = await world(t, { operatorArgs: NAP_ARGS });
  const claimEvents = await record<NodeClaim>(t, '/apis/karpenter.sh/v1/nodeclaims');
  const fault = uniqueName('quota');
  await kubectl(['create', 'namespace', 'kaito-ts-sim']).catch(() => undefined);
  await kubectl(
    [
      'create',
      'configmap',
      fault,
      `--from-literal=workspace=${w.ns}/quota`,
      '--from-literal=launch-error=QuotaExceeded: Operation could not be completed as it results in exceeding approved standardNCADSA100v4Family Cores quota',
    ],
    { namespace: 'kaito-ts-sim' },
  );
  t.after(() => kubectl(['delete', 'configmap', fault, '--ignore-not-found'], { namespace: 'kaito-ts-sim' }));
  await applyWorkspace(w.ns, napWorkspace('quota', A100, 'phi-4-mini-instruct'));
  const ws = await waitCondition(w.ns, 'quota', 'NodeClaimsReady', 'False', { reason: 'NodeClaimLaunchFailed', timeoutMs: 60_000 });
  assert.match(conditionOf(ws, 'NodeClaimsReady')?.message ?? '', /QuotaExceeded: Operation could not be completed/);
  assert.equal(conditionOf(ws, 'NodeClaimReady')?.reason, 'NodeClaimLaunchFailed', 'v0.9+ spelling too');
  assert.equal(conditionOf(ws, 'ResourceReady')?.status, 'False');
  assert.equal(conditionOf(ws, 'InferenceReady')?.reason, 'WaitingForNodes');
  assert.equal(await getOne(w.ns, 'statefulset', 'quota'), undefined, 'no workload before its nodes');
  // Let the provisioner retry a few times: still one claim, one create.
  await new Promise((r) => setTimeout(r, 5_000));
  assert.equal((await claimsOf(w.ns, 'quota')).length, 1);
  assert.equal(
    claimEvents.filter((e) => e.type === 'ADDED' && e.obj.metadata.labels?.['kaito.sh/workspacenamespace'] === w.ns).length,
    1,
    'exactly one create',
  );

  // The fault clears: the same claim launches and the workspace becomes ready.
  await kubectl(['delete', 'configmap', fault], { namespace: 'kaito-ts-sim' });
  await waitReady(w.ns, 'quota', 90_000);
  assert.equal((await claimsOf(w.ns, 'quota')).length, 1);
});

test('SIGKILL in the middle of provisioning: converges with exactly the claims needed', async (t) => {
  const w = await world(t, { operator: false, operatorArgs: NAP_ARGS });
  await kubectl(['create', 'secret', 'generic', 'hf-token', '--from-literal=HF_TOKEN=hf_e2e_not_a_real_token'], { namespace: w.ns });
  const claimEvents = await record<NodeClaim>(t, '/apis/karpenter.sh/v1/nodeclaims');
  let op = await spawnOperator(w.ns, NAP_ARGS);
  t.after(() => killHard(op.child));
  await applyWorkspace(w.ns, napWorkspace('llama', A100, 'llama-3.3-70b-instruct', { presetOptions: { modelAccessSecret: 'hf-token' } }));
  await waitFor('first NodeClaim', async () => (await claimsOf(w.ns, 'llama')).length > 0, { timeoutMs: 30_000 });
  await killHard(op.child);
  op = await spawnOperator(w.ns, NAP_ARGS);
  await waitReady(w.ns, 'llama', 120_000);
  await killHard(op.child);
  // A restart of a converged workspace must create nothing: wait for the new process's pass over it.
  op = await spawnOperator(w.ns, [...NAP_ARGS, '--log-level', 'debug']);
  const key = `"key":"${w.ns}/llama"`;
  await waitFor(
    'the restarted operator has reconciled the workspace',
    () =>
      op
        .output()
        .split('\n')
        .some((l) => l.includes(key) && l.includes('"reconciled"')) || undefined,
    { timeoutMs: 30_000 },
  );
  assert.equal((await claimsOf(w.ns, 'llama')).length, 3, 'three claims');
  assert.equal(
    claimEvents.filter((e) => e.type === 'ADDED' && e.obj.metadata.labels?.['kaito.sh/workspacenamespace'] === w.ns).length,
    3,
    'exactly three creates over two restarts',
  );
});

test('a claim that goes away (node repair) is replaced once, announced; the NVMe weights claim follows the new node', async (t) => {
  const w = await world(t, { operatorArgs: NAP_ARGS });
  await applyWorkspace(w.ns, napWorkspace('phi4', A100, 'phi-4-mini-instruct'));
  await waitReady(w.ns, 'phi4', 90_000);
  const [first] = await claimsOf(w.ns, 'phi4');
  assert.ok(first);

  // What gpu-provisioner's NodeRepair does: delete the claim; its node and local volumes go with it.
  await kubectl(['delete', 'nodeclaim', first.metadata.name, '--wait=false']);
  await waitFor('a replacement claim', async () => (await claimsOf(w.ns, 'phi4')).some((c) => c.metadata.name !== first.metadata.name), { timeoutMs: 30_000 });
  const second = await waitFor(
    'the replacement claim Ready with its node',
    async () => (await claimsOf(w.ns, 'phi4')).find((c) => c.metadata.name !== first.metadata.name && c.status?.nodeName && !c.metadata.deletionTimestamp),
    { timeoutMs: 60_000 },
  );
  await waitFor(
    'pod 0 Ready on the new node',
    async () => {
      const pod = await getOne<V1Pod>(w.ns, 'pod', 'phi4-0');
      return pod?.spec?.nodeName === second.status?.nodeName && pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    },
    { timeoutMs: 90_000 },
  );
  const ws = await waitReady(w.ns, 'phi4', 60_000);
  const pvc = await getOne<V1PersistentVolumeClaim>(w.ns, 'pvc', `${WEIGHTS}-phi4-0`);
  assert.equal(pvc?.status?.phase, 'Bound', 'a fresh NVMe claim, bound on the new node');
  const pv = await getOne<{ spec: { nodeAffinity?: { required?: { nodeSelectorTerms?: { matchExpressions?: { values?: string[] }[] }[] } } } }>(
    '',
    'pv',
    pvc?.spec?.volumeName ?? '',
  );
  assert.deepEqual(
    pv?.spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values,
    [second.status?.nodeName],
    "the new claim's volume is on the new node",
  );
  const stranded = (await getAll<{ reason?: string; note?: string }>(w.ns, 'events.events.k8s.io')).find((e) => e.reason === 'WeightsClaimStranded');
  assert.match(stranded?.note ?? '', /model-weights-volume-phi4-0 .*no longer exists|being deleted/, 'the released claim was announced');
  assert.equal(ws.metadata.annotations?.['kaito-ts.io/nodeclaims-created'], '2');
  const events = await getAll<{ reason?: string; regarding?: { name?: string } }>(w.ns, 'events.events.k8s.io');
  assert.ok(
    events.some((e) => e.reason === 'NodeClaimReplaced' && e.regarding?.name === 'phi4'),
    'NodeClaimReplaced event',
  );

  // A second loss is not replaced again: the condition says why.
  await kubectl(['delete', 'nodeclaim', second.metadata.name, '--wait=false']);
  const stopped = await waitCondition(w.ns, 'phi4', 'NodeClaimsReady', 'False', { reason: 'NodeClaimReplacementLimit', timeoutMs: 30_000 });
  assert.match(conditionOf(stopped, 'NodeClaimsReady')?.message ?? '', /kaito-ts.io\/nodeclaims-created/);
  assert.equal((await claimsOf(w.ns, 'phi4')).filter((c) => !c.metadata.deletionTimestamp).length, 0);
});
