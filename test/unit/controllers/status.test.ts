import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Workspace } from '../../../src/api/types.js';
import { computeStatus } from '../../../src/controllers/workspace/status.js';

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
  assert.equal(status.conditions?.find((c) => c.type === 'ResourceReady'), undefined);
});

test('too few BYO nodes for the target: ResourceReady names the shortfall, InferenceReady still reflects the StatefulSet', () => {
  const shortfall = { reason: 'InsufficientMatchingNodes', message: 'targetNodeCount is 200 but 2 node(s) match resource.labelSelector' };
  const { status } = computeStatus(ws(), { ...readyInput, targetNodeCount: 200, nodes: { target: 200, ready: 2, selected: 2, workerNodes: ['a', 'b'], shortfall } }, now);
  const byType = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, c]));
  assert.equal(byType.ResourceReady?.status, 'False');
  assert.equal(byType.ResourceReady?.reason, 'InsufficientMatchingNodes');
  assert.equal(byType.NodesReady?.status, 'False');
  assert.equal(byType.InferenceReady?.status, 'True');
});
