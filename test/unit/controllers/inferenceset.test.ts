import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import {
  childWorkspace,
  phaseOf,
  selectToDelete,
  specHash,
  templateHash,
  type ChildWorkspace,
  type DeleteCandidate,
  type InferenceSetObject,
} from '../../../src/controllers/inferenceset/children.js';
import { Expectations } from '../../../src/controllers/inferenceset/expectations.js';
import { childFixture, succeededCondition } from './inferenceset-fixtures.js';
import { MAX_REVISION_HISTORY, planInferenceSet, type InferenceSetSnapshot } from '../../../src/controllers/inferenceset/plan.js';
import { inferenceSetChanged, memberChanged, memberToInferenceSet } from '../../../src/controllers/inferenceset/setup.js';
import { describeAction } from '../../../src/controllers/shared/actions.js';

const NOW = new Date('2026-01-01T00:00:00Z');

function iset(
  o: {
    replicas?: number;
    finalizer?: boolean;
    hash?: boolean;
    deleting?: boolean;
    instanceType?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {},
): InferenceSetObject {
  const is: InferenceSetObject = {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'InferenceSet',
    metadata: {
      name: 'x',
      namespace: 'ns',
      uid: 'is-uid',
      generation: 2,
      resourceVersion: '7',
      labels: o.labels,
      annotations: o.annotations,
      ...(o.finalizer === false ? {} : { finalizers: ['inferenceset.finalizer.kaito.sh'] }),
      ...(o.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: {
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
      labelSelector: { matchLabels: { pool: 'a' } },
      template: {
        metadata: { labels: { team: 'ml' }, annotations: { note: 'n' } },
        resource: o.instanceType ? { instanceType: o.instanceType } : {},
        inference: { preset: { name: 'phi-4-mini-instruct' } },
      },
    },
  };
  if (o.hash !== false)
    is.metadata.annotations = {
      ...is.metadata.annotations,
      'inferenceset.kaito.io/hash': specHash(is),
      'inferenceset.kaito.io/revision': '1',
      'kaito-ts.io/adopted-hash': templateHash(is, { byo: true }),
    };
  return is;
}

function revision(is: InferenceSetObject, n = 1, name = `x-${specHash(is).slice(0, 5)}`): V1ControllerRevision {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: 'ns',
      uid: `rev-${n}`,
      labels: { 'inferenceset.kaito.io/name': 'x' },
      annotations: { 'inferenceset.kaito.io/hash': name === `x-${specHash(is).slice(0, 5)}` ? specHash(is) : 'other' },
    },
    revision: n,
  };
}

function child(name: string, o: { ready?: boolean; terminating?: boolean; labels?: Record<string, string> } = {}): ChildWorkspace {
  return childFixture(name, {
    labels: o.labels ?? { team: 'ml', 'inferenceset.kaito.sh/created-by': 'x' },
    ...(o.terminating ? { metadata: { deletionTimestamp: NOW } } : {}),
    status: o.ready === undefined ? {} : { conditions: [succeededCondition(o.ready, NOW.toISOString())] },
  });
}

function snap(is: InferenceSetObject, children: ChildWorkspace[] = [], extra: Partial<InferenceSetSnapshot> = {}): InferenceSetSnapshot {
  return { is, children, revisions: [revision(is)], expectations: { pendingDeletes: new Set() }, byo: true, now: NOW, ...extra } as InferenceSetSnapshot;
}

const steps = (s: InferenceSetSnapshot) => planInferenceSet(s).actions.map((a) => describeAction(a, 'inferenceset'));
const statusOf = (s: InferenceSetSnapshot) => {
  const a = planInferenceSet(s).actions.find((x) => x.kind === 'status');
  return a && a.kind === 'status' ? a.status : undefined;
};

test('the child is the Workspace KAITO would create', () => {
  const is = iset({
    instanceType: 'Standard_NC24ads_A100_v4',
    labels: { 'kaito.sh/inference-role': 'decode', other: 'no' },
    annotations: { 'kaito.sh/disable-benchmark': 'true' },
  });
  const byo = childWorkspace(is, { byo: true });
  assert.deepEqual(byo.metadata, {
    generateName: 'x-',
    namespace: 'ns',
    labels: { team: 'ml', 'kaito.sh/inference-role': 'decode', 'inferenceset.kaito.sh/created-by': 'x' },
    annotations: { note: 'n', 'kaito.sh/disable-benchmark': 'true', 'kaito-ts.io/template-hash': templateHash(is, { byo: true }) },
    ownerReferences: [{ apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', name: 'x', uid: 'is-uid', controller: true, blockOwnerDeletion: true }],
  });
  assert.deepEqual(byo.resource, { labelSelector: { matchLabels: { pool: 'a' } } });
  assert.deepEqual(byo.inference, { preset: { name: 'phi-4-mini-instruct' } });
  assert.equal(childWorkspace(is, { byo: false }).resource.instanceType, 'Standard_NC24ads_A100_v4');
});

test('phase: WorkspaceDeleting=True, then WorkspaceSucceeded decide (KAITO DetermineWorkspacePhase)', () => {
  assert.equal(phaseOf(child('a', { ready: true })), 'succeeded');
  assert.equal(phaseOf(child('a', { ready: false })), 'error');
  assert.equal(phaseOf(child('a')), 'pending');
  const deleting = child('a', { ready: true });
  deleting.status!.conditions!.unshift({ type: 'WorkspaceDeleting', status: 'True', reason: 'r', message: 'm', lastTransitionTime: '' });
  assert.equal(phaseOf(deleting), 'deleting');
});

test('scale-down choice (table)', () => {
  const c = (name: string, ready: boolean, extra: Partial<DeleteCandidate<string>> = {}): DeleteCandidate<string> => ({
    child: name,
    ready,
    terminating: false,
    old: false,
    ...extra,
  });
  const rows: { name: string; cands: DeleteCandidate<string>[]; desired: number; want: string[] }[] = [
    { name: 'not-Ready first', cands: [c('a', true), c('b', false), c('c', true)], desired: 2, want: ['b'] },
    { name: 'Ready goes only above desired', cands: [c('a', true), c('b', true), c('c', true)], desired: 1, want: ['a', 'b'] },
    { name: 'terminating counts as deleted', cands: [c('a', true, { terminating: true }), c('b', true), c('c', false)], desired: 1, want: ['c'] },
    { name: 'nothing when at or below desired', cands: [c('a', false), c('b', false)], desired: 2, want: [] },
    {
      name: 'old before new: the old one is Ready at desired, the new one is kept (KAITO waits)',
      cands: [c('a', false), c('b', true, { old: true }), c('c', true)],
      desired: 2,
      want: [],
    },
    { name: 'old not-Ready first', cands: [c('a', false), c('b', false, { old: true }), c('c', true)], desired: 2, want: ['b'] },
    { name: 'old Ready retired once the new one is Ready', cands: [c('a', true, { old: true }), c('b', true), c('c', true)], desired: 2, want: ['a'] },
    {
      name: 'a surge not yet Ready: nothing goes (KAITO waits for it)',
      cands: [c('a', true, { old: true }), c('b', true), c('c', false)],
      desired: 2,
      want: [],
    },
    { name: 'to zero', cands: [c('a', true), c('b', false)], desired: 0, want: ['b', 'a'] },
  ];
  for (const r of rows) assert.deepEqual(selectToDelete(r.cands, r.desired), r.want, r.name);
});

test('plans (table)', () => {
  const rows: { name: string; s: InferenceSetSnapshot; want: string[] }[] = [
    {
      name: 'new: finalizer, hash and revision first, a revision, then the children',
      s: snap(iset({ replicas: 2, finalizer: false, hash: false }), [], { revisions: [] }),
      want: [
        'patch inferenceset metadata: finalizer annotations inferenceset.kaito.io/hash, inferenceset.kaito.io/revision, kaito-ts.io/adopted-hash',
        `create ControllerRevision ns/x-${specHash(iset({ replicas: 2, hash: false })).slice(0, 5)}: a revision of the InferenceSet spec`,
        'create Workspace ns/: replica 1 of 2',
        'create Workspace ns/: replica 2 of 2',
        'write inferenceset status',
      ],
    },
    { name: 'replicas defaults to 1', s: snap(iset()), want: ['create Workspace ns/: replica 1 of 1', 'write inferenceset status'] },
    {
      name: 'steady: status only (written only if changed)',
      s: snap(iset({ replicas: 1 }), [child('x-a', { ready: true })]),
      want: ['write inferenceset status'],
    },
    {
      name: 'scale down picks the not-Ready',
      s: snap(iset({ replicas: 1 }), [child('x-a', { ready: true }), child('x-b', { ready: false })]),
      want: ['delete Workspace ns/x-b: scale down to 1', 'write inferenceset status'],
    },
    {
      name: 'a pending delete is not repeated nor replaced',
      s: snap(iset({ replicas: 1 }), [child('x-a', { ready: true }), child('x-b')], {
        expectations: { pendingDeletes: new Set(['uid-x-b']), holdCreates: false },
      }),
      want: ['write inferenceset status'],
    },
    {
      name: 'terminating children do not count: a replacement is created',
      s: snap(iset({ replicas: 2 }), [child('x-a', { ready: true }), child('x-b', { terminating: true })]),
      want: ['create Workspace ns/: replica 2 of 2', 'write inferenceset status'],
    },
    {
      name: 'an unanswered create holds further creates',
      s: snap(iset({ replicas: 3 }), [child('x-a')], { expectations: { pendingDeletes: new Set(), holdCreates: true, recheckAfterMs: 5 } }),
      want: ['write inferenceset status'],
    },
    {
      name: 'template labels are added to children',
      s: snap(iset({ replicas: 1 }), [child('x-a', { labels: { 'inferenceset.kaito.sh/created-by': 'x', keep: 'me' } })]),
      want: ['label Workspace ns/x-a: team=ml', 'write inferenceset status'],
    },
    {
      name: 'BYO with an instanceType: no child, a condition',
      s: snap(iset({ replicas: 1, instanceType: 'Standard_NC24ads_A100_v4' })),
      want: ['write inferenceset status'],
    },
    {
      name: 'deleting: condition, children deleted, finalizer removed',
      s: snap(iset({ deleting: true }), [child('x-a'), child('x-b', { terminating: true })]),
      want: ['write inferenceset status', 'delete Workspace ns/x-a: the InferenceSet is being deleted', 'remove finalizer inferenceset.finalizer.kaito.sh'],
    },
  ];
  for (const r of rows) assert.deepEqual(steps(r.s), r.want, r.name);
});

test("revision history is kept at KAITO's 10; a same-named revision with another hash fails the pass", () => {
  const is = iset({ replicas: 0, hash: false });
  const old = Array.from({ length: MAX_REVISION_HISTORY + 1 }, (_, i) => revision(is, i + 1, `x-old${i}`));
  const plan = planInferenceSet(snap(is, [], { revisions: old }));
  assert.ok(plan.actions.some((a) => a.kind === 'delete' && a.ref.name === 'x-old0'));
  assert.ok(plan.actions.some((a) => a.kind === 'patchMetadata' && a.annotations?.['inferenceset.kaito.io/revision'] === String(MAX_REVISION_HISTORY + 2)));
  const clash = revision(is, 1);
  clash.metadata!.annotations = { 'inferenceset.kaito.io/hash': 'different' };
  assert.match(planInferenceSet(snap(is, [], { revisions: [clash] })).failure?.message ?? '', /revision name conflicts/);
});

test("status: KAITO's condition and message, readyReplicas as KAITO counts, live replicas, the selector", () => {
  const s = statusOf(
    snap(iset({ replicas: 3 }), [child('x-a', { ready: true }), child('x-b', { ready: false }), child('x-c', { ready: true, terminating: true })]),
  );
  assert.equal(s?.readyReplicas, 2); // KAITO counts a terminating Succeeded child
  assert.equal(s?.replicas, 3); // two live + one created this pass
  assert.equal(s?.selector, 'inferenceset.kaito.sh/created-by=x,apps.kubernetes.io/pod-index=0', 'one pod per child: pod 0, the leader of a multi-node one');
  const kaitos = iset({ replicas: 3 });
  kaitos.metadata.annotations = { ...kaitos.metadata.annotations, 'kaito-ts.io/scale-selector': 'all-pods' };
  assert.equal(statusOf(snap(kaitos, []))?.selector, 'inferenceset.kaito.sh/created-by=x', "KAITO's: every pod of every child");
  assert.deepEqual(
    s?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]),
    [['InferenceSetReady', 'False', 'inferencesetNotReady', 'inferenceset is not ready, 2/3 replicas are ready', 2]],
  );
  const ready = statusOf(snap(iset({ replicas: 1 }), [child('x-a', { ready: true })]));
  assert.deepEqual(
    ready?.conditions?.map((c) => [c.status, c.reason, c.message]),
    [['True', 'inferencesetReady', 'inferenceset is ready']],
  );
  const byo = statusOf(snap(iset({ instanceType: 'Standard_NC24ads_A100_v4' })));
  assert.match(byo?.conditions?.[0]?.message ?? '', /instanceType must be empty when nodeProvisioner is byo/);
  const nap = statusOf(snap(iset(), [], { byo: false }));
  assert.match(nap?.conditions?.[0]?.message ?? '', /missing field\(s\): spec.template.resource.instanceType/);
});

test('expectations: pending deletes until seen, uncertain creates until a child shows or the TTL passes', () => {
  let now = 0;
  const e = new Expectations(() => now, 1000);
  const a = child('x-a');
  e.expectDeletes('ns/x', ['uid-x-a']);
  assert.deepEqual([...e.view('ns/x', [a]).pendingDeletes], ['uid-x-a']);
  assert.deepEqual([...e.view('ns/x', [child('x-a', { terminating: true })]).pendingDeletes], []);
  e.uncertainCreate('ns/x');
  assert.equal(e.view('ns/x', []).holdCreates, true);
  memberToInferenceSet(e)({ type: 'add', obj: child('x-b') });
  assert.equal(e.view('ns/x', []).holdCreates, false);
  e.uncertainCreate('ns/x');
  now = 400;
  assert.equal(e.view('ns/x', []).recheckAfterMs, 600);
  now = 1000;
  assert.equal(e.view('ns/x', []).holdCreates, false);
  e.expectDeletes('ns/x', ['uid-x-a']);
  e.deleteFailed('ns/x', 'uid-x-a');
  assert.equal(e.view('ns/x', [a]).pendingDeletes.size, 0);
});

test('event filters: our own status writes and member heartbeats do not enqueue', () => {
  const is = iset();
  const written = { ...is, status: { readyReplicas: 1 } };
  assert.equal(inferenceSetChanged({ type: 'update', old: is, obj: written }), false);
  assert.equal(inferenceSetChanged({ type: 'update', old: is, obj: { ...is, metadata: { ...is.metadata, generation: 3 } } }), true);
  assert.equal(memberChanged({ type: 'update', old: child('a'), obj: { ...child('a'), metadata: { ...child('a').metadata, resourceVersion: '9' } } }), false);
  assert.equal(memberChanged({ type: 'update', old: child('a'), obj: child('a', { ready: true }) }), true);
});

test('Karpenter mode: the drift step is one more action of the pass, and a close asks for the next pass at once', () => {
  const is = iset({ replicas: 2 });
  const labels = (m: string) => ({
    'karpenter.kaito.sh/workspace-name': m,
    'karpenter.kaito.sh/workspace-namespace': 'ns',
    'karpenter.kaito.sh/inferenceset': 'x',
    'karpenter.kaito.sh/inferenceset-namespace': 'ns',
  });
  const pool = (m: string, nodes: string) => ({
    apiVersion: 'karpenter.sh/v1' as const,
    kind: 'NodePool' as const,
    metadata: { name: `ns-${m}`, labels: labels(m) },
    spec: { replicas: 1, disruption: { consolidateAfter: '0s', budgets: [{ nodes, reasons: ['Drifted'] }] } },
  });
  const claim = {
    metadata: { name: 'c', labels: { 'karpenter.sh/nodepool': 'ns-a', ...labels('a') } },
    status: { conditions: [{ type: 'Drifted', status: 'True' }] },
  };
  const children = [child('a', { ready: true }), child('b', { ready: true })];
  const drift = (nodes: string, claims: unknown[]) =>
    ({ drift: { pools: [pool('a', nodes), pool('b', '0')], claims } }) as unknown as Partial<InferenceSetSnapshot>;
  const opening = snap(is, children, drift('0', [claim]));
  assert.deepEqual(steps(opening), [
    'apply NodePool ns-a: open drift replacement: a has 1 drifted NodeClaim(s)',
    'event Normal DriftStarted: Started drift replacement for workspace ns/a',
    'write inferenceset status',
  ]);
  assert.equal(planInferenceSet(opening).requeueAfterMs, undefined, 'Karpenter replacing the claim is what comes next (watched)');
  const closing = snap(is, children, drift('1', []));
  assert.equal(steps(closing)[0], 'apply NodePool ns-a: close drift replacement: a replaced and Ready');
  assert.equal(planInferenceSet(closing).requeueAfterMs, 1, 'our own write raises no watch event');
  assert.deepEqual(steps(snap(is, children, drift('0', []))), ['write inferenceset status'], 'nothing drifted: nothing written');
  assert.ok(!steps(snap(iset({ replicas: 2, deleting: true }), children, drift('0', [claim]))).some((s) => s.includes('NodePool')), 'not while deleting');
});
