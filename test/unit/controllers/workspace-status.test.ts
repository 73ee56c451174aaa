import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Workspace } from '../../../src/api/types.js';
import { computeStatus } from '../../../src/controllers/workspace/workspace-status.js';

const now = new Date('2026-01-01T00:00:00Z');
const later = new Date('2026-01-01T01:00:00Z');
function ws(status?: Workspace['status']): Workspace {
  return { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'w', namespace: 'n', generation: 3 }, resource: { labelSelector: {} }, status };
}
const readyInput = {
  targetNodeCount: 2,
  nodes: { target: 2, ready: 2, selected: 3, workerNodes: ['a', 'b', 'c'] },
  inference: { ready: true as const, reason: 'WorkspaceInferenceStatusSuccess', message: 'Inference has been deployed successfully' },
};

test('first status: every condition carries observedGeneration, summary True', () => {
  const { status, changed } = computeStatus(ws(), readyInput, now);
  assert.equal(changed, true);
  const byType = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, c]));
  assert.equal(byType.NodesReady?.status, 'True');
  assert.equal(byType.ResourceReady?.reason, 'workspaceResourceStatusSuccess');
  assert.equal(byType.InferenceReady?.status, 'True');
  assert.equal(byType.WorkspaceSucceeded?.reason, 'workspaceSucceeded');
  for (const c of status.conditions ?? []) assert.equal(c.observedGeneration, 3);
  assert.deepEqual(status.workerNodes, ['a', 'b', 'c']);
  assert.equal(status.targetNodeCount, 2);
});

test('same facts again: no change, so no write', () => {
  const first = computeStatus(ws(), readyInput, now).status;
  const again = computeStatus(ws(first), readyInput, later);
  assert.equal(again.changed, false);
  assert.deepEqual(again.status, first);
});

test('not enough nodes: ResourceReady copies the NodesReady reason in the same pass (KAITO W7 lags a pass)', () => {
  const { status } = computeStatus(ws(), { ...readyInput, nodes: { target: 3, ready: 1, selected: 1, workerNodes: ['a'] } }, now);
  const rr = status.conditions?.find((c) => c.type === 'ResourceReady');
  assert.equal(rr?.status, 'False');
  assert.equal(rr?.reason, 'NodeNotReady');
  assert.match(rr?.message ?? '', /TargetNodes: 3, CurrentReadyNodes: 1/);
});

test('failure: InferenceReady and WorkspaceSucceeded False with the message', () => {
  const { status } = computeStatus(ws(), { targetNodeCount: 0, failure: { reason: 'InvalidSpec', message: 'Unsupported inference preset name x' } }, now);
  const ir = status.conditions?.find((c) => c.type === 'InferenceReady');
  const ok = status.conditions?.find((c) => c.type === 'WorkspaceSucceeded');
  assert.equal(ir?.reason, 'InvalidSpec');
  assert.equal(ok?.status, 'False');
  assert.equal(ok?.reason, 'workspaceFailed');
});

test('not ready yet: summary Unknown/pending, not an error', () => {
  const { status } = computeStatus(ws(), { ...readyInput, inference: { ready: false, reason: 'PodsNotReady', message: '0/2 ready' } }, now);
  const ok = status.conditions?.find((c) => c.type === 'WorkspaceSucceeded');
  assert.equal(ok?.status, 'Unknown');
  assert.equal(ok?.reason, 'workspacePending');
});

test('no node facts in this pass: ResourceReady is not claimed', () => {
  const { status } = computeStatus(ws(), { targetNodeCount: 0, inference: { ready: false, reason: 'WorkloadMigration', message: 'm' } }, now);
  assert.equal(
    status.conditions?.find((c) => c.type === 'ResourceReady'),
    undefined,
  );
});

test('too few BYO nodes for the target: ResourceReady names the shortfall, InferenceReady still reflects the StatefulSet', () => {
  const shortfall = { reason: 'InsufficientMatchingNodes', message: 'targetNodeCount is 200 but 2 node(s) match resource.labelSelector' };
  const { status } = computeStatus(
    ws(),
    { ...readyInput, targetNodeCount: 200, nodes: { target: 200, ready: 2, selected: 2, workerNodes: ['a', 'b'], shortfall } },
    now,
  );
  const byType = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, c]));
  assert.equal(byType.ResourceReady?.status, 'False');
  assert.equal(byType.ResourceReady?.reason, 'InsufficientMatchingNodes');
  assert.equal(byType.NodesReady?.status, 'False');
  assert.equal(byType.InferenceReady?.status, 'True');
});

