// Detached child processes tracked by pid files: start, check, stop. Linux only (reads /proc).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Starts `binary args…` in its own session, output appended to `logFile`; returns the pid. `env` is set over ours. */
export function startDetached(binary: string, args: string[], logFile: string, pidFile: string, env?: Record<string, string>): number {
  const out = openSync(logFile, 'a');
  try {
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', out, out], ...(env ? { env: { ...process.env, ...env } } : {}) });
    if (child.pid === undefined) throw new Error(`could not start ${binary}`);
    child.unref();
    writeFileSync(pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(out);
  }
}

export function readPid(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * True when `pid` runs and is the expected binary (and, for a script, argv[1] ends with `script`).
 * A zombie counts as dead, and a reused pid that now belongs to another program is never reported
 * (so never killed) as ours.
 */
export function isOurProcess(pid: number, binary: string, script?: string): boolean {
  try {
    const state = statState(`/proc/${pid}/stat`);
    if (state === undefined || state === 'Z' || state === 'X') return false;
    const [argv0 = '', argv1 = ''] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv0 === binary && (script === undefined || argv1.endsWith(script));
  } catch {
    return false;
  }
}

/** The command line after argv[0], or [] when the process is gone. */
export function processArgs(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, -1);
  } catch {
    return [];
  }
}

/** SIGTERM the process (and its group), wait up to `graceMs`, then SIGKILL and wait for it to vanish. */
export async function stopProcess(pid: number, binary: string, graceMs = 10_000, script?: string): Promise<'stopped' | 'killed' | 'absent'> {
  if (!isOurProcess(pid, binary, script)) return 'absent';
  signal(pid, 'SIGTERM');
  if (await waitGone(pid, binary, graceMs, script)) return 'stopped';
  signal(pid, 'SIGKILL');
  if (await waitGone(pid, binary, 5_000, script)) return 'killed';
  throw new Error(`process ${pid} (${binary}) survived SIGKILL`);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  // Started with detached: true, so the pid is also its process group id.
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, sig);
    } catch {
      // already gone, or no group
    }
  }
}

/** The state letter of a /proc `stat` file (R, S, Z, …), or undefined when it cannot be read. */
function statState(path: string): string | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const at = stat.lastIndexOf(')') + 2;
    return stat.slice(at, at + 1);
  } catch {
    return undefined;
  }
}

/** Whether any thread of `pid` still runs: a main thread can be a zombie while the others still hold the process's sockets. */
export function hasLiveThread(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tasks.some((t) => {
    const state = statState(`/proc/${pid}/task/${t}/stat`);
    return state !== undefined && state !== 'Z' && state !== 'X';
  });
}

/**
 * Gone for good: not our running process, and no thread of it left (an empty command line is a
 * zombie main thread, whose other threads may still run). A pid now running another program is gone.
 */
export function processGone(pid: number, binary: string, script?: string): boolean {
  if (isOurProcess(pid, binary, script)) return false;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  return cmdline !== '' || !hasLiveThread(pid);
}

async function waitGone(pid: number, binary: string, timeoutMs: number, script?: string): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (processGone(pid, binary, script)) return true;
    await sleep(100);
  }
  return processGone(pid, binary, script);
}

/** `VmHWM` and `VmRSS` (KiB) from the text of /proc/<pid>/status. */
export function parseProcStatus(text: string): { peakRssKiB: number; rssKiB: number } {
  const kib = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB$`, 'm').exec(text);
    if (!m?.[1]) throw new Error(`/proc status has no ${key} line`);
    return Number(m[1]);
  };
  return { peakRssKiB: kib('VmHWM'), rssKiB: kib('VmRSS') };
}

/** Resident memory of `pid` in bytes, or undefined when it is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    return parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8')).rssKiB * 1024;
  } catch {
    return undefined;
  }
}
