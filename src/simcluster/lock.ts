// A directory lock so two `up`/`down` runs (two terminals, parallel test files) never race.
// mkdir is atomic; the owner's pid inside lets a later run take over a lock whose owner died.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function ownerAlive(lockDir: string): boolean {
  try {
    const pid = Number.parseInt(readFileSync(join(lockDir, 'pid'), 'utf8'), 10);
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive but not ours to signal. A missing pid file may be an owner still writing it:
    // the caller wants two readings in a row before it calls the lock stale.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits for the lock (announcing it once through `onWait`), runs `fn`, releases. */
export async function withLock<T>(lockDir: string, onWait: () => void, fn: () => Promise<T>): Promise<T> {
  let announced = false;
  const stale = { checks: 0 };
  while (!tryAcquire(lockDir, stale)) {
    if (!announced) onWait();
    announced = true;
    await sleep(250);
  }
  return runAndRelease(lockDir, fn);
}

/** Runs `fn` under the lock only if it can be had within about a second; else resolves undefined (busy). */
export async function tryWithLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T | undefined> {
  const stale = { checks: 0 };
  for (let attempt = 0; !tryAcquire(lockDir, stale); attempt++) {
    // A second attempt only to take over a lock whose owner looked dead once.
    if (attempt >= 4 || stale.checks === 0) return undefined;
    await sleep(250);
  }
  return runAndRelease(lockDir, fn);
}

function tryAcquire(lockDir: string, stale: { checks: number }): boolean {
  mkdirSync(dirname(lockDir), { recursive: true });
  try {
    mkdirSync(lockDir, { recursive: false });
    writeFileSync(join(lockDir, 'pid'), String(process.pid));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Two consecutive "dead owner" readings, so a lock caught between mkdir and writing the pid survives.
    stale.checks = ownerAlive(lockDir) ? 0 : stale.checks + 1;
    if (stale.checks >= 2) rmSync(lockDir, { recursive: true, force: true });
    return false;
  }
}

async function runAndRelease<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
