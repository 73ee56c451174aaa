// Karpenter mode (--node-provisioner=karpenter) against real Karpenter (its kwok provider, static
// capacity) in a private cluster: the NodePool kaito-ts writes, the nodes Karpenter makes for it,
// the NVMe claim on them, a launch failure in status, a SIGKILL mid-provisioning, and deletion.
import { KARPENTER_ARGS, stopPrivateCluster } from '../support/karpenter-cluster.js';
import { WITHHELD_SKUS_ENV } from '../../../src/simcluster/karpenter/instance-types.js';
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { KubernetesObject, V1Node, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { NodePool } from '../../../src/builders/nodepool.js';
import { kubectl, waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  getAll,
  getOne,
  getWorkspace,
  killHard,
  pool,
  record,
  selectorFor,
  spawnOperator,
  waitReady,
  world,
} from '../support/operator.js';

after(stopPrivateCluster);

const A100 = 'Standard_NC24ads_A100_v4';
// In the catalog, but offered by no instance type of this cluster's Karpenter: its launches fail.
const UNOFFERED = 'Standard_NC48ads_A100_v4';
process.env[WITHHELD_SKUS_ENV] = UNOFFERED;
const WEIGHTS = 'model-weights-volume';

interface Claim extends KubernetesObject {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { nodeName?: string };
}

function karpenterWorkspace(name: string, instanceType: string, preset: string, extra: Record<string, unknown> = {}) {
  return { metadata: { name }, resource: { instanceType, labelSelector: { matchLabels: { apps: name } } }, inference: { preset: { name: preset, ...extra } } };
}
const poolOf = (ns: string, name: string) => getOne<NodePool>('', 'nodepools.karpenter.sh', `${ns}-${name}`);
const claimsOf = (ns: string, name: string) => getAll<Claim>('', 'nodeclaims.karpenter.sh', `karpenter.sh/nodepool=${ns}-${name}`);
const nodesOf = (ns: string, name: string) => getAll<V1Node>('', 'nodes', `karpenter.sh/nodepool=${ns}-${name}`);

test('NVMe SKU: one NodePool as KAITO writes it, its node, the NVMe claim Bound there, InferenceReady; deletion leaves nothing', async (t) => {
  const w = await world(t, { operatorArgs: KARPENTER_ARGS });
  await applyWorkspace(w.ns, karpenterWorkspace('phi4', A100, 'phi-4-mini-instruct'));
  const ws = await waitReady(w.ns, 'phi4', 120_000);

  const np = await poolOf(w.ns, 'phi4');
  assert.ok(np, 'the NodePool exists');
  assert.equal(np.spec.replicas, 1);
  assert.deepEqual(np.metadata.labels, {
    'karpenter.kaito.sh/managed-by': 'kaito',
    'karpenter.kaito.sh/workspace-name': 'phi4',
    'karpenter.kaito.sh/workspace-namespace': w.ns,
  });
  assert.deepEqual(np.spec.template.spec.nodeClassRef, { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' });
  assert.deepEqual(np.spec.template.spec.taints, [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }]);
  assert.deepEqual(np.spec.disruption.budgets, [{ nodes: '1', reasons: ['Drifted'] }]);
  const nodeClass = await getOne('', 'kwoknodeclasses.karpenter.kwok.sh', 'default');
  assert.equal(nodeClass?.metadata?.labels?.['karpenter.kaito.sh/managed-by'], 'kaito', 'the operator created its NodeClass');

  const [node, ...more] = await nodesOf(w.ns, 'phi4');
  assert.ok(node && more.length === 0, 'one node');
  assert.equal(node.metadata?.labels?.['node.kubernetes.io/instance-type'], A100);
  const pod = await getOne<V1Pod>(w.ns, 'pod', 'phi4-0');
  assert.equal(pod?.spec?.nodeName, node.metadata?.name, 'the pod runs on the pool node');
  const terms = pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  assert.deepEqual(
    terms[0]?.matchExpressions?.map((e) => e.key),
    ['apps', 'karpenter.kaito.sh/workspace-name', 'karpenter.kaito.sh/workspace-namespace'],
    'pinned to this workspace’s nodes',
  );
  assert.equal(terms.length, 2, 'or to nodes made for no workspace');
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi4');
  assert.ok(
    sts?.spec?.volumeClaimTemplates?.some((c) => c.metadata?.name === WEIGHTS),
    'NVMe claim template',
  );
  const pvc = await getOne<V1PersistentVolumeClaim>(w.ns, 'pvc', `${WEIGHTS}-phi4-0`);
  assert.equal(pvc?.status?.phase, 'Bound');
  for (const type of ['NodeClaimsReady', 'NodesReady', 'ResourceReady'])
    assert.equal(conditionOf(ws, type)?.status, 'True', `${type}: ${conditionOf(ws, type)?.message}`);

  await kubectl(['delete', 'workspace', 'phi4', '--wait=false'], { namespace: w.ns });
  await waitFor('workspace phi4 gone', async () => !(await getWorkspace(w.ns, 'phi4')), { timeoutMs: 90_000 });
  assert.equal(await poolOf(w.ns, 'phi4'), undefined, 'no NodePool left');
  assert.deepEqual(await claimsOf(w.ns, 'phi4'), [], 'no NodeClaim left');
  assert.deepEqual(await nodesOf(w.ns, 'phi4'), [], 'no node left');
});

test('bring-your-own nodes that cover the workspace: no NodePool, and its pods schedule there (KAITO pins them away)', async (t) => {
  const w = await world(t, { pools: [pool('a100', 1)], operatorArgs: KARPENTER_ARGS });
  await applyWorkspace(w.ns, {
    metadata: { name: 'byo' },
    resource: { instanceType: A100, labelSelector: selectorFor(w.pools[0]!) },
    inference: { preset: { name: 'phi-4-mini-instruct' } },
  });
  await waitReady(w.ns, 'byo', 90_000);
  assert.equal(await poolOf(w.ns, 'byo'), undefined, 'the covered node needs no NodePool');
  const pod = await getOne<V1Pod>(w.ns, 'pod', 'byo-0');
  assert.ok(pod?.spec?.nodeName?.includes(w.pools[0]!.name), `on the pool's node, got ${pod?.spec?.nodeName}`);
});

test('an instance type no offering has: Karpenter’s launch error in the NodeClaim condition, no workload', async (t) => {
  const w = await world(t, { operatorArgs: KARPENTER_ARGS });
  await applyWorkspace(w.ns, karpenterWorkspace('nowhere', UNOFFERED, 'phi-4-mini-instruct'));
  const failing = await waitFor(
    'the launch error in NodeClaimsReady',
    async () => {
      const ws = await getWorkspace(w.ns, 'nowhere');
      return /instance type not found/.test(conditionOf(ws, 'NodeClaimsReady')?.message ?? '') && ws;
    },
    { timeoutMs: 60_000 },
  );
  assert.equal(conditionOf(failing, 'NodeClaimsReady')?.status, 'False');
  assert.equal(conditionOf(failing, 'InferenceReady')?.status, 'False');
  assert.equal(await getOne(w.ns, 'statefulset', 'nowhere'), undefined, 'no StatefulSet before nodes');
});

test('SIGKILL mid-provisioning: the restarted operator converges without a second NodePool or a replica more', async (t) => {
  const w = await world(t, { operator: false });
  await kubectl(['create', 'secret', 'generic', 'hf-token', '--from-literal=HF_TOKEN=hf_e2e_not_a_real_token'], { namespace: w.ns });
  const pools = await record<NodePool>(t, '/apis/karpenter.sh/v1/nodepools');
  let op = await spawnOperator(w.ns, KARPENTER_ARGS);
  t.after(() => killHard(op.child));
  await applyWorkspace(w.ns, karpenterWorkspace('llama', A100, 'llama-3.3-70b-instruct', { presetOptions: { modelAccessSecret: 'hf-token' } }));
  await waitFor('the NodePool', () => poolOf(w.ns, 'llama'), { timeoutMs: 30_000 });
  await killHard(op.child);
  op = await spawnOperator(w.ns, KARPENTER_ARGS);
  const ws = await waitReady(w.ns, 'llama', 150_000);
  assert.equal(ws.status?.targetNodeCount, 3);
  assert.equal((await poolOf(w.ns, 'llama'))?.spec.replicas, 3, 'a multi-node preset gets replicas: 3');
  assert.equal((await nodesOf(w.ns, 'llama')).length, 3);
  const mine = pools.filter((e) => e.obj.metadata?.name === `${w.ns}-llama`);
  assert.equal(mine.filter((e) => e.type === 'ADDED').length, 1, 'one NodePool created over the restart');
  assert.deepEqual(
    mine
      .filter((e) => e.type === 'MODIFIED')
      .map((e) => e.obj.spec.replicas)
      .filter((r) => r !== 3),
    [],
    'its replicas never moved off 3',
  );
});
