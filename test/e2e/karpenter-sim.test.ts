// Real Karpenter (its kwok provider, static capacity) in a PRIVATE simcluster: a NodePool with
// replicas gets that many NodeClaims and Ready GPU nodes (the simulated device plugin adds
// nvidia.com/gpu to their capacity), a pod with an NVMe claim runs there, deleting the NodePool takes
// its claims and nodes, and an instance type nobody offers fails the launch with Karpenter's message.
import { stopPrivateCluster } from './support/karpenter-cluster.js';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { V1Node, V1PersistentVolume, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { isReady } from '../../src/runtime/conditions.js';
import { GPU_RESOURCE, NVME_STORAGE_CLASS, bed, freshNamespace, kubectl, uniqueName, waitFor } from './harness.js';
import { getAll, getOne } from './support/operator.js';

after(stopPrivateCluster);

const NVME_SKU = 'Standard_NC24ads_A100_v4';
const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
const PAUSE = 'registry.k8s.io/pause:3.10';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface NodeClaim {
  metadata: { name: string };
  status?: { nodeName?: string; conditions?: Condition[] };
}

/** What KAITO v0.12 writes per workspace (pkg/nodeprovision/karpenter/nodepool.go), on the kwok node class. */
function nodePoolYaml(name: string, instanceType: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      replicas,
      disruption: { consolidateAfter: '0s', budgets: [{ nodes: '1', reasons: ['Drifted'] }] },
      template: {
        metadata: { labels: { 'karpenter.kaito.sh/workspace-name': name, 'karpenter.kaito.sh/workspace-namespace': 'e2e' } },
        spec: {
          nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
          taints: [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }],
          requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: [instanceType] }],
        },
      },
    },
  });
}

async function ensureNodeClass(): Promise<void> {
  // The operator makes this from its --karpenter-node-class* flags; the simcluster never does.
  await kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: { name: 'default' } }),
  });
}

const claimsOf = (ns: string, pool: string): Promise<NodeClaim[]> => getAll<NodeClaim>(ns, 'nodeclaims.karpenter.sh', `${NODEPOOL_LABEL}=${pool}`);
const nodesOf = (ns: string, pool: string): Promise<V1Node[]> => getAll<V1Node>(ns, 'nodes', `${NODEPOOL_LABEL}=${pool}`);

