// The supervisor's decisions (restart, wait, leave alone), its memory limits and the lock it acts under.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { components, everyComponent, NODE_MONITOR_GRACE, supervisorCommand } from '../../../src/simcluster/components.js';
import { layoutFor } from '../../../src/simcluster/layout.js';
import { tryWithLock, withLock } from '../../../src/simcluster/lock.js';
import { parseProcStatus } from '../../../src/simcluster/process.js';
import {
  backoffMs,
  decide,
  DEFAULT_MEMORY_LIMITS,
  formatMemoryLimits,
  parseMemoryLimits,
  resolveMemoryLimits,
  STABLE_AFTER_MS,
  type Observation,
  type Verdict,
  type Watched,
} from '../../../src/simcluster/supervision.js';

const GI = 1024 ** 3;

describe('backoffMs', () => {
  for (const [consecutive, ms] of [
    [0, 0],
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [6, 32_000],
    [7, 60_000],
    [40, 60_000],
  ] as const) {
    it(`waits ${ms} ms before restart ${consecutive + 1} of a run of quick deaths`, () => assert.equal(backoffMs(consecutive), ms));
  }
});

describe('decide', () => {
  const t0 = 1_000_000;
  const cases: { name: string; w: Watched; o: Omit<Observation, 'limitBytes'>; want: Verdict }[] = [
    { name: 'alive and small: nothing', w: { since: t0, consecutive: 0 }, o: { alive: true, rssBytes: 100e6, now: t0 + 5000 }, want: { action: 'none' } },
    { name: 'alive, RSS unreadable: nothing', w: { since: t0, consecutive: 0 }, o: { alive: true, now: t0 + 5000 }, want: { action: 'none' } },
    {
      name: 'first death: restart at once',
      w: { since: t0, consecutive: 0, deadSince: t0 + 5000 },
      o: { alive: false, now: t0 + 5000 },
      want: { action: 'restart', reason: 'exited', consecutive: 1 },
    },
    {
      name: 'second quick death: wait 1 s',
      w: { since: t0, consecutive: 1, deadSince: t0 + 2000 },
      o: { alive: false, now: t0 + 2400 },
      want: { action: 'wait', ms: 600 },
    },
    {
      name: 'second quick death, 1 s later: restart',
      w: { since: t0, consecutive: 1, deadSince: t0 + 2000 },
      o: { alive: false, now: t0 + 3000 },
      want: { action: 'restart', reason: 'exited', consecutive: 2 },
    },
    {
      name: 'fourth quick death: wait 4 s',
      w: { since: t0, consecutive: 3, deadSince: t0 + 100 },
      o: { alive: false, now: t0 + 100 },
      want: { action: 'wait', ms: 4000 },
    },
    {
      name: 'death after a long life: a new run, at once',
      w: { since: t0, consecutive: 5, deadSince: t0 + STABLE_AFTER_MS },
      o: { alive: false, now: t0 + STABLE_AFTER_MS },
      want: { action: 'restart', reason: 'exited', consecutive: 1 },
    },
    { name: 'death seen for the first time now', w: { since: t0, consecutive: 2 }, o: { alive: false, now: t0 + 10 }, want: { action: 'wait', ms: 2000 } },
    {
      name: 'over the memory limit: restart',
      w: { since: t0, consecutive: 0 },
      o: { alive: true, rssBytes: 3 * GI, now: t0 + 5000 },
      want: { action: 'restart', reason: 'memory', consecutive: 1 },
    },
    {
      name: 'over the limit again soon after a restart: wait its backoff',
      w: { since: t0, consecutive: 2 },
      o: { alive: true, rssBytes: 3 * GI, now: t0 + 500 },
      want: { action: 'wait', ms: 1500 },
    },
    { name: 'at the limit exactly: nothing', w: { since: t0, consecutive: 0 }, o: { alive: true, rssBytes: 2 * GI, now: t0 + 5000 }, want: { action: 'none' } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(decide(c.w, { ...c.o, limitBytes: 2 * GI }), c.want));
  }
});

