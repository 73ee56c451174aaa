import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Controller, TerminalError, type Reconciler } from '../../../src/runtime/controller.js';
import { KubeApiError } from '../../../src/runtime/errors.js';
import { enqueueOwner, enqueueSelf, generationOrLabelsChanged, when } from '../../../src/runtime/mappers.js';
import { ObjectCache, type ObjectEvent } from '../../../src/runtime/cache.js';
import { sleep } from '../../../src/runtime/rate-limit.js';
import { WorkQueue } from '../../../src/runtime/workqueue.js';
import type { Reflector } from '../../../src/runtime/reflector.js';
import { until } from './until.js';

describe('Controller', { timeout: 15_000 }, () => {
  let c: Controller | undefined;
  afterEach(async () => {
    await c?.stop(1_000);
    c = undefined;
  });

  function make(reconcile: Reconciler, workers = 5): Controller {
    c = new Controller({ name: 't', reconcile, maxConcurrentReconciles: workers, queue: new WorkQueue({ bucket: null }) });
    return c;
  }

  it('defaults to 5 workers', () => {
    assert.equal(new Controller({ name: 'd', reconcile: async () => {} }).maxConcurrentReconciles, 5);
  });

  it('runs keys in parallel up to maxConcurrentReconciles, so 10 slow keys take ~2 rounds, not 10', async () => {
    let active = 0;
    let peak = 0;
    const done: string[] = [];
    const ctl = make(async (key) => {
      peak = Math.max(peak, ++active);
      await sleep(60); // a slow step that must not hold the others up
      active--;
      done.push(key);
    });
    await ctl.start();
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) ctl.enqueue(`ns/w${i}`);
    await until(() => done.length === 10);
    const took = Date.now() - t0;
    assert.equal(peak, 5);
    assert.ok(took < 400, `took ${took} ms (serial would be 600)`);
    assert.equal(ctl.metrics.reconciles.success, 10);
  });

  it('a backlog of passes that do no I/O still lets timers and sockets run between passes', async () => {
    const done: string[] = [];
    // Each pass burns 2 ms of CPU and awaits nothing real, as a pass over a converged workspace does.
    const ctl = make(async (key) => {
      const until2ms = performance.now() + 2;
      while (performance.now() < until2ms);
      done.push(key);
    });
    await ctl.start();
    for (let i = 0; i < 200; i++) ctl.enqueue(`ns/w${i}`);
    // A macrotask queued behind the backlog (a health probe, a watch chunk) runs long before it is drained.
    const seenAt = await new Promise<number>((resolve) => setImmediate(() => resolve(done.length)));
    await until(() => done.length === 200);
    assert.ok(seenAt < 50, `the event loop was starved until ${seenAt} of 200 passes were done`);
  });

  it('retries errors with growing backoff and forgets the count on success', async () => {
    const seen: { retries: number; at: number }[] = [];
    const ctl = make(async (_key, ctx) => {
      seen.push({ retries: ctx.retries, at: Date.now() });
      if (seen.length <= 3) throw new KubeApiError('ServerError', 'etcd hiccup', 500);
    });
    await ctl.start();
    ctl.enqueue('ns/a');
    await until(() => seen.length === 4);
    assert.deepEqual(
      seen.map((s) => s.retries),
      [0, 1, 2, 3],
    );
    assert.equal(ctl.queue.numRequeues('ns/a'), 0, 'success forgets');
    assert.equal(ctl.metrics.reconciles.error, 3);
    assert.equal(ctl.metrics.reconciles.success, 1);
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
    assert.ok(gaps[2]! >= 18, `third retry waits ≥ 20 ms (got ${gaps.join(', ')})`);
  });

  it('requeueAfterMs brings the key back later without counting a failure', async () => {
    const at: number[] = [];
    const ctl = make(async () => {
      at.push(Date.now());
      return at.length === 1 ? { requeueAfterMs: 50 } : {};
    });
    await ctl.start();
    ctl.enqueue('ns/a');
    await until(() => at.length === 2);
    assert.ok(at[1]! - at[0]! >= 45, `came back after ${at[1]! - at[0]!} ms`);
    assert.equal(ctl.metrics.reconciles.requeue_after, 1);
    assert.equal(ctl.metrics.reconciles.error, 0);
  });

  it('TerminalError is not retried', async () => {
    let calls = 0;
    const ctl = make(async () => {
      calls++;
      throw new TerminalError('UnknownPreset', 'unknown preset');
    });
    await ctl.start();
    ctl.enqueue('ns/a');
    await until(() => ctl.metrics.reconciles.terminal_error === 1);
    await sleep(50);
    assert.equal(calls, 1);
  });

  it('a TerminalError with recheckAfterMs comes back once after the delay, not with backoff', async () => {
    let calls = 0;
    const ctl = make(async () => {
      calls++;
      if (calls === 1) throw new TerminalError('SecretNotFound', 'no secret', 30);
    });
    await ctl.start();
    ctl.enqueue('ns/a');
    await until(() => calls === 2);
    await sleep(60);
    assert.equal(calls, 2);
    assert.equal(ctl.metrics.reconciles.terminal_error, 1);
    assert.equal(ctl.metrics.reconciles.success, 1);
    assert.equal(ctl.queue.numRequeues('ns/a'), 0, 'not counted as a failure');
  });

  it('events arriving while a key is reconciled cause exactly one more pass, never a parallel one', async () => {
    let running = 0;
    let overlap = false;
    let passes = 0;
    const ctl = make(async () => {
      if (++running > 1) overlap = true;
      passes++;
      await sleep(30);
      running--;
    });
    await ctl.start();
    ctl.enqueue('ns/a');
    await sleep(5);
    for (let i = 0; i < 20; i++) ctl.enqueue('ns/a');
    await until(() => passes === 2);
    await sleep(60);
    assert.equal(passes, 2);
    assert.equal(overlap, false);
  });

  it('resync enqueues every key again each period, without any event, until stopped', async () => {
    const seen: string[] = [];
    let keys = ['ns/a', 'ns/b'];
    c = new Controller({
      name: 'r',
      reconcile: async (key) => void seen.push(key),
      queue: new WorkQueue({ bucket: null }),
      resync: { periodMs: 20, keys: () => keys },
    });
    await c.start();
    await until(() => seen.filter((k) => k === 'ns/a').length >= 2);
    assert.deepEqual(new Set(seen), new Set(['ns/a', 'ns/b']));
    keys = ['ns/c'];
    await until(() => seen.includes('ns/c'));
    assert.equal(await c.stop(1_000), true);
    c = undefined;
    const after = seen.length;
    await sleep(60);
    assert.equal(seen.length, after, 'no resync after stop');
  });

  it('without resync nothing runs without an event', async () => {
    let passes = 0;
    const ctl = make(async () => void passes++);
    await ctl.start();
    await sleep(60);
    assert.equal(passes, 0);
  });

  it("a fast-lane event that urgentWhen picks fires the urgent signal of its key's pass in process; others do not", async () => {
    let emit: (e: ObjectEvent<KubernetesObject>) => void = () => {};
    const source = {
      name: 'fake',
      hasSynced: true,
      on: (h: typeof emit) => void (emit = h),
      start: () => {},
      waitForSync: async () => true,
      stop: async () => {},
    } as unknown as Reflector<KubernetesObject>;
    let open = (): void => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const signals: AbortSignal[] = [];
    const fast: boolean[] = [];
    const ctl = make(async (_key, ctx) => {
      signals.push(ctx.urgent);
      fast.push(ctx.fast);
      await gate;
    });
    ctl.watch(source, enqueueSelf, { lane: 'fast', urgentWhen: (e) => e.obj.metadata?.labels?.ready === 'true' });
    ctl.watch({ ...source, on: () => {} } as unknown as Reflector<KubernetesObject>, enqueueSelf);
    await ctl.start();
    ctl.enqueue('ns/w');
    await until(() => signals.length === 1);
    ctl.enqueue('ns/w');
    assert.equal(signals[0]!.aborted, false, 'a normal add leaves the deferral alone');
    const w = { metadata: { namespace: 'ns', name: 'w' } };
    emit({ type: 'update', obj: w, old: w });
    assert.equal(signals[0]!.aborted, false, 'a fast event urgentWhen does not pick leaves it alone too');
    emit({ type: 'update', obj: { metadata: { ...w.metadata, labels: { ready: 'true' } } }, old: w });
    assert.equal(signals[0]!.aborted, true);
    open();
    await until(() => signals.length === 2);
    assert.equal(signals[1]!.aborted, false, 'the next pass starts with its own signal');
    assert.deepEqual(fast, [false, true], 'the first pass came from the normal lane, the one the fast events asked for from the fast lane');
  });

  it('stop() lets the in-flight reconcile finish', async () => {
    let finished = false;
    const ctl = make(async () => {
      await sleep(50);
      finished = true;
    });
    await ctl.start();
    ctl.enqueue('ns/a');
    await sleep(5);
    assert.equal(await ctl.stop(2_000), true);
    assert.equal(finished, true);
    c = undefined;
  });

  it('a released pass frees its worker for the next key; past maxReleasedPasses only fast keys start; the key stays exclusive and stop() waits', async () => {
    let open = (): void => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const started: string[] = [];
    let finished = 0;
    c = new Controller({
      name: 't',
      maxConcurrentReconciles: 1,
      maxReleasedPasses: 2,
      queue: new WorkQueue({ bucket: null }),
      reconcile: async (key, ctx) => {
        started.push(key);
        assert.equal(ctx.release(), true);
        await gate; // the deferred writes, waiting for the QPS budget
        finished++;
      },
    });
    const ctl = c;
    await ctl.start();
    for (const k of ['ns/a', 'ns/b', 'ns/c']) ctl.enqueue(k);
    await until(() => started.length === 2);
    await sleep(20);
    // One worker ran two passes that released it; the third (normal lane) waits for one of them to end.
    assert.deepEqual(started, ['ns/a', 'ns/b']);
    assert.equal(ctl.metrics.activeWorkers, 0);
    ctl.queue.add('ns/f', 'fast'); // a pod turned Ready: its pass is not held back
    await until(() => started.length === 3);
    assert.equal(started[2], 'ns/f');
    ctl.enqueue('ns/a'); // still in process: queued again only when its pass ends
    await sleep(20);
    assert.equal(started.length, 3);
    open();
    await until(() => started.length === 5);
    assert.deepEqual(started.slice(3).sort(), ['ns/a', 'ns/c']);
    assert.equal(await ctl.stop(2_000), true);
    assert.equal(finished, 5);
    c = undefined;
  });

  it('maxReleasedPasses 0: release() is refused and the pass keeps its worker', async () => {
    const granted: boolean[] = [];
    const ctl = (c = new Controller({
      name: 't',
      maxReleasedPasses: 0,
      queue: new WorkQueue({ bucket: null }),
      reconcile: async (_k, ctx) => void granted.push(ctx.release()),
    }));
    await ctl.start();
    ctl.enqueue('ns/a');
    ctl.enqueue('ns/b');
    await until(() => granted.length === 2);
    assert.deepEqual(granted, [false, false]);
  });
});

