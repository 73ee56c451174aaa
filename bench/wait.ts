// The bench's bounded waits on the cluster: poll a condition until it holds, the controller exits, or the time is up.
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitContext {
  /** False once the controller process has exited. */
  alive: () => boolean;
  log: (line: string) => void;
}

const PROGRESS_MS = 15_000;

/**
 * Polls `why()` (undefined: done) every `pollMs`; logs what it still waits for every 15 s. Returns the time
 * (Date.now()) it was first seen done, or undefined when the controller exited or `timeoutMs` passed (both logged).
 */
export async function waitUntil(
  what: string,
  why: () => string | undefined | Promise<string | undefined>,
  timeoutMs: number,
  ctx: WaitContext,
  pollMs = 50,
): Promise<number | undefined> {
  const start = Date.now();
  let lastLog = start;
  for (;;) {
    const missing = await why();
    if (missing === undefined) return Date.now();
    if (!ctx.alive()) {
      ctx.log(`${what}: the controller exited (${missing})`);
      return undefined;
    }
    if (Date.now() - start > timeoutMs) {
      ctx.log(`${what}: not within ${Math.round(timeoutMs / 1000)}s (${missing})`);
      return undefined;
    }
    if (Date.now() - lastLog >= PROGRESS_MS) {
      lastLog = Date.now();
      ctx.log(`${what}: ${Math.round((lastLog - start) / 1000)}s, waiting for: ${missing}`);
    }
    await sleep(pollMs);
  }
}
