// Karpenter NodePool provisioning (KAITO v0.12 karpenter mode): the pool's replicas, the conditions
// and the readiness gate, from observed objects; plus kaito-ts's claim details and bounded wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { parseNodeClassConfig } from '../../../src/api/node-class-config.js';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import { buildNodePool, type NodePool } from '../../../src/builders/nodepool.js';
import { firstProvisioningState, planKarpenter, type KarpenterInput } from '../../../src/controllers/workspace/karpenter-plan.js';
import { presetWorkspace } from '../builders/fixtures.js';

const ws = presetWorkspace('phi-4-mini-instruct');
const SKU = 'Standard_NC24ads_A100_v4';
const NOW = new Date('2026-11-30T12:00:00Z');
const parsed = parseNodeClassConfig({ nodeClasses: '[{"name":"image-family-ubuntu","default":true}]' });
assert.ok(parsed.ok);
const config = parsed.config;
const readyClass = { metadata: { name: 'image-family-ubuntu' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString() as unknown as Date;

type Cond = { type: string; status: string; reason?: string; message?: string };
function claim(name: string, o: { node?: string; ready?: boolean; conds?: Cond[]; ageMs?: number; deleting?: boolean } = {}): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': 'ns1-ws1' },
      creationTimestamp: ago(o.ageMs ?? 1000),
      ...(o.deleting ? { deletionTimestamp: ago(0) } : {}),
    },
    spec: { nodeClassRef: { group: '', kind: '', name: '' }, taints: [], requirements: [], resources: { requests: { storage: '' } } },
    status: {
      ...(o.node ? { nodeName: o.node } : {}),
      conditions: [...(o.conds ?? []), ...(o.ready === undefined ? [] : [{ type: 'Ready', status: o.ready ? 'True' : 'False' }])],
    },
  };
}

function node(
  name: string,
  o: { owner?: string; legacy?: string; ready?: boolean; gpus?: string; accel?: boolean; sku?: string; pressure?: string[] } = {},
): V1Node {
  return {
    metadata: {
      name,
      labels: {
        apps: 'test',
        pool: 'gpu',
        'node.kubernetes.io/instance-type': o.sku ?? SKU,
        ...(o.owner ? { 'karpenter.kaito.sh/workspace-name': o.owner, 'karpenter.kaito.sh/workspace-namespace': 'ns1' } : {}),
        ...(o.legacy ? { 'kaito.sh/workspace': o.legacy } : {}),
        ...(o.accel ? { accelerator: 'nvidia' } : {}),
      },
    },
    status: {
      capacity: { 'nvidia.com/gpu': o.gpus ?? '1' },
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }, ...(o.pressure ?? []).map((type) => ({ type, status: 'True' }))],
    },
  };
}

function pool(replicas: number, ageMs = 1000): NodePool {
  const np = buildNodePool(ws, replicas, config, 'image-family-ubuntu');
  np.metadata.creationTimestamp = ago(ageMs);
  return np;
}

function input(o: Partial<KarpenterInput>): KarpenterInput {
  return {
    ws,
    target: 1,
    nodes: [],
    nodeClaims: [],
    legacyNodeClaims: [],
    nodePool: undefined,
    nodeClasses: [readyClass],
    config,
    catalogSku: true,
    waitLimitMs: 600_000,
    now: NOW,
    ...o,
  };
}

const CLAIMS_READY = { ready: true, reason: 'NodeClaimsReady', message: 'Enough NodeClaims are ready' };
const NODES_READY = { ready: true, reason: 'NodesReady', message: 'Enough Nodes are ready with GPU resources' };
const NODES_NOT_READY = { ready: false, reason: 'NodeNotReady', message: 'Not enough Nodes are ready' };

test('no pool yet: created with target − covered replicas; claims wait', () => {
  const p = planKarpenter(input({ target: 2 }));
  assert.deepEqual(p.write, { kind: 'create', nodePool: buildNodePool(ws, 2, config, 'image-family-ubuntu') });
  assert.deepEqual(p.nodeClaims, { ready: false, reason: 'NodeClaimNotReady', message: 'Ready NodeClaims are not enough' });
  assert.deepEqual(p.nodes, NODES_NOT_READY);
  assert.deepEqual(p.resource, p.nodeClaims);
  assert.equal(p.nodesUsable, false);
  assert.equal(p.recheckAfterMs, undefined);
});

