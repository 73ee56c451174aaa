import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import { nodePoolUpdate, type NodePool, type NodePoolBudget } from '../../../src/builders/nodepool.js';
import { driftActions, planDrift, type DriftInput } from '../../../src/controllers/inferenceset/drift.js';
import { claimDriftChanged, labelledInferenceSet, poolDriftChanged } from '../../../src/controllers/inferenceset/setup.js';
import { describeAction } from '../../../src/controllers/shared/actions.js';
import type { ChildWorkspace } from '../../../src/controllers/inferenceset/children.js';
import { childFixture, succeededCondition } from './inferenceset-fixtures.js';

const AT = '2026-01-01T00:00:00Z';
const SET = { 'karpenter.kaito.sh/inferenceset': 'x', 'karpenter.kaito.sh/inferenceset-namespace': 'ns' };

function pool(member: string, nodes: string | undefined, o: { deleting?: boolean; set?: Record<string, string>; budgets?: NodePoolBudget[] } = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      name: `ns-${member}`,
      resourceVersion: '5',
      labels: {
        'karpenter.kaito.sh/managed-by': 'kaito',
        'karpenter.kaito.sh/workspace-name': member,
        'karpenter.kaito.sh/workspace-namespace': 'ns',
        ...(o.set ?? SET),
      },
      ...(o.deleting ? { deletionTimestamp: new Date(AT) } : {}),
    },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: {} },
        spec: { nodeClassRef: { group: 'g', kind: 'K', name: 'default' }, requirements: [], taints: [], expireAfter: 'Never' },
      },
      disruption: { consolidateAfter: '0s', budgets: o.budgets ?? (nodes === undefined ? [] : [{ nodes, reasons: ['Drifted'] }]) },
    },
  };
}

function claim(member: string, drifted: boolean, name = `${member}-c`): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': `ns-${member}`, ...SET } },
    spec: { nodeClassRef: { group: 'g', kind: 'K', name: 'default' }, taints: [], requirements: [], resources: { requests: { storage: '1Gi' } } },
    status: { conditions: [{ type: 'Drifted', status: drifted ? 'True' : 'False' }] },
  };
}

const member = (name: string, ready = true): ChildWorkspace => childFixture(name, { status: { conditions: [succeededCondition(ready, AT)] } });
const input = (o: Partial<DriftInput>): DriftInput => ({ is: { metadata: { name: 'x', namespace: 'ns' } }, members: [], pools: [], claims: [], ...o });
const outcome = (i: DriftInput) => {
  const s = planDrift(i);
  return s.change ? `${s.change.pool.metadata.name} → ${s.change.nodes}` : `none${s.waiting ? ` (${s.waiting})` : ''}`;
};

test('the drift step: one member at a time, one budget change per pass', () => {
  const ab = [member('a'), member('b')];
  const cases: [string, Partial<DriftInput>, string][] = [
    ['nothing drifted: no write', { members: ab, pools: [pool('a', '0'), pool('b', '0')], claims: [claim('a', false)] }, 'none'],
    ['a drifted claim: its member is opened', { members: ab, pools: [pool('a', '0'), pool('b', '0')], claims: [claim('b', true)] }, 'ns-b → 1'],
    [
      'two drifted members: the first by NodePool name',
      { members: ab, pools: [pool('b', '0'), pool('a', '0')], claims: [claim('b', true), claim('a', true)] },
      'ns-a → 1',
    ],
    [
      'open with drifted claims left: wait',
      { members: ab, pools: [pool('a', '1'), pool('b', '0')], claims: [claim('a', true), claim('b', true)] },
      'none (a: 1 drifted NodeClaim(s) being replaced)',
    ],
    [
      'open, replaced, member not Ready: wait',
      { members: [member('a', false), member('b')], pools: [pool('a', '1'), pool('b', '0')], claims: [claim('b', true)] },
      'none (a: replaced, waiting for WorkspaceSucceeded)',
    ],
    [
      'open, replaced and Ready: closed (the next member goes next pass)',
      { members: ab, pools: [pool('a', '1'), pool('b', '0')], claims: [claim('a', false), claim('b', true)] },
      'ns-a → 0',
    ],
    ['open with no claim at all and Ready: closed', { members: ab, pools: [pool('a', '1'), pool('b', '0')] }, 'ns-a → 0'],
    [
      'a budget opened by hand (not "0") counts as open: no second member opened',
      { members: ab, pools: [pool('a', '10%'), pool('b', '0')], claims: [claim('a', true), claim('b', true)] },
      'none (a: 1 drifted NodeClaim(s) being replaced)',
    ],
    ['two open (by hand): the first is closed first', { members: ab, pools: [pool('b', '1'), pool('a', '1')], claims: [claim('b', true)] }, 'ns-a → 0'],
    [
      'the open member was deleted: its pool is left alone, the next member is opened',
      { members: [member('b')], pools: [pool('a', '1'), pool('b', '0')], claims: [claim('a', true), claim('b', true)] },
      'ns-b → 1',
    ],
    [
      'the open pool is being deleted: left alone, the next member is opened',
      { members: ab, pools: [pool('a', '1', { deleting: true }), pool('b', '0')], claims: [claim('b', true)] },
      'ns-b → 1',
    ],
    ['a member without a NodePool: nothing to do for it', { members: ab, pools: [pool('b', '0')], claims: [claim('a', true)] }, 'none'],
    ['a pool with no Drifted budget: skipped (KAITO)', { members: ab, pools: [pool('a', undefined), pool('b', '0')], claims: [claim('a', true)] }, 'none'],
    [
      "another set's pool is never touched",
      {
        members: ab,
        pools: [pool('a', '0', { set: { 'karpenter.kaito.sh/inferenceset': 'y', 'karpenter.kaito.sh/inferenceset-namespace': 'ns' } })],
        claims: [claim('a', true)],
      },
      'none',
    ],
    [
      'a Drifted=False claim beside a drifted one still drifts',
      { members: ab, pools: [pool('a', '0')], claims: [claim('a', false, 'c1'), claim('a', true, 'c2')] },
      'ns-a → 1',
    ],
  ];
  for (const [name, i, want] of cases) assert.equal(outcome(input(i)), want, name);
});