describe('memory limits', () => {
  const ok: [string[], Partial<typeof DEFAULT_MEMORY_LIMITS>][] = [
    [[], {}],
    [['kube-apiserver=4Gi'], { 'kube-apiserver': 4 * GI }],
    [['etcd=512Mi,kwok=1Gi', ' kube-scheduler=1500Mi '], { etcd: 512 * 1024 ** 2, kwok: GI, 'kube-scheduler': 1500 * 1024 ** 2 }],
  ];
  for (const [input, want] of ok) it(`parses ${JSON.stringify(input)}`, () => assert.deepEqual(parseMemoryLimits(input), want));
  const bad: [string, RegExp][] = [
    ['apiserver=1Gi', /component one of etcd, kube-apiserver/],
    ['etcd', /expected <component>=<size>/],
    ['etcd=lots', /at least 1Mi/],
    ['etcd=100Ki', /at least 1Mi/],
    ['etcd=-1Gi', /at least 1Mi/],
  ];
  for (const [input, msg] of bad) it(`refuses ${input}`, () => assert.throws(() => parseMemoryLimits([input]), msg));
  it('flags win over the environment, which wins over the defaults', () => {
    const l = resolveMemoryLimits({ KAITO_TS_SIM_MEMORY_LIMITS: 'etcd=1Gi,kwok=3Gi' }, ['kwok=4Gi']);
    assert.deepEqual(l, { ...DEFAULT_MEMORY_LIMITS, etcd: GI, kwok: 4 * GI });
    assert.match(
      formatMemoryLimits(l),
      /^etcd=1Gi,kube-apiserver=3Gi,.*kwok=4Gi,gpu-provisioner=1Gi,metrics-adapter=1Gi,model-load=1Gi,karpenter=2Gi,keda-operator=1Gi,keda-adapter=1Gi$/,
    );
  });
  it('bounds every component (the opt-ins too), 17 GiB in all', () => {
    assert.deepEqual(
      Object.keys(DEFAULT_MEMORY_LIMITS).sort(),
      everyComponent(layoutFor({}))
        .map((c) => c.name)
        .sort(),
    );
    assert.equal(
      Object.values(DEFAULT_MEMORY_LIMITS).reduce((a, b) => a + b, 0),
      17 * GI,
    );
  });
  it('reads VmRSS from /proc', () => {
    assert.deepEqual(parseProcStatus('VmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n'), { peakRssKiB: 2048, rssKiB: 1024 });
  });
});

describe('component command lines for supervision', () => {
  const l = layoutFor({ KAITO_TS_SIMCLUSTER_DIR: '/tmp/sim-x', KAITO_TS_SIM_PORT_OFFSET: '2100' });
  it("gives the controller-manager the bench cluster's node-monitor grace period, and restarts one without it once", () => {
    const kcm = components(l).find((c) => c.name === 'kube-controller-manager');
    assert.ok(kcm?.args.includes(NODE_MONITOR_GRACE) === true && kcm.stale);
    assert.equal(NODE_MONITOR_GRACE, '--node-monitor-grace-period=10m');
    assert.equal(kcm.stale(kcm.args), false);
    assert.equal(kcm.stale(kcm.args.filter((a) => a !== NODE_MONITOR_GRACE)), true);
  });
  it('starts the supervisor of this state folder and port offset with every limit', () => {
    const cmd = supervisorCommand(l, 'etcd=1Gi');
    assert.equal(cmd.binary, process.execPath);
    assert.match(cmd.args[0] ?? '', /dist\/src\/simcluster\/supervisor\/main\.js$/);
    assert.deepEqual(cmd.args.slice(1), ['--state-dir=/tmp/sim-x', '--port-offset=2100', '--memory-limits=etcd=1Gi']);
  });
});

describe('tryWithLock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-lock-'));
  it('runs when the lock is free and releases it', async () => {
    assert.equal(await tryWithLock(join(dir, 'a'), () => Promise.resolve(7)), 7);
    assert.equal(await tryWithLock(join(dir, 'a'), () => Promise.resolve(8)), 8);
  });
  it('gives up while a live owner holds it, without waiting for it', async () => {
    const lock = join(dir, 'b');
    await withLock(
      lock,
      () => undefined,
      async () => {
        assert.equal(await tryWithLock(lock, () => Promise.resolve('ran')), undefined);
      },
    );
  });
  it('takes over a lock whose owner is dead', async () => {
    const lock = join(dir, 'c');
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), '999999999');
    assert.equal(await tryWithLock(lock, () => Promise.resolve('ran')), 'ran');
  });
});
