// Node auto-provisioning decisions: KAITO's counting, the provisioner's error in the message, the
// bounded wait, the replacement budget, and the node-plugin check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { inferencePresetOf } from '../../../src/api/resolved-workspace.js';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import { buildNodeClaim } from '../../../src/builders/nodeclaim.js';
import { planProvisioning, type ProvisioningInput } from '../../../src/controllers/workspace/provisioning-plan.js';
import { presetWorkspace } from '../builders/fixtures.js';

const ws = presetWorkspace('phi-4-mini-instruct');
const NOW = new Date('2026-11-30T12:00:00Z');
const SKU = 'Standard_NC24ads_A100_v4';

function claim(
  name: string,
  o: { ready?: boolean; node?: string; deleting?: boolean; launched?: { status: string; reason: string; message: string }; ageMs?: number } = {},
): NodeClaim {
  const c = buildNodeClaim(ws, { cloud: 'azure', inferencePreset: inferencePresetOf(ws) }, name);
  c.metadata.creationTimestamp = new Date(NOW.getTime() - (o.ageMs ?? 1000)).toISOString() as unknown as Date;
  if (o.deleting) c.metadata.deletionTimestamp = NOW.toISOString() as unknown as Date;
  const conditions = [
    ...(o.launched ? [{ type: 'Launched', ...o.launched }] : []),
    ...(o.ready !== undefined ? [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] : []),
  ];
  c.status = { ...(o.node ? { nodeName: o.node } : {}), conditions };
  return c;
}

function node(name: string, o: { ready?: boolean; gpus?: string; sku?: string; nodepool?: boolean; accelerator?: boolean } = {}): V1Node {
  return {
    metadata: {
      name,
      labels: {
        apps: 'test',
        pool: 'gpu',
        'node.kubernetes.io/instance-type': o.sku ?? SKU,
        ...(o.nodepool === false ? {} : { 'karpenter.sh/nodepool': 'kaito' }),
        ...(o.accelerator ? { accelerator: 'nvidia' } : {}),
      },
    },
    status: {
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      capacity: o.gpus === undefined ? { 'nvidia.com/gpu': '1' } : o.gpus ? { 'nvidia.com/gpu': o.gpus } : {},
    },
  };
}

function plan(o: Partial<ProvisioningInput>) {
  return planProvisioning({ ws, target: 1, claims: [], nodes: [], created: 0, catalogSku: true, waitLimitMs: 600_000, now: NOW, ...o });
}

test('counting, as KAITO: target minus ready BYO nodes minus existing claims (deleting ones count)', () => {
  const rows: [string, Partial<ProvisioningInput>, number][] = [
    ['nothing yet: one per node', { target: 3 }, 3],
    ['a ready BYO node without nodepool label counts', { target: 3, nodes: [node('byo', { nodepool: false })] }, 2],
    ['a ready node made by a nodepool does not count', { target: 3, nodes: [node('np')] }, 3],
    ['a not-ready BYO node does not count', { target: 1, nodes: [node('byo', { nodepool: false, ready: false })] }, 1],
    ['existing claims count, ready or not', { target: 3, claims: [claim('wsa', { ready: true, node: 'n1' }), claim('wsb')] }, 1],
    ['a deleting claim counts (no duplicate while it goes)', { target: 1, claims: [claim('wsa', { deleting: true })] }, 0],
    ['restart mid-way: claims in the cache, nothing more', { target: 2, claims: [claim('wsa'), claim('wsb')], created: 2 }, 0],
  ];
  for (const [name, input, want] of rows) assert.equal(plan(input).toCreate, want, name);
});

test('not enough ready claims: NodeClaimNotReady with KAITO message, recheck at the wait limit', () => {
  const p = plan({ claims: [claim('wsa', { ageMs: 60_000 })], created: 1 });
  assert.equal(p.claims.ready, false);
  assert.equal(p.claims.reason, 'NodeClaimNotReady');
  assert.match(p.claims.message, /^Ready NodeClaims are not enough \(TargetNodeClaims: 1, CurrentReadyNodeClaims: 0\)/);
  assert.equal(p.recheckAfterMs, 540_000);
  assert.equal(p.nodesUsable, false);
});