test('the budget write: the whole atomic list, only the Drifted entry moved, with replicas and the resourceVersion read', () => {
  const budgets = [
    { nodes: '10%', reasons: ['Underutilized'] },
    { nodes: '0', reasons: ['Drifted'] },
    { nodes: '2', schedule: '@daily', duration: '10m' },
  ];
  const p = pool('a', undefined, { budgets });
  assert.deepEqual(nodePoolUpdate(p, { driftBudget: '1' }), {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'ns-a', resourceVersion: '5' },
    spec: { replicas: 1, disruption: { budgets: [budgets[0], { nodes: '1', reasons: ['Drifted'] }, budgets[2]] } },
  });
  assert.deepEqual(nodePoolUpdate(p, { replicas: 3 }).spec, { replicas: 3, disruption: { budgets } }, 'a raise keeps the budgets as they are');
  assert.equal(p.spec.disruption.budgets[1]?.nodes, '0', 'the cached pool is not changed');
});

test("the step's actions: the apply, then KAITO's event", () => {
  const i = input({ members: [member('a')], pools: [pool('a', '0')], claims: [claim('a', true)] });
  const actions = driftActions(i, planDrift(i));
  assert.deepEqual(
    actions.map((a) => describeAction(a, 'InferenceSet')),
    ['apply NodePool ns-a: open drift replacement: a has 1 drifted NodeClaim(s)', 'event Normal DriftStarted: Started drift replacement for workspace ns/a'],
  );
  const closing = input({ members: [member('a')], pools: [pool('a', '1')] });
  assert.deepEqual(
    driftActions(closing, planDrift(closing)).map((a) => describeAction(a)),
    ['apply NodePool ns-a: close drift replacement: a replaced and Ready', 'event Normal DriftComplete: Drift replacement complete for workspace ns/a'],
  );
});

test('the watches: budget and Drifted flips matter, other status updates do not; both set labels name the key', () => {
  const p = pool('a', '0');
  assert.equal(poolDriftChanged({ type: 'update', old: p, obj: { ...p, metadata: { ...p.metadata, resourceVersion: '6' } } }), false);
  assert.equal(poolDriftChanged({ type: 'update', old: p, obj: pool('a', '1') }), true);
  assert.equal(poolDriftChanged({ type: 'update', old: p, obj: pool('a', '0', { deleting: true }) }), true);
  assert.equal(poolDriftChanged({ type: 'delete', obj: p }), true);
  const c = claim('a', false);
  const launched = { ...c, status: { conditions: [...(c.status?.conditions ?? []), { type: 'Launched', status: 'True' }] } };
  assert.equal(claimDriftChanged({ type: 'update', old: c, obj: launched }), false);
  assert.equal(claimDriftChanged({ type: 'update', old: c, obj: claim('a', true) }), true);
  assert.equal(claimDriftChanged({ type: 'add', obj: c }), true);
  assert.deepEqual(labelledInferenceSet({ type: 'add', obj: c }), ['ns/x']);
  assert.deepEqual(labelledInferenceSet({ type: 'add', obj: { ...c, metadata: { name: 'n', labels: {} } } }), []);
});
