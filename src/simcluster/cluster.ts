// `simcluster up | down | status | env`: starts the control plane from the cached binaries, keeps pid
// files and logs under .simcluster/, and makes the GPU nodes and NVMe storage exist.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { karpenterCrdPaths, kwokStagesPath, missingBuildOutputs, missingKarpenterOutputs, missingKedaOutputs, nodeClaimCrdPath, runBuild } from './binaries.js';
import {
  components,
  METRICS_ADAPTER_PAIR,
  everyComponent,
  modelLoadOfArgs,
  OPT_IN_COMPONENTS,
  supervisorCommand,
  SUPERVISOR_SCRIPT,
  type Component,
  type ComponentName,
  type OptIns,
  type SupervisorCommand,
} from './components.js';
import { installCrd } from './crds.js';
import { isNotFound } from '../runtime/errors.js';
import { clientCert, componentHealthy, portFree, stopComponent } from './health.js';
import { adminKubeconfig } from './kubeconfig.js';
import { layoutFor, pidPath, type Layout } from './layout.js';
import { withLock } from './lock.js';
import { addNodes, isNodeReady, loadNodePools, scalePools, type NodePool } from './nodes.js';
import { ensurePki, ensureServingPair } from './pki.js';
import { ADAPTER_DNS_NAMES, registerMetricsAdapter } from './metrics-adapter/registration.js';
import { installKedaApi, KEDA_ADAPTER_SERVICE, writeKedaCerts } from './keda/keda.js';
import { isOurProcess, processArgs, readPid, startDetached, stopProcess } from './process.js';
import { resolveDelays, type Delays } from './provisioner/provisioner-options.js';
import { formatMemoryLimits, resolveMemoryLimits } from './supervision.js';
import { readSupervisorState, type RestartRecord } from './supervisor/state.js';
import { ensureStorage, recycleReleasedPvs } from './storage.js';
import { kwokInstanceTypes, withheldSkus } from './karpenter/instance-types.js';
import { withModelLoadStages } from './kwok-stages.js';
import { parseModelLoad, resolveModelLoad, type ModelLoadDelays } from './model-load/model-load-options.js';

export interface ClusterInfo {
  kubeconfigPath: string;
  binDir: string;
}

export interface UpOptions {
  nodesFile?: string;
  /** pool name → node count, applied over the nodes file. */
  scale?: Record<string, number>;
  /** The simulated provisioner's delays (over KAITO_TS_SIM_* env and the defaults); a change restarts it. */
  provisioner?: Partial<Delays>;
  /** `name=size` entries over KAITO_TS_SIM_MEMORY_LIMITS and the defaults; a change restarts the supervisor. */
  memoryLimits?: string[];
  /** Also run Karpenter's kwok provider (default: KAITO_TS_SIM_KARPENTER=1); `up` never stops a running one. */
  karpenter?: boolean;
  /** Also run KEDA, whose metrics server then serves the external metrics API (default: KAITO_TS_SIM_KEDA=1); a running KEDA stays. */
  keda?: boolean;
  /**
   * Also run the model-load simulation with these delays (default: KAITO_TS_SIM_MODEL_LOAD); other delays
   * restart it; `up` without it keeps a running one with its delays.
   */
  modelLoad?: ModelLoadDelays;
  log?: (line: string) => void;
}

/** The env var that asks `up`, the e2e harness and the bench for Karpenter. */
export const KARPENTER_ENV = 'KAITO_TS_SIM_KARPENTER';

/** The env var that asks `up` and the e2e harness for KEDA. */
export const KEDA_ENV = 'KAITO_TS_SIM_KEDA';

/** An explicit choice, else the env var `key` set to 1 or true. */
function wanted(env: NodeJS.ProcessEnv, key: string, explicit?: boolean): boolean {
  return explicit ?? ['1', 'true'].includes((env[key] ?? '').toLowerCase());
}

export function karpenterWanted(env: NodeJS.ProcessEnv, explicit?: boolean): boolean {
  return wanted(env, KARPENTER_ENV, explicit);
}

