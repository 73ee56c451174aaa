// The operator's JSON logger (pino). Two guarantees:
//  - every line written during a reconcile pass carries that pass's controller, key and reconcileID
//    (mixed in from the runtime's reconcileScope, so no code has to thread a logger through);
//  - no secret value is ever written: values under secret-looking keys (tokens, Authorization,
//    Secret data/stringData, HF_TOKEN, an env var {name: HF_TOKEN, value}) are replaced, at any depth,
//    and bearer tokens inside free text are masked.
import { pino, type DestinationStream, type Logger } from 'pino';
import { reconcileScope } from '../runtime/log.js';

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

export interface LoggerOptions {
  level: string;
  /** Defaults to stdout; tests pass a stream they read back. */
  destination?: DestinationStream;
}

export function createLogger(o: LoggerOptions): Logger {
  return pino(
    {
      level: o.level,
      base: { component: 'kaito-ts' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => redactSecrets(obj) as Record<string, unknown>,
      },
      mixin: () => reconcileScope.getStore() ?? {},
      hooks: {
        // The message string is outside `formatters.log`; scrub it too.
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubString(a) : a)) as Parameters<typeof method>;
          return method.apply(this, scrubbed);
        },
      },
    },
    o.destination,
  );
}
