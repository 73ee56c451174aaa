// Process plumbing on the real OS: pid files, stop with SIGTERM then SIGKILL, the lock, the PKI, CLI input errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { main } from '../../../src/cli/main.js';
import { withLock } from '../../../src/simcluster/lock.js';
import { ensurePki } from '../../../src/simcluster/pki.js';
import { hasLiveThread, isOurProcess, processGone, readPid, startDetached, stopProcess } from '../../../src/simcluster/process.js';

const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-unit-sim-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const BASH = execFileSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();

describe('detached processes', () => {
  it('starts, records the pid, and stops with SIGTERM', async () => {
    const pidFile = join(dir, 'sleep.pid');
    // The trailing ':' keeps bash from exec'ing sleep in its place (then the pid would run sleep, not bash).
    const pid = startDetached(BASH, ['-c', 'sleep 30; :'], join(dir, 'sleep.log'), pidFile);
    assert.equal(readPid(pidFile), pid);
    // spawn() returns before the child has exec'd bash: give it a moment on a loaded machine.
    for (let i = 0; i < 100 && !isOurProcess(pid, BASH); i++) await sleep(20);
    assert.ok(isOurProcess(pid, BASH));
    assert.ok(!isOurProcess(pid, '/usr/bin/something-else'), 'a pid running another binary is not ours');
    assert.equal(await stopProcess(pid, BASH), 'stopped');
    assert.ok(!isOurProcess(pid, BASH));
    assert.equal(await stopProcess(pid, BASH), 'absent');
  });

  it('falls back to SIGKILL when SIGTERM is ignored, child processes included', async () => {
    const pid = startDetached(
      BASH,
      ['-c', 'trap "" TERM; sleep 30 & echo $! > ' + join(dir, 'child.pid') + '; wait'],
      join(dir, 'stubborn.log'),
      join(dir, 'stubborn.pid'),
    );
    // Poll rather than sleep a fixed time: on a loaded 2-core machine bash may take a while.
    const childPidFile = join(dir, 'child.pid');
    for (let i = 0; i < 250 && !(existsSync(childPidFile) && readFileSync(childPidFile, 'utf8').trim()); i++) await sleep(20);
    const child = Number(readFileSync(childPidFile, 'utf8'));
    assert.equal(await stopProcess(pid, BASH, 500), 'killed');
    const alive = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${child}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 250 && alive(); i++) await sleep(20);
    assert.ok(!alive(), 'the whole process group is gone');
  });

  it('counts a process gone when no thread of it runs: zombies, absent pids, and pids running another program', async () => {
    assert.ok(hasLiveThread(process.pid));
    assert.equal(processGone(process.pid, process.execPath), false);
    assert.equal(processGone(process.pid, '/usr/bin/something-else'), true, 'a reused pid is not ours to wait for');
    assert.equal(processGone(2 ** 30, BASH), true, 'no such pid');
    assert.equal(hasLiveThread(2 ** 30), false);
    // `exec sleep` never reaps the background child, so it stays a zombie until the parent ends.
    const zombiePidFile = join(dir, 'zombie.pid');
    const parent = startDetached(BASH, ['-c', `sleep 0 & echo $! > ${zombiePidFile}; exec sleep 20`], join(dir, 'zombie.log'), join(dir, 'zombie-parent.pid'));
    try {
      const zombie = async () => {
        for (let i = 0; i < 250; i++) {
          const text = existsSync(zombiePidFile) ? readFileSync(zombiePidFile, 'utf8').trim() : '';
          if (text && /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${text}/stat`, 'utf8'))) return Number(text);
          await sleep(20);
        }
        throw new Error('no zombie appeared');
      };
      const z = await zombie();
      assert.equal(hasLiveThread(z), false);
      assert.equal(processGone(z, '/usr/bin/sleep'), true);
    } finally {
      try {
        process.kill(-parent, 'SIGKILL'); // the group: `sleep 20` and its zombie child
      } catch {
        // already gone
      }
    }
  });

  it('reads no pid from a missing or garbage pid file', () => {
    assert.equal(readPid(join(dir, 'none.pid')), undefined);
    writeFileSync(join(dir, 'bad.pid'), 'abc');
    assert.equal(readPid(join(dir, 'bad.pid')), undefined);
  });
});

describe('lock', () => {
  it('runs holders one at a time', async () => {
    const lock = join(dir, 'locks', 'l1');
    const events: string[] = [];
    const holder = (name: string) =>
      withLock(
        lock,
        () => events.push(`${name} waits`),
        async () => {
          events.push(`${name} in`);
          await sleep(50);
          events.push(`${name} out`);
        },
      );
    await Promise.all([holder('a'), holder('b')]);
    const inside = events.filter((e) => !e.endsWith('waits'));
    assert.deepEqual(inside, ['a in', 'a out', 'b in', 'b out']);
    assert.ok(events.includes('b waits'));
  });

  it('takes over a lock whose owner died', async () => {
    const lock = join(dir, 'locks', 'l2');
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, 'pid'), '2147483646');
    assert.equal(
      await withLock(
        lock,
        () => undefined,
        async () => 'got it',
      ),
      'got it',
    );
  });
});

describe('PKI', () => {
  it('issues an admin cert in system:masters and a serving cert for 127.0.0.1, once', async () => {
    const pki = join(dir, 'pki');
    await ensurePki(pki);
    const verify = execFileSync('openssl', ['verify', '-CAfile', join(pki, 'ca.crt'), join(pki, 'admin.crt'), join(pki, 'apiserver.crt')], {
      encoding: 'utf8',
    });
    assert.match(verify, /admin\.crt: OK/);
    assert.match(verify, /apiserver\.crt: OK/);
    const admin = execFileSync('openssl', ['x509', '-in', join(pki, 'admin.crt'), '-noout', '-subject'], { encoding: 'utf8' });
    assert.match(admin, /O ?= ?system:masters/);
    const serving = execFileSync('openssl', ['x509', '-in', join(pki, 'apiserver.crt'), '-noout', '-ext', 'subjectAltName'], { encoding: 'utf8' });
    assert.match(serving, /IP Address:127\.0\.0\.1/);
    const before = statSync(join(pki, 'ca.crt')).mtimeMs;
    await ensurePki(pki);
    assert.equal(statSync(join(pki, 'ca.crt')).mtimeMs, before, 'an existing PKI is kept');
  });
});

describe('simcluster CLI input errors', () => {
  const cases: [string[], RegExp][] = [
    [['simcluster', 'sideways'], /unknown simcluster command "sideways"/],
    [['simcluster', 'down', '--scale', 'a100=1'], /only apply to "simcluster up"/],
    [['simcluster', 'up', '--scale', 'a100'], /--scale expects pool=count/],
    [['simcluster', 'up', '--bogus'], /Unknown option '--bogus'/],
    [['simcluster', 'up', '--nodes-file', '/nonexistent/nodes.yaml'], /cannot read nodes file \/nonexistent\/nodes\.yaml/],
    [['simcluster', 'up', '--launch-delay', 'soon'], /--launch-delay: invalid duration "soon"/],
    [['simcluster', 'status', '--repair-after', '1m'], /only apply to "simcluster up"/],
    [['simcluster', 'status', '--memory-limit', 'etcd=1Gi'], /only apply to "simcluster up"/],
    [['simcluster', 'up', '--memory-limit', 'apiserver=1Gi'], /memory limit "apiserver=1Gi": expected <component>=<size>, component one of etcd/],
    [['simcluster', 'up', '--model-load', 'cold=120'], /--model-load: warm is missing; expected cold=<seconds>,warm=<seconds>/],
    [['simcluster', 'up', '--model-load', 'cold=2m,warm=soon'], /--model-load: warm: "soon" is not a number of seconds/],
    [['simcluster', 'status', '--model-load', 'cold=1,warm=1'], /only apply to "simcluster up"/],
    [['simcluster', 'up', '--memory-limit', 'etcd=1Ki'], /memory limit "etcd=1Ki": the size must be a quantity of at least 1Mi/],
  ];
  for (const [argv, message] of cases) {
    it(`${argv.join(' ')} exits 2 with one line`, async () => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
      assert.equal(code, 2);
      assert.deepEqual(out, []);
      assert.equal(err.join('').trim().split('\n').length, 1);
      assert.match(err.join(''), message);
    });
  }
});