export function kedaWanted(env: NodeJS.ProcessEnv, explicit?: boolean): boolean {
  return wanted(env, KEDA_ENV, explicit);
}

export interface ComponentStatus {
  name: string;
  pid?: number;
  running: boolean;
  healthy: boolean;
  /** Restarts by the supervisor, and the last one. */
  restarts: number;
  lastRestart?: RestartRecord;
}

const silent = (): void => undefined;

function pidFile(l: Layout, c: Component): string {
  return pidPath(l, c.name);
}

function runningPid(l: Layout, c: Component): number | undefined {
  const pid = readPid(pidFile(l, c));
  return pid !== undefined && isOurProcess(pid, c.binary, c.script) ? pid : undefined;
}

const healthy = componentHealthy;

export function adminKubeConfig(l: Layout = layoutFor()): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(l.kubeconfigPath);
  return kc;
}

/** Polls `check` every `intervalMs` until it returns true; throws `what` after `timeoutMs`; a throwing check ends the wait. */
async function until(what: string, timeoutMs: number, check: () => Promise<boolean>, intervalMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

function elapsed(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)}s`;
}

/** The pid of opt-in component `name` when its pid file names a live process of this cluster. */
function optInPid(l: Layout, name: ComponentName): number | undefined {
  const c = everyComponent(l).find((x) => x.name === name);
  return c && runningPid(l, c);
}

/** The delays of a running model-load simulation, from its command line. */
function runningModelLoad(l: Layout): ModelLoadDelays | undefined {
  const pid = optInPid(l, 'model-load');
  const spec = pid === undefined ? undefined : modelLoadOfArgs(processArgs(pid));
  return spec === undefined ? undefined : parseModelLoad(spec, `the running model-load simulation (pid ${pid})`);
}

async function startComponent(l: Layout, c: Component, log: (line: string) => void): Promise<void> {
  const logFile = join(l.logDir, `${c.name}.log`);
  const running = runningPid(l, c);
  if (running !== undefined && c.stale?.(processArgs(running))) {
    log(`${c.name} (pid ${running}) runs with an outdated command line; restarting it`);
    await stopComponent(running, c);
  }
  if (runningPid(l, c) === undefined) {
    const t0 = Date.now();
    for (const port of c.ports) {
      if (!(await portFree(port)))
        throw new Error(`cannot start ${c.name}: 127.0.0.1:${port} is taken by a process that is not this cluster's (see: ss -ltnp)`);
    }
    const pid = startDetached(c.binary, c.args, logFile, pidFile(l, c), c.env);
    await until(`${c.name} (pid ${pid}) to serve ${c.healthUrl}; see ${logFile}`, 120_000, async () => {
      if (!isOurProcess(pid, c.binary, c.script)) throw new Error(`${c.name} exited at start-up; see ${logFile}`);
      return healthy(l, c);
    });
    log(`${c.name} ready (pid ${pid}, ${elapsed(t0)})`);
  }
}

function writeConfigFiles(l: Layout): void {
  for (const dir of [l.runDir, l.logDir, l.etcdDir, l.certDir]) mkdirSync(dir, { recursive: true });
  const cert = clientCert(l);
  writeFileSync(
    l.kubeconfigPath,
    adminKubeconfig({ server: `https://127.0.0.1:${l.ports.apiserver}`, caFile: cert.caFile, certFile: cert.certFile, keyFile: cert.keyFile }),
  );
}

async function waitForNodesReady(kc: KubeConfig, names: string[], timeoutMs: number): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const wanted = new Set(names);
  await until(`${names.length} nodes Ready`, timeoutMs, async () => {
    const nodes = await core.listNode().catch(() => undefined);
    return nodes?.items.filter((n) => wanted.has(n.metadata?.name ?? '') && isNodeReady(n)).length === wanted.size;
  });
}

async function waitForDefaultServiceAccount(kc: KubeConfig): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await until('the default ServiceAccount', 60_000, async () => {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  });
}

export function selectedPools(l: Layout, opts: UpOptions): NodePool[] {
  return scalePools(loadNodePools(opts.nodesFile ?? l.defaultNodesFile), opts.scale ?? {});
}

