import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from '../../../src/runtime/workqueue.js';
import { ItemExponentialBackoff, TokenBucket } from '../../../src/runtime/rate-limit.js';
import { sleep } from '../../../src/runtime/rate-limit.js';

const noBucket = () => new WorkQueue({ bucket: null });

describe('WorkQueue', () => {
  it('hands keys out in FIFO order and dedups keys not yet processed', async () => {
    const q = noBucket();
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
    assert.equal(q.len, 3);
    const got = [await q.get(), await q.get(), await q.get()];
    assert.deepEqual(got, ['a', 'b', 'c']);
    assert.equal(q.len, 0);
  });

  it('never hands one key to two workers; a re-add during processing runs once more afterwards', async () => {
    const q = noBucket();
    q.add('k');
    const first = await q.get();
    assert.equal(first, 'k');
    q.add('k');
    q.add('k');
    assert.equal(q.len, 0, 'key in flight must not be queued again');
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await sleep(5);
    assert.equal(second, undefined, 'second worker must wait while k is processed');
    q.done('k');
    await sleep(0);
    assert.equal(second, 'k', 'k comes back exactly once after done');
    q.done('k');
    assert.equal(q.len, 0);
    assert.equal(q.inFlight, 0);
  });

  it('runs N workers without ever processing one key concurrently', async () => {
    const q = noBucket();
    const active = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (active.has(key)) overlaps++;
        active.add(key);
        await sleep(1 + Math.random() * 3);
        active.delete(key);
        processed++;
        q.done(key);
      }
    };
    const workers = Array.from({ length: 5 }, worker);
    for (let round = 0; round < 20; round++) {
      for (const k of ['a', 'b', 'c']) q.add(k);
      await sleep(1);
    }
    assert.equal(await q.shutDownWithDrain(5_000), true);
    await Promise.all(workers);
    assert.equal(overlaps, 0);
    assert.ok(processed >= 3 && processed <= 60, `processed ${processed}`);
  });

  it('per-key backoff doubles from 5 ms and stops at the 1000 s cap; forget resets it', () => {
    const q = noBucket();
    const delays = Array.from({ length: 20 }, () => q.addRateLimited('x'));
    assert.deepEqual(delays.slice(0, 4), [5, 10, 20, 40]);
    assert.equal(delays[10], 5 * 1024);
    assert.equal(delays[17], 655_360);
    assert.equal(delays[18], 1_000_000, 'capped at 1000 s');
    assert.equal(delays[19], 1_000_000);
    assert.equal(q.numRequeues('x'), 20);
    assert.equal(q.addRateLimited('y'), 5, 'keys back off independently');
    q.forget('x');
    assert.equal(q.numRequeues('x'), 0);
    assert.equal(q.addRateLimited('x'), 5);
    q.shutDown();
  });

  it('the overall token bucket delays rate-limited adds once the burst is spent', () => {
    let now = 0;
    const q = new WorkQueue({ bucket: new TokenBucket(10, 2, () => now), backoff: new ItemExponentialBackoff(5, 1_000_000) });
    assert.equal(q.addRateLimited('a'), 5);
    assert.equal(q.addRateLimited('b'), 5);
    assert.equal(q.addRateLimited('c'), 100, 'third within the same instant waits one token (100 ms at 10 qps)');
    assert.equal(q.addRateLimited('d'), 200);
    now = 1_000;
    assert.equal(q.addRateLimited('e'), 5, 'bucket refilled after a second');
    q.shutDown();
  });

  it('honours a minimum delay (server Retry-After)', () => {
    const q = noBucket();
    assert.equal(q.addRateLimited('a', 2_000), 2_000);
    q.shutDown();
  });

  it('addAfter delivers later, keeps the earliest deadline per key', async () => {
    const q = noBucket();
    q.addAfter('late', 40);
    q.addAfter('late', 10);
    q.addAfter('late', 80);
    assert.equal(q.len, 0);
    const t0 = Date.now();
    const key = await q.get();
    const waited = Date.now() - t0;
    assert.equal(key, 'late');
    assert.ok(waited >= 8 && waited < 40, `waited ${waited} ms`);
    q.done('late');
    await sleep(100);
    assert.equal(q.len, 0, 'the superseded timers must not add the key again');
    q.shutDown();
  });

  it('addAfter(0) adds at once', async () => {
    const q = noBucket();
    q.addAfter('now', 0);
    assert.equal(q.len, 1);
    q.shutDown();
  });

  it('shutdown drains queued and in-flight keys, refuses new ones, drops delayed ones', async () => {
    const q = noBucket();
    q.add('a');
    q.add('b');
    q.addAfter('later', 10_000);
    const a = await q.get();
    const drained = q.shutDownWithDrain(1_000);
    q.add('new');
    const b = await q.get();
    assert.equal(b, 'b', 'queued keys are still handed out while draining');
    q.done(a!);
    q.done(b);
    assert.equal(await drained, true);
    assert.equal(await q.get(), undefined, 'nothing after drain, not even the delayed or the late key');
  });

  it('shutdown wakes idle workers and reports a missed deadline', async () => {
    const q = noBucket();
    const idle = q.get();
    q.add('stuck');
    const stuck = await idle;
    assert.equal(stuck, 'stuck');
    const waiting = q.get();
    assert.equal(await q.shutDownWithDrain(20), false, 'in-flight key never done → deadline');
    assert.equal(await waiting, undefined);
  });
});

