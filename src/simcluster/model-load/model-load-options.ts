// How the model-load simulation is asked for and with which delays: `simcluster up --model-load
// cold=120,warm=20` or KAITO_TS_SIM_MODEL_LOAD, and the flags `up` gives its process. Pure.
import { parseArgs } from 'node:util';
import { formatDuration, parseDuration } from '../../runtime/duration.js';

/** The env var that asks `up`, the e2e harness and the bench for the model-load simulation. */
export const MODEL_LOAD_ENV = 'KAITO_TS_SIM_MODEL_LOAD';

export interface ModelLoadDelays {
  /** Weights not on the pod's disk yet: download and load (a 7–8B model: minutes). */
  coldMs: number;
  /** Every claim the pod mounts already held loaded weights: load from local NVMe only. */
  warmMs: number;
}

const EXPECTED = 'expected cold=<seconds>,warm=<seconds> (e.g. cold=120,warm=20)';

/** `cold=120,warm=20` (seconds, or durations such as `2m`, `500ms`); both keys, once each. `source` names the flag or env var in errors. */
export function parseModelLoad(spec: string, source: string): ModelLoadDelays {
  const fail = (why: string): never => {
    throw new Error(`${source}: ${why}; ${EXPECTED}, got "${spec}"`);
  };
  const seen = new Map<string, number>();
  for (const entry of spec.split(',').map((e) => e.trim())) {
    const eq = entry.indexOf('=');
    const key = eq > 0 ? entry.slice(0, eq).trim() : '';
    if (key !== 'cold' && key !== 'warm') fail(entry === '' ? 'an empty entry' : `unknown entry "${entry}"`);
    if (seen.has(key)) fail(`${key} given twice`);
    const value = entry.slice(eq + 1).trim();
    try {
      seen.set(key, parseDuration(value));
    } catch {
      fail(`${key}: "${value}" is not a number of seconds`);
    }
  }
  const coldMs = seen.get('cold');
  const warmMs = seen.get('warm');
  if (coldMs === undefined || warmMs === undefined) return fail(`${coldMs === undefined ? 'cold' : 'warm'} is missing`);
  return { coldMs, warmMs };
}

/** The spelling `parseModelLoad` reads back: `cold=2m,warm=20s`. */
export function formatModelLoad(d: ModelLoadDelays): string {
  return `cold=${formatDuration(d.coldMs)},warm=${formatDuration(d.warmMs)}`;
}

/** `explicit` (the `up` option), else KAITO_TS_SIM_MODEL_LOAD (unset or empty: off). */
export function resolveModelLoad(env: NodeJS.ProcessEnv, explicit?: ModelLoadDelays): ModelLoadDelays | undefined {
  if (explicit) return explicit;
  const v = env[MODEL_LOAD_ENV]?.trim();
  return v ? parseModelLoad(v, MODEL_LOAD_ENV) : undefined;
}

export interface ModelLoadOptions extends ModelLoadDelays {
  kubeconfig: string;
  /** 127.0.0.1 port of /healthz. */
  healthPort: number;
}

export const MODEL_LOAD_FLAG = 'model-load';

export function modelLoadArgs(o: ModelLoadOptions): string[] {
  return [`--kubeconfig=${o.kubeconfig}`, `--${MODEL_LOAD_FLAG}=${formatModelLoad(o)}`, `--health-port=${o.healthPort}`];
}

export function parseModelLoadArgs(argv: string[]): ModelLoadOptions {
  const { values } = parseArgs({
    args: argv,
    options: { kubeconfig: { type: 'string' }, [MODEL_LOAD_FLAG]: { type: 'string' }, 'health-port': { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const kubeconfig = values.kubeconfig;
  if (typeof kubeconfig !== 'string' || kubeconfig === '') throw new Error('--kubeconfig is required');
  const spec = values[MODEL_LOAD_FLAG];
  if (typeof spec !== 'string') throw new Error(`--${MODEL_LOAD_FLAG} is required`);
  const port = Number(values['health-port'] ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--health-port: invalid port "${String(values['health-port'])}"`);
  return { ...parseModelLoad(spec, `--${MODEL_LOAD_FLAG}`), kubeconfig, healthPort: port };
}
