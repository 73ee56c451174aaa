// The command lines of the control-plane processes (plus Karpenter, KEDA and the model-load simulation, opt-in). Pure: a Layout in, argv lists out.
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { hasNotReadyStage, kwokStagesPath } from './binaries.js';
import { kedaComponents } from './keda/keda.js';
import { DEFAULT_PORTS, type Layout } from './layout.js';
import { formatModelLoad, MODEL_LOAD_FLAG, modelLoadArgs, type ModelLoadDelays } from './model-load/model-load-options.js';
import { DEFAULT_DELAYS, provisionerArgs, type Delays } from './provisioner/provisioner-options.js';

export type ComponentName =
  | 'etcd'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kwok'
  | 'gpu-provisioner'
  | 'metrics-adapter'
  | 'model-load'
  | 'karpenter'
  | 'keda-operator'
  | 'keda-adapter';

/** Components that run only when asked for (`up --karpenter`, `up --keda`, `up --model-load`); a running one stays. */
export const OPT_IN_COMPONENTS: readonly ComponentName[] = ['model-load', 'karpenter', 'keda-operator', 'keda-adapter'];

/** How the provisioner's Node process is told apart from other node processes (any checkout). */
export const PROVISIONER_SCRIPT = 'dist/src/simcluster/provisioner/main.js';
/** The same for the model-load simulation's process. */
export const MODEL_LOAD_SCRIPT = 'dist/src/simcluster/model-load/main.js';
/** The same for the external metrics adapter's process. */
export const METRICS_ADAPTER_SCRIPT = 'dist/src/simcluster/metrics-adapter/main.js';

export interface Component {
  name: ComponentName;
  binary: string;
  args: string[];
  /** Ports it binds on 127.0.0.1 (checked free before start, for a clear message). */
  ports: number[];
  /** HTTPS (or HTTP) endpoint that answers 200 once the process serves. */
  healthUrl: string;
  /** The apiserver's health needs the admin client certificate; the others allow anonymous /healthz. */
  healthWithClientCert: boolean;
  /** How long `down` waits after SIGTERM before SIGKILL. */
  stopGraceMs: number;
  /** For interpreted components: argv[1] must end with this for a pid to count as ours. */
  script?: string;
  /** `up` restarts a running process when this says its command line (argv after argv[0]) is stale. */
  stale?: (argv: string[]) => boolean;
  /** Set over the starter's environment (Karpenter reads its kubeconfig only from KUBECONFIG; KEDA its namespaces). */
  env?: Record<string, string>;
}

export interface ComponentOptions {
  delays?: Delays;
  /** Karpenter's kwok provider runs after the provisioner (`simcluster up --karpenter`). */
  karpenter?: boolean;
  /** The model-load simulation with these delays (`simcluster up --model-load`); kwok then gets the model-load Stages. */
  modelLoad?: ModelLoadDelays;
  /** KEDA's operator and metrics server run last (`simcluster up --keda`); the external metrics API is then KEDA's. */
  keda?: boolean;
}

/** The opt-in components a cluster runs, as `up`, `isRunning` and the supervisor pass them around. */
export type OptIns = Pick<ComponentOptions, 'karpenter' | 'modelLoad' | 'keda'>;

const HEALTH_PATHS = '/healthz,/readyz,/livez,/metrics';

/**
 * As the bench cluster: after an apiserver restart or on a busy host, kwok's lease renewals can lag past
 * the 50 s default; the node lifecycle controller then marks pods Ready=False and kwok never flips them back.
 */
export const NODE_MONITOR_GRACE = '--node-monitor-grace-period=10m';

/** The HPA controller syncs every 15 s by default; a test cluster answers a metric change within seconds. */
export const HPA_SYNC_PERIOD = '--horizontal-pod-autoscaler-sync-period=3s';

/** The aggregation layer (external.metrics.k8s.io for the HPA): the apiserver proxies with this client pair. */
export const PROXY_CLIENT_FLAG = '--proxy-client-cert-file';

