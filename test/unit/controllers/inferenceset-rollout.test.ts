// Template rollouts, the bounded surge wait and nodeCountLimit (src/controllers/inferenceset/rollout.ts),
// step by step as tables, then through the whole InferenceSet plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { specHash, templateHash, type ChildWorkspace, type InferenceSetObject } from '../../../src/controllers/inferenceset/children.js';
import { planInferenceSet, type InferenceSetSnapshot } from '../../../src/controllers/inferenceset/plan.js';
import {
  DEFAULT_SURGE_TIMEOUT_MS,
  planChildren,
  rolloutSettings,
  scaledIntOrPercent,
  type ChildView,
  type RolloutSettings,
} from '../../../src/controllers/inferenceset/rollout.js';
import { describeAction } from '../../../src/controllers/shared/actions.js';
import { childFixture, succeededCondition } from './inferenceset-fixtures.js';

const NOW_MS = Date.parse('2026-01-01T01:00:00Z');
const MIN = 60_000;

const on: RolloutSettings = { enabled: true, maxSurge: 1, maxUnavailable: 1, partition: 0, surgeTimeoutMs: 10 * MIN, notes: [] };

/** `o`: old template, `n`: new; `R`: Ready, `p`: not Ready; `t`: terminating. e.g. `oR`, `np`, `oRt`. */
function kids(...specs: string[]): ChildView<string>[] {
  return specs.map((spec, i) => {
    const [tpl, state, rest] = [spec[0], spec[1], spec.slice(2)];
    const age = /(\d+)m/.exec(rest);
    return {
      child: `${tpl}${i}`,
      name: `c${i}`,
      current: tpl === 'n',
      ready: state === 'R',
      terminating: rest.includes('t'),
      createdAtMs: NOW_MS - (age ? Number(age[1]) * MIN : 0),
    };
  });
}

interface Row {
  name: string;
  children: ChildView<string>[];
  desired: number;
  rollout?: Partial<RolloutSettings>;
  nodeCountLimit?: number;
  holdCreates?: boolean;
  creates: number;
  deletes: string[];
  stalled?: boolean;
}

