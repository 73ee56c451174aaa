// Polling with a deadline and Ctrl-C: the demo waits on a cluster it does not control (other tests
// may hold the GPUs), so every wait must end either way.
import { sleep } from '../runtime/rate-limit.js';

/** Ctrl-C arrived while the demo waited. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

export class TimedOut extends Error {}

/** Calls `check` every `intervalMs` until it returns a value; throws TimedOut at `deadline` (epoch ms). */
export async function waitUntil<T>(what: string, deadline: number, check: () => Promise<T | undefined>, signal: AbortSignal, intervalMs = 500): Promise<T> {
  for (;;) {
    if (signal.aborted) throw new Interrupted();
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new TimedOut(`timed out waiting for ${what}`);
    await sleep(intervalMs, signal);
  }
}
