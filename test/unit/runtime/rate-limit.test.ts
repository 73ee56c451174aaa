import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JitteredBackoff, Slots, TokenBucket } from '../../../src/runtime/rate-limit.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { KubeClient } from '../../../src/runtime/client.js';
import { Resources } from '../../../src/runtime/resources.js';
import { FakeApiServer } from './fake-apiserver.js';

describe('TokenBucket', () => {
  it('serves the burst at once, then one token per 1/qps, refilling up to the burst', () => {
    let now = 0;
    const b = new TokenBucket(30, 50, () => now);
    const waits = Array.from({ length: 52 }, () => b.reserve());
    assert.deepEqual(waits.slice(0, 50), Array(50).fill(0));
    assert.ok(Math.abs(waits[50]! - 1000 / 30) < 1e-9);
    assert.ok(Math.abs(waits[51]! - 2000 / 30) < 1e-9);
    now = 10_000; // long idle: back to a full burst, not more
    assert.equal(
      Array.from({ length: 50 }, () => b.reserve()).every((w) => w === 0),
      true,
    );
    assert.ok(b.reserve() > 0);
  });
  it('rejects nonsense limits', () => {
    assert.throws(() => new TokenBucket(0, 10), /qps > 0/);
    assert.throws(() => new TokenBucket(10, 0), /burst >= 1/);
  });
});

