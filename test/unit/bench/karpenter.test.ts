import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { CONTROLLERS, kaitoCrdFiles, kaitoPaths, nodeClassSpecFor } from '../../../bench/controllers.js';
import { kwokNodeClassFlags } from '../../../src/simcluster/karpenter/operator-flags.js';
import { KARPENTER_STAGES, KarpenterTracker, karpenterRunSelector, karpenterSummary, resourceRequests } from '../../../bench/karpenter.js';
import { benchDocument, formatTable, karpenterStageTable, markdownTable, type ControllerResult } from '../../../bench/results.js';

const labels = (ws: string) => ({ 'karpenter.kaito.sh/workspace-name': ws, 'karpenter.kaito.sh/workspace-namespace': 'ns' });
const pool = (ws: string, replicas: number, name = `ns-${ws}`) => ({ metadata: { name, labels: labels(ws) }, spec: { replicas } });
const claim = (name: string, ws: string, ready = false) => ({
  metadata: { name, labels: { ...labels(ws), 'karpenter.sh/nodepool': `ns-${ws}` } },
  ...(ready ? { status: { conditions: [{ type: 'Ready', status: 'True' }] } } : {}),
});
const node = (name: string, ws: string, ready: boolean, gpus?: string): V1Node => ({
  metadata: { name, labels: labels(ws) },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], capacity: { cpu: '24', ...(gpus ? { 'nvidia.com/gpu': gpus } : {}) } },
});

describe('KarpenterTracker', () => {
  it('counts pools, claims and nodes by distinct name, ignores strangers, and times every stage', () => {
    const t = new KarpenterTracker(new Set(['a', 'b']));
    t.onNodePool(pool('a', 1), 1);
    t.onNodePool(pool('a', 1), 5); // a replayed ADDED
    t.onNodePool(pool('z', 1), 1); // not the run's
    t.onClaim(claim('ns-a-x1', 'a'), 2);
    t.onClaim(claim('ns-a-x1', 'a', true), 10);
    t.onNode(node('n1', 'a', true), 9); // no GPUs yet
    t.onNode(node('n1', 'a', true, '1'), 11);
    const sts = new Map([['a', 12]]);
    const ready = new Map([['a', 43]]);
    const f = t.figures(
      (w) => sts.get(w),
      (w) => ready.get(w),
    );
    assert.equal(f.nodePoolsCreated, 1);
    assert.deepEqual(f.nodePoolsPerWorkspace, { min: 0, max: 1, mean: 0.5 });
    assert.deepEqual(f.replicas, { min: 1, max: 1, mean: 1 });
    assert.equal(f.replicasChanged, 0);
    assert.equal(f.nodeClaimsCreated, 1);
    assert.equal(f.nodesCreated, 1);
    assert.deepEqual(
      KARPENTER_STAGES.map((s) => f.stages[s]?.max),
      [1, 1, 8, 1, 1, 31],
    );
  });
  it('waits for every replica of a multi-node pool, and reports a replicas change', () => {
    const t = new KarpenterTracker(new Set(['llama']));
    t.onNodePool(pool('llama', 1), 1);
    t.onNodePool(pool('llama', 3), 2);
    for (const [i, at] of [
      [1, 3],
      [2, 4],
      [3, 5],
    ] as const)
      t.onClaim(claim(`c${i}`, 'llama', true), at);
    t.onNode(node('n1', 'llama', true, '1'), 6);
    t.onNode(node('n2', 'llama', true, '1'), 7);
    let f = t.figures(
      () => undefined,
      () => undefined,
    );
    assert.equal(f.stages.nodeGpu, null, 'two of three nodes are not the pool');
    t.onNode(node('n3', 'llama', true, '1'), 9);
    f = t.figures(
      () => undefined,
      () => undefined,
    );
    assert.equal(f.stages.claimReady?.max, 2, 'the third claim Ready at 5, the first seen at 3');
    assert.equal(f.stages.nodeGpu?.max, 4);
    assert.deepEqual(f.replicas, { min: 3, max: 3, mean: 3 });
    assert.equal(f.replicasChanged, 1);
    assert.match(karpenterSummary(f), /1 NodePools \(1 per workspace, replicas 3, changed on 1\), 3 NodeClaims, 3 nodes; left: not measured/);
  });
});

