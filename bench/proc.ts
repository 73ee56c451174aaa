// Reading a process's memory high-water mark and CPU time from /proc. The parsers are pure; `sampleProcess`
// reads the two files once.
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { parseProcStatus } from '../src/simcluster/process.js';

export { parseProcStatus };

export interface ProcSample {
  /** Peak resident set size (VmHWM), KiB. */
  peakRssKiB: number;
  /** Current resident set size (VmRSS), KiB. */
  rssKiB: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
}

/**
 * utime + stime (fields 14 and 15) from /proc/<pid>/stat. The command name (field 2) is in parentheses
 * and may itself contain spaces or ')', so fields are counted after the LAST ')'.
 */
export function parseProcStat(text: string): { cpuTicks: number } {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error('/proc stat has no command field');
  // After ')' comes field 3 (state); utime is field 14, so index 11 of the rest.
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('/proc stat is too short');
  return { cpuTicks: utime + stime };
}

let clockTicks: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`, 100 on Linux almost everywhere). */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** One reading, or undefined once the process is gone. */
export async function sampleProcess(pid: number): Promise<ProcSample | undefined> {
  try {
    const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readFile(`/proc/${pid}/stat`, 'utf8')]);
    return { ...parseProcStatus(status), ...parseProcStat(stat) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
    throw err;
  }
}

/** Keeps the highest readings seen: VmHWM is already a maximum, CPU ticks only grow. */
export function mergeSamples(a: ProcSample | undefined, b: ProcSample | undefined): ProcSample | undefined {
  if (!a) return b;
  if (!b) return a;
  return { peakRssKiB: Math.max(a.peakRssKiB, b.peakRssKiB), rssKiB: b.rssKiB, cpuTicks: Math.max(a.cpuTicks, b.cpuTicks) };
}
