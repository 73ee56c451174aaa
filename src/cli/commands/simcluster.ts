// `kaito-ts simcluster up|down|status|env`: argument parsing only; the work is in src/simcluster/.
import { parseArgs } from 'node:util';
import { CliError, type CliIO } from '../command-io.js';
import { parseDuration } from '../../runtime/duration.js';
import { MODEL_LOAD_ENV, parseModelLoad, resolveModelLoad, type ModelLoadDelays } from '../../simcluster/model-load/model-load-options.js';
import { DELAY_FLAGS, type Delays } from '../../simcluster/provisioner/provisioner-options.js';
import { resolveMemoryLimits } from '../../simcluster/supervision.js';

const USAGE = `Usage: kaito-ts simcluster <up|down|status|env> [flags]

  up      build missing binaries, start the local control plane and GPU nodes, print the kubeconfig path
            --nodes-file <path>   node pools (default simcluster/nodes.yaml)
            --scale <pool=count>  override a pool's node count (repeatable)
            --launch-delay <d>    simulated gpu-provisioner: claim → node (default 1s; env KAITO_TS_SIM_LAUNCH_DELAY)
            --device-plugin-delay <d>  node → nvidia.com/gpu in its capacity (default 1s)
            --repair-after <d>    NodeRepair: NotReady this long → claim deleted (default 10m)
            --register-timeout <d>  launch gives up on a node that never registers (default 5s)
            --memory-limit <component=size>  the supervisor restarts a component past this RSS
                                  (repeatable; env KAITO_TS_SIM_MEMORY_LIMITS; defaults in docs/simcluster.md)
            --karpenter           also run Karpenter's kwok provider with static NodePools (env
                                  KAITO_TS_SIM_KARPENTER=1); builds it on first use; only down stops it
            --keda                also run KEDA's operator and metrics server, which then serves the
                                  external metrics API (env KAITO_TS_SIM_KEDA=1); builds it on first
                                  use (simcluster/build-keda.sh); only down stops it
            --model-load <cold=S,warm=S>  workspace pods turn Ready S seconds after binding: cold when
                                  their claims hold no loaded weights yet, warm when all do (env
                                  ${MODEL_LOAD_ENV}); only down stops it
  down    stop every process of the cluster and remove its state (.simcluster/)
  status  show which components run, their restarts by the supervisor, and the nodes
  env     print shell lines: eval "$(kaito-ts simcluster env)"
`;

function parseScale(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) {
    const m = /^([a-z0-9-]+)=(\d+)$/.exec(v);
    if (!m || m[1] === undefined || m[2] === undefined) throw new CliError(`--scale expects pool=count, got "${v}"`);
    out[m[1]] = Number(m[2]);
  }
  return out;
}

function modelLoadFlag(value: string | undefined): ModelLoadDelays | undefined {
  try {
    return value === undefined ? undefined : parseModelLoad(value, '--model-load');
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

function provisionerDelays(values: Record<string, unknown>): Partial<Delays> {
  const out: Partial<Delays> = {};
  for (const [flag, key] of DELAY_FLAGS) {
    const v = values[flag];
    if (typeof v !== 'string') continue;
    try {
      out[key] = parseDuration(v);
    } catch (err) {
      throw new CliError(`--${flag}: ${(err as Error).message}`);
    }
  }
  return out;
}

export async function simcluster(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout(USAGE);
    return sub === undefined ? 2 : 0;
  }
  const { values } = (() => {
    try {
      return parseArgs({
        args: rest,
        options: {
          'nodes-file': { type: 'string' },
          scale: { type: 'string', multiple: true },
          'memory-limit': { type: 'string', multiple: true },
          karpenter: { type: 'boolean' },
          keda: { type: 'boolean' },
          'model-load': { type: 'string' },
          ...Object.fromEntries(DELAY_FLAGS.map(([flag]) => [flag, { type: 'string' as const }])),
        },
        strict: true,
        allowPositionals: false,
      });
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  })();
  const delays = provisionerDelays(values);
  const modelLoad = modelLoadFlag(values['model-load']);
  if (
    sub !== 'up' &&
    (values['nodes-file'] !== undefined ||
      values.scale !== undefined ||
      values['memory-limit'] !== undefined ||
      values.karpenter !== undefined ||
      values.keda !== undefined ||
      modelLoad !== undefined ||
      Object.keys(delays).length > 0)
  ) {
    throw new CliError(`--nodes-file, --scale, --memory-limit, --karpenter, --keda, --model-load and the provisioner delays only apply to "simcluster up"`);
  }
  const cluster = await import('../../simcluster/cluster.js');
  const { NodeSpecError } = await import('../../simcluster/nodes.js');
  const log = (line: string): void => io.stderr(`[simcluster] ${line}\n`);
  switch (sub) {
    case 'up': {
      const scale = parseScale(values.scale ?? []);
      const nodesFile = values['nodes-file'];
      const memoryLimits = values['memory-limit'] ?? [];
      try {
        resolveMemoryLimits(process.env, memoryLimits);
        resolveModelLoad(process.env, modelLoad);
      } catch (err) {
        throw new CliError((err as Error).message);
      }
      let info;
      try {
        info = await cluster.up({
          log,
          scale,
          provisioner: delays,
          memoryLimits,
          ...(values.karpenter ? { karpenter: true } : {}),
          ...(values.keda ? { keda: true } : {}),
          ...(modelLoad ? { modelLoad } : {}),
          ...(nodesFile !== undefined ? { nodesFile } : {}),
        });
      } catch (err) {
        // A bad node spec is an input error (exit 2); anything else is a failed start (exit 1).
        if (err instanceof NodeSpecError) throw new CliError(err.message);
        throw err;
      }
      io.stdout(`${info.kubeconfigPath}\n`);
      return 0;
    }
    case 'down': {
      const { stopped } = await cluster.down(log);
      io.stderr(stopped.length > 0 ? `[simcluster] stopped ${stopped.join(', ')}; state removed\n` : '[simcluster] nothing was running; state removed\n');
      return 0;
    }
    case 'status': {
      const s = await cluster.status();
      io.stdout(
        `${'supervisor'.padEnd(24)} ${s.supervisor ? `running pid ${s.supervisor.pid}` : 'stopped (components that exit stay down; `up` starts it)'}\n`,
      );
      for (const c of s.components) {
        const restarts = c.lastRestart ? `, restarts ${c.restarts} (last ${c.lastRestart.at}: ${c.lastRestart.reason})` : '';
        io.stdout(`${c.name.padEnd(24)} ${c.running ? `running pid ${c.pid}` : 'stopped'}${c.running && !c.healthy ? ' (not healthy)' : ''}${restarts}\n`);
      }
      if (s.nodes) {
        const ready = s.nodes.filter((n) => n.ready).length;
        io.stdout(`nodes                    ${ready}/${s.nodes.length} Ready\nkubeconfig               ${s.kubeconfigPath}\n`);
      }
      return s.components.every((c) => c.healthy) ? 0 : 1;
    }
    case 'env':
      io.stdout(cluster.envLines());
      return 0;
    default:
      throw new CliError(`unknown simcluster command "${sub}"; expected up, down, status or env`);
  }
}
