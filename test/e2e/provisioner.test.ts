// The simulated gpu-provisioner against the real control plane: KAITO v0.8.0's own NodeClaim YAML
// (reference node-provisioning.md §2) passes Karpenter's CRD, becomes a Ready GPU node with NVMe
// volumes, and goes away with its claim; injected faults show up as Karpenter conditions.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { V1ConfigMap, V1Node, V1PersistentVolume } from '@kubernetes/client-node';
import { bed, kubectl, waitFor } from './harness.js';
import { isReady } from '../../src/runtime/conditions.js';
import { layoutFor } from '../../src/simcluster/layout.js';
import type { NodeClaim } from '../../src/simcluster/provisioner/claim-view.js';

const run = promisify(execFile);

/** KAITO's claim name: "ws" + 9 hex characters. */
const claimName = (): string => `ws${randomBytes(5).toString('hex').slice(0, 9)}`;

/** The NodeClaim KAITO v0.8.0 writes for an Azure workspace, as in the reference (namespace included: ignored, cluster-scoped). */
function kaitoNodeClaimYaml(name: string, sku: string, workspace: string, annotations: Record<string, string> = {}): string {
  const extra = Object.entries(annotations)
    .map(([k, v]) => `\n    ${k}: ${JSON.stringify(v)}`)
    .join('');
  return `apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: ${name}
  namespace: e2e-prov
  labels:
    karpenter.sh/nodepool: kaito
    kaito.sh/workspace: ${workspace}
    kaito.sh/workspacenamespace: e2e-prov
    apps: ${workspace}
  annotations:
    karpenter.sh/do-not-disrupt: "true"${extra}
spec:
  nodeClassRef:
    group: kaito.sh
    kind: KaitoNodeClass
    name: default
  taints:
  - key: sku
    value: gpu
    effect: NoSchedule
  requirements:
  - key: karpenter.sh/nodepool
    operator: In
    values: [kaito]
  - key: node.kubernetes.io/instance-type
    operator: In
    values: [${sku}]
  - key: kubernetes.io/os
    operator: In
    values: [linux]
  - key: karpenter.azure.com/sku-name
    operator: In
    values: [${sku}]
  resources:
    requests:
      storage: 120Gi
`;
}

async function getJson<T>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl([...args, '-o', 'json'])) as T;
}

const claimOf = (name: string): Promise<NodeClaim> => getJson<NodeClaim>(['get', 'nodeclaim', name]);
const nodesOf = async (name: string): Promise<V1Node[]> => (await getJson<{ items: V1Node[] }>(['get', 'nodes', '-l', `agentpool=${name}`])).items;
const volumesOf = async (name: string): Promise<V1PersistentVolume[]> =>
  (await getJson<{ items: V1PersistentVolume[] }>(['get', 'pv', '-l', `kaito.sh/sim-nodeclaim=${name}`])).items;
const condition = (c: NodeClaim, type: string) => c.status?.conditions?.find((x) => x.type === type);

/** Creates the claim and deletes it (and waits for it, its node and its volumes to go) after the test. */
async function createClaim(t: TestContext, yaml: string, name: string): Promise<void> {
  await kubectl(['create', '-f', '-'], { input: yaml });
  t.after(async () => {
    await kubectl(['delete', 'nodeclaim', name, '--ignore-not-found', '--wait=false']);
    await waitFor(`NodeClaim ${name} gone`, async () => (await kubectl(['get', 'nodeclaim', name, '--ignore-not-found'])).trim() === '');
  });
}

async function deleteAndExpectNothingLeft(name: string): Promise<void> {
  await kubectl(['delete', 'nodeclaim', name, '--wait=false']);
  await waitFor(
    `NodeClaim ${name}, its node and its volumes gone`,
    async () =>
      (await kubectl(['get', 'nodeclaim', name, '--ignore-not-found'])).trim() === '' &&
      (await nodesOf(name)).length === 0 &&
      (await volumesOf(name)).length === 0,
  );
}

