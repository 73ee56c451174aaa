// The operator's JSON logger: one line per entry, pino's shape (`level` label, ISO `time`, fields,
// `msg`), written synchronously. Our own rather than pino, whose workers and streams cost about 2 MiB
// of resident memory from the start (docs/benchmarks.md, "Memory at N = 200"). Two guarantees:
//  - every line written during a reconcile pass carries that pass's controller, key and reconcileID
//    (mixed in from the runtime's reconcileScope, so no code has to thread a logger through);
//  - no secret value is ever written: values under secret-looking keys (tokens, Authorization,
//    Secret data/stringData, HF_TOKEN, an env var {name: HF_TOKEN, value}) are replaced, at any depth,
//    and bearer tokens inside free text are masked.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { reconcileScope, type LogFields, type Logger } from '../runtime/log.js';
import { isoMillis } from '../runtime/timestamps.js';

export const REDACTED = '[REDACTED]';

/** Keys whose value is secret wherever they appear (case-insensitive). */
const SECRET_KEY =
  /^(hf_token|.*token|authorization|password|passwd|secret_?key|private_?key|api_?key|client_?secret|data|stringdata|binarydata|cert(ificate)?_?data|key_?data)$/i;
/** Env-var-like names whose sibling `value` is secret ({name: 'HF_TOKEN', value: '…'}). */
const SECRET_NAME = /(token|password|secret|api_?key|credential)/i;
const BEARER = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/** JWTs (ServiceAccount tokens) anywhere in a string. */
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g;

export function scrubString(s: string): string {
  return s.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`).replace(JWT, REDACTED);
}

/** A copy of `value` with every secret replaced; pure, cycle-safe. */
export function redactSecrets(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, seen));
  if (value instanceof Error) return { type: value.name, message: scrubString(value.message), ...(value.stack ? { stack: scrubString(value.stack) } : {}) };
  const obj = value as Record<string, unknown>;
  const secretValue = typeof obj.name === 'string' && SECRET_NAME.test(obj.name);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v !== undefined && v !== null && (SECRET_KEY.test(k) || (secretValue && k === 'value'))) out[k] = REDACTED;
    else out[k] = redactSecrets(v, seen);
  }
  return out;
}

/** Where lines go: stdout by default, a file, or a stream a test reads back. */
export interface LogDestination {
  write(line: string): unknown;
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LogLevel = keyof typeof LEVELS;
export const LOG_LEVELS = Object.keys(LEVELS) as readonly LogLevel[];

export interface LoggerOptions {
  level: string;
  /** Defaults to stdout (synchronous on Linux for files, pipes and terminals). */
  destination?: LogDestination;
  /** Fields on every line; `component: kaito-ts` when not given. */
  bindings?: LogFields;
}

export class JsonLogger implements Logger {
  private readonly threshold: number;

  constructor(
    private readonly destination: LogDestination,
    private readonly level: string,
    private readonly bindings: LogFields,
  ) {
    if (!(level in LEVELS)) throw new Error(`log level must be one of ${LOG_LEVELS.join('|')}, got "${level}"`);
    this.threshold = LEVELS[level as LogLevel];
  }

  /** A logger whose lines also carry `bindings`. */
  child(bindings: LogFields): JsonLogger {
    return new JsonLogger(this.destination, this.level, { ...this.bindings, ...bindings });
  }

  isLevelEnabled(level: LogLevel): boolean {
    return LEVELS[level] >= this.threshold;
  }

  trace(fields: LogFields, msg?: string): void {
    this.write('trace', fields, msg);
  }
  debug(fields: LogFields, msg?: string): void {
    this.write('debug', fields, msg);
  }
  info(fields: LogFields, msg?: string): void {
    this.write('info', fields, msg);
  }
  warn(fields: LogFields, msg?: string): void {
    this.write('warn', fields, msg);
  }
  error(fields: LogFields, msg?: string): void {
    this.write('error', fields, msg);
  }
  fatal(fields: LogFields, msg?: string): void {
    this.write('fatal', fields, msg);
  }

  /** Lines are written synchronously; nothing is buffered. */
  flush(): void {}

  private write(level: Exclude<LogLevel, 'silent'>, fields: LogFields, msg: string | undefined): void {
    if (LEVELS[level] < this.threshold) return;
    const body = redactSecrets({ ...this.bindings, ...(reconcileScope.getStore() ?? {}), ...fields }) as LogFields;
    const entry = { level, time: isoMillis(Date.now()), ...body, ...(msg === undefined ? {} : { msg: scrubString(msg) }) };
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch (err) {
      // A field JSON cannot carry (a BigInt): the line still says what happened.
      line = JSON.stringify({ level, time: entry.time, msg: entry.msg, logError: scrubString(String(err)) });
    }
    this.destination.write(line + '\n');
  }
}

export function createLogger(o: LoggerOptions): JsonLogger {
  return new JsonLogger(o.destination ?? process.stdout, o.level, o.bindings ?? { component: 'kaito-ts' });
}

/** A log file written synchronously, its folder made if missing (the demo's operator log). */
export function fileDestination(path: string): LogDestination & { close(): void } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  return {
    write: (line: string) => writeSync(fd, line),
    close: () => closeSync(fd),
  };
}
