// A port offset whose every shifted port is free right now, for a second cluster beside running
// ones (the bench cluster at +1000, a test's private cluster): a random offset alone may land one
// component on another cluster's port.
import { randomInt } from 'node:crypto';
import { portFree } from './health.js';
import { DEFAULT_PORTS, shiftPorts } from './layout.js';

/** An offset in [lo, hi) with all of the cluster's ports free on 127.0.0.1; throws after `tries` random picks. */
export async function freePortOffset(lo: number, hi: number, tries = 50): Promise<number> {
  for (let i = 0; i < tries; i++) {
    const offset = randomInt(lo, hi);
    const ports = Object.values(shiftPorts(DEFAULT_PORTS, offset));
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return offset;
  }
  throw new Error(`no port offset in [${lo}, ${hi}) with every simcluster port free after ${tries} tries`);
}
