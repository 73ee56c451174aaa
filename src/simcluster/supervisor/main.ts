// The simcluster supervisor, a detached Node process that `simcluster up` starts and `down` stops first.
// Every second it reads each component's pid file; a component that exited, or whose RSS passed its
// limit, is started again with the command line it last ran with (read from /proc while it lived), with
// backoff, and the reason goes to logs/supervisor.log and supervisor.json. It acts only under the
// up/down lock, so it never races `up` restarting a stale component or `down` stopping everything.
import { closeSync, existsSync, openSync, readSync, fstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { components, SUPERVISOR_SCRIPT, type Component, type ComponentName, type OptIns } from '../components.js';
import { componentHealthy, stopComponent } from '../health.js';
import { layoutFor, pidPath, type Layout } from '../layout.js';
import { tryWithLock } from '../lock.js';
import { MODEL_LOAD_FLAG, parseModelLoad } from '../model-load/model-load-options.js';
import { isOurProcess, processArgs, readPid, rssBytes, startDetached } from '../process.js';
import { decide, formatBytes, parseMemoryLimits, DEFAULT_MEMORY_LIMITS, type MemoryLimits, type Watched } from '../supervision.js';
import { readSupervisorState, type SupervisorState } from './state.js';

const TICK_MS = 1000;
const HEALTH_TIMEOUT_MS = 120_000;

interface Entry {
  watched: Watched;
  pid?: number;
  /** The command line after argv[0], as last seen running. */
  args?: string[];
}

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

/** The last non-empty line of a log file (its last 4 KiB), for saying why a process died. */
function lastLogLine(file: string): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, 4096));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      const lines = buf
        .toString('utf8')
        .split('\n')
        .map((x) => x.trim())
        .filter(Boolean);
      return (lines.at(-1) ?? '').slice(0, 300);
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

class Supervisor {
  private readonly entries = new Map<ComponentName, Entry>();
  private readonly state: SupervisorState;

  constructor(
    private readonly l: Layout,
    private readonly limits: MemoryLimits,
    private readonly optIns: OptIns,
  ) {
    // A supervisor restarted by `up` (new limits) keeps the record of its predecessor.
    const before = readSupervisorState(l.supervisorStatePath)?.components ?? {};
    this.state = { pid: process.pid, startedAt: new Date().toISOString(), memoryLimits: limits, components: before };
  }

  async tick(): Promise<void> {
    for (const c of components(this.l, this.optIns)) await this.check(c);
  }

  private async check(c: Component): Promise<void> {
    const now = Date.now();
    const e = this.entries.get(c.name) ?? { watched: { since: now, consecutive: 0 } };
    this.entries.set(c.name, e);
    const pid = readPid(pidPath(this.l, c.name));
    const alive = pid !== undefined && isOurProcess(pid, c.binary, c.script);
    if (alive && pid !== e.pid) {
      // Started by `up` (or found at our start): learn its command line, a fresh run of restarts.
      Object.assign(e, { pid, args: processArgs(pid), watched: { since: now, consecutive: 0 } });
    }
    if (alive) delete e.watched.deadSince;
    else e.watched.deadSince ??= now;
    const rss = alive ? rssBytes(pid) : undefined;
    const verdict = decide(e.watched, { alive, limitBytes: this.limits[c.name], now, ...(rss !== undefined ? { rssBytes: rss } : {}) });
    if (verdict.action !== 'restart') return;
    const logFile = join(this.l.logDir, `${c.name}.log`);
    const why =
      verdict.reason === 'memory'
        ? `uses ${formatBytes(rss ?? 0)} RSS, over its ${formatBytes(this.limits[c.name])} limit`
        : `exited; its last log line: ${JSON.stringify(lastLogLine(logFile))}`;
    const started = await tryWithLock(this.l.lockPath, async () => {
      // `up` or `down` may have acted since the check.
      const current = readPid(pidPath(this.l, c.name));
      if (verdict.reason === 'exited' && current !== undefined && current !== pid && isOurProcess(current, c.binary, c.script)) return undefined;
      if (!existsSync(this.l.runDir)) return undefined;
      if (verdict.reason === 'memory' && pid !== undefined) await stopComponent(pid, c);
      return startDetached(c.binary, e.args ?? c.args, logFile, pidPath(this.l, c.name), c.env);
    });
    if (started === undefined) return; // busy or taken care of: look again next tick
    const at = Date.now();
    Object.assign(e, { pid: started, watched: { since: at, consecutive: verdict.consecutive } });
    const record = this.state.components[c.name] ?? { restarts: 0 };
    record.restarts++;
    record.last = { at: new Date(at).toISOString(), reason: verdict.reason, detail: why, oldPid: pid ?? 0, newPid: started };
    this.state.components[c.name] = record;
    this.save();
    log(`${c.name} (pid ${pid ?? '?'}) ${why}: restarted as pid ${started} (restart ${record.restarts}, ${verdict.consecutive} in a row)`);
    void this.reportHealth(c, started, at);
  }

