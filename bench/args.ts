// `npm run bench -- --workspaces N [--json FILE] [--controllers a,b] ...` and `npm run bench -- --scenario
// update [...]`. Pure: argv in, options out.
import { parseArgs } from 'node:util';
import { UPDATE_STRATEGIES, isUpdateStrategy } from '../src/api/update-strategy.js';
import { DEFAULT_DELAYS } from '../src/simcluster/provisioner/provisioner-options.js';
import { CONTROLLER_IDS, CONTROLLERS, type ControllerId, type NodeMode } from './controllers.js';
import { DEFAULT_INFERENCESET_LOAD_S, DEFAULT_INFERENCESET_REPLICAS, type InferenceSetScenarioOptions } from './inferenceset.js';
import type { UpdateScenarioOptions } from './update.js';

export const BENCH_SCENARIOS = ['create', 'update', 'inferenceset'] as const;
/**
 * create: N workspaces converge from nothing; update: one serving workspace per controller has its template
 * changed; inferenceset: an InferenceSet per controller is scaled from 0 to N.
 */
export type BenchScenario = (typeof BENCH_SCENARIOS)[number];

export interface BenchOptions {
  scenario: BenchScenario;
  /** --scenario update only. */
  update?: UpdateScenarioOptions;
  /** --scenario inferenceset only. */
  inferenceSet?: InferenceSetScenarioOptions;
  /** create: the N workspaces; update: 1; inferenceset: the replicas scaled to. */
  workspaces: number;
  json?: string;
  controllers: ControllerId[];
  /** The same client limits for both controllers (both default to 30 / 50). */
  qps: number;
  burst: number;
  /** Length of the idle window after all-ready in which writes are counted. */
  idleSeconds: number;
  /** Give up waiting for all-ready after this long (the run then reports `timeout`). */
  timeoutSeconds: number;
  /** Remove the benchmark's GPU nodes afterwards. */
  removeNodes: boolean;
  /** Run on the shared project cluster instead of the benchmark's own. */
  sharedCluster: boolean;
  /** Leave the benchmark's own cluster running at the end (it is stopped when this run started it). */
  keepCluster: boolean;
  /** Extra Node.js flags for the kaito-ts process, e.g. --cpu-prof. */
  nodeOptions?: string;
  /** Extra `kaito-ts run` flags (experiments such as --max-concurrent-reconciles=20). */
  kaitoTsFlags?: string;
  /** Client QPS of the benchmark cluster's kube-controller-manager (0: as the simcluster starts it). */
  kcmQps: number;
  /** Seconds a pod takes to turn Ready (a model's load time), 0 for kwok's immediate Ready. */
  podReadyDelaySeconds: number;
  /** byo: GPU nodes made up front; nap: each workspace names an instanceType and gets NodeClaims; karpenter: a NodePool per workspace, real Karpenter. */
  mode: BenchMode;
  /**
   * nap: the simulated provisioner's launch delay (claim → node); karpenter: the KWOKNodeClass's
   * nodeRegistrationDelay (claim launched → node created by Karpenter's kwok provider). Both: the
   * device-plugin delay (node → GPUs).
   */
  provisionDelaySeconds: number;
  devicePluginDelaySeconds: number;
  /** create: the first N workspaces name a Hugging Face id outside the catalog, served by the fake hub. */
  hfModels: number;
  /** create: after the idle window each controller is stopped and started again over its converged workspaces. */
  restart: boolean;
}

export const BENCH_MODES = ['byo', 'nap', 'karpenter'] as const satisfies readonly NodeMode[];
export type BenchMode = NodeMode;
/**
 * The controllers of a run without --controllers: KAITO v0.12.0 is the only KAITO with a Karpenter mode; the
 * update scenario compares both KAITO releases (each updates its StatefulSet in place).
 */
export function defaultControllers(mode: BenchMode, scenario: BenchScenario = 'create'): ControllerId[] {
  if (scenario === 'update') return ['kaito-ts', 'kaito-v0.8.0', 'kaito-v0.12.0'];
  return mode === 'karpenter' || scenario === 'inferenceset' ? ['kaito-ts', 'kaito-v0.12.0'] : ['kaito-ts', 'kaito-v0.8.0'];
}
/** The simulated provisioner's own defaults, in seconds. */
export const DEFAULT_PROVISION_DELAY_S = DEFAULT_DELAYS.launchDelayMs / 1000;
export const DEFAULT_DEVICE_PLUGIN_DELAY_S = DEFAULT_DELAYS.devicePluginDelayMs / 1000;

/** --scenario update: the model-load simulation's delays the targets are stated for. */
export const DEFAULT_COLD_LOAD_S = 120;
export const DEFAULT_WARM_LOAD_S = 20;

export class BenchArgsError extends Error {}

