// The InferenceSet scenario's pure parts (bench/inferenceset.ts): the bed and the set, the scale write,
// the tracker's figures and "done", the writes of a window, the floor and the ratio, the tables; and
// how the options, the controllers and the --json document carry the scenario.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodePool } from '../../../src/simcluster/nodes.js';
import type { InferenceSet } from '../../../src/api/inferenceset-types.js';
import type { Workspace } from '../../../src/api/types.js';
import { parseBenchArgs, BenchArgsError } from '../../../bench/args.js';
import { CONTROLLERS } from '../../../bench/controllers.js';
import {
  InferenceSetTracker,
  childPlan,
  compareInferenceSet,
  floorSeconds,
  inferenceSetManifest,
  inferenceSetMarkdown,
  inferenceSetPools,
  scalePatch,
  windowWrites,
  writesIn,
  type InferenceSetFigures,
} from '../../../bench/inferenceset.js';
import { benchDocument, formatTable, parseBenchDocument, type ControllerResult } from '../../../bench/results.js';

const pools = [
  { name: 'a100', count: 3, instanceType: 'Standard_NC24ads_A100_v4', nvme: { volumes: 4, size: '1000Gi' } },
  { name: 'a10', count: 2, instanceType: 'Standard_NV36ads_A10_v5' },
] as NodePool[];

const child = (name: string, ready = false, set = 'bench-set') =>
  ({
    metadata: { name, labels: { 'inferenceset.kaito.sh/created-by': set } },
    status: ready ? { conditions: [{ type: 'InferenceReady', status: 'True' }] } : {},
  }) as unknown as Workspace;

