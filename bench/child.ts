// The controller under test as a child process: free loopback ports, start, readiness probe, resource
// sampling, stop. Only the process started here is ever signalled.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Launch } from './controllers.js';
import { mergeSamples, sampleProcess, type ProcSample } from './proc.js';

/** A loopback port free right now (the controller binds it a moment later). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** The body of a 200 answer to a GET, or undefined (another status, an error, no answer within `timeoutMs`). */
export function httpGetText(url: string, timeoutMs = 2000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = get(url, { timeout: timeoutMs }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolve(undefined);
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => {
      req.destroy();
      resolve(undefined);
    });
  });
}

const httpOk = async (url: string): Promise<boolean> => (await httpGetText(url)) !== undefined;

export interface RunningController {
  pid: number;
  /** Highest readings so far (sampled every second, and once more on demand). */
  sample(): Promise<ProcSample | undefined>;
  exited(): boolean;
  stop(): Promise<void>;
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function startController(launch: Launch, logFile: string, readyUrl: string, timeoutMs = 120_000): Promise<RunningController> {
  const out = openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    // Its own process group: a Ctrl-C or `timeout` aimed at the benchmark reaches the controller only
    // through stop(), once, so it can shut down (and write a --cpu-prof profile) in order.
    child = spawn(launch.command, launch.args, { env: { ...process.env, ...launch.env }, stdio: ['ignore', out, out], detached: true });
  } finally {
    closeSync(out);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${launch.command}`);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      resolve();
    }),
  );

  let best: ProcSample | undefined;
  const take = async (): Promise<ProcSample | undefined> => {
    best = mergeSamples(best, await sampleProcess(pid));
    return best;
  };
  const timer = setInterval(() => void take().catch(() => undefined), 1000);
  // Never leave it behind, whatever way the benchmark ends.
  const killOnExit = (): void => {
    if (exitCode === undefined) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const deadline = Date.now() + timeoutMs;
  while (!(await httpOk(readyUrl))) {
    if (exitCode !== undefined) {
      clearInterval(timer);
      throw new Error(`${launch.command} exited (code ${exitCode}) before it was ready; log ${logFile}:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) {
      clearInterval(timer);
      child.kill('SIGKILL');
      throw new Error(`${launch.command} not ready at ${readyUrl} after ${timeoutMs / 1000}s; log ${logFile}:\n${tail(logFile)}`);
    }
    await sleep(200);
  }

  return {
    pid,
    sample: take,
    exited: () => exitCode !== undefined,
    stop: async () => {
      clearInterval(timer);
      process.removeListener('exit', killOnExit);
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      const gone = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!gone) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