export const BENCH_USAGE = `Usage: npm run bench -- --workspaces N [flags]
       npm run bench -- --scenario update [--cold-load S] [--warm-load S] [--no-spare-node] [--repeat N] [flags]
       npm run bench -- --scenario inferenceset [--replicas N] [--pod-ready-delay S] [--scale-probes K] [flags]

  --scenario create|update|inferenceset
                          create (default): N workspaces converge; update: per controller one serving
                          preset workspace (phi-4-mini-instruct on an A100 node, bring-your-own) gets an adapter
                          added (then removed, …) and the time without a serving endpoint is measured, with
                          the simcluster's model-load simulation on; inferenceset: per controller an
                          InferenceSet (phi-4-mini-instruct, N bring-your-own A100 nodes) made with replicas 0
                          is scaled to N by one write of its scale subresource
  --workspaces N          workspaces to create (required with --scenario create)
  --json FILE             write {"n": N, "results": [...]} to FILE
  --controllers LIST      comma list of ${CONTROLLER_IDS.join(', ')} (default: kaito-ts,kaito-v0.8.0;
                          with --mode karpenter or --scenario inferenceset kaito-ts,kaito-v0.12.0; with --scenario update all three)
  --qps N, --burst N      client QPS / burst given to every controller (default 30 / 50)
  --idle-seconds S        idle window for the writes count (default 60)
  --timeout-seconds S     give up on all-ready after S (default 3600)
  --remove-nodes          delete the benchmark GPU nodes at the end
  --shared-cluster        use the project's cluster (.simcluster) instead of the benchmark's own
  --keep-cluster          leave the benchmark's own cluster running at the end (by default a run stops
                          the cluster it started; one that was already running is left as found; a
                          failed run first copies the cluster's component logs to bench/results/cluster-logs-*)
  --node-options=OPTS     Node.js flags for kaito-ts (e.g. "--cpu-prof --cpu-prof-dir=bench/results")
  --kaito-ts-flags=FLAGS  extra "kaito-ts run" flags (e.g. "--max-concurrent-reconciles=20")
  --kcm-qps N             client QPS (burst 2×) of the benchmark cluster's kube-controller-manager,
                          so the cluster does not bound the run (default 300; 0 keeps 20/30)
  --pod-ready-delay S     a pod turns Ready S seconds after it starts, as a model that loads (default 0)
  --mode byo|nap|karpenter
                          byo: GPU nodes made up front (default); nap: node auto-provisioning, each
                          workspace names an instanceType and the simulated gpu-provisioner makes its node;
                          karpenter: --node-provisioner=karpenter, one NodePool per workspace, real Karpenter
                          (kwok provider) on the benchmark cluster makes the nodes
  --provision-delay S     nap: seconds from NodeClaim to node; karpenter: the KWOKNodeClass's
                          nodeRegistrationDelay (default ${DEFAULT_PROVISION_DELAY_S})
  --device-plugin-delay S nap, karpenter: seconds from node to nvidia.com/gpu capacity (default ${DEFAULT_DEVICE_PLUGIN_DELAY_S})
  --restart               once converged and idle, each controller is stopped and started again over its
                          workspaces: time to its first pass and until every workspace had one, the writes
                          it makes (0 is right), its peak RSS and CPU (create scenario)
  --hf-models N           the first N workspaces name a Hugging Face id outside the catalog, one repo each,
                          served by a local fake Hugging Face endpoint that counts its requests (KAITO v0.12.0
                          reads it as https://huggingface.co through a proxy; not KAITO v0.8.0)

--scenario update only:
  --cold-load S           a pod without loaded weights on its claims turns Ready S seconds after binding (default ${DEFAULT_COLD_LOAD_S})
  --warm-load S           one restarted on claims that held loaded weights (default ${DEFAULT_WARM_LOAD_S})
  --no-spare-node         only the workspace's own node (default: a second matching node for the surge)
  --repeat N              updates per controller, alternately adding and removing the adapter (default 1)
  --repeat-kaito N        updates per KAITO controller, each a whole cold load (default: --repeat)
  --update-strategy S     kaito-ts's kaito-ts.io/update-strategy on the workspace: ${UPDATE_STRATEGIES.join(', ')}
                          (default: none, the operator's default SurgeIfCapacity)
  --idle-seconds defaults to 0 here

--scenario inferenceset only:
  --replicas N            the scale write's replicas, and the GPU nodes (default ${DEFAULT_INFERENCESET_REPLICAS})
  --pod-ready-delay S     defaults to ${DEFAULT_INFERENCESET_LOAD_S} here (the model load of every child)
  --scale-probes K        after the 0 → N measurement, back to 0, then K times: one scale write 0 → 1, the time
                          until the new child is first seen, and 1 → 0 until nothing of it is left; reports
                          p50/p90/p99/max of the K times (default 0: none)
`;