const replicaCases: [string, Partial<KarpenterInput>, unknown][] = [
  [
    'a ready BYO node covers one of two',
    { target: 2, nodes: [node('byo')] },
    { kind: 'create', nodePool: buildNodePool(ws, 1, config, 'image-family-ubuntu') },
  ],
  [
    'a live legacy claim covers one; a deleting one does not',
    { target: 3, legacyNodeClaims: [claim('ws1'), claim('ws2', { deleting: true })] },
    { kind: 'create', nodePool: buildNodePool(ws, 2, config, 'image-family-ubuntu') },
  ],
  ['everything covered: no pool', { target: 1, nodes: [node('byo')] }, undefined],
  ['pool larger than needed: never shrunk', { target: 1, nodePool: pool(3) }, undefined],
  ['pool smaller: grown', { target: 3, nodePool: pool(1) }, { kind: 'scale', name: 'ns1-ws1', replicas: 3 }],
  [
    "not-ready BYO, other SKU, a sibling's node: not covering",
    { target: 1, nodes: [node('a', { ready: false }), node('b', { sku: 'x' }), node('c', { owner: 'ws2' }), node('d', { legacy: 'ws2' })] },
    { kind: 'create', nodePool: buildNodePool(ws, 1, config, 'image-family-ubuntu') },
  ],
];
for (const [name, o, want] of replicaCases) {
  test(`replicas: ${name}`, () => assert.deepEqual(planKarpenter(input(o)).write, want));
}

test('every claim ready, nodes with GPUs: usable; unlabelled nodes get accelerator=nvidia', () => {
  const p = planKarpenter(
    input({ target: 1, nodePool: pool(1), nodeClaims: [claim('c1', { node: 'n1', ready: true })], nodes: [node('n1', { owner: 'ws1' })] }),
  );
  assert.deepEqual([p.nodeClaims, p.nodes, p.write], [CLAIMS_READY, NODES_READY, undefined]);
  assert.deepEqual(p.resource, { ready: true, reason: 'workspaceResourceStatusSuccess', message: 'workspace resource is ready' });
  assert.equal(p.nodesUsable, true);
  assert.deepEqual(p.nodesToLabel, ['n1']);
});

test('claim ready, node without GPU capacity: NodePluginsNotReady, recheck in 2s', () => {
  const p = planKarpenter(
    input({ nodePool: pool(1), nodeClaims: [claim('c1', { node: 'n1', ready: true })], nodes: [node('n1', { owner: 'ws1', gpus: '0', accel: true })] }),
  );
  assert.deepEqual(p.nodes, { ready: false, reason: 'NodePluginsNotReady', message: 'waiting all node plugins to be ready' });
  assert.deepEqual(p.resource, { ready: false, reason: 'NodePluginsNotReady', message: 'waiting all node plugins to be ready' });
  assert.equal(p.nodesUsable, false);
  assert.equal(p.recheckAfterMs, 2000);
});

test('claim ready, its node not registered yet: NodeNotReady, recheck in 2s', () => {
  const p = planKarpenter(input({ nodePool: pool(1), nodeClaims: [claim('c1', { node: 'n1', ready: true })] }));
  assert.deepEqual([p.nodeClaims, p.nodes, p.recheckAfterMs, p.nodesUsable], [CLAIMS_READY, NODES_NOT_READY, 2000, false]);
});

test('BYO nodes only: NodesReady without a plugin check', () => {
  const p = planKarpenter(input({ target: 1, nodes: [node('byo', { gpus: '0' })] }));
  assert.deepEqual([p.nodeClaims, p.nodes, p.nodesUsable], [CLAIMS_READY, NODES_READY, true]);
});

test("node pressure: a warning on NodesReady for the pool's nodes only", () => {
  const p = planKarpenter(
    input({
      nodePool: pool(1),
      nodeClaims: [claim('c1', { node: 'n1', ready: true })],
      nodes: [node('n1', { owner: 'ws1', accel: true, pressure: ['MemoryPressure', 'DiskPressure'] }), node('byo', { pressure: ['PIDPressure'] })],
    }),
  );
  assert.equal(
    p.nodes.message,
    'Enough Nodes are ready with GPU resources; warning: worker node(s) under resource pressure: n1 (DiskPressure, MemoryPressure)',
  );
});