test('rollout steps (table)', () => {
  const rows: Row[] = [
    // Not rolling: KAITO's scale up and down.
    { name: 'scale up from nothing', children: [], desired: 3, creates: 3, deletes: [] },
    { name: 'scale down: not-Ready first', children: kids('nR', 'np', 'nR'), desired: 2, creates: 0, deletes: ['n1'] },
    { name: 'steady', children: kids('nR', 'nR', 'nR'), desired: 3, creates: 0, deletes: [] },
    // Surge (default maxSurge 1, maxUnavailable 1).
    { name: 'surge: one new child first, nothing deleted', children: kids('oR', 'oR', 'oR'), desired: 3, creates: 1, deletes: [] },
    {
      name: 'wait: the surge child is not Ready, no old one goes, no second surge',
      children: kids('oR', 'oR', 'oR', 'np'),
      desired: 3,
      creates: 0,
      deletes: [],
    },
    {
      name: 'delete old: the surge child is Ready, one old one goes and the next surge is asked for',
      children: kids('oR', 'oR', 'oR', 'nR'),
      desired: 3,
      creates: 1,
      deletes: ['o0'],
    },
    { name: 'next surge once an old one is gone', children: kids('oR', 'oR', 'oRt', 'nR'), desired: 3, creates: 1, deletes: [] },
    { name: 'last old one goes', children: kids('oR', 'nR', 'nR', 'nR'), desired: 3, creates: 0, deletes: ['o0'] },
    { name: 'old not-Ready children go first, without waiting', children: kids('oR', 'op', 'oR', 'np'), desired: 3, creates: 1, deletes: ['o1'] },
    { name: 'maxSurge 2: two new children at once', children: kids('oR', 'oR', 'oR'), desired: 3, rollout: { maxSurge: 2 }, creates: 2, deletes: [] },
    {
      name: 'maxSurge 2 with both Ready: two old ones go, the last new one is asked for',
      children: kids('oR', 'oR', 'oR', 'nR', 'nR'),
      desired: 3,
      rollout: { maxSurge: 2 },
      creates: 1,
      deletes: ['o0', 'o1'],
    },
    // maxUnavailable when there is no surge.
    {
      name: 'maxSurge 0: maxUnavailable 1 old child goes first, its replacement is created',
      children: kids('oR', 'oR', 'oR'),
      desired: 3,
      rollout: { maxSurge: 0 },
      creates: 1,
      deletes: ['o0'],
    },
    {
      name: 'maxSurge 0: Ready never below replicas - maxUnavailable (2)',
      children: kids('oR', 'oR', 'np'),
      desired: 3,
      rollout: { maxSurge: 0 },
      creates: 0,
      deletes: [],
    },
    {
      name: 'maxSurge 0, maxUnavailable 2: two go',
      children: kids('oR', 'oR', 'oR'),
      desired: 3,
      rollout: { maxSurge: 0, maxUnavailable: 2 },
      creates: 2,
      deletes: ['o0', 'o1'],
    },
    {
      name: 'a surge keeps Ready at replicas even when maxUnavailable would allow less',
      children: kids('oR', 'oR', 'oR', 'np'),
      desired: 3,
      rollout: { maxUnavailable: 3 },
      creates: 0,
      deletes: [],
    },
    // The bounded wait.
    { name: 'within the wait: still waiting', children: kids('oR', 'oR', 'oR', 'np9m'), desired: 3, creates: 0, deletes: [] },
    {
      name: 'wait expired: stopped, no old child deleted, no new surge',
      children: kids('oR', 'op', 'oR', 'np10m'),
      desired: 3,
      rollout: { maxSurge: 2 },
      creates: 0,
      deletes: [],
      stalled: true,
    },
    {
      name: 'wait expired but a replica is missing: the count is still kept',
      children: kids('oR', 'oRt', 'np10m'),
      desired: 3,
      creates: 1,
      deletes: [],
      stalled: true,
    },
    // partition, switch, expectations.
    {
      name: 'partition 2: two children stay on the old template',
      children: kids('oR', 'oR', 'nR'),
      desired: 3,
      rollout: { partition: 2 },
      creates: 0,
      deletes: [],
    },
    { name: 'rollouts off: nothing rolls (KAITO)', children: kids('oR', 'oR', 'oR'), desired: 3, rollout: { enabled: false }, creates: 0, deletes: [] },
    { name: 'an unanswered create holds the surge', children: kids('oR', 'oR', 'oR'), desired: 3, holdCreates: true, creates: 0, deletes: [] },
    {
      name: 'scale down in the middle of a rollout: old first (KAITO), Ready kept at replicas',
      children: kids('oR', 'oR', 'op', 'nR', 'np'),
      desired: 2,
      creates: 0,
      deletes: ['o2', 'o0'],
    },
    // nodeCountLimit (children report 2 nodes each).
    {
      name: 'node limit 6 at 2 nodes per child: a scale-up to 5 stops at 3',
      children: kids('nR', 'nR').map((c) => ({ ...c, targetNodeCount: 2 })),
      desired: 5,
      nodeCountLimit: 6,
      creates: 1,
      deletes: [],
    },
    {
      name: 'node limit: no child has reported its node count: one at a time',
      children: [],
      desired: 4,
      nodeCountLimit: 8,
      creates: 1,
      deletes: [],
    },
    {
      name: 'node limit leaves no room for a surge: maxUnavailable pays',
      children: kids('oR', 'oR', 'oR').map((c) => ({ ...c, targetNodeCount: 2 })),
      desired: 3,
      nodeCountLimit: 6,
      creates: 1,
      deletes: ['o0'],
    },
    {
      name: 'a lowered limit never deletes',
      children: kids('nR', 'nR', 'nR').map((c) => ({ ...c, targetNodeCount: 2 })),
      desired: 3,
      nodeCountLimit: 2,
      creates: 0,
      deletes: [],
    },
  ];
  for (const r of rows) {
    const got = planChildren({
      children: r.children,
      desired: r.desired,
      rollout: { ...on, ...r.rollout },
      ...(r.nodeCountLimit ? { nodeCountLimit: r.nodeCountLimit } : {}),
      holdCreates: r.holdCreates ?? false,
      nowMs: NOW_MS,
    });
    assert.deepEqual(
      { creates: got.creates, deletes: got.deletes.map((d) => d.child), stalled: !!got.rolling?.stalledBy },
      { creates: r.creates, deletes: r.deletes, stalled: r.stalled ?? false },
      r.name,
    );
  }
});