describe('WorkQueue lanes', () => {
  const drain = async (q: WorkQueue, n: number): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = (await q.get())!;
      out.push(k);
      q.done(k);
    }
    return out;
  };

  it('hands out fast keys before the normal lane, each lane in FIFO order', async () => {
    const q = new WorkQueue();
    for (const k of ['a', 'b', 'c']) q.add(k);
    q.add('x', 'fast');
    q.add('y', 'fast');
    assert.equal(q.len, 5);
    assert.deepEqual(await drain(q, 5), ['x', 'y', 'a', 'b', 'c']);
  });

  it('a key waiting in the normal lane moves up when it is added as fast, and is handed out once', async () => {
    const q = new WorkQueue();
    for (const k of ['a', 'b', 'c']) q.add(k);
    q.add('c', 'fast');
    assert.equal(q.len, 3);
    assert.deepEqual(await drain(q, 3), ['c', 'a', 'b']);
  });

  it('a fast add while the key is processing re-queues it in the fast lane on done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const k = (await q.get())!;
    q.add('b');
    q.add('a', 'fast');
    q.done(k);
    assert.deepEqual(await drain(q, 2), ['a', 'b']);
  });

  it('a key handed out forgets its lane: a later normal add waits in the normal lane', async () => {
    const q = new WorkQueue();
    q.add('a', 'fast');
    assert.deepEqual(await drain(q, 1), ['a']);
    q.add('b');
    q.add('a');
    assert.deepEqual(await drain(q, 2), ['b', 'a']);
  });

  it('says which keys in process came from the fast lane, until they are done', async () => {
    const q = new WorkQueue();
    q.add('n');
    q.add('f', 'fast');
    const first = (await q.get())!;
    const second = (await q.get())!;
    assert.deepEqual([first, q.takenFromFastLane(first), second, q.takenFromFastLane(second)], ['f', true, 'n', false]);
    q.done(first);
    assert.equal(q.takenFromFastLane(first), false);
    q.add('f');
    assert.equal((await q.get())!, 'f');
    assert.equal(q.takenFromFastLane('f'), false, 'a normal add hands it out as normal');
  });

  it('a closed gate holds the normal lane while fast keys still go out; reopened() hands held keys to waiting workers; shutdown still drains', async () => {
    const q = new WorkQueue();
    let open = false;
    q.gateNormalLane(() => open);
    q.add('a');
    const waiting = q.get();
    q.add('f', 'fast');
    assert.equal(await waiting, 'f');
    q.done('f');
    let got: string | undefined;
    void q.get().then((k) => (got = k));
    await new Promise((r) => setImmediate(r));
    assert.equal(got, undefined, 'the normal key waits behind the gate');
    open = true;
    q.reopened();
    await new Promise((r) => setImmediate(r));
    assert.equal(got, 'a');
    q.done('a');
    open = false;
    q.add('b');
    const last = q.get();
    q.shutDown();
    open = true;
    q.reopened();
    assert.equal(await last, 'b');
    q.done('b');
    assert.equal(await q.get(), undefined);
  });
});
