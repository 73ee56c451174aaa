// Where the local control plane lives: pinned versions, the binary cache, the project's state folder
// and the ports. Pure apart from `layoutFor`, which reads the environment and the versions file.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Versions {
  k8s: string;
  etcd: string;
  kwok: string;
  /** sigs.k8s.io/karpenter, whose NodeClaim CRD `up` installs (not part of the binary cache key). */
  karpenter: string;
  /** sigs.k8s.io/karpenter whose kwok provider `up --karpenter` runs, with its CRDs (its own cache folder). */
  karpenterKwok: string;
  /** github.com/kedacore/keda/v2, whose operator and metrics server a cluster with KEDA runs (its own cache folder). */
  keda: string;
}

/**
 * Uncommon ports, so the bed never collides with a real cluster, a stray etcd, or the 16443/23791
 * that ad-hoc test apiservers on this host like to use.
 */
export interface Ports {
  etcd: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
  kwok: number;
  /** The simulated GPU provisioner's health endpoint. */
  provisioner: number;
  /** Karpenter (opt-in) binds both on every interface: its options take a port, not an address. */
  karpenterHealth: number;
  karpenterMetrics: number;
  /** The model-load simulation's health endpoint (opt-in). */
  modelLoad: number;
  /** The external metrics adapter (HTTPS, reached by the aggregation layer). */
  metricsAdapter: number;
  /** KEDA's operator (opt-in): health, Prometheus metrics and the gRPC metrics service its metrics server calls. */
  kedaOperatorHealth: number;
  kedaOperatorMetrics: number;
  kedaMetricsService: number;
  /** KEDA's metrics server: external.metrics.k8s.io over HTTPS, and its own /metrics (bound on every interface: it takes only a port). */
  kedaAdapter: number;
  kedaAdapterMetrics: number;
}

export const DEFAULT_PORTS: Ports = {
  etcd: 27379,
  etcdPeer: 27380,
  apiserver: 27443,
  controllerManager: 27257,
  scheduler: 27259,
  kwok: 27247,
  provisioner: 27248,
  karpenterHealth: 27249,
  karpenterMetrics: 27250,
  modelLoad: 27251,
  metricsAdapter: 27253,
  kedaOperatorHealth: 27252,
  kedaOperatorMetrics: 27254,
  kedaMetricsService: 27255,
  kedaAdapter: 27256,
  kedaAdapterMetrics: 27258,
};

/** KAITO_TS_SIM_PORT_OFFSET moves every port, so a second cluster (another state dir) can run beside the first. */
export function shiftPorts(ports: Ports, offset: number): Ports {
  return Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, v + offset])) as unknown as Ports;
}

export interface Layout {
  projectRoot: string;
  versions: Versions;
  /** Built binaries, shared by every checkout on the machine (keyed on the versions). */
  binDir: string;
  buildScript: string;
  /** Karpenter's kwok provider and its CRDs (simcluster/build-karpenter.sh). */
  karpenterBinDir: string;
  karpenterBuildScript: string;
  /** KEDA's operator and metrics server and their CRDs (simcluster/build-keda.sh). */
  kedaBinDir: string;
  kedaBuildScript: string;
  /** ca.crt, tls.crt and tls.key for KEDA's gRPC link and its metrics server, written by `up` from the cluster's PKI. */
  kedaCertDir: string;
  /** The instance types `up --karpenter` writes from the GPU SKU catalog for Karpenter to read. */
  instanceTypesPath: string;
  /** kwok's Stages with the model-load Stage, which `up --model-load` writes and gives kwok. */
  modelLoadStagesPath: string;
  defaultNodesFile: string;
  /** Everything below is per project and disposable (`simcluster down` removes it). */
  stateDir: string;
  pkiDir: string;
  runDir: string;
  logDir: string;
  etcdDir: string;
  certDir: string;
  kubeconfigPath: string;
  lockPath: string;
  /** The supervisor's record of restarts (`simcluster status` reads it). */
  supervisorStatePath: string;
  ports: Ports;
  /** The Node.js binary that runs the provisioner (the one running this code). */
  nodeBinary: string;
}

