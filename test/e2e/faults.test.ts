// The fault suite (issue 14 item 8), on a PRIVATE cluster: SIGKILL storms of the operator while
// workspaces converge; SIGKILL of kube-apiserver, etcd and kube-scheduler (the supervisor restarts
// them) under a running operator; leader failover; the supervisor's memory limit. Each asserts that
// every workspace converges with one of each child and no orphan, and the same operator serves on.
import { stopPrivateCluster } from './support/private-cluster.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { layoutFor } from '../../src/simcluster/layout.js';
import { readSupervisorState } from '../../src/simcluster/supervisor/state.js';
import { kubectl, waitFor } from './harness.js';
import { applyAll, killAndAwaitRestart, presetWorkspace, seconds } from './support/faults.js';
import { assertOneOfEachNoOrphan, recreated } from './support/invariants.js';
import { CLI_PATH, killHard, pool, record, sleep, spawnOperator, waitReady, world, type Recorded } from './support/operator.js';

const run = promisify(execFile);
const range = (prefix: string, n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `${prefix}${from + i}`);

after(stopPrivateCluster);

async function allReady(ns: string, names: string[]): Promise<void> {
  for (const name of names) await waitReady(ns, name, 120_000);
}

describe('faults (private cluster)', () => {
  it('operator SIGKILLed 8 times while 16 workspaces converge: all converge, nothing duplicated, re-created or orphaned', async (t) => {
    const p = pool('a100', 16);
    const w = await world(t, { pools: [p], operator: false });
    const names = range('s', 16);
    const paths = [
      `/apis/apps/v1/namespaces/${w.ns}/statefulsets`,
      `/api/v1/namespaces/${w.ns}/services`,
      `/apis/apps/v1/namespaces/${w.ns}/controllerrevisions`,
    ];
    const watched: Recorded[][] = await Promise.all(paths.map((path) => record(t, path)));
    const progress = (): number => watched.reduce((n, events) => n + events.length, 0);
    await applyAll(
      w.ns,
      names.map((n) => presetWorkspace(n, p)),
    );
    const t0 = Date.now();
    const atKill: number[] = [];
    for (let kill = 0; kill < 8; kill++) {
      const op = await spawnOperator(w.ns);
      t.after(() => killHard(op.child));
      const before = progress();
      // Kill right after it wrote something (or 3 s in), plus up to 400 ms: mid-convergence, never idle.
      await waitFor('operator progress', () => progress() > before, { timeoutMs: 3000, intervalMs: 5 }).catch(() => undefined);
      await sleep(Math.floor(Math.random() * 400));
      await killHard(op.child);
      assert.equal(op.child.signalCode, 'SIGKILL');
      atKill.push(watched[0]?.filter((e) => e.type === 'ADDED').length ?? 0);
    }
    const lastStart = Date.now();
    const survivor = await spawnOperator(w.ns);
    t.after(() => killHard(survivor.child));
    await allReady(w.ns, names);
    const convergeS = seconds(lastStart);
    const counts = await assertOneOfEachNoOrphan(w.ns, names);
    const again = watched.flatMap((events) => recreated(events));
    assert.deepEqual(again, [], 'no object deleted or added twice');
    t.diagnostic(
      `storm: 8 SIGKILLs over ${seconds(t0)}s; StatefulSets existing at each kill: ${atKill.join(',')}; all 16 Ready ${convergeS}s after the last start; ${JSON.stringify(counts)}; re-created 0`,
    );
  });

  for (const component of ['kube-apiserver', 'etcd', 'kube-scheduler'] as const) {
    it(`${component} SIGKILLed: the supervisor restarts it and the same operator process carries on`, async (t) => {
      const p = pool('a100', 8);
      const w = await world(t, { pools: [p], operator: false });
      const op = await spawnOperator(w.ns);
      t.after(() => killHard(op.child));
      const first = range('a', 4);
      await applyAll(
        w.ns,
        first.map((n) => presetWorkspace(n, p)),
      );
      await allReady(w.ns, first);

      const revived = await killAndAwaitRestart(component);
      assert.equal(revived.record.reason, 'exited');
      const t1 = Date.now();
      const later = range('b', 4);
      await applyAll(
        w.ns,
        later.map((n) => presetWorkspace(n, p)),
      );
      await allReady(w.ns, [...first, ...later]);
      const convergeS = seconds(t1);
      assert.equal(op.child.exitCode, null, `the operator still runs:\n${op.output().slice(-2000)}`);
      assert.equal(op.child.signalCode, null);
      const counts = await assertOneOfEachNoOrphan(w.ns, [...first, ...later]);
      t.diagnostic(
        `${component}: pid ${revived.oldPid} → ${revived.newPid}, serving ${revived.seconds}s after SIGKILL; 4 new workspaces Ready ${convergeS}s after apply by the same operator (pid ${op.child.pid}); ${JSON.stringify(counts)}`,
      );
    });
  }

  it('leader SIGKILLed: the standby takes the Lease and converges what came meanwhile', async (t) => {
    const p = pool('a100', 8);
    const w = await world(t, { pools: [p], operator: false });
    const args = ['--leader-elect', '--leader-election-namespace', w.ns];
    const holder = async (): Promise<string> =>
      (await kubectl(['get', 'lease', 'kaito-ts-leader', '-o', 'jsonpath={.spec.holderIdentity}'], { namespace: w.ns }).catch(() => '')).trim();
    const leader = await spawnOperator(w.ns, args);
    t.after(() => killHard(leader.child));
    const leaderId = await waitFor('a leader', async () => (await holder()) || undefined, { timeoutMs: 60_000 });
    const standby = await spawnOperator(w.ns, args);
    t.after(() => killHard(standby.child));
    await waitFor('the standby waiting for the Lease', () => standby.output().includes('waiting for the leader lease'), { timeoutMs: 30_000 });
    const first = range('l', 4);
    await applyAll(
      w.ns,
      first.map((n) => presetWorkspace(n, p)),
    );
    await allReady(w.ns, first);

    const t0 = Date.now();
    await killHard(leader.child);
    const later = range('m', 4);
    await applyAll(
      w.ns,
      later.map((n) => presetWorkspace(n, p)),
    );
    const newId = await waitFor(
      'a new Lease holder',
      async () => {
        const h = await holder();
        return h && h !== leaderId ? h : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const failoverS = seconds(t0);
    await allReady(w.ns, [...first, ...later]);
    const convergeS = seconds(t0);
    assert.ok(standby.output().includes(newId), 'the standby is the new holder');
    assert.equal(standby.child.exitCode, null);
    const counts = await assertOneOfEachNoOrphan(w.ns, [...first, ...later]);
    t.diagnostic(
      `failover: Lease taken ${failoverS}s after the leader's SIGKILL; 4 workspaces applied meanwhile Ready ${convergeS}s after it; ${JSON.stringify(counts)}`,
    );
  });

  it('a component past its memory limit is restarted and the supervisor says so', async () => {
    const l = layoutFor();
    const up = (extra: string[]) => run(process.execPath, [CLI_PATH, 'simcluster', 'up', ...extra], { env: process.env, timeout: 120_000 });
    const before = readSupervisorState(l.supervisorStatePath)?.components['kube-scheduler']?.restarts ?? 0;
    await up(['--memory-limit', 'kube-scheduler=10Mi']);
    const last = await waitFor(
      'a memory restart of kube-scheduler',
      () => {
        const r = readSupervisorState(l.supervisorStatePath)?.components['kube-scheduler'];
        return r?.last?.reason === 'memory' && r.restarts > before ? r.last : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.match(last.detail, /^uses \d+ MiB RSS, over its 10 MiB limit$/);
    await up([]); // the default limits again
    const status = await run(process.execPath, [CLI_PATH, 'simcluster', 'status'], { env: process.env });
    assert.match(status.stdout, /^kube-scheduler +running pid \d+, restarts \d+ \(last .*: memory\)$/m);
    assert.match(status.stdout, /^supervisor +running pid \d+$/m);
    await sleep(3000);
    const settled = readSupervisorState(l.supervisorStatePath)?.components['kube-scheduler']?.restarts;
    await sleep(3000);
    assert.equal(readSupervisorState(l.supervisorStatePath)?.components['kube-scheduler']?.restarts, settled, 'no restart under the default limit');
  });
});