/** Start order; `down` stops them in reverse. `delays` only shape the provisioner's flags. */
export function components(l: Layout, opts: ComponentOptions = {}): Component[] {
  const delays = opts.delays ?? DEFAULT_DELAYS;
  const stages = opts.modelLoad ? l.modelLoadStagesPath : kwokStagesPath(l.binDir);
  const p = l.ports;
  const pki = (f: string): string => join(l.pkiDir, f);
  const bin = (b: string): string => join(l.binDir, b);
  const etcdUrl = `http://127.0.0.1:${p.etcd}`;
  const peerUrl = `http://127.0.0.1:${p.etcdPeer}`;
  return [
    {
      name: 'etcd',
      ports: [p.etcd, p.etcdPeer],
      binary: bin('etcd'),
      args: [
        '--name=sim',
        `--data-dir=${l.etcdDir}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=sim=${peerUrl}`,
        '--auto-compaction-retention=1',
        '--quota-backend-bytes=4294967296',
        // A throw-away test store: fsync only costs time on a shared 2-core box.
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      healthUrl: `${etcdUrl}/health`,
      healthWithClientCert: false,
      stopGraceMs: 10_000,
    },
    {
      name: 'kube-apiserver',
      ports: [p.apiserver],
      binary: bin('kube-apiserver'),
      args: [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.apiserver}`,
        // No default route on CI hosts: advertise loopback and skip the endpoints reconciler that rejects it.
        '--advertise-address=127.0.0.1',
        '--endpoint-reconciler-type=none',
        `--cert-dir=${join(l.certDir, 'kube-apiserver')}`,
        `--tls-cert-file=${pki('apiserver.crt')}`,
        `--tls-private-key-file=${pki('apiserver.key')}`,
        `--client-ca-file=${pki('ca.crt')}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${pki('sa.pub')}`,
        `--service-account-signing-key-file=${pki('sa.key')}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--authorization-mode=Node,RBAC',
        '--allow-privileged=true',
        '--profiling=false',
        // The aggregation layer, as kubeadm sets it up: a front-proxy CA of its own, so no client of the cluster CA can assert identity headers.
        `--requestheader-client-ca-file=${pki('front-proxy-ca.crt')}`,
        '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        `${PROXY_CLIENT_FLAG}=${pki('front-proxy-client.crt')}`,
        `--proxy-client-key-file=${pki('front-proxy-client.key')}`,
      ],
      healthUrl: `https://127.0.0.1:${p.apiserver}/readyz`,
      healthWithClientCert: true,
      // Its graceful shutdown waits up to --request-timeout (60s) for its own loopback watches to
      // close; it keeps no state of its own (etcd does), so a short grace is enough.
      stopGraceMs: 3_000,
      // Restarted once by `up` when started without the aggregation layer.
      stale: (argv) => !argv.some((a) => a.startsWith(PROXY_CLIENT_FLAG)),
    },
    {
      name: 'kube-controller-manager',
      ports: [p.controllerManager],
      binary: bin('kube-controller-manager'),
      args: [
        `--kubeconfig=${l.kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.controllerManager}`,
        `--cert-dir=${join(l.certDir, 'kube-controller-manager')}`,
        `--authorization-always-allow-paths=${HEALTH_PATHS}`,
        `--root-ca-file=${pki('ca.crt')}`,
        `--service-account-private-key-file=${pki('sa.key')}`,
        '--leader-elect=false',
        '--profiling=false',
        NODE_MONITOR_GRACE,
        HPA_SYNC_PERIOD,
      ],
      healthUrl: `https://127.0.0.1:${p.controllerManager}/healthz`,
      healthWithClientCert: false,
      stopGraceMs: 10_000,
      // Restarted once by `up` when started before the flag existed (pods turned NotReady for good).
      stale: (argv) => !argv.includes(NODE_MONITOR_GRACE) || !argv.includes(HPA_SYNC_PERIOD),
    },
    {
      name: 'kube-scheduler',
      ports: [p.scheduler],
      binary: bin('kube-scheduler'),
      args: [
        `--kubeconfig=${l.kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p.scheduler}`,
        `--cert-dir=${join(l.certDir, 'kube-scheduler')}`,
        `--authorization-always-allow-paths=${HEALTH_PATHS}`,
        '--leader-elect=false',
        '--profiling=false',
      ],
      healthUrl: `https://127.0.0.1:${p.scheduler}/healthz`,
      healthWithClientCert: false,
      stopGraceMs: 10_000,
    },
    {
      name: 'kwok',
      ports: [p.kwok],
      binary: bin('kwok'),
      args: [
        `--kubeconfig=${l.kubeconfigPath}`,
        `--config=${stages}`,
        // Every node in this cluster is simulated.
        '--manage-all-nodes=true',
        // One global pod IP pool (no per-node podCIDRs): keep it large.
        '--cidr=10.244.0.0/16',
        '--node-ip=10.0.0.1',
        // Liveness through Leases, paired with the node-heartbeat-with-lease stage.
        '--node-lease-duration-seconds=40',
        `--server-address=127.0.0.1:${p.kwok}`,
      ],
      healthUrl: `http://127.0.0.1:${p.kwok}/healthz`,
      healthWithClientCert: false,
      stopGraceMs: 10_000,
      // A kwok started before the chaos node-not-ready Stage was added cannot play the NotReady fault; the
      // model-load simulation needs its Stages (without it, kwok keeps whatever Stages it runs with).
      stale: (argv) => {
        const config = argv.find((a) => a.startsWith('--config='))?.slice('--config='.length) ?? '';
        return !hasNotReadyStage(config) || (opts.modelLoad !== undefined && config !== stages);
      },
    },
    provisionerComponent(l, delays, opts.karpenter === true),
    metricsAdapterComponent(l),
    ...(opts.modelLoad ? [modelLoadComponent(l, opts.modelLoad)] : []),
    ...(opts.karpenter ? [karpenterComponent(l)] : []),
    ...(opts.keda ? kedaComponents(l) : []),
  ];
}