test("the provisioner's launch error is in the message, with its own reason", () => {
  const p = plan({
    claims: [
      claim('wsa', { launched: { status: 'Unknown', reason: 'LaunchFailed', message: 'QuotaExceeded: not enough quota for Standard_NC24ads_A100_v4' } }),
    ],
    created: 1,
  });
  assert.equal(p.claims.reason, 'NodeClaimLaunchFailed');
  assert.match(p.claims.message, /NodeClaim wsa: Launched=Unknown LaunchFailed: QuotaExceeded: not enough quota/);
});

test('bounded wait: past the limit the reason says so, and it keeps waiting (no recreate)', () => {
  const p = plan({ claims: [claim('wsa', { ageMs: 700_000 })], created: 1 });
  assert.equal(p.claims.reason, 'NodeClaimProvisioningTimeout');
  assert.match(p.claims.message, /not Ready after 700s \(limit 600s\)/);
  assert.equal(p.toCreate, 0);
  assert.equal(p.recheckAfterMs, undefined);
});

test('replacement: a claim gone after success is replaced once, then the budget stops it', () => {
  const once = plan({ target: 1, created: 1 });
  assert.equal(once.toCreate, 1);
  assert.equal(once.replacements, 1);
  const again = plan({ target: 1, created: 2 });
  assert.equal(again.toCreate, 0);
  assert.equal(again.claims.reason, 'NodeClaimReplacementLimit');
  assert.match(again.claims.message, /kaito-ts.io\/nodeclaims-created/);
  assert.equal(plan({ target: 3, created: 0 }).replacements, 0);
});

test('node plugins: claims ready but node without GPU capacity, not Ready, or of another SKU', () => {
  const ready = [claim('wsa', { ready: true, node: 'n1' })];
  const rows: [string, V1Node[], RegExp][] = [
    ['no node object yet', [], /has no node yet/],
    ['node not Ready', [node('n1', { ready: false })], /is not Ready/],
    ['no GPU capacity (device plugin)', [node('n1', { gpus: '' })], /waiting all node plugins to be ready: Node n1 has no nvidia.com\/gpu capacity/],
    ['instance type mismatch', [node('n1', { sku: 'Standard_NV36ads_A10_v5' })], /does not match workspace instance type/],
  ];
  for (const [name, nodes, message] of rows) {
    const p = plan({ claims: ready, nodes, created: 1 });
    assert.equal(p.claims.ready, true, name);
    assert.equal(p.nodeIssue?.reason, 'NodePluginsNotReady', name);
    assert.match(p.nodeIssue?.message ?? '', message, name);
    assert.equal(p.nodesUsable, false, name);
  }
});

test('all usable: workload may go; nodes of our claims get accelerator=nvidia once', () => {
  const p = plan({ claims: [claim('wsa', { ready: true, node: 'n1' })], nodes: [node('n1')], created: 1 });
  assert.equal(p.nodesUsable, true);
  assert.equal(p.claims.reason, 'NodeClaimsReady');
  assert.deepEqual(p.nodesToLabel, ['n1']);
  assert.deepEqual(plan({ claims: [claim('wsa', { ready: true, node: 'n1' })], nodes: [node('n1', { accelerator: true })], created: 1 }).nodesToLabel, []);
  assert.deepEqual(plan({ claims: [claim('wsa', { ready: true, node: 'n1' })], nodes: [node('n1')], created: 1, catalogSku: false }).nodesToLabel, []);
});

test('a claim without a Ready condition counts as ready once it names its node (KAITO)', () => {
  const c = claim('wsa', { node: 'n1' });
  assert.equal(plan({ claims: [c], nodes: [node('n1')], created: 1 }).nodesUsable, true);
});
