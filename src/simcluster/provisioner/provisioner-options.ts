// The provisioner's knobs: flags set by `simcluster up`, each with a KAITO_TS_SIM_* environment
// default. Pure: parsing and printing only.
import { parseArgs } from 'node:util';
import { formatDuration, parseDuration } from '../../runtime/duration.js';

export interface ProvisionerOptions {
  /** From claim creation to the node object (real agent pools take 3–8 min). */
  launchDelayMs: number;
  /** From node creation to `nvidia.com/gpu` in its capacity (the NVIDIA device plugin starting). */
  devicePluginDelayMs: number;
  /** NodeRepair: a node NotReady this long gets its claim deleted (gpu-provisioner: 10 min). */
  repairAfterMs: number;
  /** How long launch waits for a node that never registers before it fails (gpu-provisioner: 30 × 1 s). */
  registerTimeoutMs: number;
  /** The AKS cluster name in node labels and providerIDs. */
  clusterName: string;
  /** 127.0.0.1 port of /healthz. */
  healthPort: number;
  kubeconfig: string;
  /** Also play what Karpenter's kwok nodes lack: GPUs in the capacity, NVMe volumes, KWOKNodeClass readiness. */
  karpenter?: boolean;
}

export const DEFAULT_DELAYS = { launchDelayMs: 1_000, devicePluginDelayMs: 1_000, repairAfterMs: 600_000, registerTimeoutMs: 5_000 } as const;

/** Flag name → option, and the environment variable `simcluster up` reads for its default. */
export const DELAY_FLAGS = [
  ['launch-delay', 'launchDelayMs', 'KAITO_TS_SIM_LAUNCH_DELAY'],
  ['device-plugin-delay', 'devicePluginDelayMs', 'KAITO_TS_SIM_DEVICE_PLUGIN_DELAY'],
  ['repair-after', 'repairAfterMs', 'KAITO_TS_SIM_REPAIR_AFTER'],
  ['register-timeout', 'registerTimeoutMs', 'KAITO_TS_SIM_REGISTER_TIMEOUT'],
] as const;

export type Delays = { [K in (typeof DELAY_FLAGS)[number][1]]: number };

/** Delays from the environment over the defaults, then `explicit` (e.g. CLI flags) over both. */
export function resolveDelays(env: NodeJS.ProcessEnv, explicit: Partial<Delays> = {}): Delays {
  const out: Delays = { ...DEFAULT_DELAYS };
  for (const [, key, envName] of DELAY_FLAGS) {
    const v = env[envName];
    if (v !== undefined && v !== '') out[key] = parseDuration(v);
    const e = explicit[key];
    if (e !== undefined) out[key] = e;
  }
  return out;
}

export function provisionerArgs(o: ProvisionerOptions): string[] {
  return [
    `--kubeconfig=${o.kubeconfig}`,
    ...DELAY_FLAGS.map(([flag, key]) => `--${flag}=${formatDuration(o[key])}`),
    `--cluster-name=${o.clusterName}`,
    `--health-port=${o.healthPort}`,
    ...(o.karpenter ? ['--karpenter'] : []),
  ];
}

export function parseProvisionerArgs(argv: string[]): ProvisionerOptions {
  const { values: parsed } = parseArgs({
    args: argv,
    options: {
      kubeconfig: { type: 'string' },
      'cluster-name': { type: 'string' },
      'health-port': { type: 'string' },
      karpenter: { type: 'boolean' },
      ...Object.fromEntries(DELAY_FLAGS.map(([flag]) => [flag, { type: 'string' as const }])),
    },
    strict: true,
    allowPositionals: false,
  });
  const values = parsed as Record<string, string | boolean | undefined>;
  const kubeconfig = values.kubeconfig;
  if (typeof kubeconfig !== 'string' || kubeconfig === '') throw new Error('--kubeconfig is required');
  const port = Number(values['health-port'] ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--health-port: invalid port "${String(values['health-port'])}"`);
  const delays: Delays = { ...DEFAULT_DELAYS };
  for (const [flag, key] of DELAY_FLAGS) {
    const v = values[flag];
    if (typeof v === 'string') delays[key] = parseDuration(v);
  }
  return {
    ...delays,
    kubeconfig,
    clusterName: String(values['cluster-name'] ?? 'kaito-ts-sim'),
    healthPort: port,
    ...(values.karpenter === true ? { karpenter: true } : {}),
  };
}