/** Parses `simcluster/versions.env` (KEY=value lines, `#` comments). */
export function parseVersions(text: string): Versions {
  const values = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq > 0)
      values.set(
        line.slice(0, eq).trim(),
        line
          .slice(eq + 1)
          .trim()
          .replace(/^["']|["']$/g, ''),
      );
  }
  const need = (key: string): string => {
    const v = values.get(key);
    if (!v) throw new Error(`versions.env: ${key} is missing`);
    return v;
  };
  return {
    k8s: need('K8S_VERSION'),
    etcd: need('ETCD_VERSION'),
    kwok: need('KWOK_VERSION'),
    karpenter: need('KARPENTER_VERSION'),
    karpenterKwok: need('KARPENTER_KWOK_VERSION'),
    keda: need('KEDA_VERSION'),
  };
}

/** Same key as simcluster/build.sh: changing a version selects another cache folder. */
export function binDirFor(versions: Versions, cacheRoot: string): string {
  return join(cacheRoot, 'simcluster', `k8s-${versions.k8s}-etcd-${versions.etcd}-kwok-${versions.kwok}`, 'bin');
}

/** Same key as simcluster/build-karpenter.sh. */
export function karpenterBinDirFor(versions: Versions, cacheRoot: string): string {
  return join(cacheRoot, 'simcluster', `karpenter-${versions.karpenterKwok}`, 'bin');
}

/** Same key as simcluster/build-keda.sh. */
export function kedaBinDirFor(versions: Versions, cacheRoot: string): string {
  return join(cacheRoot, 'simcluster', `keda-${versions.keda}`, 'bin');
}

/** dist/src/simcluster/layout.js and src/simcluster/layout.ts are both three levels below the root. */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

export function layoutFor(env: NodeJS.ProcessEnv = process.env): Layout {
  const projectRoot = env.KAITO_TS_PROJECT_ROOT ?? PROJECT_ROOT;
  const simDir = join(projectRoot, 'simcluster');
  const versions = parseVersions(readFileSync(join(simDir, 'versions.env'), 'utf8'));
  const cacheRoot = env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts');
  const stateDir = env.KAITO_TS_SIMCLUSTER_DIR ?? join(projectRoot, '.simcluster');
  return {
    projectRoot,
    versions,
    binDir: binDirFor(versions, cacheRoot),
    buildScript: join(simDir, 'build.sh'),
    karpenterBinDir: karpenterBinDirFor(versions, cacheRoot),
    karpenterBuildScript: join(simDir, 'build-karpenter.sh'),
    kedaBinDir: kedaBinDirFor(versions, cacheRoot),
    kedaBuildScript: join(simDir, 'build-keda.sh'),
    kedaCertDir: join(stateDir, 'keda-certs'),
    instanceTypesPath: join(stateDir, 'karpenter-instance-types.json'),
    modelLoadStagesPath: join(stateDir, 'kwok-stages-model-load.yaml'),
    defaultNodesFile: join(simDir, 'nodes.yaml'),
    stateDir,
    pkiDir: join(stateDir, 'pki'),
    runDir: join(stateDir, 'run'),
    logDir: join(stateDir, 'logs'),
    etcdDir: join(stateDir, 'etcd'),
    certDir: join(stateDir, 'certs'),
    kubeconfigPath: join(stateDir, 'admin.kubeconfig'),
    lockPath: join(stateDir, '.lock'),
    supervisorStatePath: join(stateDir, 'supervisor.json'),
    ports: shiftPorts(DEFAULT_PORTS, Number.parseInt(env.KAITO_TS_SIM_PORT_OFFSET ?? '0', 10) || 0),
    nodeBinary: process.execPath,
  };
}

export const BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok', 'kubectl'] as const;

/** `run/<name>.pid`: where `up`, the supervisor and `down` find a process. */
export function pidPath(l: Layout, name: string): string {
  return join(l.runDir, `${name}.pid`);
}