describe('simulated gpu-provisioner', () => {
  it('runs as a simcluster component that status lists', async () => {
    await bed();
    const { stdout } = await run(process.execPath, [join(layoutFor().projectRoot, 'bin', 'kaito-ts.js'), 'simcluster', 'status']);
    assert.match(stdout, /^gpu-provisioner\s+running pid \d+$/m);
  });

  it("the NodeClaim CRD validates: KAITO's claim is accepted; a restricted requirement, an empty NodeClass reference and a spec change are not", async (t) => {
    await bed();
    await kubectl(['create', '--dry-run=server', '-f', '-'], { input: kaitoNodeClaimYaml(claimName(), 'Standard_NC24ads_A100_v4', 'ok') });
    const hostname = kaitoNodeClaimYaml(claimName(), 'Standard_NC24ads_A100_v4', 'bad').replace('key: kubernetes.io/os', 'key: kubernetes.io/hostname');
    await assert.rejects(kubectl(['create', '--dry-run=server', '-f', '-'], { input: hostname }), /label "kubernetes.io\/hostname" is restricted/);
    // KAITO's claims for clouds other than azure/aws have an empty nodeClassRef group and kind: the CRD's CEL rules refuse them.
    const emptyGroup = kaitoNodeClaimYaml(claimName(), 'Standard_NC24ads_A100_v4', 'arc')
      .replace('group: kaito.sh', 'group: ""')
      .replace('kind: KaitoNodeClass', 'kind: ""');
    // Both refusals, in whichever order the API server lists them (it does not keep one).
    await assert.rejects(kubectl(['create', '--dry-run=server', '-f', '-'], { input: emptyGroup }), (err: Error) => {
      assert.match(err.message, /group may not be empty/);
      assert.match(err.message, /kind may not be empty/);
      return true;
    });
    // A claim's spec is immutable (the CRD's `self == oldSelf` rule).
    const name = claimName();
    await createClaim(t, kaitoNodeClaimYaml(name, 'Standard_NC24ads_A100_v4', 'immutable'), name);
    await assert.rejects(
      kubectl(['patch', 'nodeclaim', name, '--dry-run=server', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"1Ti"}}}}']),
      /spec is immutable/,
    );
  });

  it("turns KAITO's NodeClaim on an NVMe SKU into a Ready GPU node with local volumes, and removes them with the claim", async (t) => {
    await bed();
    const name = claimName();
    await createClaim(t, kaitoNodeClaimYaml(name, 'Standard_NC24ads_A100_v4', `phi-${name}`), name);

    const claim = await waitFor(`NodeClaim ${name} Ready`, async () => {
      const c = await claimOf(name);
      return condition(c, 'Ready')?.status === 'True' ? c : undefined;
    });
    assert.ok(claim.metadata?.finalizers?.includes('karpenter.sh/termination'));
    for (const type of ['Launched', 'Registered', 'Initialized']) assert.equal(condition(claim, type)?.status, 'True', type);
    assert.match(claim.status?.nodeName ?? '', new RegExp(`^aks-${name}-\\d{8}-vmss000000$`));
    assert.match(claim.status?.providerID ?? '', /^azure:\/\/\/subscriptions\/.+\/virtualMachineScaleSets\/aks-.+-vmss\/virtualMachines\/0$/);

    const node = await waitFor(`node of ${name} Ready with nvidia.com/gpu`, async () => {
      const [n] = await nodesOf(name);
      return n && isReady(n) && n.status?.capacity?.['nvidia.com/gpu'] === '1' ? n : undefined;
    });
    assert.equal(node.metadata?.name, claim.status?.nodeName);
    assert.equal(node.spec?.providerID, claim.status?.providerID);
    assert.equal(node.status?.allocatable?.['nvidia.com/gpu'], '1');
    const labels = node.metadata?.labels ?? {};
    for (const [k, v] of Object.entries({
      'kaito.sh/workspace': `phi-${name}`,
      'kaito.sh/workspacenamespace': 'e2e-prov',
      apps: `phi-${name}`,
      'karpenter.sh/nodepool': 'kaito',
      'kaito.sh/machine-type': 'gpu',
      agentpool: name,
      'kubernetes.azure.com/agentpool': name,
      'node.kubernetes.io/instance-type': 'Standard_NC24ads_A100_v4',
      'kubernetes.io/os': 'linux',
      'karpenter.sh/registered': 'true',
      'karpenter.sh/initialized': 'true',
      'nvidia.com/gpu.product': 'NVIDIA-A100-80GB-PCIe',
    }))
      assert.equal(labels[k], v, k);
    assert.ok(labels['kaito.sh/creation-timestamp'] && labels['kubernetes.azure.com/cluster']);
    assert.deepEqual(
      node.spec?.taints?.map((x) => `${x.key}=${x.value}:${x.effect}`),
      ['sku=gpu:NoSchedule'],
    );
    assert.deepEqual(
      node.metadata?.ownerReferences?.map((o) => `${o.kind}/${o.name}`),
      [`NodeClaim/${name}`],
    );
    assert.equal(node.metadata?.annotations?.['kwok.x-k8s.io/node'], 'fake');

    const pvs = await volumesOf(name);
    assert.ok(pvs.length >= 1, 'an NVMe SKU gets local volumes');
    for (const pv of pvs) {
      assert.equal(pv.spec?.storageClassName, 'kaito-local-nvme-disk');
      assert.deepEqual(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values, [node.metadata?.name]);
    }

    await deleteAndExpectNothingLeft(name);
  });

  it('gives a non-NVMe SKU a GPU node and no volumes', async (t) => {
    await bed();
    const name = claimName();
    await createClaim(t, kaitoNodeClaimYaml(name, 'Standard_NV36ads_A10_v5', `a10-${name}`), name);
    await waitFor(`node of ${name} Ready with nvidia.com/gpu`, async () => {
      const [n] = await nodesOf(name);
      return n && isReady(n) && n.status?.capacity?.['nvidia.com/gpu'] === '1';
    });
    assert.deepEqual(await volumesOf(name), []);
    await deleteAndExpectNothingLeft(name);
  });

  it('reports an injected launch error as Launched=Unknown/LaunchFailed with the message, makes no node, and recovers when it is lifted', async (t) => {
    await bed();
    const name = claimName();
    const message = `QuotaExceeded: Operation could not be completed as it results in exceeding approved standardNCADSA100v4Family Cores quota (e2e ${name})`;
    const fault: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `fault-${name}`, namespace: 'kaito-ts-sim' },
      data: { nodeclaim: name, 'launch-error': message },
    };
    await kubectl(['create', '-f', '-'], { input: JSON.stringify(fault) });
    t.after(() => kubectl(['delete', 'configmap', '-n', 'kaito-ts-sim', `fault-${name}`, '--ignore-not-found']));
    await createClaim(t, kaitoNodeClaimYaml(name, 'Standard_NC24ads_A100_v4', `q-${name}`), name);

    const failed = await waitFor(`NodeClaim ${name} LaunchFailed`, async () => {
      const c = await claimOf(name);
      return condition(c, 'Launched')?.reason === 'LaunchFailed' ? c : undefined;
    });
    assert.equal(condition(failed, 'Launched')?.status, 'Unknown');
    assert.equal(condition(failed, 'Launched')?.message, `agentPool.BeginCreateOrUpdate for "${name}" failed: ${message}`);
    assert.equal(condition(failed, 'Ready')?.status, 'Unknown');
    assert.equal(failed.metadata?.deletionTimestamp, undefined, 'a failed launch never deletes the claim');
    assert.deepEqual(await nodesOf(name), []);

    await kubectl(['delete', 'configmap', '-n', 'kaito-ts-sim', `fault-${name}`]);
    await waitFor(`NodeClaim ${name} Ready after the fault is lifted`, async () => condition(await claimOf(name), 'Ready')?.status === 'True');
    await deleteAndExpectNothingLeft(name);
  });

  it('fails the launch of a node that never registers, without deleting the claim', async (t) => {
    await bed();
    const name = claimName();
    await createClaim(t, kaitoNodeClaimYaml(name, 'Standard_NV36ads_A10_v5', `nr-${name}`, { 'sim.kaito-ts.io/never-register': 'true' }), name);
    const failed = await waitFor(`NodeClaim ${name} LaunchFailed`, async () => {
      const c = await claimOf(name);
      return condition(c, 'Launched')?.reason === 'LaunchFailed' ? c : undefined;
    });
    assert.match(condition(failed, 'Launched')?.message ?? '', /^fail to find the node object \(node aks-.+ did not register within \d+s/);
    assert.deepEqual(await nodesOf(name), []);
    await deleteAndExpectNothingLeft(name);
  });

  it('turns a node NotReady on request, and NodeRepair deletes its claim', async (t) => {
    await bed();
    const name = claimName();
    await createClaim(t, kaitoNodeClaimYaml(name, 'Standard_NV36ads_A10_v5', `rp-${name}`), name);
    await waitFor(`NodeClaim ${name} Ready`, async () => condition(await claimOf(name), 'Ready')?.status === 'True');
    await kubectl(['annotate', 'nodeclaim', name, 'sim.kaito-ts.io/not-ready=true', 'sim.kaito-ts.io/repair-after=3s']);
    await waitFor(`node of ${name} NotReady`, async () => {
      const [n] = await nodesOf(name);
      return n && n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False';
    });
    await waitFor(
      `NodeRepair: NodeClaim ${name}, its node gone`,
      async () => (await kubectl(['get', 'nodeclaim', name, '--ignore-not-found'])).trim() === '' && (await nodesOf(name)).length === 0,
    );
  });
});
