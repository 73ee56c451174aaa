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

export async function withLock<T>(lockDir: string, onWait: () => void, fn: () => Promise<T>): Promise<T> {
  let announced = false;
  let staleChecks = 0;
  mkdirSync(dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir, { recursive: false });
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Two consecutive "dead owner" readings, so a lock caught between mkdir and writing the pid survives.
      staleChecks = ownerAlive(lockDir) ? 0 : staleChecks + 1;
      if (staleChecks >= 2) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!announced) onWait();
      announced = true;
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