describe('Karpenter mode helpers', () => {
  it('selects the run by the NodePool workspace-namespace label', () =>
    assert.equal(karpenterRunSelector('bench-x'), 'karpenter.kaito.sh/workspace-namespace=bench-x'));
  it('sums the proxy counts of one resource by verb and status', () => {
    assert.deepEqual(
      resourceRequests(
        {
          'create karpenter.sh/nodepools 201': 5,
          'create karpenter.sh/nodepools 409': 1,
          'patch karpenter.sh/nodepools 200': 2,
          'create karpenter.sh/nodeclaims 201': 9,
          'list karpenter.sh/nodepools 200': 1,
        },
        'karpenter.sh/nodepools',
      ),
      { 'create 201': 5, 'create 409': 1, 'patch 200': 2, 'list 200': 1 },
    );
  });
  it('gives both controllers the same node-class flags, with the registration delay in the spec', () => {
    assert.deepEqual(nodeClassSpecFor(0), {});
    assert.deepEqual(nodeClassSpecFor(30), { nodeRegistrationDelay: '30s' });
    assert.equal(
      kwokNodeClassFlags(nodeClassSpecFor(30)).at(-1),
      '--karpenter-node-classes=[{"name":"default","default":true,"spec":{"nodeRegistrationDelay":"30s"}}]',
    );
    const o = { kubeconfig: 'k', qps: 30, burst: 50, metricsAddress: 'm', probeAddress: 'p', releaseNamespace: 'r', projectRoot: '/x', nap: true };
    const karpenter = { nodeClassSpec: nodeClassSpecFor(5) };
    for (const id of ['kaito-ts', 'kaito-v0.12.0'] as const) {
      const args = CONTROLLERS[id].launch({ ...o, karpenter }).args;
      for (const f of kwokNodeClassFlags(karpenter.nodeClassSpec)) assert.ok(args.includes(f), `${id}: ${f}`);
      assert.ok(args.includes('--feature-gates=vLLM=true,disableNodeAutoProvisioning=false'));
      assert.ok(!CONTROLLERS[id].launch(o).args.some((a) => a.startsWith('--node-provisioner')), `${id}: nap mode has no --node-provisioner`);
    }
    const kaito = CONTROLLERS['kaito-v0.12.0'].launch({ ...o, karpenter });
    assert.ok(kaito.args.includes('--webhook=false'));
    assert.deepEqual(kaito.env, { CLOUD_PROVIDER: 'azure', RELEASE_NAMESPACE: 'r', PRESET_REGISTRY_NAME: 'mcr.microsoft.com/aks/kaito' });
    assert.deepEqual(CONTROLLERS['kaito-v0.8.0'].modes, ['byo', 'nap']);
  });
  it('starts KAITO v0.12.0 with --node-provisioner=byo for bring-your-own nodes (its flag overrides the gate); v0.8.0 has no such flag', () => {
    const o = { kubeconfig: 'k', qps: 30, burst: 50, metricsAddress: 'm', probeAddress: 'p', releaseNamespace: 'r', projectRoot: '/x', nap: false };
    const provisioner = (id: 'kaito-v0.8.0' | 'kaito-v0.12.0') => CONTROLLERS[id].launch(o).args.filter((a) => a.startsWith('--node-provisioner'));
    assert.deepEqual(provisioner('kaito-v0.12.0'), ['--node-provisioner=byo']);
    assert.deepEqual(provisioner('kaito-v0.8.0'), []);
    assert.ok(CONTROLLERS['kaito-v0.12.0'].launch(o).args.includes('--feature-gates=vLLM=true,disableNodeAutoProvisioning=true'));
  });
  it("installs KAITO v0.12's InferenceSet CRD, and Karpenter's NodeClaim CRD only where Karpenter does not run", () => {
    assert.deepEqual(kaitoCrdFiles('v0.12.0', 'karpenter'), ['kaito.sh_workspaces.yaml', 'kaito.sh_inferencesets.yaml']);
    assert.deepEqual(kaitoCrdFiles('v0.12.0', 'nap'), ['kaito.sh_workspaces.yaml', 'kaito.sh_inferencesets.yaml', 'karpenter.sh_nodeclaims.yaml']);
    assert.deepEqual(kaitoCrdFiles('v0.8.0', 'nap'), ['kaito.sh_workspaces.yaml', 'karpenter.sh_nodeclaims.yaml']);
    const names = (mode: 'byo' | 'karpenter') => CONTROLLERS['kaito-ts'].crds(mode).map((c) => (c as { metadata: { name: string } }).metadata.name);
    assert.deepEqual(names('karpenter'), ['workspaces.kaito.sh', 'inferencesets.kaito.sh']);
    assert.deepEqual(names('byo'), ['workspaces.kaito.sh']);
  });
  it('finds each KAITO release in its own cache folder', () => {
    const env = { KAITO_TS_CACHE: '/c', KAITO_BIN: '/old/workspace' };
    assert.deepEqual(kaitoPaths('v0.12.0', env), { binary: '/c/kaito-v0.12.0/bin/workspace', crdDir: '/c/kaito-v0.12.0/crds' });
    assert.deepEqual(kaitoPaths('v0.8.0', env), { binary: '/old/workspace', crdDir: '/c/kaito-v0.8.0/crds' });
  });
});

