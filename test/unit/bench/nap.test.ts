import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import { NAP_STAGES, NapTracker, nodeClaimCreates } from '../../../bench/nap.js';
import { percentile, spread } from '../../../bench/spread.js';

function claim(name: string, ws: string, ready?: 'True' | 'False', deleting = false): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'kaito.sh/workspace': ws, 'kaito.sh/workspacenamespace': 'ns' }, ...(deleting ? { deletionTimestamp: new Date() } : {}) },
    spec: {
      nodeClassRef: { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' },
      taints: [],
      requirements: [],
      resources: { requests: { storage: '1Gi' } },
    },
    ...(ready ? { status: { conditions: [{ type: 'Ready', status: ready }] } } : {}),
  };
}

function node(name: string, ws: string, opts: { ready: boolean; gpus?: string }): V1Node {
  return {
    metadata: { name, labels: { 'kaito.sh/workspace': ws } },
    status: {
      conditions: [{ type: 'Ready', status: opts.ready ? 'True' : 'False' }],
      capacity: { cpu: '24', ...(opts.gpus ? { 'nvidia.com/gpu': opts.gpus } : {}) },
    },
  };
}

describe('percentile / spread', () => {
  const cases: Array<[number[], number, number]> = [
    [[1], 0.5, 1],
    [[1, 2], 0.5, 1],
    [[1, 2, 3, 4], 0.5, 2],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9, 9],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 1, 10],
    [[5, 6, 7], 0, 5],
  ];
  for (const [values, q, want] of cases) {
    it(`p${q * 100} of ${JSON.stringify(values)} is ${want}`, () => assert.equal(percentile(values, q), want));
  }
  it('refuses an empty list; spread of nothing is null', () => {
    assert.throws(() => percentile([], 0.5), /nothing/);
    assert.equal(spread([]), null);
  });
  it('sorts and rounds to tenths', () => assert.deepEqual(spread([3.04, 1.01, 2.26]), { p50: 2.3, p90: 3, p99: 3, max: 3 }));
});

describe('NapTracker', () => {
  it('counts creates by distinct claim name, ignoring replays and other workspaces', () => {
    const t = new NapTracker(new Set(['a', 'b', 'c']));
    t.onClaim(claim('wsaaa', 'a'), 1);
    t.onClaim(claim('wsaaa', 'a'), 9); // replayed ADDED after a watch restart
    t.onClaim(claim('wsbbb', 'b'), 2);
    t.onClaim(claim('wsbbc', 'b', undefined, true), 30); // a replacement
    t.onClaim(claim('wszzz', 'stranger'), 3);
    const f = t.figures(
      () => undefined,
      () => undefined,
    );
    assert.equal(f.nodeClaimsCreated, 3);
    assert.deepEqual(f.claimsPerWorkspace, { min: 0, max: 2, mean: 1 });
    assert.equal(f.nodesCreated, 0);
  });

  it('times each stage from the end of the one before, per workspace', () => {
    const t = new NapTracker(new Set(['a', 'b']));
    t.onClaim(claim('wsa', 'a'), 1);
    t.onClaim(claim('wsb', 'b'), 2);
    t.onClaim(claim('wsa', 'a', 'False'), 5); // not ready yet
    t.onClaim(claim('wsa', 'a', 'True'), 31);
    t.onClaim(claim('wsb', 'b', 'True'), 40);
    t.onNode(node('n-a', 'a', { ready: true }), 31.5); // no GPUs yet: not usable
    t.onNode(node('n-a', 'a', { ready: true, gpus: '0' }), 31.6);
    t.onNode(node('n-a', 'a', { ready: true, gpus: '1' }), 33);
    t.onNode(node('n-b', 'b', { ready: false, gpus: '2' }), 41); // not Ready: not usable
    t.onNode(node('n-b', 'b', { ready: true, gpus: '2' }), 42);
    t.onNode(node('n-b', 'b', { ready: true, gpus: '2' }), 99); // a heartbeat later changes nothing
    const sts: Record<string, number> = { a: 34, b: 41.9 }; // b's seen a moment before its node event
    const ready: Record<string, number> = { a: 65 };
    const f = t.figures(
      (w) => sts[w],
      (w) => ready[w],
    );
    assert.equal(f.nodesCreated, 2);
    assert.deepEqual(f.stages, {
      claim: { p50: 1, p90: 2, p99: 2, max: 2 },
      claimReady: { p50: 30, p90: 38, p99: 38, max: 38 },
      nodeGpu: { p50: 2, p90: 2, p99: 2, max: 2 },
      statefulSet: { p50: 0, p90: 1, p99: 1, max: 1 },
      inferenceReady: { p50: 31, p90: 31, p99: 31, max: 31 },
    });
    assert.deepEqual(Object.keys(f.stages), [...NAP_STAGES]);
  });

  it('leaves a stage out for a workspace that skipped the stage before it', () => {
    const t = new NapTracker(new Set(['a']));
    t.onClaim(claim('wsa', 'a'), 2);
    const f = t.figures(
      () => 50,
      () => undefined,
    );
    assert.deepEqual(f.stages.claim, { p50: 2, p90: 2, p99: 2, max: 2 });
    assert.equal(f.stages.claimReady, null);
    assert.equal(f.stages.statefulSet, null); // no node time to measure from
    assert.equal(f.stages.inferenceReady, null);
  });
});

describe('nodeClaimCreates', () => {
  it('picks the NodeClaim creates by status out of the proxy counts', () => {
    const counts = {
      'create karpenter.sh/nodeclaims 201': 50,
      'create karpenter.sh/nodeclaims 409': 2,
      'list karpenter.sh/nodeclaims 200': 1,
      'create core/nodes 201': 7,
      'patch karpenter.sh/nodeclaims 200': 3,
    };
    assert.deepEqual(nodeClaimCreates(counts), { 201: 50, 409: 2 });
    assert.deepEqual(nodeClaimCreates({}), {});
  });
});