const UPDATE_FLAGS = ['cold-load', 'warm-load', 'no-spare-node', 'repeat', 'repeat-kaito', 'update-strategy'] as const;

function integer(flag: string, value: string | undefined, fallback: number | undefined, min: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new BenchArgsError(`--${flag} is required`);
    return fallback;
  }
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new BenchArgsError(`--${flag} must be an integer >= ${min}, got "${value}"`);
  return n;
}

export function parseBenchArgs(argv: string[]): BenchOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        workspaces: { type: 'string', short: 'n' },
        json: { type: 'string' },
        controllers: { type: 'string' },
        qps: { type: 'string' },
        burst: { type: 'string' },
        'idle-seconds': { type: 'string' },
        'timeout-seconds': { type: 'string' },
        'remove-nodes': { type: 'boolean' },
        'shared-cluster': { type: 'boolean' },
        'keep-cluster': { type: 'boolean' },
        'node-options': { type: 'string' },
        'kcm-qps': { type: 'string' },
        'kaito-ts-flags': { type: 'string' },
        'pod-ready-delay': { type: 'string' },
        mode: { type: 'string' },
        'provision-delay': { type: 'string' },
        'device-plugin-delay': { type: 'string' },
        scenario: { type: 'string' },
        'cold-load': { type: 'string' },
        'warm-load': { type: 'string' },
        'no-spare-node': { type: 'boolean' },
        repeat: { type: 'string' },
        'repeat-kaito': { type: 'string' },
        'update-strategy': { type: 'string' },
        replicas: { type: 'string' },
        'scale-probes': { type: 'string' },
        'hf-models': { type: 'string' },
        restart: { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new BenchArgsError((err as Error).message);
  }
  if (values.help) return 'help';
  const scenario = values.scenario ?? 'create';
  if (!(BENCH_SCENARIOS as readonly string[]).includes(scenario))
    throw new BenchArgsError(`--scenario must be one of ${BENCH_SCENARIOS.join(', ')}, got "${scenario}"`);
  const updating = scenario === 'update';
  const scaling = scenario === 'inferenceset';
  if (scaling) {
    if (values.workspaces !== undefined)
      throw new BenchArgsError('--scenario inferenceset scales one InferenceSet per controller: use --replicas, not --workspaces');
    if ((values.mode ?? 'byo') !== 'byo') throw new BenchArgsError('--scenario inferenceset runs with bring-your-own nodes only (--mode byo)');
  } else {
    for (const f of ['replicas', 'scale-probes'] as const) if (values[f] !== undefined) throw new BenchArgsError(`--${f} needs --scenario inferenceset`);
  }
  if (updating) {
    if (values.workspaces !== undefined) throw new BenchArgsError('--scenario update runs one workspace per controller: drop --workspaces');
    if ((values.mode ?? 'byo') !== 'byo') throw new BenchArgsError('--scenario update runs with bring-your-own nodes only (--mode byo)');
    if (values['shared-cluster'])
      throw new BenchArgsError('--scenario update turns on the model-load simulation, so it needs the benchmark cluster (not --shared-cluster)');
    if (values['pod-ready-delay'] !== undefined)
      throw new BenchArgsError('--scenario update times pods with the model-load simulation: use --cold-load and --warm-load, not --pod-ready-delay');
  } else {
    for (const f of UPDATE_FLAGS) if (values[f] !== undefined) throw new BenchArgsError(`--${f} needs --scenario update`);
  }
  const strategy = values['update-strategy'];
  if (strategy !== undefined && !isUpdateStrategy(strategy))
    throw new BenchArgsError(`--update-strategy must be one of ${UPDATE_STRATEGIES.join(', ')}, got "${strategy}"`);
  const mode = values.mode ?? 'byo';
  if (!(BENCH_MODES as readonly string[]).includes(mode)) throw new BenchArgsError(`--mode must be one of ${BENCH_MODES.join(', ')}, got "${mode}"`);
  const controllers = (values.controllers ?? defaultControllers(mode as BenchMode, scenario as BenchScenario).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const c of controllers) {
    if (!(CONTROLLER_IDS as readonly string[]).includes(c)) throw new BenchArgsError(`unknown controller "${c}" (known: ${CONTROLLER_IDS.join(', ')})`);
  }
  if (controllers.length === 0) throw new BenchArgsError('--controllers is empty');
  for (const c of controllers) {
    if (!CONTROLLERS[c as ControllerId].modes.includes(mode as BenchMode)) throw new BenchArgsError(`${c} has no ${mode} mode`);
  }
  if (new Set(controllers).size !== controllers.length) throw new BenchArgsError('--controllers names a controller twice');
  if (scaling)
    for (const c of controllers)
      if (!CONTROLLERS[c as ControllerId].inferenceSets) throw new BenchArgsError(`${c} has no InferenceSet controller (KAITO has one from v0.11)`);
  const podReadyDelay = integer('pod-ready-delay', values['pod-ready-delay'], scaling ? DEFAULT_INFERENCESET_LOAD_S : 0, 0);
  if (values.json === '') throw new BenchArgsError('--json needs a file name');
  if (values['shared-cluster'] && podReadyDelay !== 0) {
    throw new BenchArgsError('--pod-ready-delay changes kwok, so it needs the benchmark cluster (not --shared-cluster)');
  }
  if (mode === 'byo') {
    for (const f of ['provision-delay', 'device-plugin-delay'] as const) {
      if (values[f] !== undefined) throw new BenchArgsError(`--${f} needs --mode nap or karpenter`);
    }
  } else if (values['shared-cluster']) {
    // It restarts the provisioner with the run's delays and makes a node per workspace (karpenter: and
    // runs Karpenter, whose NodeClaim CRD replaces the shared cluster's).
    throw new BenchArgsError(`--mode ${mode} needs the benchmark cluster (not --shared-cluster)`);
  }
  const repeat = integer('repeat', values.repeat, 1, 1);
  const update: UpdateScenarioOptions | undefined = updating
    ? {
        coldLoadSeconds: integer('cold-load', values['cold-load'], DEFAULT_COLD_LOAD_S, 1),
        warmLoadSeconds: integer('warm-load', values['warm-load'], DEFAULT_WARM_LOAD_S, 1),
        spareNode: !(values['no-spare-node'] ?? false),
        repeat,
        kaitoRepeat: integer('repeat-kaito', values['repeat-kaito'], repeat, 1),
        ...(strategy !== undefined ? { strategy } : {}),
      }
    : undefined;
  const qps = integer('qps', values.qps, 30, 1);
  const scaleProbes = integer('scale-probes', values['scale-probes'], 0, 0);
  const inferenceSet: InferenceSetScenarioOptions | undefined = scaling
    ? {
        replicas: integer('replicas', values.replicas, DEFAULT_INFERENCESET_REPLICAS, 1),
        podReadyDelaySeconds: podReadyDelay,
        qps,
        ...(scaleProbes > 0 ? { scaleProbes } : {}),
      }
    : undefined;
  const workspaces = updating ? 1 : inferenceSet ? inferenceSet.replicas : integer('workspaces', values.workspaces, undefined, 1);
  const hfModels = integer('hf-models', values['hf-models'], 0, 0);
  if (hfModels > 0) {
    if (updating || scaling) throw new BenchArgsError('--hf-models needs --scenario create');
    if (hfModels > workspaces) throw new BenchArgsError(`--hf-models ${hfModels} is more than --workspaces ${workspaces}`);
    const unknowing = controllers.filter((c) => c === 'kaito-v0.8.0');
    if (unknowing.length > 0)
      throw new BenchArgsError(`--hf-models: ${unknowing.join(', ')} knows no Hugging Face ids; use --controllers kaito-ts,kaito-v0.12.0`);
  }
  const restart = values.restart ?? false;
  if (restart && (updating || scaling)) throw new BenchArgsError('--restart needs --scenario create');
  return {
    scenario: scenario as BenchScenario,
    ...(update ? { update } : {}),
    ...(inferenceSet ? { inferenceSet } : {}),
    workspaces,
    ...(values.json !== undefined ? { json: values.json } : {}),
    controllers: controllers as ControllerId[],
    qps,
    burst: integer('burst', values.burst, 50, 1),
    idleSeconds: integer('idle-seconds', values['idle-seconds'], updating ? 0 : 60, 0),
    timeoutSeconds: integer('timeout-seconds', values['timeout-seconds'], 3600, 1),
    removeNodes: values['remove-nodes'] ?? false,
    sharedCluster: values['shared-cluster'] ?? false,
    keepCluster: values['keep-cluster'] ?? false,
    ...(values['node-options'] !== undefined ? { nodeOptions: values['node-options'] } : {}),
    ...(values['kaito-ts-flags'] !== undefined ? { kaitoTsFlags: values['kaito-ts-flags'] } : {}),
    kcmQps: integer('kcm-qps', values['kcm-qps'], 300, 0),
    podReadyDelaySeconds: podReadyDelay,
    mode: mode as BenchMode,
    provisionDelaySeconds: integer('provision-delay', values['provision-delay'], DEFAULT_PROVISION_DELAY_S, 0),
    devicePluginDelaySeconds: integer('device-plugin-delay', values['device-plugin-delay'], DEFAULT_DEVICE_PLUGIN_DELAY_S, 0),
    hfModels,
    restart,
  };
}
