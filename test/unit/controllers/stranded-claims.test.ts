// Weights claims stranded on a node that is gone: which ones are released, and which are left alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { strandedClaims } from '../../../src/controllers/workspace/stranded-claims.js';

const claim = (name: string, o: { pv?: string; selected?: string; phase?: string; deleting?: boolean } = {}): V1PersistentVolumeClaim => ({
  metadata: {
    name,
    ...(o.selected ? { annotations: { 'volume.kubernetes.io/selected-node': o.selected } } : {}),
    ...(o.deleting ? { deletionTimestamp: new Date() } : {}),
  },
  spec: { ...(o.pv ? { volumeName: o.pv } : {}) },
  status: { phase: o.phase ?? 'Bound' },
});
const pv = (name: string, node: string, deleting = false): V1PersistentVolume => ({
  metadata: { name, ...(deleting ? { deletionTimestamp: new Date() } : {}) },
  spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } },
});
const pod = (name: string, node?: string): V1Pod => ({ metadata: { name }, spec: { containers: [], ...(node ? { nodeName: node } : {}) } });

const volumes = [pv('pv-gone-node', 'n-old'), pv('pv-ok', 'n1'), pv('pv-terminating', 'n1', true)];
const nodes = new Set(['n1']);
const run = (claims: V1PersistentVolumeClaim[], pods: V1Pod[] = []) =>
  strandedClaims(
    'ws',
    claims,
    pods,
    (n) => volumes.find((v) => v.metadata?.name === n),
    (n) => nodes.has(n),
  ).map((s) => [s.claim.metadata?.name, s.pod?.metadata?.name ?? null, s.why]);

test('released: volume pinned to a vanished node, volume being deleted, volume lost, scheduler-selected node gone', () => {
  assert.deepEqual(run([claim('model-weights-volume-ws-0', { pv: 'pv-gone-node' })], [pod('ws-0')]), [
    ['model-weights-volume-ws-0', 'ws-0', 'is bound to volume pv-gone-node on node n-old, which no longer exists'],
  ]);
  assert.match(String(run([claim('model-weights-volume-ws-1', { pv: 'pv-terminating' })])[0]?.[2]), /being deleted/);
  assert.match(String(run([claim('model-weights-volume-ws-2', { pv: 'pv-missing', phase: 'Lost' })])[0]?.[2]), /lost its volume pv-missing/);
  assert.match(String(run([claim('model-weights-volume-ws-3', { selected: 'n-old' })])[0]?.[2]), /placed on node n-old/);
});

test('left alone: healthy volume, pod still bound to a node, other StatefulSets and claims, already deleting, not bound yet', () => {
  const rows: [string, V1PersistentVolumeClaim[], V1Pod[]][] = [
    ['healthy', [claim('model-weights-volume-ws-0', { pv: 'pv-ok' })], []],
    ['pod still on a node (node lifecycle first)', [claim('model-weights-volume-ws-0', { pv: 'pv-gone-node' })], [pod('ws-0', 'n-old')]],
    ['another StatefulSet', [claim('model-weights-volume-ws2-0', { pv: 'pv-gone-node' })], []],
    ['not a weights claim', [claim('data-ws-0', { pv: 'pv-gone-node' })], []],
    ['already deleting', [claim('model-weights-volume-ws-0', { pv: 'pv-gone-node', deleting: true })], []],
    ['pending, not bound', [claim('model-weights-volume-ws-0', { phase: 'Pending' })], []],
    ['volume not in the cache yet but the claim is Bound', [claim('model-weights-volume-ws-0', { pv: 'pv-new' })], []],
  ];
  for (const [name, claims, pods] of rows) assert.deepEqual(run(claims, pods), [], name);
});