test('a 3-replica rollout with maxSurge 1 never has fewer than 3 Ready children, step by step', () => {
  // Simulate: every created child becomes Ready on the next step, deletes take effect at once.
  let children = kids('oR', 'oR', 'oR');
  let next = 10;
  for (let step = 0; step < 20 && children.some((c) => !c.current); step++) {
    const plan = planChildren({ children, desired: 3, rollout: on, holdCreates: false, nowMs: NOW_MS });
    const gone = new Set(plan.deletes.map((d) => d.child));
    children = children.filter((c) => !gone.has(c.child)).map((c) => ({ ...c, ready: true }));
    assert.ok(children.filter((c) => c.ready).length >= 3, `step ${step}: ${children.map((c) => c.child).join(',')}`);
    for (let i = 0; i < plan.creates; i++)
      children.push({ child: `n${next}`, name: `c${next++}`, current: true, ready: false, terminating: false, createdAtMs: NOW_MS });
    assert.ok(children.length <= 4, `step ${step}: at most replicas + maxSurge children`);
  }
  assert.deepEqual(
    children.map((c) => c.current),
    [true, true, true],
  );
});

test("rollout settings: KAITO's updateStrategy (maxUnavailable rounds up, at least 1), our annotations, defaults", () => {
  const is = (updateStrategy?: Record<string, unknown>, annotations?: Record<string, string>) =>
    ({ metadata: { annotations }, spec: { updateStrategy } }) as unknown as InferenceSetObject;
  const d = rolloutSettings(is(), 3);
  assert.deepEqual(d, { enabled: true, maxSurge: 1, maxUnavailable: 1, partition: 0, surgeTimeoutMs: DEFAULT_SURGE_TIMEOUT_MS, notes: [] });
  const pct = rolloutSettings(is({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%', partition: 1 } }, { 'kaito-ts.io/max-surge': '34%' }), 3);
  assert.deepEqual([pct.maxUnavailable, pct.partition, pct.maxSurge], [2, 1, 2]);
  assert.equal(rolloutSettings(is({ rollingUpdate: { maxUnavailable: 0 } }), 3).maxUnavailable, 1);
  assert.equal(rolloutSettings(is(undefined, { 'kaito-ts.io/surge-timeout': '90s' }), 3).surgeTimeoutMs, 90_000);
  assert.deepEqual(rolloutSettings(is({ type: 'OnDelete' }), 3).disabledBy, 'updateStrategy.type OnDelete');
  assert.equal(rolloutSettings(is(undefined, { 'kaito-ts.io/rollout': 'false' }), 3).enabled, false);
  const bad = rolloutSettings(is(undefined, { 'kaito-ts.io/max-surge': 'lots', 'kaito-ts.io/surge-timeout': 'soon' }), 3);
  assert.deepEqual([bad.maxSurge, bad.surgeTimeoutMs, bad.notes.length], [1, DEFAULT_SURGE_TIMEOUT_MS, 2]);
  assert.deepEqual(
    [scaledIntOrPercent(2, 5), scaledIntOrPercent('10%', 5), scaledIntOrPercent('x', 5), scaledIntOrPercent(-1, 5)],
    [2, 1, undefined, undefined],
  );
});

// --- through the whole plan ---

const NOW = new Date(NOW_MS);

function iset(
  o: { replicas?: number; preset?: string; adoptedPreset?: string; annotations?: Record<string, string>; nodeCountLimit?: number } = {},
): InferenceSetObject {
  const make = (preset: string): InferenceSetObject => ({
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'InferenceSet',
    metadata: { name: 'x', namespace: 'ns', uid: 'is-uid', generation: 3, resourceVersion: '7', finalizers: ['inferenceset.finalizer.kaito.sh'] },
    spec: {
      replicas: o.replicas ?? 3,
      ...(o.nodeCountLimit ? { nodeCountLimit: o.nodeCountLimit } : {}),
      labelSelector: { matchLabels: { pool: 'a' } },
      template: { inference: { preset: { name: preset } } },
    },
  });
  const is = make(o.preset ?? 'phi-4-mini-instruct');
  is.metadata.annotations = {
    'inferenceset.kaito.io/hash': specHash(is),
    'inferenceset.kaito.io/revision': '2',
    ...(o.adoptedPreset ? { 'kaito-ts.io/adopted-hash': templateHash(make(o.adoptedPreset), { byo: true }) } : {}),
    ...o.annotations,
  };
  return is;
}

function child(name: string, o: { ready?: boolean; hashOf?: InferenceSetObject; ageMin?: number; nodes?: number } = {}): ChildWorkspace {
  return childFixture(name, {
    metadata: { creationTimestamp: new Date(NOW_MS - (o.ageMin ?? 0) * MIN) },
    ...(o.hashOf ? { annotations: { 'kaito-ts.io/template-hash': templateHash(o.hashOf, { byo: true }) } } : {}),
    status: { ...(o.nodes ? { targetNodeCount: o.nodes } : {}), conditions: [succeededCondition(o.ready !== false, NOW.toISOString())] },
  });
}

function snap(is: InferenceSetObject, children: ChildWorkspace[]): InferenceSetSnapshot {
  const revision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `x-${specHash(is).slice(0, 5)}`,
      namespace: 'ns',
      uid: 'rev',
      labels: { 'inferenceset.kaito.io/name': 'x' },
      annotations: { 'inferenceset.kaito.io/hash': specHash(is) },
    },
    revision: 2,
  };
  return { is, children, revisions: [revision], expectations: { pendingDeletes: new Set(), holdCreates: false }, byo: true, now: NOW };
}

const steps = (s: InferenceSetSnapshot) => planInferenceSet(s).actions.map((a) => describeAction(a, 'inferenceset'));
const condition = (s: InferenceSetSnapshot, type: string) => {
  const a = planInferenceSet(s).actions.find((x) => x.kind === 'status');
  return a?.kind === 'status' ? a.status.conditions?.find((c) => c.type === type) : undefined;
};

test('adoption: children with no template hash of ours are current, so a takeover rolls nothing', () => {
  // First pass over a set KAITO made: the adopted hash is recorded, nothing is created or deleted.
  const is = iset();
  const s = snap(is, [child('x-a'), child('x-b'), child('x-c')]);
  assert.deepEqual(steps(s), ['patch inferenceset metadata: annotations kaito-ts.io/adopted-hash', 'write inferenceset status']);
  assert.equal(condition(s, 'InferenceSetProgressing'), undefined);
  // The template changes after adoption: the same children are now old, and the rollout starts with a surge.
  const changed = iset({ preset: 'qwen2.5-7b-instruct', adoptedPreset: 'phi-4-mini-instruct' });
  const s2 = snap(changed, [child('x-a'), child('x-b'), child('x-c')]);
  assert.deepEqual(steps(s2), ['create Workspace ns/: surge replica 1 of the new template', 'write inferenceset status']);
  assert.deepEqual([condition(s2, 'InferenceSetProgressing')?.status, condition(s2, 'InferenceSetProgressing')?.reason], ['True', 'RollingUpdate']);
  const created = planInferenceSet(s2).actions.find((a) => a.kind === 'create' && a.type.kind === 'Workspace');
  assert.equal(created?.kind === 'create' && created.object.metadata?.annotations?.['kaito-ts.io/template-hash'], templateHash(changed, { byo: true }));
  // A scale write (replicas) changes the spec hash, not the template hash: nothing rolls.
  const scaled = iset({ replicas: 4, adoptedPreset: 'phi-4-mini-instruct' });
  assert.deepEqual(steps(snap(scaled, [child('x-a'), child('x-b'), child('x-c')])), ['create Workspace ns/: replica 4 of 4', 'write inferenceset status']);
});

test('rollout through the plan: delete old once the new child is Ready; the bounded wait stops it with a condition and one event', () => {
  const is = iset({ preset: 'qwen2.5-7b-instruct', adoptedPreset: 'phi-4-mini-instruct' });
  const ready = snap(is, [child('x-a'), child('x-b'), child('x-c'), child('x-d', { hashOf: is })]);
  assert.deepEqual(steps(ready), [
    'delete Workspace ns/x-a: replaced by a Ready replica of the new template',
    'create Workspace ns/: surge replica 1 of the new template',
    'write inferenceset status',
  ]);

  const waiting = snap(is, [child('x-a'), child('x-b'), child('x-c'), child('x-d', { hashOf: is, ready: false, ageMin: 4 })]);
  assert.deepEqual(steps(waiting), ['write inferenceset status']);
  assert.equal(planInferenceSet(waiting).requeueAfterMs, 6 * MIN);

  const stalled = snap(is, [child('x-a'), child('x-b'), child('x-c'), child('x-d', { hashOf: is, ready: false, ageMin: 11 })]);
  const c = condition(stalled, 'InferenceSetProgressing');
  assert.deepEqual([c?.status, c?.reason], ['False', 'SurgeTimeout']);
  assert.match(
    c?.message ?? '',
    /replica x-d of the new template is not Ready after 10m: the rollout to revision 2 is stopped and the 3 replica\(s\) on an older template are kept/,
  );
  assert.deepEqual(steps(stalled), [`event Warning SurgeTimeout: ${c?.message}`, 'write inferenceset status']);
  assert.equal(planInferenceSet(stalled).requeueAfterMs, undefined);
  // Once reported, the event is not repeated.
  stalled.is.status = { conditions: [{ ...c!, lastTransitionTime: NOW.toISOString() }] };
  assert.deepEqual(steps(stalled), ['write inferenceset status']);

  // Done: every child is current, the condition says so.
  const done = snap(is, [child('x-d', { hashOf: is }), child('x-e', { hashOf: is }), child('x-f', { hashOf: is })]);
  done.is.status = { conditions: [{ ...c!, lastTransitionTime: NOW.toISOString() }] };
  assert.deepEqual(
    [condition(done, 'InferenceSetProgressing')?.reason, condition(done, 'InferenceSetProgressing')?.message],
    ['RolloutComplete', 'every replica is on revision 2'],
  );
});

test('rollouts switched off (kaito-ts.io/rollout: "false"): KAITO behaviour, existing children are kept', () => {
  const is = iset({ preset: 'qwen2.5-7b-instruct', adoptedPreset: 'phi-4-mini-instruct', annotations: { 'kaito-ts.io/rollout': 'false' } });
  assert.deepEqual(steps(snap(is, [child('x-a'), child('x-b'), child('x-c')])), ['write inferenceset status']);
});

test('nodeCountLimit caps a scale-up: InferenceSetReady=False NodeCountLimitReached and one Warning event', () => {
  const is = iset({ replicas: 4, nodeCountLimit: 5, adoptedPreset: 'phi-4-mini-instruct' });
  const s = snap(is, [child('x-a', { nodes: 2 })]);
  const c = condition(s, 'InferenceSetReady');
  assert.deepEqual([c?.status, c?.reason], ['False', 'NodeCountLimitReached']);
  assert.equal(c?.message, 'spec.nodeCountLimit 5 allows 2 of 4 replicas (2 node(s) each): replicas are capped at 2; 1/4 replicas are ready');
  assert.deepEqual(steps(s), [
    'create Workspace ns/: replica 2 of 4, capped at 2 by spec.nodeCountLimit',
    `event Warning NodeCountLimitReached: ${c?.message}`,
    'write inferenceset status',
  ]);
  s.is.status = { conditions: [{ ...c, lastTransitionTime: NOW.toISOString() }] };
  assert.deepEqual(steps(s), ['create Workspace ns/: replica 2 of 4, capped at 2 by spec.nodeCountLimit', 'write inferenceset status']);
  // Switched off: KAITO's behaviour (not enforced).
  const off = iset({ replicas: 4, nodeCountLimit: 5, adoptedPreset: 'phi-4-mini-instruct', annotations: { 'kaito-ts.io/enforce-node-count-limit': 'false' } });
  assert.equal(steps(snap(off, [child('x-a', { nodes: 2 })])).filter((l) => l.startsWith('create')).length, 3);
});
