// Nodes left behind by a gone workspace: the pure plan (tables) and the reconciler's use of it
// (cache candidates → live GET → UID-guarded deletes and events).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { operatorConfigOf, type WorkspaceDeps } from '../../../src/controllers/workspace/context.js';
import { OrphanReason, planOrphans, type OrphanInput } from '../../../src/controllers/workspace/orphans.js';
import { WorkspaceReconciler } from '../../../src/controllers/workspace/reconciler.js';
import { cachesFromObjects } from '../../../src/controllers/workspace/snapshot.js';
import type { Action } from '../../../src/controllers/shared/actions.js';
import type { KubeClient } from '../../../src/runtime/client.js';
import { KubeApiError } from '../../../src/runtime/errors.js';
import { EventRecorder, type EventSink } from '../../../src/runtime/events.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { defaultFacts } from '../../../src/builders/facts.js';

const claim = (name: string, ws: string, ns = 'ns1', o: { deleting?: boolean; uid?: string } = {}) =>
  ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      uid: o.uid ?? `uid-${name}`,
      labels: { 'karpenter.sh/nodepool': 'kaito', 'kaito.sh/workspace': ws, 'kaito.sh/workspacenamespace': ns },
      ...(o.deleting ? { deletionTimestamp: '2026-12-06T00:00:00Z' } : {}),
    },
    spec: {},
  }) as never;

const pool = (name: string, ws: string, ns = 'ns1', o: { managedBy?: string; set?: string } = {}) =>
  ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: {
        'karpenter.kaito.sh/managed-by': o.managedBy ?? 'kaito',
        'karpenter.kaito.sh/workspace-name': ws,
        'karpenter.kaito.sh/workspace-namespace': ns,
        ...(o.set ? { 'karpenter.kaito.sh/inferenceset': o.set } : {}),
      },
    },
  }) as never;

const steps = (actions: readonly Action<object>[]) =>
  actions.map((a) =>
    a.kind === 'delete'
      ? `delete ${a.type.kind} ${a.ref.name} uid=${a.uid}`
      : a.kind === 'event'
        ? `event ${a.note.reason} on ${a.regarding?.metadata?.name}`
        : a.kind,
  );

describe('planOrphans', () => {
  const base: OrphanInput = { namespace: 'ns1', name: 'w', claims: [], pools: [] };
  const rows: { name: string; input: Partial<OrphanInput>; verdict: string; steps?: string[] }[] = [
    { name: 'nothing labelled for the workspace: nothing to ask', input: {}, verdict: 'none' },
    { name: 'a claim in the cache: ask the API server first', input: { claims: [claim('wsa', 'w')] }, verdict: 'confirm' },
    { name: 'the live GET finds the workspace (cache lag): nothing deleted', input: { claims: [claim('wsa', 'w')], live: 'present' }, verdict: 'none' },
    {
      name: 'gone: each claim deleted by UID, each with an event regarding it',
      input: { claims: [claim('wsa', 'w'), claim('wsb', 'w')], live: 'absent' },
      verdict: 'collect',
      steps: [
        'delete NodeClaim wsa uid=uid-wsa',
        `event ${OrphanReason.NodeClaim} on wsa`,
        'delete NodeClaim wsb uid=uid-wsb',
        `event ${OrphanReason.NodeClaim} on wsb`,
      ],
    },
    {
      name: 'a claim already deleting is on its way: nothing',
      input: { claims: [claim('wsa', 'w', 'ns1', { deleting: true })], live: 'absent' },
      verdict: 'none',
    },
    {
      name: "another workspace's claim (same name, other namespace) is never touched",
      input: { claims: [claim('wsa', 'w', 'ns2'), claim('wsb', 'w2')], live: 'absent' },
      verdict: 'none',
    },
    {
      name: 'Karpenter: our NodePool of a gone InferenceSet member deleted, with an event',
      input: { pools: [pool('ns1-w', 'w', 'ns1', { set: 'is1' })], live: 'absent' },
      verdict: 'collect',
      steps: ['delete NodePool ns1-w uid=uid-ns1-w', `event ${OrphanReason.NodePool} on ns1-w`],
    },
    {
      name: 'Karpenter: a NodePool not made the KAITO way is not ours',
      input: { pools: [pool('ns1-w', 'w', 'ns1', { managedBy: 'someone' })], live: 'absent' },
      verdict: 'none',
    },
  ];
  for (const r of rows)
    it(r.name, () => {
      const p = planOrphans({ ...base, ...r.input });
      assert.equal(p.verdict, r.verdict);
      if (r.steps) assert.deepEqual(p.verdict === 'collect' ? steps(p.plan.actions) : [], r.steps);
    });

  it('the event names the gone workspace and the InferenceSet', () => {
    const p = planOrphans({ ...base, pools: [pool('ns1-w', 'w', 'ns1', { set: 'is1' })], live: 'absent' });
    assert.ok(p.verdict === 'collect');
    const e = p.plan.actions.find((a) => a.kind === 'event');
    assert.match(e?.kind === 'event' ? e.note.message : '', /labelled for workspace ns1\/w \(InferenceSet ns1\/is1\), which no longer exists/);
  });
});

