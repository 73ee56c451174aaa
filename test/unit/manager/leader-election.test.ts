import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTimings, DEFAULT_TIMINGS, LeaderElector, LEASE_NAME } from '../../../src/manager/leader-election.js';
import { FakeLeaseStore } from './fake-lease-client.js';

/** A hand-driven monotonic clock shared by the candidates. */
function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const elector = (store: FakeLeaseStore, id: string, now: () => number) =>
  new LeaderElector({ client: store.client(), namespace: 'ns', identity: id, now, wallClock: () => Date.UTC(2026, 0, 1) + now() });

test("defaults are controller-runtime's 15 s / 10 s / 2 s scaled by 0.6 and satisfy client-go's constraint", () => {
  assert.deepEqual(DEFAULT_TIMINGS, { leaseDurationMs: 9_000, renewDeadlineMs: 6_000, retryPeriodMs: 1_200 });
  assert.doesNotThrow(() => checkTimings(DEFAULT_TIMINGS));
  for (const bad of [
    { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    { leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 },
  ])
    assert.throws(() => checkTimings(bad));
});

test('the first candidate creates the Lease; the second sees it held until it expires by its own clock', async () => {
  const store = new FakeLeaseStore();
  const c = clock();
  const a = elector(store, 'a', c.now);
  const b = elector(store, 'b', c.now);
  assert.equal(await a.tryAcquireOrRenew(), 'leader');
  assert.equal(store.lease?.metadata?.name, LEASE_NAME);
  assert.equal(store.lease?.spec?.holderIdentity, 'a');
  assert.equal(store.lease?.spec?.leaseDurationSeconds, 9);
  assert.match(String(store.lease?.spec?.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime, six fractional digits');

  assert.equal(await b.tryAcquireOrRenew(), 'held');
  c.advance(8_000);
  assert.equal(await b.tryAcquireOrRenew(), 'held', 'unchanged record, but not yet a full lease duration since b first saw it');
  // a renews: the record changes, so b's expiry clock restarts when b sees the change.
  assert.equal(await a.tryAcquireOrRenew(), 'leader');
  assert.equal(await b.tryAcquireOrRenew(), 'held');
  c.advance(8_000);
  assert.equal(await b.tryAcquireOrRenew(), 'held');
  c.advance(1_001);
  assert.equal(await b.tryAcquireOrRenew(), 'leader', 'a stopped renewing 9 s ago');
  assert.equal(store.lease?.spec?.holderIdentity, 'b');
  assert.equal(store.lease?.spec?.leaseTransitions, 1);
  assert.equal(await a.tryAcquireOrRenew(), 'held', 'the old leader sees the new holder');
});

test('two candidates racing on one resourceVersion: exactly one wins', async () => {
  const store = new FakeLeaseStore();
  const c = clock();
  assert.equal(await elector(store, 'old', c.now).tryAcquireOrRenew(), 'leader');
  const a = elector(store, 'a', c.now);
  const b = elector(store, 'b', c.now);
  await a.tryAcquireOrRenew();
  await b.tryAcquireOrRenew();
  c.advance(10_000);
  const results = await Promise.all([a.tryAcquireOrRenew(), b.tryAcquireOrRenew()]);
  assert.deepEqual([...results].sort(), ['held', 'leader']);
  assert.equal(store.lease?.spec?.holderIdentity, results[0] === 'leader' ? 'a' : 'b');
});

test('release hands the lease back so a standby takes it at once', async () => {
  const store = new FakeLeaseStore();
  const c = clock();
  const a = elector(store, 'a', c.now);
  const b = elector(store, 'b', c.now);
  assert.equal(await a.acquire(), true);
  assert.equal(await b.tryAcquireOrRenew(), 'held');
  assert.equal(await a.release(), true);
  assert.equal(store.lease?.spec?.holderIdentity, '');
  assert.equal(a.isLeader, false);
  assert.equal(await b.tryAcquireOrRenew(), 'leader', 'no wait for the lease duration');
});

test('a leader that cannot renew within the renew deadline is told it lost, once', async () => {
  const store = new FakeLeaseStore();
  const timings = { leaseDurationMs: 300, renewDeadlineMs: 200, retryPeriodMs: 40 };
  const a = new LeaderElector({ client: store.client(), namespace: 'ns', identity: 'a', timings });
  assert.equal(await a.acquire(), true);
  const lost: string[] = [];
  const started = performance.now();
  const done = new Promise<void>((resolve) =>
    a.keepRenewing((reason) => {
      lost.push(reason);
      resolve();
    }),
  );
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(lost.length, 0, 'renewals succeed while the API answers');
  store.down = true;
  await done;
  const elapsed = performance.now() - started;
  assert.equal(lost.length, 1);
  assert.match(lost[0]!, /no renewal within 200 ms/);
  assert.ok(elapsed >= 150 + 150 && elapsed < 150 + 200 + 200, `lost after ${elapsed} ms`);
  assert.equal(a.isLeader, false);
});

test('a leader whose lease was taken over loses it at the next renewal', async () => {
  const store = new FakeLeaseStore();
  const timings = { leaseDurationMs: 300, renewDeadlineMs: 200, retryPeriodMs: 40 };
  const a = new LeaderElector({ client: store.client(), namespace: 'ns', identity: 'a', timings });
  assert.equal(await a.acquire(), true);
  const lost = new Promise<string>((resolve) => a.keepRenewing(resolve));
  store.lease!.spec!.holderIdentity = 'intruder';
  store.lease!.metadata!.resourceVersion = '999';
  assert.match(await lost, /lease taken by intruder/);
});

test('acquire stops when aborted', async () => {
  const store = new FakeLeaseStore();
  const c = clock();
  await elector(store, 'a', c.now).tryAcquireOrRenew();
  const b = elector(store, 'b', c.now);
  const ac = new AbortController();
  const p = b.acquire(ac.signal);
  setTimeout(() => ac.abort(), 50);
  assert.equal(await p, false);
});

test('a standby tries again at the observed expiry, never later than its jittered retry', async () => {
  // [ms since b observed a's record, jittered retry, expected wait]
  const cases: [number, number, number][] = [
    [0, 1_500, 1_500], // far from expiry: the plain retry
    [7_000, 2_500, 2_050], // expiry is 2 s away: wake 50 ms past it
    [8_900, 2_000, 150],
    [9_000, 2_000, 2_000], // expired and still here (the try failed or lost a race): the plain retry, no tight loop
    [20_000, 1_300, 1_300],
  ];
  for (const [sinceObserved, jittered, want] of cases) {
    const store = new FakeLeaseStore();
    const c = clock();
    assert.equal(await elector(store, 'a', c.now).tryAcquireOrRenew(), 'leader');
    const b = elector(store, 'b', c.now);
    assert.equal(await b.tryAcquireOrRenew(), 'held');
    c.advance(sinceObserved);
    assert.equal(b.nextTryInMs(jittered), want, `${sinceObserved} ms after observing, retry ${jittered} ms`);
  }
});

test('the holder itself, or a candidate that saw nothing yet, waits the plain retry', async () => {
  const store = new FakeLeaseStore();
  const c = clock();
  const a = elector(store, 'a', c.now);
  assert.equal(a.nextTryInMs(1_700), 1_700, 'nothing observed yet');
  assert.equal(await a.acquire(), true);
  c.advance(8_990);
  assert.equal(a.nextTryInMs(1_700), 1_700, 'our own lease');
});