/**
 * Every component, the opt-in ones too, for what needs only names, binaries, pid files and health
 * URLs (`down`, `status`, CPU samples): the opt-ins' arguments are placeholders.
 */
export function everyComponent(l: Layout): Component[] {
  return components(l, { karpenter: true, keda: true, modelLoad: { coldMs: 0, warmMs: 0 } });
}

/** The model-load delays a running simulation was started with, read from its command line (argv after argv[0]). */
export function modelLoadOfArgs(argv: readonly string[]): string | undefined {
  const prefix = `--${MODEL_LOAD_FLAG}=`;
  return argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/**
 * Karpenter's kwok cloud provider out of cluster: no leader election, static NodePools (spec.replicas)
 * on, the catalog's instance types. Flags, not its environment variables, so the supervisor's restart
 * (the command line read from /proc) keeps them; only the kubeconfig has no flag.
 */
export function karpenterArgs(l: Layout): string[] {
  return [
    '--disable-leader-election=true',
    '--feature-gates=StaticCapacity=true',
    `--instance-types-file-path=${l.instanceTypesPath}`,
    `--health-probe-port=${l.ports.karpenterHealth}`,
    `--metrics-port=${l.ports.karpenterMetrics}`,
    '--log-level=info',
  ];
}

function karpenterComponent(l: Layout): Component {
  const args = karpenterArgs(l);
  return {
    name: 'karpenter',
    ports: [l.ports.karpenterHealth, l.ports.karpenterMetrics],
    binary: join(l.karpenterBinDir, 'karpenter-kwok'),
    args,
    env: { KUBECONFIG: l.kubeconfigPath },
    // Ready once its caches synced and the NodePool and NodeClaim CRDs are served.
    healthUrl: `http://127.0.0.1:${l.ports.karpenterHealth}/readyz`,
    healthWithClientCert: false,
    stopGraceMs: 10_000,
    stale: (argv) => !isDeepStrictEqual(argv, args),
  };
}

/**
 * One of the simcluster's own Node processes (`script` of this checkout), health on `port`, restarted
 * when its flags change: flags other than the script path (which differs between checkouts) decide.
 */
function nodeComponent(l: Layout, name: ComponentName, script: string, flags: string[], port: number): Component {
  const args = [join(l.projectRoot, script), ...flags];
  return {
    name,
    ports: [port],
    binary: l.nodeBinary,
    args,
    healthUrl: `http://127.0.0.1:${port}/healthz`,
    healthWithClientCert: false,
    stopGraceMs: 10_000,
    script,
    stale: (argv) => !isDeepStrictEqual(argv.slice(1), args.slice(1)),
  };
}

/** The external metrics adapter (HTTPS: the aggregation layer dials it), restarted when its flags change. */
function metricsAdapterComponent(l: Layout): Component {
  const port = l.ports.metricsAdapter;
  const pair = metricsAdapterPair(l);
  const flags = [`--kubeconfig=${l.kubeconfigPath}`, `--port=${port}`, `--cert=${pair.certFile}`, `--key=${pair.keyFile}`];
  return { ...nodeComponent(l, 'metrics-adapter', METRICS_ADAPTER_SCRIPT, flags, port), healthUrl: `https://127.0.0.1:${port}/healthz` };
}

/** The name of the adapter's serving pair in the cluster's PKI folder (made by `up` with pki.ts's ensureServingPair). */
export const METRICS_ADAPTER_PAIR = 'metrics-adapter';

function metricsAdapterPair(l: Layout): { certFile: string; keyFile: string } {
  return { certFile: join(l.pkiDir, `${METRICS_ADAPTER_PAIR}.crt`), keyFile: join(l.pkiDir, `${METRICS_ADAPTER_PAIR}.key`) };
}

/** The model-load simulation, restarted when its delays change. */
function modelLoadComponent(l: Layout, delays: ModelLoadDelays): Component {
  const flags = modelLoadArgs({ ...delays, kubeconfig: l.kubeconfigPath, healthPort: l.ports.modelLoad });
  return nodeComponent(l, 'model-load', MODEL_LOAD_SCRIPT, flags, l.ports.modelLoad);
}

/** The simulated gpu-provisioner, restarted when its delays or its Karpenter mode change. */
function provisionerComponent(l: Layout, delays: Delays, karpenter: boolean): Component {
  const flags = provisionerArgs({ ...delays, kubeconfig: l.kubeconfigPath, clusterName: 'kaito-ts-sim', healthPort: l.ports.provisioner, karpenter });
  return nodeComponent(l, 'gpu-provisioner', PROVISIONER_SCRIPT, flags, l.ports.provisioner);
}

/** How the supervisor's Node process is told apart from other node processes (any checkout). */
export const SUPERVISOR_SCRIPT = 'dist/src/simcluster/supervisor/main.js';

export interface SupervisorCommand {
  binary: string;
  args: string[];
  script: string;
}

/** The supervisor `up` starts: this checkout's script, the state folder, the port offset, every memory limit and the opt-ins. */
export function supervisorCommand(l: Layout, memoryLimits: string, optIns: OptIns = {}): SupervisorCommand {
  const portOffset = l.ports.etcd - DEFAULT_PORTS.etcd;
  return {
    binary: l.nodeBinary,
    args: [
      join(l.projectRoot, SUPERVISOR_SCRIPT),
      `--state-dir=${l.stateDir}`,
      `--port-offset=${portOffset}`,
      `--memory-limits=${memoryLimits}`,
      ...(optIns.modelLoad ? [`--${MODEL_LOAD_FLAG}=${formatModelLoad(optIns.modelLoad)}`] : []),
      ...(optIns.karpenter ? ['--karpenter'] : []),
      ...(optIns.keda ? ['--keda'] : []),
    ],
    script: SUPERVISOR_SCRIPT,
  };
}