describe('Karpenter results', () => {
  const f = {
    nodePoolsCreated: 5,
    nodePoolsPerWorkspace: { min: 1, max: 1, mean: 1 },
    replicas: { min: 1, max: 1, mean: 1 },
    replicasChanged: 0,
    nodeClaimsCreated: 5,
    nodesCreated: 5,
    nodePoolRequests: { 'create 201': 5 },
    stages: Object.fromEntries(KARPENTER_STAGES.map((s) => [s, { p50: 1, p90: 2, p99: 2, max: 2 }])) as never,
    leftAfterCleanup: { nodePools: 0, nodeClaims: 0, nodes: 0 },
  };
  const r: ControllerResult = {
    controller: 'kaito-v0.12.0',
    allStatefulSetsSeconds: 3,
    allReadySeconds: 40,
    peakRssMiB: 70,
    cpuSeconds: 1,
    requestsByVerb: { create: 10 },
    writesPerIdleMinute: 0,
    correct: true,
    karpenter: f,
  };
  const settings = { registrationDelaySeconds: 30, devicePluginDelaySeconds: 1, podReadyDelaySeconds: 30 };
  it('writes mode and settings into the document, and the figures into the table', () => {
    const doc = benchDocument(5, [r], undefined, settings);
    assert.equal(doc.mode, 'karpenter');
    assert.deepEqual(doc.karpenter, settings);
    assert.deepEqual(doc.results[0]?.karpenter, f);
    const text = formatTable(doc);
    assert.match(text, /Karpenter NodePools \(node registration 30s, device plugin 1s, pod ready 30s\)/);
    assert.match(
      text,
      /kaito-v0.12.0: 5 NodePools \(1 per workspace, replicas 1, never changed\) \(NodePool requests: create 201 × 5\), 5 NodeClaims, 5 nodes; left 0 pools, 0 claims, 0 nodes/,
    );
    assert.match(markdownTable([doc]), /\| 1 \(1\) \| 5, 5 \| 0, 0, 0 \|/);
    assert.match(karpenterStageTable([doc]), /\| 5 \| kaito-v0.12.0 \| 1 \/ 2 \/ 2 \|/);
    assert.equal(karpenterStageTable([benchDocument(5, [{ ...r, karpenter: undefined }])]), '');
  });
});