/** Starts the supervisor unless it runs with exactly these flags (other memory limits restart it). */
async function ensureSupervisor(l: Layout, cmd: SupervisorCommand, log: (line: string) => void): Promise<void> {
  const pid = readPid(pidPath(l, 'supervisor'));
  if (pid !== undefined && isOurProcess(pid, cmd.binary, cmd.script)) {
    if (isDeepStrictEqual(processArgs(pid).slice(1), cmd.args.slice(1))) return;
    log(`supervisor (pid ${pid}) runs with other flags; restarting it`);
    await stopProcess(pid, cmd.binary, 5_000, cmd.script);
  }
  if (!existsSync(cmd.args[0] ?? '')) throw new Error(`cannot start the supervisor: ${cmd.args[0]} is missing (run npm run build)`);
  const started = startDetached(cmd.binary, cmd.args, join(l.logDir, 'supervisor.log'), pidPath(l, 'supervisor'));
  log(`supervisor started (pid ${started}): restarts a component that exits or passes its memory limit`);
}

async function stopSupervisor(l: Layout): Promise<'stopped' | 'killed' | 'absent'> {
  const pid = readPid(pidPath(l, 'supervisor'));
  return pid === undefined ? 'absent' : stopProcess(pid, l.nodeBinary, 5_000, SUPERVISOR_SCRIPT);
}

/**
 * Builds what is missing, starts whatever component is not running, then makes the nodes and the
 * storage exist and recycles Released NVMe volumes. Cheap when everything already runs.
 */
export async function up(opts: UpOptions = {}): Promise<ClusterInfo> {
  const log = opts.log ?? silent;
  const l = layoutFor();
  const pools = selectedPools(l, opts);
  const limits = resolveMemoryLimits(process.env, opts.memoryLimits);
  return withLock(
    l.lockPath,
    () => log('waiting for another simcluster up/down to finish'),
    async () => {
      const t0 = Date.now();
      // A running Karpenter stays: another test may be using it.
      const karpenter = karpenterWanted(process.env, opts.karpenter) || optInPid(l, 'karpenter') !== undefined;
      const keda = kedaWanted(process.env, opts.keda) || optInPid(l, 'keda-operator') !== undefined;
      const modelLoad = resolveModelLoad(process.env, opts.modelLoad) ?? runningModelLoad(l);
      await ensureBuilt(l.binDir, l.buildScript, () => missingBuildOutputs(l.binDir, l.versions.karpenter), log);
      if (karpenter) await ensureBuilt(l.karpenterBinDir, l.karpenterBuildScript, () => missingKarpenterOutputs(l), log);
      if (keda) await ensureBuilt(l.kedaBinDir, l.kedaBuildScript, () => missingKedaOutputs(l), log);
      await ensurePki(l.pkiDir);
      await ensureServingPair(l.pkiDir, METRICS_ADAPTER_PAIR, ADAPTER_DNS_NAMES);
      if (keda) await writeKedaCerts(l);
      writeConfigFiles(l);
      // Written before kwok starts (again on every `up`: the stock Stages may have gained a Stage since).
      if (modelLoad) writeFileSync(l.modelLoadStagesPath, withModelLoadStages(readFileSync(kwokStagesPath(l.binDir), 'utf8')));
      const optIns = { karpenter, keda, ...(modelLoad ? { modelLoad } : {}) };
      const [etcd, apiserver, ...rest] = components(l, { delays: resolveDelays(process.env, opts.provisioner), ...optIns });
      const provisioner = rest.find((c) => c.name === 'gpu-provisioner');
      const karpenterComponent = rest.find((c) => c.name === 'karpenter');
      // Started after their CRDs, in order: the metrics server dials the operator.
      const kedaComponents = rest.filter((c) => c.name === 'keda-operator' || c.name === 'keda-adapter');
      if (!etcd || !apiserver || !provisioner) throw new Error('component list is incomplete');
      await startComponent(l, etcd, log);
      await startComponent(l, apiserver, log);
      await Promise.all(rest.filter((c) => c !== provisioner && c !== karpenterComponent && !kedaComponents.includes(c)).map((c) => startComponent(l, c, log)));

      const kc = adminKubeConfig(l);
      await waitForDefaultServiceAccount(kc);
      // One APIService per group-version: KEDA's metrics server takes it on a cluster with KEDA.
      if (!keda) await registerMetricsAdapter(kc, l.ports.metricsAdapter, join(l.pkiDir, 'ca.crt'));
      // The provisioner lists NodeClaims from its first second: the CRDs come first.
      await installClaimCrds(kc, l, karpenter);
      await startComponent(l, provisioner, log);
      if (karpenterComponent) {
        writeFileSync(l.instanceTypesPath, `${JSON.stringify(kwokInstanceTypes(loadNodePools(l.defaultNodesFile), withheldSkus()), null, 2)}\n`);
        await startComponent(l, karpenterComponent, log);
      }
      if (keda) {
        await installKedaApi(kc, l);
        for (const c of kedaComponents) await startComponent(l, c, log);
        await registerMetricsAdapter(kc, l.ports.kedaAdapter, join(l.pkiDir, 'ca.crt'), KEDA_ADAPTER_SERVICE);
      }
      await ensureSupervisor(l, supervisorCommand(l, formatMemoryLimits(limits), optIns), log);
      const names = await addNodes(kc, pools, l.versions.k8s);
      await ensureStorage(kc, pools);
      await waitForNodesReady(kc, names, 120_000);
      const recycled = await recycleReleasedPvs(kc);
      if (recycled.length > 0) log(`recycled ${recycled.length} Released NVMe volume(s)`);
      log(`cluster ready: ${names.length} GPU nodes (${elapsed(t0)})`);
      return { kubeconfigPath: l.kubeconfigPath, binDir: l.binDir };
    },
  );
}