test('status.state (KAITO v0.9): Pending until first Ready, then NotReady when not ready', () => {
  const notReady = { ...readyInput, inference: { ready: false as const, reason: 'PodsNotReady', message: '0/2 ready' } };
  const noNodes = { ...readyInput, nodes: { target: 2, ready: 1, selected: 1, workerNodes: ['a'] } };
  const failure = { targetNodeCount: 0, failure: { reason: 'InvalidSpec', message: 'bad' } };
  const cases: { name: string; prev: NonNullable<Workspace['status']>['state']; input: Parameters<typeof computeStatus>[1]; want: string }[] = [
    { name: 'new, not ready', prev: undefined, input: notReady, want: 'Pending' },
    { name: 'new, ready', prev: undefined, input: readyInput, want: 'Ready' },
    { name: 'pending, still not ready', prev: 'Pending', input: notReady, want: 'Pending' },
    { name: 'was ready, now not', prev: 'Ready', input: notReady, want: 'NotReady' },
    { name: 'not ready stays not ready', prev: 'NotReady', input: notReady, want: 'NotReady' },
    { name: 'not ready recovers', prev: 'NotReady', input: readyInput, want: 'Ready' },
    { name: 'inference ready but resources not', prev: 'Ready', input: noNodes, want: 'NotReady' },
    { name: 'a spec problem before ever ready', prev: undefined, input: failure, want: 'Pending' },
    { name: 'a spec problem after ready', prev: 'Ready', input: failure, want: 'NotReady' },
  ];
  for (const c of cases) {
    const { status } = computeStatus(ws(c.prev ? { state: c.prev } : undefined), c.input, now);
    assert.equal(status.state, c.want, c.name);
  }
});

test('state unchanged and conditions unchanged: no write', () => {
  const first = computeStatus(ws(), readyInput, now).status;
  assert.equal(first.state, 'Ready');
  assert.equal(computeStatus(ws(first), readyInput, later).changed, false);
});

test('observedGeneration: a new generation refreshes every condition, also ones not re-evaluated (KAITO #2270)', () => {
  const first = computeStatus(ws(), readyInput, now).status;
  const withOld = {
    ...first,
    conditions: [
      ...(first.conditions ?? []),
      { type: 'NodeClaimsReady', status: 'True' as const, reason: 'r', message: 'm', lastTransitionTime: '2025-01-01T00:00:00Z', observedGeneration: 1 },
    ],
  };
  const next = { ...ws(withOld), metadata: { name: 'w', namespace: 'n', generation: 4 } };
  const { status, changed } = computeStatus(next, readyInput, later);
  assert.equal(changed, true);
  for (const c of status.conditions ?? []) assert.equal(c.observedGeneration, 4, c.type);
  // The transition time of an unchanged status is kept.
  assert.equal(status.conditions?.find((c) => c.type === 'NodeClaimsReady')?.lastTransitionTime, '2025-01-01T00:00:00Z');
});

test('a tuning workspace keeps its own state when a failure is reported', () => {
  const tuning = { ...ws({ state: 'Running' }), tuning: { preset: { name: 'phi-4' }, method: 'lora' } } as Workspace;
  const { status } = computeStatus(tuning, { targetNodeCount: 0, failure: { reason: 'InvalidSpec', message: 'bad' } }, now);
  assert.equal(status.state, 'Running');
});

test('node pressure: a warning on NodesReady only (as KAITO v0.12), status unchanged', () => {
  const warning = 'worker node(s) under resource pressure: a (DiskPressure)';
  const ok = computeStatus(ws(), { ...readyInput, nodes: { ...readyInput.nodes, pressureWarning: warning } }, now).status;
  const nodesReady = ok.conditions?.find((c) => c.type === 'NodesReady');
  assert.equal(nodesReady?.status, 'True');
  assert.equal(nodesReady?.message, `Enough Nodes are ready (TargetNodes: 2, CurrentReadyNodes: 2, SelectedNodes: 3); warning: ${warning}`);
  const short = computeStatus(ws(), { ...readyInput, nodes: { target: 3, ready: 1, selected: 1, workerNodes: ['a'], pressureWarning: warning } }, now).status;
  assert.match(
    short.conditions?.find((c) => c.type === 'NodesReady')?.message ?? '',
    /^Not enough Nodes are ready .*; warning: worker node\(s\) under resource pressure/,
  );
  assert.equal(
    short.conditions?.find((c) => c.type === 'ResourceReady')?.message,
    'Not enough Nodes are ready (TargetNodes: 3, CurrentReadyNodes: 1, SelectedNodes: 1)',
  );
});
