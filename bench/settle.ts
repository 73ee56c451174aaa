// Waiting for a controller to go quiet: no write through the counting proxy for QUIET_MS.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningController } from './child.js';
import type { CountingProxy } from './proxy.js';

const QUIET_MS = 5_000;
const SETTLE_MAX_MS = 60_000;

/** Waits until the controller sent no write for QUIET_MS (at most SETTLE_MAX_MS); returns the seconds waited. */
export async function settle(proxy: Pick<CountingProxy, 'lastWriteAt'>, ctl: Pick<RunningController, 'exited'>): Promise<number> {
  const start = performance.now();
  while (!ctl.exited() && performance.now() - start < SETTLE_MAX_MS) {
    const quietFor = performance.now() - (proxy.lastWriteAt() ?? 0);
    if (quietFor >= QUIET_MS) break;
    await sleep(Math.min(QUIET_MS - quietFor + 10, 1000));
  }
  return (performance.now() - start) / 1000;
}