const set = (readyReplicas?: number, condition = true): Pick<InferenceSet, 'metadata' | 'status'> => ({
  metadata: { name: 'bench-set' },
  status: {
    ...(readyReplicas !== undefined ? { readyReplicas } : {}),
    ...(condition
      ? { conditions: [{ type: 'InferenceSetReady', status: 'True', reason: 'inferencesetReady', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] }
      : {}),
  },
});

describe('the InferenceSet bed and set', () => {
  it('N A100 nodes with one NVMe volume each, no other node', () => {
    const p = inferenceSetPools(pools, 20);
    assert.deepEqual(
      p.map((x) => [x.name, x.count]),
      [
        ['a100', 20],
        ['a10', 0],
      ],
    );
    assert.deepEqual(p[0]?.nvme, { volumes: 1, size: '1000Gi' });
    assert.throws(() => inferenceSetPools([pools[1]!], 2), /no pool "a100"/);
  });
  it("KAITO v0.12.0's v1beta1 shape at replicas 0, bring-your-own, benchmark off", () => {
    const m = inferenceSetManifest('bench-ns', 'run1');
    assert.equal(m.spec.template.resource, undefined, 'no instanceType with bring-your-own nodes');
    assert.deepEqual(m, {
      apiVersion: 'kaito.sh/v1beta1',
      kind: 'InferenceSet',
      metadata: {
        name: 'bench-set',
        namespace: 'bench-ns',
        labels: { 'kaito-ts.bench/run': 'run1' },
        annotations: { 'kaito.sh/disable-benchmark': 'true' },
      },
      spec: {
        replicas: 0,
        labelSelector: { matchLabels: { 'kaito.sh/sim-pool': 'a100' } },
        template: { inference: { preset: { name: 'phi-4-mini-instruct' } } },
      },
    });
  });
  it('the scale write is what kubectl scale sends', () => {
    assert.deepEqual(scalePatch(20), { spec: { replicas: 20 } });
  });
  it('a child is checked like a workspace of the pool', () => {
    assert.deepEqual(childPlan('bench-set-abcde', pools[0]!), {
      name: 'bench-set-abcde',
      pool: 'a100',
      preset: 'phi-4-mini-instruct',
      instanceType: 'Standard_NC24ads_A100_v4',
      nvme: true,
    });
  });
});

describe('InferenceSetTracker', () => {
  it('has accepted the set once its controller wrote InferenceSetReady', () => {
    const t = new InferenceSetTracker('bench-set', 2);
    t.onInferenceSet(set(undefined, false), 0);
    assert.equal(t.hasAccepted(), false);
    t.onInferenceSet({ ...set(0), metadata: { name: 'other' } }, 0);
    assert.equal(t.hasAccepted(), false);
    t.onInferenceSet(set(), 0);
    assert.equal(t.hasAccepted(), true);
  });
  it('counts nothing before the scale write: readyReplicas 0 of 0 is not "done"', () => {
    const t = new InferenceSetTracker('bench-set', 2);
    t.onInferenceSet(set(5), 1);
    assert.equal(t.done(), false);
    assert.equal(t.figures().readyReplicasSeconds, null);
  });
  it('is done when readyReplicas reached N and N children are InferenceReady, at the later of the two', async () => {
    const t = new InferenceSetTracker('bench-set', 2);
    t.begin();
    const done = t.whenDone();
    t.onChild(child('bench-set-a'), 0.3);
    t.onChild(child('bench-set-a'), 0.9);
    t.onChild(child('other-x', false, 'other'), 0.1);
    t.onChild(child('bench-set-b'), 0.5);
    t.onInferenceSet(set(1), 31);
    t.onChild(child('bench-set-a', true), 30.5);
    t.onChild(child('bench-set-b', true), 31.2);
    assert.equal(t.done(), false, 'readyReplicas is 1');
    t.onInferenceSet(set(2), 31.6);
    await done;
    assert.equal(t.doneAt(), 31.6);
    assert.deepEqual(t.children(), ['bench-set-a', 'bench-set-b']);
    const f = t.figures();
    assert.deepEqual(f, {
      replicas: 2,
      firstChildSeconds: 0.3,
      childrenCreated: 2,
      childCreated: { p50: 0.3, p90: 0.5, p99: 0.5, max: 0.5 },
      childInferenceReady: { p50: 30.5, p90: 31.2, p99: 31.2, max: 31.2 },
      readyReplicasSeconds: 31.6,
      allChildrenReadySeconds: 31.2,
    });
  });
  it('reports children beyond N (duplicates) and the Nth Ready child', () => {
    const t = new InferenceSetTracker('bench-set', 2);
    t.begin();
    for (const [n, at] of [
      ['bench-set-a', 0.2],
      ['bench-set-b', 0.4],
      ['bench-set-c', 0.6],
    ] as const)
      t.onChild(child(n), at);
    t.onChild(child('bench-set-c', true), 30);
    t.onChild(child('bench-set-a', true), 32);
    t.onChild(child('bench-set-b', true), 33);
    const f = t.figures({ beforeScale: 3, toReady: 10, toReadyByResource: {}, refused: {} });
    assert.equal(f.childrenCreated, 3);
    assert.equal(f.allChildrenReadySeconds, 32);
    assert.equal(f.writes?.toReady, 10);
    assert.equal(t.doneAt(), undefined, 'readyReplicas never seen');
  });
});

describe('writes, floor and ratio', () => {
  it('counts the writes of a window by verb and resource, with the refused ones apart', () => {
    const before = { 'create kaito.sh/workspaces 201': 1, 'get apps/statefulsets 200': 9, 'patch kaito.sh/workspaces/status 200': 2 };
    const after = {
      'create kaito.sh/workspaces 201': 21,
      'get apps/statefulsets 200': 90,
      'patch kaito.sh/workspaces/status 200': 42,
      'patch kaito.sh/workspaces/status 409': 3,
      'update kaito.sh/inferencesets/status 200': 4,
      'create core/events 201': 5,
      'watch kaito.sh/workspaces 200': 2,
    };
    assert.deepEqual(windowWrites(before, after), {
      toReady: 20 + 40 + 3 + 4 + 5,
      toReadyByResource: {
        'patch kaito.sh/workspaces/status': 43,
        'create kaito.sh/workspaces': 20,
        'create core/events': 5,
        'update kaito.sh/inferencesets/status': 4,
      },
      refused: { 'patch kaito.sh/workspaces/status 409': 3 },
    });
    assert.equal(writesIn(after), 21 + 42 + 3 + 4 + 5);
  });
  it("the floor is the load plus the controller's own writes at its QPS", () => {
    assert.equal(floorSeconds(30, 180, 30), 36);
    assert.equal(floorSeconds(30, 200, 30), 36.7);
  });
  const figures = (allReady: number, toReady: number): InferenceSetFigures => ({
    replicas: 20,
    firstChildSeconds: 0.2,
    childrenCreated: 20,
    childCreated: { p50: 0.4, p90: 0.6, p99: 0.7, max: 0.7 },
    childInferenceReady: { p50: 33, p90: 36, p99: 37, max: 37 },
    readyReplicasSeconds: allReady,
    allChildrenReadySeconds: allReady - 0.2,
    writes: { beforeScale: 4, toReady, toReadyByResource: { 'create kaito.sh/workspaces': 20 }, refused: {} },
  });
  const result = (controller: 'kaito-ts' | 'kaito-v0.12.0', allReady: number, toReady: number): ControllerResult => ({
    controller,
    allStatefulSetsSeconds: 5,
    allReadySeconds: allReady,
    peakRssMiB: 60,
    cpuSeconds: 2,
    requestsByVerb: { create: 40 },
    writesPerIdleMinute: 0,
    correct: true,
    inferenceSet: figures(allReady, toReady),
  });
  const doc = benchDocument(20, [result('kaito-ts', 39.6, 180), result('kaito-v0.12.0', 79.2, 300)], undefined, undefined, undefined, {
    replicas: 20,
    podReadyDelaySeconds: 30,
    qps: 30,
  });
  it('compares each controller with its floor, and KAITO with kaito-ts', () => {
    assert.deepEqual(compareInferenceSet(doc), {
      verdicts: [
        { controller: 'kaito-ts', allReadySeconds: 39.6, floorSeconds: 36, overFloor: 1.1 },
        { controller: 'kaito-v0.12.0', allReadySeconds: 79.2, floorSeconds: 40, overFloor: 1.98 },
      ],
      ratioKaitoToKaitoTs: 2,
    });
  });
  it('keeps the scenario in the --json document and prints it', () => {
    const back = parseBenchDocument(JSON.stringify(doc));
    assert.equal(back.scenario, 'inferenceset');
    assert.deepEqual(back.inferenceSet, { replicas: 20, podReadyDelaySeconds: 30, qps: 30 });
    assert.equal(back.results[0]?.inferenceSet?.writes?.toReady, 180);
    const text = formatTable(doc);
    assert.match(text, /^inferenceset scenario: InferenceSet phi-4-mini-instruct on 20 × a100 \(bring-your-own\), scale 0 → 20, model load 30s, client QPS 30/);
    assert.match(text, /kaito-ts: first child 0\.2s; 20 children, created p50\/p99\/max 0\.4 \/ 0\.7 \/ 0\.7s/);
    assert.match(text, /writes 4 before the scale write, 180 from it to all Ready/);
    assert.match(text, /kaito-ts: all Ready 39\.6s, floor 36s \(load \+ own writes \/ QPS\), 1\.1× the floor/);
    assert.match(text, /KAITO v0\.12\.0 \/ kaito-ts, all Ready: 2×/);
  });
  it('prints the Markdown tables of InferenceSet documents only', () => {
    const md = inferenceSetMarkdown([doc]);
    assert.match(md, /\| kaito-ts \| 20 \| 30 \| 0\.2 \| 0\.4 \/ 0\.7 \/ 0\.7 \| 33 \/ 37 \/ 37 \| 39\.6 \| 39\.4 \| 4 \| 180 \| 36 \| 1\.1× \|/);
    assert.match(md, /\| kaito-v0\.12\.0 \| create kaito\.sh\/workspaces 20 \| none \|/);
    assert.match(md, /KAITO v0\.12\.0 \/ kaito-ts, all Ready: 2×/);
    assert.equal(inferenceSetMarkdown([{ results: [] }]), '');
  });
});

describe('--scenario inferenceset', () => {
  it('scales to 20 with a 30 s load, kaito-ts and KAITO v0.12.0', () => {
    const o = parseBenchArgs(['--scenario', 'inferenceset']);
    assert.ok(o !== 'help');
    assert.equal(o.scenario, 'inferenceset');
    assert.equal(o.workspaces, 20);
    assert.equal(o.podReadyDelaySeconds, 30);
    assert.deepEqual(o.controllers, ['kaito-ts', 'kaito-v0.12.0']);
    assert.deepEqual(o.inferenceSet, { replicas: 20, podReadyDelaySeconds: 30, qps: 30 });
    assert.equal(o.update, undefined);
  });
  it('takes --replicas, --pod-ready-delay and --qps', () => {
    const o = parseBenchArgs(['--scenario=inferenceset', '--replicas', '5', '--pod-ready-delay', '10', '--qps', '50', '--controllers', 'kaito-ts']);
    assert.deepEqual(o === 'help' ? undefined : [o.inferenceSet, o.workspaces, o.controllers], [
      { replicas: 5, podReadyDelaySeconds: 10, qps: 50 },
      5,
      ['kaito-ts'],
    ]);
  });
  const bad: Array<[string[], RegExp]> = [
    [['--scenario', 'inferenceset', '--workspaces', '5'], /use --replicas, not --workspaces/],
    [['--scenario', 'inferenceset', '--mode', 'nap'], /bring-your-own nodes only/],
    [['--scenario', 'inferenceset', '--controllers', 'kaito-ts,kaito-v0.8.0'], /kaito-v0.8.0 has no InferenceSet controller/],
    [['--scenario', 'inferenceset', '--replicas', '0'], /--replicas must be an integer >= 1/],
    [['--scenario', 'inferenceset', '--shared-cluster'], /needs the benchmark cluster/],
    [['--workspaces', '5', '--replicas', '3'], /--replicas needs --scenario inferenceset/],
  ];
  for (const [argv, message] of bad) {
    it(`refuses ${JSON.stringify(argv)}`, () => {
      assert.throws(
        () => parseBenchArgs(argv),
        (err: unknown) => err instanceof BenchArgsError && message.test(err.message),
      );
    });
  }
  it('starts both controllers with their InferenceSet controller on and bring-your-own nodes, kaito-ts with its CRD', () => {
    const o = { kubeconfig: 'k', qps: 30, burst: 50, metricsAddress: 'm', probeAddress: 'p', releaseNamespace: 'r', projectRoot: '/x', nap: false };
    for (const id of ['kaito-ts', 'kaito-v0.12.0'] as const) {
      const gates = CONTROLLERS[id].launch({ ...o, inferenceSets: true }).args.find((a) => a.startsWith('--feature-gates='));
      assert.equal(gates, '--feature-gates=vLLM=true,disableNodeAutoProvisioning=true,enableInferenceSetController=true', id);
      assert.equal(CONTROLLERS[id].inferenceSets, true);
    }
    assert.equal(CONTROLLERS['kaito-v0.8.0'].inferenceSets, false);
    // KAITO v0.12 takes bring-your-own from --node-provisioner (its default overrides the gate); v0.8.0 has no such flag.
    const provisioner = (id: 'kaito-v0.8.0' | 'kaito-v0.12.0', nap: boolean) =>
      CONTROLLERS[id].launch({ ...o, nap }).args.filter((a) => a.startsWith('--node-provisioner'));
    assert.deepEqual(provisioner('kaito-v0.12.0', false), ['--node-provisioner=byo']);
    assert.deepEqual(provisioner('kaito-v0.12.0', true), []);
    assert.deepEqual(provisioner('kaito-v0.8.0', false), []);
    const names = CONTROLLERS['kaito-ts'].crds('byo', true).map((c) => (c as { metadata: { name: string } }).metadata.name);
    assert.deepEqual(names, ['workspaces.kaito.sh', 'inferencesets.kaito.sh']);
  });
});
