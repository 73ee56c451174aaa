// No pass and no write outside leadership: the elector's clock check (fake clock), the latch, the
// controller loop refusing a pass, and the client (and so the executor) refusing a write.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderElector } from '../../../src/manager/leader-election.js';
import { PlanExecutor } from '../../../src/controllers/shared/executor.js';
import { ActionFailed } from '../../../src/controllers/shared/actions.js';
import { KubeClient } from '../../../src/runtime/client.js';
import { Controller } from '../../../src/runtime/controller.js';
import { clientEventSink, EventRecorder } from '../../../src/runtime/events.js';
import { LatchedLeadership, NotLeaderError, type Leadership } from '../../../src/runtime/leadership.js';
import { Resources } from '../../../src/runtime/resources.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { WorkQueue } from '../../../src/runtime/workqueue.js';
import { FakeLeaseStore } from '../manager/fake-lease-client.js';
import { cm, FakeApiServer } from './fake-apiserver.js';
import { until } from './until.js';

function fakeClock() {
  let t = 5_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const TIMINGS = { leaseDurationMs: 9_000, renewDeadlineMs: 6_000, retryPeriodMs: 1_200 };

describe('the lease holder by its own clock', () => {
  it('holds after acquiring and each renewal, and no longer once the renew deadline passed without one', async () => {
    const store = new FakeLeaseStore();
    const c = fakeClock();
    const e = new LeaderElector({ client: store.client(), namespace: 'ns', identity: 'a', now: c.now, timings: TIMINGS });
    assert.equal(e.leadershipProblem(), 'not the leader', 'before acquiring');
    assert.equal(e.hasLed, false);
    assert.equal(await e.acquire(), true);
    assert.equal(e.leadershipProblem(), undefined);
    c.advance(5_999);
    assert.equal(e.leadershipProblem(), undefined, 'just inside the lease duration less the margin');
    assert.equal(await e.tryAcquireOrRenew(), 'leader', 'renewed');
    c.advance(5_999);
    assert.equal(e.leadershipProblem(), undefined, 'the renewal restarted the window');
    c.advance(1);
    // Paused (SIGSTOP) past the renew deadline: still `isLeader` (nothing ran to say otherwise), but the clock says no.
    assert.equal(e.isLeader, true);
    assert.match(e.leadershipProblem() ?? '', /lease last renewed 6000 ms ago by this process's clock \(trusted for 6000 ms\)/);
    assert.equal(e.hasLed, true);
  });

  it('the window starts when the renewal was sent, not when its answer came', async () => {
    const store = new FakeLeaseStore();
    const c = fakeClock();
    const slow = store.client();
    const e = new LeaderElector({ client: slow, namespace: 'ns', identity: 'a', now: c.now, timings: TIMINGS });
    assert.equal(await e.acquire(), true);
    // The answer takes 4 s of our clock: the window is 6 s from the request, so 2 s are left.
    const get = slow.get.bind(slow);
    slow.get = async (...args: Parameters<typeof get>) => {
      c.advance(4_000);
      return get(...args);
    };
    assert.equal(await e.tryAcquireOrRenew(), 'leader');
    c.advance(1_999);
    assert.equal(e.leadershipProblem(), undefined);
    c.advance(1);
    assert.notEqual(e.leadershipProblem(), undefined);
  });
});

describe('LatchedLeadership', () => {
  it('the first refusal after having led calls onLost once; every later check is refused, even if the clock recovers', () => {
    let problem: string | undefined;
    const lost: string[] = [];
    const l = new LatchedLeadership({ leadershipProblem: () => problem, hasLed: true }, (r) => lost.push(r));
    assert.equal(l.holds(), true);
    problem = 'lease last renewed 20000 ms ago';
    assert.equal(l.holds('the workspace pass of ns/a'), false);
    problem = undefined;
    assert.equal(l.holds(), false, 'latched: stop writing first, exit after');
    assert.deepEqual(lost, ['lease last renewed 20000 ms ago; refused: the workspace pass of ns/a']);
    assert.equal(l.lostReason, 'lease last renewed 20000 ms ago; refused: the workspace pass of ns/a');
  });

  it('a standby that never led is refused without being told it lost', () => {
    const lost: string[] = [];
    const l = new LatchedLeadership({ leadershipProblem: () => 'not the leader', hasLed: false }, (r) => lost.push(r));
    assert.equal(l.holds(), false);
    assert.deepEqual(lost, []);
  });
});

describe('a pass is refused outside leadership', { timeout: 15_000 }, () => {
  let c: Controller | undefined;
  afterEach(async () => {
    await c?.stop(500);
    c = undefined;
  });

  it('passes run while leadership holds; once it does not, the next key starts no pass and the worker stops', async () => {
    let leading = true;
    const passes: string[] = [];
    const leadership: Leadership = { holds: () => leading };
    c = new Controller({
      name: 't',
      reconcile: async (key) => void passes.push(key),
      maxConcurrentReconciles: 1,
      queue: new WorkQueue({ bucket: null }),
      leadership,
    });
    await c.start();
    c.enqueue('ns/a');
    await until(() => passes.length === 1);
    leading = false;
    c.enqueue('ns/b');
    await until(() => c!.refusedPasses === 1);
    c.enqueue('ns/c');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(passes, ['ns/a'], 'no pass started after leadership was lost');
    assert.equal(c.metrics.reconciles.success, 1);
    assert.equal(c.metrics.activeWorkers, 0);
  });

  it('the manager sets it on a controller built without one', async () => {
    const passes: string[] = [];
    c = new Controller({ name: 't', reconcile: async (key) => void passes.push(key), maxConcurrentReconciles: 2, queue: new WorkQueue({ bucket: null }) });
    c.leadership = { holds: () => false };
    await c.start();
    c.enqueue('ns/a');
    await until(() => c!.refusedPasses >= 1);
    assert.deepEqual(passes, []);
  });
});

describe('a write is refused outside leadership (fake API server)', { timeout: 15_000 }, () => {
  let server: FakeApiServer;
  let transport: KubeTransport;
  beforeEach(async () => {
    server = new FakeApiServer();
    server.handler = (req, res) => {
      if (req.method === 'GET' && req.url?.includes('watch=true')) return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cm('x', '1')));
      return true;
    };
  });
  afterEach(async () => {
    transport.close();
    await server.stop();
  });

  it('reads go out, writes do not, and the check runs after the wait for the QPS budget', async () => {
    transport = new KubeTransport(await server.start(), { qps: 2, burst: 1 });
    let leading = true;
    const client = new KubeClient(transport).guardedBy({ holds: () => leading });
    await client.get(Resources.configMaps, 'default', 'x'); // spends the one token
    // This write waits ~0.5 s for a token; leadership is lost meanwhile (a pause, a lost lease).
    const write = client.create(Resources.configMaps, cm('y', '1')).then(
      () => 'sent',
      (err: unknown) => err,
    );
    leading = false;
    const result = await write;
    assert.ok(result instanceof NotLeaderError, `refused, got ${String(result)}`);
    assert.match((result as Error).message, /create \/api\/v1\/namespaces\/default\/configmaps not sent/);
    await client.get(Resources.configMaps, 'default', 'x');
    assert.deepEqual(server.requests, ['GET /api/v1/namespaces/default/configmaps/x', 'GET /api/v1/namespaces/default/configmaps/x']);
    assert.equal(transport.counter.writes, 0, 'a refused write is not counted as sent');
  });

  it("the executor's writes go through the guarded client: refused with NotLeaderError, nothing sent", async () => {
    transport = new KubeTransport(await server.start(), { qps: 1000, burst: 1000 });
    const client = new KubeClient(transport).guardedBy({ holds: () => false });
    const recorder = new EventRecorder({ sink: clientEventSink(client) });
    const executor = new PlanExecutor({ client, caches: {}, recorder, owner: Resources.workspaces });
    const ws = { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'w', namespace: 'default', uid: 'u1' } };
    const err = await executor.execute(ws, { actions: [{ kind: 'apply', type: Resources.configMaps, object: cm('c', '1'), why: 'test' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ActionFailed);
    assert.ok(err.cause instanceof NotLeaderError);
    assert.deepEqual(server.requests, []);
  });
});
