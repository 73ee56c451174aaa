import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { mergeSamples, parseProcStat, parseProcStatus, sampleProcess } from '../../../bench/proc.js';

const STATUS = `Name:\tnode
Umask:\t0022
State:\tS (sleeping)
Pid:\t4242
VmPeak:\t 1234567 kB
VmSize:\t 1200000 kB
VmHWM:\t  204800 kB
VmRSS:\t  153600 kB
Threads:\t11
`;

describe('parseProcStatus', () => {
  it('reads VmHWM and VmRSS in KiB', () => {
    assert.deepEqual(parseProcStatus(STATUS), { peakRssKiB: 204800, rssKiB: 153600 });
  });
  it('refuses a status without VmHWM (a kernel thread or a zombie)', () => {
    assert.throws(() => parseProcStatus('Name:\tkworker\nState:\tI (idle)\n'), /VmHWM/);
  });
  it('reads this very process', () => {
    const s = parseProcStatus(readFileSync('/proc/self/status', 'utf8'));
    assert.ok(s.peakRssKiB >= s.rssKiB && s.rssKiB > 1000, JSON.stringify(s));
  });
});

describe('parseProcStat', () => {
  const cases: Array<[string, string, number]> = [
    ['plain name', '4242 (node) S 1 4242 4242 0 -1 4194560 9000 0 12 0 1500 250 0 0 20 0 11 0 5000 1 2', 1750],
    ['name with spaces and parens', '77 (my (odd) proc) R 1 77 77 0 -1 0 0 0 0 0 30 12 0 0 20 0 1 0 9 1 2', 42],
    ['kernel-style name', '1 (systemd) S 0 1 1 0 -1 4194560 100 200 3 4 7 8 9 10 20 0 1 0 2 3 4', 15],
  ];
  for (const [what, text, ticks] of cases) {
    it(`sums utime and stime: ${what}`, () => assert.deepEqual(parseProcStat(text), { cpuTicks: ticks }));
  }
  it('refuses a truncated line', () => {
    assert.throws(() => parseProcStat('1 (x) S 0 1'), /too short/);
    assert.throws(() => parseProcStat('garbage'), /command field/);
  });
});

describe('sampleProcess', () => {
  it('samples a live process and returns undefined for a gone one', async () => {
    const me = await sampleProcess(process.pid);
    assert.ok(me && me.peakRssKiB > 0 && me.cpuTicks >= 0);
    assert.equal(await sampleProcess(2 ** 22 + 12345), undefined);
  });
});

describe('mergeSamples', () => {
  it('keeps the highest peak and CPU, the latest RSS', () => {
    const a = { peakRssKiB: 100, rssKiB: 90, cpuTicks: 10 };
    const b = { peakRssKiB: 80, rssKiB: 70, cpuTicks: 12 };
    assert.deepEqual(mergeSamples(a, b), { peakRssKiB: 100, rssKiB: 70, cpuTicks: 12 });
    assert.deepEqual(mergeSamples(undefined, b), b);
    assert.deepEqual(mergeSamples(a, undefined), a);
  });
});
