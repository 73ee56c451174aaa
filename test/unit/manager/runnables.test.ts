import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Controller } from '../../../src/runtime/controller.js';
import { controllerRunnable, httpServer, RunnableGroups, type LeaderGate, type Runnable } from '../../../src/manager/runnables.js';
import { until } from '../runtime/until.js';

/** A runnable that logs its start and stop; `fail` makes start reject, `drained` is what stop says. */
function fake(log: string[], name: string, o: { fail?: boolean; drained?: boolean; stopMs?: number } = {}): Runnable {
  return {
    name,
    async start() {
      log.push(`start:${name}`);
      if (o.fail) throw new Error(`${name} failed`);
    },
    async stop(deadlineMs) {
      log.push(`stop:${name}(${deadlineMs})`);
      if (o.stopMs) await new Promise((r) => setTimeout(r, o.stopMs));
      if (o.stopMs) log.push(`stopped:${name}`);
      return o.drained;
    },
  };
}

/** A lease: `grant()` makes acquire resolve true; until then it waits for the signal (a standby). */
function gate(log: string[]) {
  let grant!: () => void;
  const granted = new Promise<void>((r) => (grant = r));
  let lose: ((reason: string) => void) | undefined;
  const g: LeaderGate = {
    acquire: (signal) => {
      log.push('acquire');
      return new Promise<boolean>((resolve) => {
        void granted.then(() => resolve(true));
        signal.addEventListener('abort', () => resolve(false), { once: true });
      });
    },
    keepRenewing: (onLost) => {
      log.push('renewing');
      lose = onLost;
    },
    release: async () => void log.push('release'),
  };
  return { gate: g, grant, lose: (reason: string) => lose?.(reason) };
}

const groupsOf = (log: string[], leader?: LeaderGate, fatal: string[] = []) => {
  const g = new RunnableGroups({ ...(leader ? { leader } : {}), onFatal: (r) => void fatal.push(r) });
  g.add('leaderGated', fake(log, 'controller'));
  g.add('caches', fake(log, 'caches'));
  g.add('servers', fake(log, 'health'));
  g.add('servers', fake(log, 'metrics'));
  return g;
};

describe('RunnableGroups', () => {
  it('without leader election: servers, caches, then workers start; workers stop first, servers last', async () => {
    const log: string[] = [];
    const g = groupsOf(log);
    const { leading } = await g.start();
    await leading;
    assert.deepEqual(log, ['start:health', 'start:metrics', 'start:caches', 'start:controller']);
    log.length = 0;
    assert.equal(await g.stop(5_000), true);
    assert.deepEqual(log, ['stop:controller(5000)', 'stop:caches(5000)', 'stop:health(5000)', 'stop:metrics(5000)']);
  });

  it('with leader election: caches fill before the lease, workers start once leading, the lease is released after they drained', async () => {
    const log: string[] = [];
    const lease = gate(log);
    const g = new RunnableGroups({ leader: lease.gate, onFatal: () => assert.fail('no fatal') });
    g.add('servers', fake(log, 'health'));
    g.add('caches', fake(log, 'caches'));
    g.add('leaderGated', fake(log, 'controller', { stopMs: 30, drained: true }));
    const { leading } = await g.start();
    assert.deepEqual(log, ['start:health', 'start:caches', 'acquire']);
    lease.grant();
    await leading;
    assert.deepEqual(log.slice(3), ['renewing', 'start:controller']);
    log.length = 0;
    assert.equal(await g.stop(1_000), true);
    assert.deepEqual(log, ['stop:controller(1000)', 'stopped:controller', 'release', 'stop:caches(1000)', 'stop:health(1000)']);
  });

  it('a standby never starts its workers; stop still stops them (at once), releases, and closes the rest', async () => {
    const log: string[] = [];
    const lease = gate(log);
    const g = groupsOf(log, lease.gate);
    const { leading } = await g.start();
    let led = false;
    void leading.then(() => (led = true));
    assert.equal(await g.stop(5_000), true);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(led, false, 'stopped while standing by: never leading');
    assert.ok(!log.includes('start:controller'));
    assert.deepEqual(log.slice(log.indexOf('stop:controller(5000)')), [
      'stop:controller(5000)',
      'release',
      'stop:caches(5000)',
      'stop:health(5000)',
      'stop:metrics(5000)',
    ]);
  });

  it('drained is false when a leader-gated runnable could not finish in time', async () => {
    const log: string[] = [];
    const g = new RunnableGroups({ onFatal: () => {} });
    g.add('leaderGated', fake(log, 'a', { drained: true }));
    g.add('leaderGated', fake(log, 'b', { drained: false }));
    g.add('servers', fake(log, 'health', { drained: false }));
    await g.start();
    assert.equal(await g.stop(10), false);
  });

  it('a start that fails stops what had started, in reverse, and rejects; nothing later starts', async () => {
    const log: string[] = [];
    const g = new RunnableGroups({ onFatal: () => {} });
    g.add('servers', fake(log, 'health'));
    g.add('servers', fake(log, 'metrics', { fail: true }));
    g.add('caches', fake(log, 'caches'));
    g.add('leaderGated', fake(log, 'controller'));
    await assert.rejects(g.start(), /metrics failed/);
    assert.deepEqual(log, ['start:health', 'start:metrics', 'stop:metrics(0)', 'stop:health(0)']);
  });

  it('once leading, a worker start failure or a lost lease is fatal, with the reasons the operator logs', async () => {
    const log: string[] = [];
    const fatal: string[] = [];
    const lease = gate(log);
    const g = new RunnableGroups({ leader: lease.gate, onFatal: (r) => void fatal.push(r) });
    g.add('leaderGated', fake(log, 'controller', { fail: true }));
    const { leading } = await g.start();
    lease.grant();
    await leading;
    assert.deepEqual(fatal, ['controller did not start: controller failed']);
    lease.lose('no renewal within 6000 ms');
    assert.deepEqual(fatal.slice(1), ['leader election lost: no renewal within 6000 ms']);
    await g.stop(0);
  });

  it('refuses runnables added after start, and a second start', async () => {
    const g = new RunnableGroups({ onFatal: () => {} });
    await g.start();
    assert.throws(() => g.add('servers', fake([], 'late')), /added after start/);
    await assert.rejects(g.start(), /started twice/);
    await g.stop(0);
  });
});

describe('manager runnables', () => {
  it('controllerRunnable: a running controller drains in-flight reconciles within the deadline; a never-started one stops at once', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const ctl = new Controller({ name: 't', maxConcurrentReconciles: 1, reconcile: () => slow });
    const r = controllerRunnable(ctl);
    await r.start(new AbortController().signal);
    assert.equal(r.running, true);
    ctl.enqueue('ns/a');
    await until(() => ctl.metrics.activeWorkers === 1);
    assert.equal(await r.stop(30), false, 'still in flight at the deadline');
    release();

    const standby = controllerRunnable(new Controller({ name: 's', reconcile: async () => {} }));
    assert.equal(standby.running, false);
    assert.equal(await standby.stop(5_000), true);
  });

  it('httpServer: listens on start (url), closes on stop; stop before start is a no-op', async () => {
    const s = httpServer('health', '127.0.0.1:0', { '/healthz': (_q, res) => void res.writeHead(200).end('ok\n') });
    await s.stop(0);
    await s.start(new AbortController().signal);
    assert.match(s.url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${s.url}/healthz`);
    assert.equal(await res.text(), 'ok\n');
    await s.stop(0);
    await assert.rejects(fetch(`${s.url}/healthz`));
  });
});