describe('mappers', () => {
  const sts = (ownerKind: string, ownerName: string, apiVersion = 'kaito.sh/v1beta1'): KubernetesObject => ({
    kind: 'StatefulSet',
    metadata: { namespace: 'ns', name: 'x', ownerReferences: [{ apiVersion, kind: ownerKind, name: ownerName, uid: 'u', controller: true }] },
  });
  const add = (obj: KubernetesObject): ObjectEvent<KubernetesObject> => ({ type: 'add', obj });

  it('enqueueSelf gives the object key', () => assert.deepEqual(enqueueSelf(add({ metadata: { namespace: 'ns', name: 'w' } })), ['ns/w']));

  it('enqueueOwner maps a child to its controlling owner of that kind and group', () => {
    const m = enqueueOwner('Workspace', 'kaito.sh');
    assert.deepEqual(m(add(sts('Workspace', 'w1'))), ['ns/w1']);
    assert.deepEqual(m(add(sts('Deployment', 'w1'))), []);
    assert.deepEqual(m(add(sts('Workspace', 'w1', 'other.io/v1'))), []);
    assert.deepEqual(m(add({ metadata: { namespace: 'ns', name: 'orphan' } })), []);
    assert.deepEqual(m({ type: 'update', obj: sts('Workspace', 'w2'), old: sts('Workspace', 'w1') }).sort(), ['ns/w1', 'ns/w2']);
  });

  it('when() filters: a status-only update maps to nothing', () => {
    const cache = new ObjectCache<KubernetesObject>();
    cache.upsert({ metadata: { namespace: 'a', name: 'w1', resourceVersion: '1' } });
    cache.upsert({ metadata: { namespace: 'b', name: 'w2', resourceVersion: '1' } });
    const sc: KubernetesObject = { kind: 'StorageClass', metadata: { name: 'local-nvme', generation: 1, labels: {} } };
    const m = when(generationOrLabelsChanged, () => cache.keys());
    assert.deepEqual(m(add(sc)).sort(), ['a/w1', 'b/w2']);
    assert.deepEqual(m({ type: 'update', obj: { ...sc, metadata: { ...sc.metadata, resourceVersion: '2' } }, old: sc }), [], 'status-only update is filtered');
    assert.equal(m({ type: 'update', obj: { ...sc, metadata: { ...sc.metadata, labels: { a: 'b' } } }, old: sc }).length, 2);
  });
});