/**
 * Without Karpenter: KAITO v0.8.0's NodeClaim CRD (Karpenter v1.6.2), kept as found. With it: Karpenter's
 * own NodeClaim, NodePool, NodeOverlay and KWOKNodeClass CRDs, replacing the older NodeClaim CRD.
 */
async function installClaimCrds(kc: KubeConfig, l: Layout, karpenter: boolean): Promise<void> {
  if (!karpenter) {
    await installCrd(kc, nodeClaimCrdPath(l.binDir, l.versions.karpenter), { source: `sigs.k8s.io/karpenter@${l.versions.karpenter}` });
    return;
  }
  const source = `sigs.k8s.io/karpenter@${l.versions.karpenterKwok}`;
  for (const file of karpenterCrdPaths(l)) await installCrd(kc, file, { source, replace: true });
}

async function ensureBuilt(binDir: string, script: string, missing: () => string[], log: (line: string) => void): Promise<void> {
  if (missing().length === 0) return;
  const t0 = Date.now();
  log(`building missing binaries into ${binDir} (the first build takes a while; progress follows)`);
  await runBuild(script, log);
  const still = missing();
  if (still.length > 0) throw new Error(`build finished but ${still.join(', ')} missing in ${binDir}`);
  log(`build done (${elapsed(t0)})`);
}

/** Every component's pid alive and healthy (the opt-ins' too when asked for), without touching the API objects. */
export async function isRunning(l: Layout = layoutFor(), optIns: OptIns = {}): Promise<boolean> {
  if (!existsSync(l.kubeconfigPath)) return false;
  const all = components(l, optIns);
  if (all.some((c) => runningPid(l, c) === undefined)) return false;
  const apiserver = all.find((c) => c.name === 'kube-apiserver');
  return apiserver !== undefined && healthy(l, apiserver);
}

/**
 * For tests: reuse a running cluster as is (no lock, no API writes: a parallel test may have removed
 * the storage class on purpose), otherwise start it. Throws when it cannot start, so tests fail.
 */
