import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, microTime, type EventBody, type EventSeries, type EventSink } from '../../../src/runtime/events.js';
import { KubeApiError } from '../../../src/runtime/errors.js';

function fakeSink() {
  const created: EventBody[] = [];
  const patched: { namespace: string; name: string; series: EventSeries }[] = [];
  let failCreate: Error | undefined;
  let failPatch: Error | undefined;
  const sink: EventSink = {
    create: async (e) => {
      await new Promise((r) => setTimeout(r, 1)); // let concurrent callers race
      if (failCreate) throw failCreate;
      created.push(e);
    },
    patchSeries: async (namespace, name, series) => {
      if (failPatch) throw failPatch;
      patched.push({ namespace, name, series });
    },
  };
  return { sink, created, patched, failCreate: (e?: Error) => (failCreate = e), failPatch: (e?: Error) => (failPatch = e) };
}

const ws: KubernetesObject = { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { namespace: 'ns1', name: 'w1', uid: 'u1', resourceVersion: '7' } };

function recorder(now: { t: number }, sink: EventSink) {
  return new EventRecorder({ sink, reportingInstance: 'pod-a', now: () => now.t, windowMs: 60_000, patchIntervalMs: 10_000 });
}

describe('EventRecorder', () => {
  it('writes an events.k8s.io/v1 Event with the fields the apiserver validates', async () => {
    const now = { t: Date.UTC(2026, 0, 2, 3, 4, 5, 123) };
    const f = fakeSink();
    await recorder(now, f.sink).event(ws, 'Warning', 'InvalidPreset', 'preset "nope" is unknown', 'Reconcile');
    assert.equal(f.created.length, 1);
    const e = f.created[0]!;
    assert.equal(e.apiVersion, 'events.k8s.io/v1');
    assert.equal(e.metadata.namespace, 'ns1');
    assert.match(e.metadata.name, /^w1\.[0-9a-f]+$/);
    assert.equal(e.eventTime, '2026-01-02T03:04:05.123000Z', 'MicroTime has six fractional digits');
    assert.equal(e.reportingController, 'kaito-ts');
    assert.equal(e.reportingInstance, 'pod-a');
    assert.equal(e.type, 'Warning');
    assert.equal(e.reason, 'InvalidPreset');
    assert.equal(e.action, 'Reconcile');
    assert.equal(e.note, 'preset "nope" is unknown');
    assert.deepEqual(e.regarding, { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', namespace: 'ns1', name: 'w1', uid: 'u1', resourceVersion: '7' });
    assert.equal(e.series, undefined);
  });

  it('aggregates a flapping event: one create, series patches at most once per interval, counts not lost', async () => {
    const now = { t: 1_000_000 };
    const f = fakeSink();
    const r = recorder(now, f.sink);
    for (let i = 0; i < 50; i++) {
      await r.event(ws, 'Warning', 'BackOff', 'pod crash-looping');
      now.t += 1_000; // one per second for 50 s
    }
    assert.equal(f.created.length, 1, 'one Event object');
    // first at t0, patches at t0+10s, +20s, +30s, +40s → 4 patches for 49 repeats
    assert.equal(f.patched.length, 4);
    assert.deepEqual(
      f.patched.map((p) => p.series.count),
      [11, 21, 31, 41],
    );
    assert.equal(f.patched[0]!.name, f.created[0]!.metadata.name);
    assert.equal(f.patched[0]!.series.lastObservedTime, microTime(1_000_000 + 10_000));
    assert.equal(r.pendingCount(), 9, 'the last 9 observations wait for the next patch');
  });

  it('different reason, note, type or object are separate events', async () => {
    const now = { t: 0 };
    const f = fakeSink();
    const r = recorder(now, f.sink);
    await r.event(ws, 'Warning', 'A', 'x');
    await r.event(ws, 'Warning', 'B', 'x');
    await r.event(ws, 'Warning', 'A', 'y');
    await r.event(ws, 'Normal', 'A', 'x');
    await r.event({ ...ws, metadata: { ...ws.metadata, name: 'w2', uid: 'u2' } }, 'Warning', 'A', 'x');
    assert.equal(f.created.length, 5);
    assert.equal(f.patched.length, 0);
  });

  it('starts a new event after the window', async () => {
    const now = { t: 0 };
    const f = fakeSink();
    const r = recorder(now, f.sink);
    await r.event(ws, 'Normal', 'Created', 'sts created');
    now.t += 61_000;
    await r.event(ws, 'Normal', 'Created', 'sts created');
    assert.equal(f.created.length, 2);
  });

  it('concurrent identical events never create twins', async () => {
    const now = { t: 0 };
    const f = fakeSink();
    const r = recorder(now, f.sink);
    await Promise.all(Array.from({ length: 10 }, () => r.event(ws, 'Warning', 'X', 'same')));
    assert.equal(f.created.length, 1);
  });

  it('never throws; a garbage-collected event (404 on patch) starts a new series', async () => {
    const now = { t: 0 };
    const f = fakeSink();
    const r = recorder(now, f.sink);
    f.failCreate(new Error('boom'));
    await r.event(ws, 'Warning', 'X', 'n');
    f.failCreate(undefined);
    await r.event(ws, 'Warning', 'Y', 'n');
    now.t += 20_000;
    f.failPatch(new KubeApiError('NotFound', 'events "w1.x" not found', 404));
    await r.event(ws, 'Warning', 'Y', 'n');
    f.failPatch(undefined);
    await r.event(ws, 'Warning', 'Y', 'n');
    assert.equal(f.created.length, 2, 'Y created again after its event vanished');
  });
});