describe('JitteredBackoff (list/watch restarts)', () => {
  it('800 ms doubling to 30 s without jitter, reset after 2 quiet minutes', () => {
    let now = 0;
    const b = new JitteredBackoff({ jitter: 0, now: () => now });
    const seq = Array.from({ length: 8 }, () => {
      now += 1_000;
      return b.next();
    });
    assert.deepEqual(seq, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    now += 120_001;
    assert.equal(b.next(), 800);
  });
  it('adds up to jitter × delay', () => {
    const b = new JitteredBackoff({ random: () => 0.5 });
    assert.equal(b.next(), 1200);
  });
});

describe('Slots', () => {
  it('runs at most `size` at once and the waiting ones in arrival order', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const job = (name: string) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(name);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(job));
    assert.equal(most, 2);
    assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(slots.inUse, 0);
  });

  it('a failing holder frees its slot', async () => {
    const slots = new Slots(1);
    await assert.rejects(
      slots.run(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await slots.run(() => Promise.resolve(7)), 7);
    assert.equal(slots.inUse, 0);
  });

  it('an abort ends a wait with the signal reason and leaves the queue as it was', async () => {
    const slots = new Slots(1);
    let release!: () => void;
    const held = slots.run(() => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    const waiting = slots.run(() => Promise.resolve('never'), ac.signal);
    const next = slots.run(() => Promise.resolve('next'));
    ac.abort(new Error('stopping'));
    await assert.rejects(waiting, /stopping/);
    release();
    await held;
    assert.equal(await next, 'next');
    assert.equal(slots.inUse, 0);
    await assert.rejects(
      slots.run(() => Promise.resolve(1), ac.signal),
      /stopping/,
      'an aborted signal never waits',
    );
  });

  it('rejects a size below 1', () => {
    assert.throws(() => new Slots(0), /size >= 1/);
  });
});

describe('KubeTransport', () => {
  it('limits requests client-side (QPS/burst) and counts them by verb', async () => {
    const server = new FakeApiServer();
    const transport = new KubeTransport(await server.start(), { qps: 20, burst: 5 });
    try {
      const c = new KubeClient(transport);
      const t0 = Date.now();
      await Promise.all(Array.from({ length: 15 }, () => c.list(Resources.configMaps)));
      const took = Date.now() - t0;
      // 5 at once, then 10 more at 20/s → ≥ 500 ms
      assert.ok(took >= 450, `took ${took} ms`);
      assert.deepEqual(transport.counter.snapshot(), { list: 15 });
      assert.equal(transport.counter.writes, 0);
    } finally {
      transport.close();
      await server.stop();
    }
  });
});

it('TokenBucket: a deferrable acquire yields to every other request, even later ones; deferrable ones keep their order', async () => {
  const b = new TokenBucket(20, 1); // a token per 50 ms: the 1 ms pause below stays far inside it on a loaded machine
  await b.acquire(); // the bucket is empty now
  const order: string[] = [];
  const done = (name: string) => () => void order.push(name);
  const waits = [b.acquire(undefined, 'deferred').then(done('deferred-1')), b.acquire(undefined, 'deferred').then(done('deferred-2'))];
  await new Promise((r) => setTimeout(r, 1));
  waits.push(b.acquire().then(done('normal-1')), b.acquire().then(done('normal-2')));
  await Promise.all(waits);
  assert.deepEqual(order, ['normal-1', 'normal-2', 'deferred-1', 'deferred-2']);
});

it('TokenBucket: a deferrable acquire ends when its signal aborts', async () => {
  const b = new TokenBucket(0.001, 1);
  await b.acquire();
  const abort = new AbortController();
  const waiting = b.acquire(abort.signal, 'deferred');
  abort.abort();
  await waiting; // resolves instead of waiting ~1000 s
});

it('TokenBucket: a deferred acquire whose urgent signal fires leaves the deferred line for the end of the high one', async () => {
  const b = new TokenBucket(20, 1); // a token per 50 ms
  await b.acquire();
  const order: string[] = [];
  const done = (name: string) => () => void order.push(name);
  const urgent = new AbortController();
  const waits = [b.acquire(undefined, 'deferred').then(done('deferred-1')), b.acquire(undefined, 'deferred', urgent.signal).then(done('promoted'))];
  await new Promise((r) => setTimeout(r, 1));
  waits.push(b.acquire().then(done('normal-1')), b.acquire(undefined, 'high').then(done('high-1')));
  urgent.abort(); // behind high-1 (already in line), ahead of normal-1 and of deferred-1
  await new Promise((r) => setTimeout(r, 1));
  waits.push(b.acquire(undefined, 'high').then(done('high-2')));
  await Promise.all(waits);
  assert.deepEqual(order, ['high-1', 'promoted', 'high-2', 'normal-1', 'deferred-1']);
});

it('TokenBucket: high requests go before normal ones that waited longer; the rate holds across lines', async () => {
  const b = new TokenBucket(50, 1); // a token per 20 ms
  await b.acquire();
  const order: string[] = [];
  const at: number[] = [];
  const start = performance.now();
  const done = (name: string) => () => void (order.push(name), at.push(performance.now() - start));
  const waits = [b.acquire().then(done('normal-1')), b.acquire().then(done('normal-2'))];
  await new Promise((r) => setTimeout(r, 1));
  waits.push(b.acquire(undefined, 'high').then(done('high')));
  await Promise.all(waits);
  assert.deepEqual(order, ['high', 'normal-1', 'normal-2']);
  // Three tokens after the burst: no sooner than 3 × 20 ms (a little slack for timer rounding).
  assert.ok(at[2]! >= 55, `third grant after ${at[2]} ms`);
  assert.equal(b.waiting, 0);
});

it('TokenBucket: an aborted wait takes no token: the next request in line gets it', async () => {
  const b = new TokenBucket(20, 1);
  await b.acquire();
  const abort = new AbortController();
  const order: string[] = [];
  const first = b.acquire(abort.signal).then(() => order.push('aborted'));
  const second = b.acquire().then(() => order.push('next'));
  abort.abort();
  await first;
  assert.equal(b.waiting, 1);
  await second;
  assert.deepEqual(order, ['aborted', 'next']);
});

it('TokenBucket: a deferrable acquire with its urgent signal already fired is not deferred at all', async () => {
  const b = new TokenBucket(20, 1);
  await b.acquire();
  const order: string[] = [];
  const done = (name: string) => () => void order.push(name);
  const waits = [b.acquire(undefined, 'deferred').then(done('deferred'))];
  await new Promise((r) => setTimeout(r, 1));
  waits.push(b.acquire(undefined, 'deferred', AbortSignal.abort()).then(done('urgent')));
  await Promise.all(waits);
  assert.deepEqual(order, ['urgent', 'deferred']);
});