  private async reportHealth(c: Component, pid: number, since: number): Promise<void> {
    while (Date.now() - since < HEALTH_TIMEOUT_MS) {
      if (!isOurProcess(pid, c.binary, c.script)) return; // the next tick says why
      if (await componentHealthy(this.l, c)) {
        log(`${c.name} (pid ${pid}) serving again ${((Date.now() - since) / 1000).toFixed(1)}s after the restart`);
        return;
      }
      await sleep(250);
    }
    log(`${c.name} (pid ${pid}) not serving ${HEALTH_TIMEOUT_MS / 1000}s after the restart`);
  }

  save(): void {
    writeFileSync(this.l.supervisorStatePath, `${JSON.stringify(this.state, null, 2)}\n`);
  }
}

function options(argv: string[]): { stateDir: string; portOffset: string; limits: MemoryLimits; optIns: OptIns } {
  const { values } = parseArgs({
    args: argv,
    options: {
      'state-dir': { type: 'string' },
      'port-offset': { type: 'string' },
      'memory-limits': { type: 'string' },
      karpenter: { type: 'boolean' },
      keda: { type: 'boolean' },
      [MODEL_LOAD_FLAG]: { type: 'string' },
    },
    strict: true,
  });
  if (!values['state-dir']) throw new Error('--state-dir is required');
  const modelLoad = values[MODEL_LOAD_FLAG];
  return {
    stateDir: values['state-dir'],
    portOffset: values['port-offset'] ?? '0',
    limits: { ...DEFAULT_MEMORY_LIMITS, ...parseMemoryLimits([values['memory-limits'] ?? '']) },
    optIns: {
      karpenter: values.karpenter === true,
      keda: values.keda === true,
      ...(modelLoad !== undefined ? { modelLoad: parseModelLoad(modelLoad, `--${MODEL_LOAD_FLAG}`) } : {}),
    },
  };
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const l = layoutFor({ ...process.env, KAITO_TS_SIMCLUSTER_DIR: o.stateDir, KAITO_TS_SIM_PORT_OFFSET: o.portOffset });
  const ownPid = pidPath(l, 'supervisor');
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort());
  const s = new Supervisor(l, o.limits, o.optIns);
  s.save();
  log(
    `supervising ${l.stateDir} (memory limits ${Object.entries(o.limits)
      .map(([n, b]) => `${n}=${formatBytes(b)}`)
      .join(', ')})`,
  );
  while (!stop.signal.aborted) {
    // `down` removed the folder, or another supervisor took over: this one is done.
    const owner = readPid(ownPid);
    if (!existsSync(l.runDir) || (owner !== undefined && owner !== process.pid && isOurProcess(owner, process.execPath, SUPERVISOR_SCRIPT))) break;
    await s.tick();
    await sleep(TICK_MS, undefined, { signal: stop.signal }).catch(() => undefined);
  }
  log('supervisor stopped');
}

main().catch((err: unknown) => {
  log(`supervisor failed: ${(err as Error).message}`);
  process.exitCode = 1;
});
