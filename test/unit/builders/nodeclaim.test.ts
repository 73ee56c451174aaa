// The NodeClaim KAITO v0.8.0 writes (node-provisioning reference §2), field for field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferencePresetOf } from '../../../src/api/resolved-workspace.js';
import { buildNodeClaim, goTimestamp, nodeClaimName, nodeClaimStorage } from '../../../src/builders/nodeclaim.js';
import type { CloudProvider } from '../../../src/catalog/types.js';
import { presetWorkspace } from './fixtures.js';

const ws = presetWorkspace('phi-4-mini-instruct');
const resolvedOn = (cloud: CloudProvider) => ({ cloud, inferencePreset: inferencePresetOf(ws) });

test('azure NodeClaim: labels, do-not-disrupt, taint, requirements, KaitoNodeClass, preset storage', () => {
  const nc = buildNodeClaim(ws, resolvedOn('azure'), 'wsabcdef012');
  assert.deepEqual(nc.metadata, {
    name: 'wsabcdef012',
    labels: { 'karpenter.sh/nodepool': 'kaito', 'kaito.sh/workspace': 'ws1', 'kaito.sh/workspacenamespace': 'ns1', apps: 'test', pool: 'gpu' },
    annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
  });
  assert.deepEqual(nc.spec, {
    nodeClassRef: { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' },
    taints: [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }],
    requirements: [
      { key: 'karpenter.sh/nodepool', operator: 'In', values: ['kaito'] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_NC24ads_A100_v4'] },
      { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
      { key: 'karpenter.azure.com/sku-name', operator: 'In', values: ['Standard_NC24ads_A100_v4'] },
    ],
    resources: { requests: { storage: nodeClaimStorage(inferencePresetOf(ws)) } },
  });
});

const cases: [string, 'azure' | 'aws' | 'arc', object, object | undefined][] = [
  [
    'aws',
    'aws',
    { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Gt', values: ['0'] },
  ],
  ["arc (no NodeClass: the CRD refuses it, as KAITO's)", 'arc', { group: '', kind: '', name: 'default' }, undefined],
];
for (const [name, cloud, ref, extra] of cases) {
  test(`${name}: nodeClassRef and cloud requirement`, () => {
    const nc = buildNodeClaim(ws, resolvedOn(cloud), 'wsabcdef012');
    assert.deepEqual(nc.spec.nodeClassRef, ref);
    assert.deepEqual(nc.spec.requirements[3], extra);
    assert.equal(nc.spec.requirements.length, extra ? 4 : 3);
  });
}

test('storage: the preset disk requirement; 1024Gi for a template', () => {
  assert.match(nodeClaimStorage(inferencePresetOf(ws)), /^\d+Gi$/);
  assert.equal(nodeClaimStorage(inferencePresetOf({ inference: { template: { spec: { containers: [] } } } })), '1024Gi');
});

test('name: ws + 9 hex, within gpu-provisioner ^[a-z][a-z0-9]{0,11}$, distinct per time and salt', () => {
  const t = new Date('2026-11-30T10:00:00.123Z');
  const a = nodeClaimName(ws, t);
  assert.match(a, /^ws[0-9a-f]{9}$/);
  assert.match(a, /^[a-z][a-z0-9]{0,11}$/);
  assert.equal(nodeClaimName(ws, t), a);
  assert.notEqual(nodeClaimName(ws, t, 1), a);
  assert.notEqual(nodeClaimName(ws, new Date(t.getTime() + 1)), a);
});

test('goTimestamp: Go layout 2006-01-02 15:04:05.000000000 in UTC', () => {
  assert.equal(goTimestamp(new Date('2026-01-02T03:04:05.006Z')), '2026-01-02 03:04:05.006000000');
  assert.equal(goTimestamp(new Date('2026-01-02T03:04:05.006Z'), 7), '2026-01-02 03:04:05.006000007');
});
