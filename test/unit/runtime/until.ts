import { sleep } from '../../../src/runtime/rate-limit.js';

/** Polls a condition every few ms; throws when it is still false after `ms`. */
export async function until(cond: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(3);
  }
}