export async function ensureCluster(opts: UpOptions = {}): Promise<ClusterInfo> {
  const l = layoutFor();
  const modelLoad = resolveModelLoad(process.env, opts.modelLoad);
  const optIns = { karpenter: karpenterWanted(process.env, opts.karpenter), keda: kedaWanted(process.env, opts.keda), ...(modelLoad ? { modelLoad } : {}) };
  if (await isRunning(l, optIns)) return { kubeconfigPath: l.kubeconfigPath, binDir: l.binDir };
  return up(opts);
}

/** Stops every component by pid (reverse start order) and removes the state folder. */
export async function down(log: (line: string) => void = silent): Promise<{ stopped: string[] }> {
  const l = layoutFor();
  if (!existsSync(l.stateDir)) return { stopped: [] };
  const stopped: string[] = [];
  await withLock(
    l.lockPath,
    () => log('waiting for another simcluster up/down to finish'),
    async () => {
      const stop = async (c: Component): Promise<void> => {
        const pid = readPid(pidFile(l, c));
        if (pid === undefined) return;
        const result = await stopComponent(pid, c);
        if (result !== 'absent') {
          stopped.push(c.name);
          log(`${c.name} (pid ${pid}) ${result}`);
        }
      };
      // The supervisor first, so it restarts nothing; then clients (in parallel), the apiserver, etcd.
      const supervisor = await stopSupervisor(l);
      if (supervisor !== 'absent') {
        stopped.push('supervisor');
        log(`supervisor ${supervisor}`);
      }
      const [etcd, apiserver, ...clients] = everyComponent(l);
      await Promise.all(clients.map(stop));
      for (const c of [apiserver, etcd]) if (c) await stop(c);
      // Keep the lock until the end; withLock removes it.
      for (const entry of readdirSync(l.stateDir)) {
        if (join(l.stateDir, entry) !== l.lockPath) rmSync(join(l.stateDir, entry), { recursive: true, force: true });
      }
    },
  );
  rmSync(l.stateDir, { recursive: true, force: true });
  return { stopped };
}

export interface ClusterStatus {
  components: ComponentStatus[];
  supervisor?: { pid: number };
  kubeconfigPath: string;
  binDir: string;
  nodes?: { name: string; ready: boolean }[];
}

export async function status(): Promise<ClusterStatus> {
  const l = layoutFor();
  const supervisorPid = readPid(pidPath(l, 'supervisor'));
  const supervising = supervisorPid !== undefined && isOurProcess(supervisorPid, l.nodeBinary, SUPERVISOR_SCRIPT);
  const restarts = readSupervisorState(l.supervisorStatePath)?.components ?? {};
  // An opt-in component is listed once it has a pid file (it was started on this cluster).
  const shown = everyComponent(l).filter((c) => !OPT_IN_COMPONENTS.includes(c.name) || existsSync(pidPath(l, c.name)));
  const list = await Promise.all(
    shown.map(async (c): Promise<ComponentStatus> => {
      const pid = runningPid(l, c);
      const r = restarts[c.name];
      return {
        name: c.name,
        ...(pid !== undefined ? { pid } : {}),
        running: pid !== undefined,
        healthy: pid !== undefined && (await healthy(l, c)),
        restarts: r?.restarts ?? 0,
        ...(r?.last ? { lastRestart: r.last } : {}),
      };
    }),
  );
  const apiserverUp = list.find((c) => c.name === 'kube-apiserver')?.healthy === true;
  let nodes: { name: string; ready: boolean }[] | undefined;
  if (apiserverUp) {
    const core = adminKubeConfig(l).makeApiClient(CoreV1Api);
    nodes = (await core.listNode()).items.map((n) => ({ name: n.metadata?.name ?? '', ready: isNodeReady(n) }));
  }
  return {
    components: list,
    ...(supervising ? { supervisor: { pid: supervisorPid } } : {}),
    kubeconfigPath: l.kubeconfigPath,
    binDir: l.binDir,
    ...(nodes ? { nodes } : {}),
  };
}

/** Shell lines for `eval "$(kaito-ts simcluster env)"`. */
export function envLines(l: Layout = layoutFor()): string {
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  return `export KUBECONFIG=${q(l.kubeconfigPath)}\nexport PATH=${q(l.binDir)}:"$PATH"\n`;
}
