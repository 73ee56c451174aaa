// A paused leader must not act once it wakes up (issue 37 item 3), on a PRIVATE cluster: two
// operators with leader election; the leader is stopped with SIGSTOP for longer than its lease while
// workspaces arrive, the standby takes over, the old leader is resumed (SIGCONT). Its own debug log
// says what it did after waking: every pass ('reconciled', with its duration, so its start is known)
// and every write ('write sent', logged by the transport the moment a write goes on the wire), of the
// Workspace and InferenceSet controllers alike (an InferenceSet is scaled during each pause). Both
// must be zero; it must exit on "leader election lost". 5 cycles, the roles swapping each time.
import { stopPrivateCluster } from './support/private-cluster.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { kubectl, waitFor } from './harness.js';
import { applyAll, presetWorkspace, seconds } from './support/faults.js';
import { applyInferenceSet } from './support/inferenceset.js';
import { killHard, pool, selectorFor, sleep, spawnOperator, world } from './support/operator.js';

after(stopPrivateCluster);

const CYCLES = Number(process.env.KAITO_TS_PAUSE_CYCLES ?? 5);
/** Longer than the 9 s lease: the standby takes over while the leader sleeps. */
const PAUSE_MS = 20_000;

interface LogLine {
  time?: string;
  msg?: string;
  seconds?: number;
  key?: string;
  verb?: string;
  path?: string;
  reason?: string;
}

function lines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l) as LogLine;
      } catch {
        return {};
      }
    });
}

/** What the process did from `since` (ms) on: passes that STARTED then, and writes sent then. */
function actedSince(output: string, since: number): { passes: LogLine[]; writes: LogLine[] } {
  const at = (l: LogLine) => (l.time ? Date.parse(l.time) : NaN);
  const all = lines(output);
  return {
    passes: all.filter((l) => l.msg === 'reconciled' && at(l) - (l.seconds ?? 0) * 1000 >= since),
    writes: all.filter((l) => l.msg === 'write sent' && at(l) >= since),
  };
}

describe('leader paused past its lease (private cluster)', () => {
  it(`SIGSTOP ${PAUSE_MS / 1000} s while workspaces arrive, SIGCONT, ${CYCLES} times: the resumed process starts no pass and sends no write, and exits`, async (t) => {
    const p = pool('a100', 2 * CYCLES + 4);
    const w = await world(t, { pools: [p], operator: false });
    const args = ['--leader-elect', '--leader-election-namespace', w.ns, '--log-level', 'debug'];
    const holder = async (): Promise<string> =>
      (await kubectl(['get', 'lease', 'kaito-ts-leader', '-o', 'jsonpath={.spec.holderIdentity}'], { namespace: w.ns }).catch(() => '')).trim();
    const children: ChildProcess[] = [];
    t.after(async () => {
      for (const c of children) {
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGCONT');
        await killHard(c);
      }
    });
    const start = async () => {
      const op = await spawnOperator(w.ns, args);
      children.push(op.child);
      return op;
    };
    let leader = await start();
    let leaderId = await waitFor('a leader', async () => (await holder()) || undefined, { timeoutMs: 60_000 });
    assert.ok(leader.output().includes(leaderId), 'the first operator holds the Lease');
    await applyAll(w.ns, [presetWorkspace('warm', p)]);
    // The InferenceSet controller gets work during each pause too (a /scale write).
    await applyInferenceSet(w.ns, 'set', 0, selectorFor(p));
    const results: string[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const standby = await start();
      await waitFor('the standby waiting for the Lease', () => standby.output().includes('waiting for the leader lease'), { timeoutMs: 60_000 });
      const pid = leader.child.pid!;
      const stoppedAt = Date.now();
      process.kill(pid, 'SIGSTOP');
      // Work arrives while the leader sleeps: its watches deliver it the moment it wakes.
      await applyAll(w.ns, [presetWorkspace(`c${cycle}a`, p), presetWorkspace(`c${cycle}b`, p)]);
      await kubectl(['scale', 'inferenceset/set', `--replicas=${(cycle % 2) + 1}`], { namespace: w.ns });
      const newId = await waitFor(
        'the standby taking the Lease',
        async () => {
          const h = await holder();
          return h && h !== leaderId ? h : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const takeoverS = seconds(stoppedAt);
      assert.ok(standby.output().includes(newId), 'the standby is the new holder');
      // More work just before the wake-up, so the resumed process has fresh events in hand.
      await sleep(Math.max(0, stoppedAt + PAUSE_MS - 1_000 - Date.now()));
      await kubectl(['annotate', '--overwrite', 'workspace', `c${cycle}a`, 'warm', `e2e.example/touch=${cycle}`], { namespace: w.ns });
      await sleep(Math.max(0, stoppedAt + PAUSE_MS - Date.now()));
      const exited = once(leader.child, 'exit');
      process.kill(pid, 'SIGCONT');
      await Promise.race([exited, sleep(30_000).then(() => assert.fail(`the resumed leader did not exit:\n${leader.output().slice(-3000)}`))]);
      const { passes, writes } = actedSince(leader.output(), stoppedAt);
      assert.deepEqual(passes, [], `passes started by the resumed process (cycle ${cycle})`);
      assert.deepEqual(writes, [], `writes sent by the resumed process (cycle ${cycle})`);
      assert.equal(leader.child.exitCode, 1);
      assert.match(leader.output(), /leader election lost/);
      // It did work before the pause: the log can show passes and writes (the assertion above can fail).
      const before = actedSince(leader.output(), 0);
      assert.ok(before.passes.length > 0, 'the leader logged passes before its pause');
      const fatal = lines(leader.output()).find((l) => l.msg === 'stopping at once');
      results.push(
        `cycle ${cycle}: takeover ${takeoverS}s after SIGSTOP; resumed after ${seconds(stoppedAt)}s: 0 passes, 0 writes, exit 1 (${fatal?.reason}); before the pause ${before.passes.length} passes, ${before.writes.length} writes`,
      );
      leader = standby;
      leaderId = newId;
    }
    // The last leader serves on and converges what arrived meanwhile: nothing was lost by refusing.
    const names = Array.from({ length: CYCLES }, (_, i) => [`c${i}a`, `c${i}b`]).flat();
    await waitFor(
      'every workspace reconciled by the current leader',
      async () => {
        const out = JSON.parse(await kubectl(['get', 'workspaces', '-o', 'json'], { namespace: w.ns })) as {
          items: { metadata: { name: string; finalizers?: string[] } }[];
        };
        return names.every((n) => out.items.some((i) => i.metadata.name === n && i.metadata.finalizers?.length));
      },
      { timeoutMs: 60_000 },
    );
    for (const r of results) t.diagnostic(r);
  });
});