describe('WorkspaceReconciler: a key whose workspace is not cached', () => {
  function setup(objects: KubernetesObject[], live: 'absent' | 'present', namespace?: string) {
    const calls: string[] = [];
    const events: { regarding: unknown; reason: string; namespace: string }[] = [];
    const client = {
      fieldManager: 'kaito-ts',
      withSignal: () => client,
      withPriority: () => client,
      deferred: () => client,
      get: async (_t: unknown, ns: string, name: string) => {
        calls.push(`get ${ns}/${name}`);
        if (live === 'absent') throw new KubeApiError('NotFound', 'not found', 404);
        return { metadata: { name, namespace: ns } };
      },
      delete: async (t: { kind: string }, ref: { name: string }, opts: { uid: string }) => void calls.push(`delete ${t.kind} ${ref.name} uid=${opts.uid}`),
    } as unknown as KubeClient;
    const sink: EventSink = {
      create: async (e) => void events.push({ regarding: e.regarding.name, reason: e.reason, namespace: e.metadata.namespace }),
      patchSeries: async () => {},
    };
    const deps: WorkspaceDeps = {
      client,
      caches: cachesFromObjects(objects),
      recorder: new EventRecorder({ sink }),
      log: silentLogger,
      config: operatorConfigOf(defaultFacts(), 1_800_000),
      now: () => new Date(),
      provisioningCrdInstalled: () => true,
      ...(namespace ? { namespace } : {}),
    };
    return { r: new WorkspaceReconciler(deps), calls, events };
  }

  it('gone (live 404): its claim is deleted by UID, and an Event regarding the claim is recorded in default', async () => {
    const { r, calls, events } = setup([claim('wsa', 'w')], 'absent');
    assert.deepEqual(await r.reconcile('ns1/w'), {});
    assert.deepEqual(calls, ['get ns1/w', 'delete NodeClaim wsa uid=uid-wsa']);
    assert.deepEqual(events, [{ regarding: 'wsa', reason: OrphanReason.NodeClaim, namespace: 'default' }]);
  });

  it('the cache lags and the workspace exists: the GET says so, nothing deleted', async () => {
    const { r, calls, events } = setup([claim('wsa', 'w')], 'present');
    await r.reconcile('ns1/w');
    assert.deepEqual(calls, ['get ns1/w']);
    assert.deepEqual(events, []);
  });

  it('no candidates in the cache: not even a GET', async () => {
    const { r, calls } = setup([claim('wsa', 'other')], 'absent');
    await r.reconcile('ns1/w');
    assert.deepEqual(calls, []);
  });

  it("a namespaced operator never judges another namespace's claims", async () => {
    const { r, calls } = setup([claim('wsa', 'w', 'ns2')], 'absent', 'ns1');
    await r.reconcile('ns2/w');
    assert.deepEqual(calls, []);
  });
});