describe('Karpenter in the simcluster (private cluster)', () => {
  it('a NodePool with replicas 2 gets 2 claims and 2 Ready GPU nodes; an NVMe pod runs there; deleting the pool removes them', async (t) => {
    await bed();
    await ensureNodeClass();
    const ns = await freshNamespace(t, 'karp');
    const pool = uniqueName('ws');
    await kubectl(['apply', '-f', '-'], { input: nodePoolYaml(pool, NVME_SKU, 2) });

    const nodes = await waitFor(
      '2 Ready Karpenter nodes with nvidia.com/gpu in their capacity',
      async () => {
        const list = await nodesOf(ns, pool);
        return list.length === 2 && list.every((n) => isReady(n) && n.status?.capacity?.[GPU_RESOURCE] === '1') && list;
      },
      { timeoutMs: 90_000 },
    );
    // Karpenter marks a claim Ready a moment after its node is Ready (initialization), so wait for both.
    const claims = await waitFor(
      '2 Ready NodeClaims',
      async () => {
        const list = await claimsOf(ns, pool);
        return list.length === 2 && list.every((c) => c.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True') && list;
      },
      { timeoutMs: 30_000 },
    );
    assert.deepEqual(claims.map((c) => c.status?.nodeName).sort(), nodes.map((n) => n.metadata?.name).sort());
    // Read the nodes again: Karpenter applies the pool's taints at registration, which a Ready claim implies.
    for (const n of await nodesOf(ns, pool)) {
      assert.equal(n.metadata?.labels?.['node.kubernetes.io/instance-type'], NVME_SKU);
      assert.equal(n.metadata?.labels?.['karpenter.kaito.sh/workspace-name'], pool);
      assert.equal(n.status?.allocatable?.[GPU_RESOURCE], '1');
      assert.ok(n.spec?.taints?.some((x) => x.key === 'sku' && x.value === 'gpu' && x.effect === 'NoSchedule'));
      assert.ok(!n.spec?.taints?.some((x) => x.key === 'karpenter.sh/unregistered'), 'registration lifted the unregistered taint');
    }

    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'model' },
      spec: {
        nodeSelector: { [NODEPOOL_LABEL]: pool },
        tolerations: [{ key: 'sku', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
        containers: [{ name: 'main', image: PAUSE, resources: { limits: { [GPU_RESOURCE]: '1' } }, volumeMounts: [{ name: 'weights', mountPath: '/w' }] }],
        volumes: [{ name: 'weights', persistentVolumeClaim: { claimName: 'weights' } }],
      },
    };
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'weights' },
      spec: { storageClassName: NVME_STORAGE_CLASS, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '800Gi' } } },
    };
    await kubectl(['apply', '-f', '-'], { namespace: ns, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [claim, pod] }) });
    const running = await waitFor(
      'the NVMe pod Running and Ready',
      async () => {
        const p = await getOne<V1Pod>(ns, 'pod', 'model');
        return p?.status?.phase === 'Running' && isReady(p) && p;
      },
      { timeoutMs: 60_000 },
    );
    const node = nodes.find((n) => n.metadata?.name === running.spec?.nodeName);
    assert.ok(node, `the pod runs on one of the pool's nodes (${running.spec?.nodeName})`);
    const pvc = await getOne<V1PersistentVolumeClaim>(ns, 'pvc', 'weights');
    assert.equal(pvc?.status?.phase, 'Bound');
    const pv = await getOne<V1PersistentVolume>(ns, 'pv', pvc?.spec?.volumeName ?? '');
    // Karpenter's kwok nodes have hostname = their NodeClaim's name, not the node's.
    const hostname = node.metadata?.labels?.['kubernetes.io/hostname'];
    assert.deepEqual(pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values, [hostname]);

    await kubectl(['delete', 'nodepool', pool, '--wait=false']);
    await waitFor("the pool's NodeClaims and Nodes gone", async () => (await claimsOf(ns, pool)).length === 0 && (await nodesOf(ns, pool)).length === 0, {
      timeoutMs: 90_000,
    });
  });

  it('an instance type no offering has: the claim stays, Launched=Unknown LaunchFailed with "instance type not found"', async (t) => {
    await bed();
    await ensureNodeClass();
    const ns = await freshNamespace(t, 'karp');
    const pool = uniqueName('ws');
    // A real Azure GPU size, but not in KAITO's catalog, so not in the simulated instance types.
    const sku = 'Standard_ND40rs_v2';
    await kubectl(['apply', '-f', '-'], { input: nodePoolYaml(pool, sku, 1) });
    t.after(() => kubectl(['delete', 'nodepool', pool, '--ignore-not-found', '--wait=false']));
    const launched = await waitFor(
      'a NodeClaim whose launch failed',
      async () => {
        const [c] = await claimsOf(ns, pool);
        const cond = c?.status?.conditions?.find((x) => x.type === 'Launched');
        return cond?.reason === 'LaunchFailed' && cond;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(launched.status, 'Unknown');
    assert.equal(launched.message, `translating nodeclaim to node, instance type not found (instance-type=${sku})`);
    assert.equal((await nodesOf(ns, pool)).length, 0);
  });

  it("Karpenter's CEL rules hold: a static pool with a weight, a restricted template label, an empty NodeClass reference or a switch to dynamic is refused", async (t) => {
    await bed();
    const pool = uniqueName('ws');
    type Pool = {
      spec: { weight?: number; replicas?: number; template: { metadata: { labels: Record<string, string> }; spec: { nodeClassRef: { group: string } } } };
    };
    const refused = async (edit: (p: Pool) => void, message: RegExp): Promise<void> => {
      const p = JSON.parse(nodePoolYaml(pool, NVME_SKU, 0)) as Pool;
      edit(p);
      await assert.rejects(kubectl(['create', '--dry-run=server', '-f', '-'], { input: JSON.stringify(p) }), message);
    };
    await refused((p) => (p.spec.weight = 10), /'weight' is not supported on static NodePools/);
    await refused((p) => (p.spec.template.metadata.labels[NODEPOOL_LABEL] = 'other'), /label "karpenter.sh\/nodepool" is restricted/);
    await refused((p) => (p.spec.template.spec.nodeClassRef.group = ''), /group may not be empty/);
    await kubectl(['create', '-f', '-'], { input: nodePoolYaml(pool, NVME_SKU, 0) });
    t.after(() => kubectl(['delete', 'nodepool', pool, '--ignore-not-found']));
    await assert.rejects(
      kubectl(['patch', 'nodepool', pool, '--dry-run=server', '--type=json', '-p', '[{"op":"remove","path":"/spec/replicas"}]']),
      /Cannot transition NodePool between static \(replicas set\) and dynamic \(replicas unset\) provisioning modes/,
    );
  });
});