const LAUNCH_ERR = { type: 'Launched', status: 'False', reason: 'InsufficientCapacityError', message: 'creating instance, insufficient capacity' };
test("launch error: Karpenter's reason and words (KAITO), other claims' words appended, recheck at the end of the wait", () => {
  const p = planKarpenter(
    input({
      target: 2,
      nodePool: pool(2, 60_000),
      nodeClaims: [
        claim('c1', { conds: [LAUNCH_ERR], ageMs: 60_000 }),
        claim('c2', { conds: [{ type: 'Registered', status: 'False', reason: 'NotRegistered', message: 'node not registered' }], ageMs: 30_000 }),
      ],
    }),
  );
  assert.deepEqual(p.nodeClaims, {
    ready: false,
    reason: 'InsufficientCapacityError',
    message: 'creating instance, insufficient capacity; NodeClaim c2: Registered=False NotRegistered: node not registered',
  });
  assert.equal(p.recheckAfterMs, 540_000);
});

test('bounded wait: past waitLimitMs the reason is NodeClaimProvisioningTimeout', () => {
  const p = planKarpenter(input({ nodePool: pool(1, 700_000), nodeClaims: [claim('c1', { ageMs: 650_000 })] }));
  assert.deepEqual(p.nodeClaims, {
    ready: false,
    reason: 'NodeClaimProvisioningTimeout',
    message: 'Ready NodeClaims are not enough: not Ready after 650s (limit 600s); still waiting for Karpenter',
  });
  assert.equal(p.recheckAfterMs, undefined);
});

test("bounded wait runs from the pool's creation while Karpenter has made no claim", () => {
  assert.equal(planKarpenter(input({ nodePool: pool(1, 100_000) })).recheckAfterMs, 500_000);
  assert.equal(planKarpenter(input({ nodePool: pool(1, 700_000) })).nodeClaims.reason, 'NodeClaimProvisioningTimeout');
});

test('node class not allowed or not ready: no write, the error on NodeClaimsReady', () => {
  const bad = presetWorkspace('phi-4-mini-instruct');
  bad.metadata.annotations = { 'kaito.sh/node-class-name': 'other' };
  const p = planKarpenter(input({ ws: bad }));
  const message = 'annotation kaito.sh/node-class-name="other" is not permitted: choose one of the KAITO-managed NodeClasses [image-family-ubuntu]';
  assert.deepEqual(p.provisionError, { reason: 'NodeClassNotPermitted', message });
  assert.deepEqual(p.nodeClaims, { ready: false, reason: 'NodeClassNotPermitted', message });
  assert.equal(p.write, undefined);
  const q = planKarpenter(input({ nodeClasses: [{ metadata: { name: 'image-family-ubuntu' } }] }));
  assert.deepEqual(q.provisionError, {
    reason: 'NodeClassNotReady',
    message: 'NodeClass "image-family-ubuntu" is not ready: NodeClass "image-family-ubuntu" exists but is not Ready',
  });
  assert.equal(q.write, undefined);
});

const stateCases: [string, NodeClaim[], unknown][] = [
  ['no conditions', [claim('a')], undefined],
  [
    'AwaitingReconciliation yields to a real error of a later stage',
    [
      claim('a', {
        conds: [
          { type: 'Launched', status: 'Unknown', reason: 'AwaitingReconciliation', message: 'object is awaiting reconciliation' },
          { type: 'Initialized', status: 'False', reason: 'NotInitialized', message: 'not initialized' },
        ],
      }),
    ],
    { reason: 'NotInitialized', message: 'not initialized', claim: 'a', truncated: false },
  ],
  [
    'only AwaitingReconciliation',
    [claim('a', { conds: [{ type: 'Registered', status: 'Unknown', reason: 'AwaitingReconciliation', message: 'waiting' }] })],
    { reason: 'AwaitingReconciliation', message: 'waiting', claim: 'a', truncated: false },
  ],
  [
    'Launched before Registered across claims; deleting claims skipped',
    [
      claim('x', { deleting: true, conds: [LAUNCH_ERR] }),
      claim('a', { conds: [{ type: 'Registered', status: 'False', reason: 'R', message: 'r' }] }),
      claim('b', { conds: [LAUNCH_ERR] }),
    ],
    { reason: LAUNCH_ERR.reason, message: LAUNCH_ERR.message, claim: 'b', truncated: false },
  ],
  [
    'long message cut at 256 bytes with "..."',
    [claim('a', { conds: [{ ...LAUNCH_ERR, message: 'x'.repeat(300) }] })],
    { reason: LAUNCH_ERR.reason, message: `${'x'.repeat(256)}...`, claim: 'a', truncated: true },
  ],
];
for (const [name, claims, want] of stateCases) {
  test(`FirstNodeClaimProvisioningState: ${name}`, () => assert.deepEqual(firstProvisioningState(claims), want));
}
