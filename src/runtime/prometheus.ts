// Prometheus text exposition (format 0.0.4) for the few metric kinds the operator exports. Our own
// rather than prom-client: that library and the tracing API it loads cost about 2 MiB of resident
// memory from the start (docs/benchmarks.md, "Memory at N = 200"), more than every metric here.
import { readdirSync, readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

export type Labels = Readonly<Record<string, string>>;
export interface Sample {
  labels?: Labels;
  value: number;
}
type Kind = 'counter' | 'gauge' | 'histogram';

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function formatLabels(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  return entries.length === 0 ? '' : `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

/** One sample line: `name{labels} value`. */
const sampleLine = (name: string, labels: Labels | undefined, value: number) => `${name}${formatLabels(labels)} ${formatValue(value)}`;

/** The key of a label set, stable for the same names and values in the same order. */
const labelKey = (labels: Labels) => JSON.stringify(labels);

interface Family {
  readonly name: string;
  readonly help: string;
  readonly kind: Kind;
  /** The family's sample lines, without HELP and TYPE. */
  lines(): string[];
}

export class Registry {
  readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';
  private readonly families: Family[] = [];
  private readonly scrapeHooks: (() => void)[] = [];

  add<F extends Family>(family: F): F {
    if (this.families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} is registered twice`);
    this.families.push(family);
    return family;
  }

  /** A gauge or counter whose samples are read at scrape time from state kept elsewhere. */
  collected(name: string, help: string, kind: 'counter' | 'gauge', read: () => Iterable<Sample>): void {
    this.add({ name, help, kind, lines: () => [...read()].map((s) => sampleLine(name, s.labels, s.value)) });
  }

  /** Runs at the start of every render: one read of state that several families share. */
  onScrape(hook: () => void): void {
    this.scrapeHooks.push(hook);
  }

  render(): string {
    for (const hook of this.scrapeHooks) hook();
    const out: string[] = [];
    for (const f of this.families) out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.kind}`, ...f.lines());
    return out.join('\n') + '\n';
  }
}

/** A family that keeps one value per label set, created on first use. */
abstract class Labeled<V> implements Family {
  abstract readonly kind: Kind;
  protected readonly values = new Map<string, V>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  protected entry(labels: Labels, create: () => V): V {
    const key = labelKey(labels);
    let v = this.values.get(key);
    if (v === undefined) this.values.set(key, (v = create()));
    return v;
  }

  abstract lines(): string[];
}

/** A counter the operator increments itself. */
export class Counter extends Labeled<Required<Sample>> {
  readonly kind = 'counter';

  inc(labels: Labels, by = 1): void {
    this.entry(labels, () => ({ labels, value: 0 })).value += by;
  }

  lines(): string[] {
    return [...this.values.values()].map((s) => sampleLine(this.name, s.labels, s.value));
  }
}

interface Observations {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram with fixed upper bounds; each bucket line counts the observations at or below it. */
export class Histogram extends Labeled<Observations> {
  readonly kind = 'histogram';

  constructor(
    name: string,
    help: string,
    private readonly buckets: readonly number[],
  ) {
    super(name, help);
  }

  observe(labels: Labels, v: number): void {
    const o = this.entry(labels, () => ({ labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    const i = this.buckets.findIndex((b) => v <= b);
    if (i >= 0) o.counts[i]!++;
    o.sum += v;
    o.count++;
  }

  lines(): string[] {
    const out: string[] = [];
    for (const o of this.values.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += o.counts[i]!;
        out.push(sampleLine(`${this.name}_bucket`, { ...o.labels, le: formatValue(le) }, cumulative));
      });
      out.push(sampleLine(`${this.name}_bucket`, { ...o.labels, le: '+Inf' }, o.count));
      out.push(sampleLine(`${this.name}_sum`, o.labels, o.sum));
      out.push(sampleLine(`${this.name}_count`, o.labels, o.count));
    }
    return out;
  }
}

/** `Name:   123 kB` lines of /proc/self/status, in bytes; empty off Linux. */
function procStatus(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
      const m = /^(\w+):\s+(\d+) kB$/.exec(line);
      if (m) out.set(m[1]!, Number(m[2]) * 1024);
    }
  } catch {
    // not Linux, or no /proc: the series read from it report no sample
  }
  return out;
}

function openFds(): Sample[] {
  try {
    return [{ value: readdirSync('/proc/self/fd').length - 1 }]; // less the descriptor of the listing itself
  } catch {
    return [];
  }
}

function maxFds(): Sample[] {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? [{ value: Number(m[1]) }] : [];
  } catch {
    return [];
  }
}

/** Resident memory off Linux, where there is no /proc/self/status; nothing where even libuv cannot tell. */
function residentFallback(): Sample[] {
  try {
    return [{ value: process.memoryUsage.rss() }];
  } catch {
    return [];
  }
}

/** The process and runtime metrics Prometheus clients export by default, under their usual names. */
export function registerProcessMetrics(r: Registry): void {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  // One read of the CPU times, /proc/self/status and the heap per scrape, shared by the series below.
  // Nothing is read here: without /proc (a chroot) even process.memoryUsage() throws.
  let cpu = { user: 0, system: 0 };
  let status = new Map<string, number>();
  let heap = { total: 0, used: 0, external: 0 };
  r.onScrape(() => {
    cpu = process.cpuUsage();
    status = procStatus();
    const h = getHeapStatistics();
    heap = { total: h.total_heap_size, used: h.used_heap_size, external: h.external_memory };
  });
  r.collected('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', 'counter', () => [{ value: cpu.user / 1e6 }]);
  r.collected('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.', 'counter', () => [{ value: cpu.system / 1e6 }]);
  r.collected('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', 'counter', () => [{ value: (cpu.user + cpu.system) / 1e6 }]);
  r.collected('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', 'gauge', () => [{ value: startSeconds }]);
  const statusValue = (field: string): Sample[] => {
    const v = status.get(field);
    return v === undefined ? [] : [{ value: v }];
  };
  r.collected('process_resident_memory_bytes', 'Resident memory size in bytes.', 'gauge', () =>
    status.has('VmRSS') ? statusValue('VmRSS') : residentFallback(),
  );
  r.collected('process_virtual_memory_bytes', 'Virtual memory size in bytes.', 'gauge', () => statusValue('VmSize'));
  r.collected('process_heap_bytes', 'Process heap size in bytes.', 'gauge', () => statusValue('VmData'));
  r.collected('process_open_fds', 'Number of open file descriptors.', 'gauge', openFds);
  r.collected('process_max_fds', 'Maximum number of open file descriptors.', 'gauge', maxFds);
  r.collected('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.', 'gauge', () => [{ value: heap.total }]);
  r.collected('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', 'gauge', () => [{ value: heap.used }]);
  r.collected('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', 'gauge', () => [{ value: heap.external }]);
  const [major, minor, patch] = process.versions.node.split('.');
  const version = { version: process.version, major: major ?? '', minor: minor ?? '', patch: patch ?? '' };
  r.collected('nodejs_version_info', 'Node.js version info.', 'gauge', () => [{ labels: version, value: 1 }]);
}
