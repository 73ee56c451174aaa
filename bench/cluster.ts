// Cluster-side steps of a run: the benchmark's own local cluster, its GPU nodes, CRD swaps, namespaces,
// workspaces, the volume check and the clean-up. Everything goes through the admin identity directly to the
// API server (never through the counting proxy), so none of it is charged to a controller.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, StorageV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { defaultTuningTemplate, TRAINING_CONFIG_KEY, TUNING_METHODS } from '../src/api/tuning-config.js';
import { builtinTrainingConfig } from '../src/builders/tuning/config.js';
import { INFERENCESET_PLURAL } from '../src/api/inferenceset-types.js';
import { GROUP, PLURAL, VERSION, type Workspace } from '../src/api/types.js';
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE, INFERENCE_CONFIG_KEY } from '../src/api/labels.js';
import { adminKubeConfig, isRunning, up } from '../src/simcluster/cluster.js';
import { installCrdObject } from '../src/simcluster/crds.js';
import { components, everyComponent } from '../src/simcluster/components.js';
import { probe, stopComponent } from '../src/simcluster/health.js';
import { isOurProcess, readPid, startDetached } from '../src/simcluster/process.js';
import { withPodReadyDelay } from '../src/simcluster/kwok-stages.js';
import { isAlreadyExists, isNotFound } from '../src/runtime/errors.js';
import { layoutFor, type Layout } from '../src/simcluster/layout.js';
import { withLock } from '../src/simcluster/lock.js';
import { POOL_LABEL, nodeNames, type NodePool } from '../src/simcluster/nodes.js';
import type { ModelLoadDelays } from '../src/simcluster/model-load/model-load-options.js';
import type { Delays } from '../src/simcluster/provisioner/provisioner-options.js';
import { NVME_STORAGE_CLASS, PV_NODE_LABEL, recycleReleasedPvs } from '../src/simcluster/storage.js';
import type { VolumeKind } from './controllers.js';
import { leaseHolders, nodeLeases, waitForLeaseTakeover } from './kwok-leases.js';
import { sampleProcess } from './proc.js';
import { volumeKindOf } from './results.js';

/**
 * Seconds kube-controller-manager's clients spent waiting on their own rate limiter so far (summed over
 * requests), from its /metrics; undefined when unreadable. A growing figure during a run means the
 * cluster's controllers (StatefulSet, endpoints, PV binder), not the operator under test, set the pace.
 */
export async function controllerManagerThrottleSeconds(l: Layout): Promise<number | undefined> {
  const { get } = await import('node:https');
  return new Promise((resolve) => {
    const req = get(
      { host: '127.0.0.1', port: l.ports.controllerManager, path: '/metrics', rejectUnauthorized: false, headers: { accept: 'text/plain' }, timeout: 5000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(sumMetric(text, 'rest_client_rate_limiter_duration_seconds_sum')));
      },
    );
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
  });
}

/** Sum of every sample of one metric family in Prometheus text format. */
export function sumMetric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(v)) sum += v;
  }
  return sum;
}

/** CPU ticks used so far by each control-plane process of the cluster (from its pid files). */
export async function controlPlaneCpuTicks(l: Layout): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  // The opt-ins' too when they run (Karpenter, the model-load simulation); a component without a pid file is skipped.
  for (const c of everyComponent(l)) {
    const pid = readPid(join(l.runDir, `${c.name}.pid`));
    const sample = pid !== undefined ? await sampleProcess(pid) : undefined;
    if (sample) out[c.name] = sample.cpuTicks;
  }
  return out;
}

/** Extra kube-controller-manager flags for a given client QPS (burst twice that); none for 0. */
export function controllerManagerArgs(qps: number): string[] {
  if (qps <= 0) return [];
  // Each of its controllers has its own client; 20/30 is the default. More StatefulSet workers too (default 5).
  // A long node grace period: with ~1000 kwok nodes on 2 busy cores, lease renewals can lag past the 50 s
  // default, and the node lifecycle controller then marks pods Ready=False, which kwok never flips back.
  return [`--kube-api-qps=${qps}`, `--kube-api-burst=${2 * qps}`, '--concurrent-statefulset-syncs=20', '--node-monitor-grace-period=10m'];
}

/**
 * Makes component `name` of the benchmark cluster run with exactly `args`, restarting it if it runs with
 * others. It goes through the simcluster's own pid file and log, so `simcluster status/down` keep working.
 * Never applied to the shared cluster.
 */
/** Returns whether it restarted the component. */
async function runComponentWith(l: Layout, name: string, args: string[], log: (line: string) => void): Promise<boolean> {
  const c = components(l).find((x) => x.name === name);
  if (!c) throw new Error(`the simcluster has no component ${name}`);
  const pidFile = join(l.runDir, `${c.name}.pid`);
  // Under the up/down lock: the supervisor must not restart the old command line in between.
  const started = await withLock(
    l.lockPath,
    () => undefined,
    async () => {
      const pid = readPid(pidFile);
      if (pid !== undefined && isOurProcess(pid, c.binary)) {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, -1);
        if (argv.length === args.length && argv.every((a, i) => a === args[i])) return undefined;
        if ((await stopComponent(pid, c)) === 'ports still taken') throw new Error(`${name} stopped, but its ports ${c.ports.join(', ')} were still taken`);
      }
      return startDetached(c.binary, args, join(l.logDir, `${c.name}.log`), pidFile);
    },
  );
  if (started === undefined) return false;
  for (let i = 0; !(await probe(c.healthUrl)); i++) {
    if (i > 300 || !isOurProcess(started, c.binary)) throw new Error(`${name} did not come back with ${args.join(' ')}; see ${l.logDir}`);
    await sleep(200);
  }
  const extra = args.filter((a) => !c.args.includes(a));
  log(`${name} restarted with ${extra.length > 0 ? extra.join(' ') : 'its default flags'}`);
  return true;
}

/** kube-controller-manager with `extra` flags on top of the simcluster's (none: as the simcluster starts it). */
export async function tuneControllerManager(l: Layout, extra: string[], log: (line: string) => void): Promise<void> {
  const kcm = components(l).find((c) => c.name === 'kube-controller-manager');
  if (kcm) await runComponentWith(l, kcm.name, [...kcm.args, ...extra], log);
}

/** kwok with the simcluster's Stages, or a copy whose pod-ready Stage waits `podReadyDelayMs`; after a restart, once it holds every node Lease. */
export async function tuneKwok(l: Layout, podReadyDelayMs: number, log: (line: string) => void): Promise<void> {
  const kwok = components(l).find((c) => c.name === 'kwok');
  if (!kwok) return;
  let args = kwok.args;
  if (podReadyDelayMs > 0) {
    const stock = kwok.args.find((a) => a.startsWith('--config='))?.slice('--config='.length);
    if (!stock) throw new Error('kwok runs without --config');
    const file = join(l.stateDir, `kwok-stages-pod-ready-${podReadyDelayMs}ms.yaml`);
    writeFileSync(file, withPodReadyDelay(readFileSync(stock, 'utf8'), podReadyDelayMs));
    args = kwok.args.map((a) => (a.startsWith('--config=') ? `--config=${file}` : a));
  }
  const kc = adminKubeConfig(l);
  const before = leaseHolders(await nodeLeases(kc));
  if (await runComponentWith(l, kwok.name, args, log)) await waitForLeaseTakeover(kc, before, log);
}

/** The benchmark's cluster sits beside the project's (another state folder, every port + this offset). */
export const BENCH_PORT_OFFSET = 1000;

/**
 * Points the simcluster layout at the benchmark's own cluster unless the caller chose one: CRD swaps and
 * hundreds of nodes must not disturb end-to-end tests on the shared cluster, nor their load the timings.
 */
export function selectBenchCluster(env: NodeJS.ProcessEnv, shared: boolean, cacheRoot: string): void {
  if (shared) return;
  env.KAITO_TS_SIMCLUSTER_DIR ??= join(cacheRoot, 'bench-simcluster');
  env.KAITO_TS_SIM_PORT_OFFSET ??= String(BENCH_PORT_OFFSET);
}

/**
 * Starts (or reuses) the cluster with exactly `pools` of benchmark nodes (extra nodes of those pools go)
 * and the provisioner's delays; `karpenter` also runs real Karpenter (a running one stays either way);
 * `modelLoad` runs the model-load simulation with those delays (kwok then plays its Stages: when `up`
 * restarts a running kwok for them, this waits until the new kwok holds every node Lease, as tuneKwok does).
 */
export async function prepareCluster(
  pools: NodePool[],
  log: (line: string) => void,
  provisioner?: Partial<Delays>,
  karpenter = false,
  modelLoad?: ModelLoadDelays,
): Promise<{ kc: KubeConfig; layout: Layout }> {
  const nodesFile = join(tmpdir(), `kaito-ts-bench-nodes-${process.pid}.yaml`);
  writeFileSync(nodesFile, stringify({ pools }));
  const kwokPid = (): number | undefined => readPid(join(layoutFor().runDir, 'kwok.pid'));
  const before = modelLoad && (await isRunning()) ? { pid: kwokPid(), holders: leaseHolders(await nodeLeases(adminKubeConfig())) } : undefined;
  await up({ nodesFile, log, ...(provisioner ? { provisioner } : {}), ...(karpenter ? { karpenter: true } : {}), ...(modelLoad ? { modelLoad } : {}) });
  const layout = layoutFor();
  const kc = adminKubeConfig(layout);
  if (before && kwokPid() !== before.pid) await waitForLeaseTakeover(kc, before.holders, log);
  const core = kc.makeApiClient(CoreV1Api);
  const wanted = new Set(pools.flatMap(nodeNames));
  const names = new Set(pools.map((p) => p.name));
  const nodes = await core.listNode();
  const extra = nodes.items
    .map((n) => n.metadata?.name ?? '')
    .filter((name, i) => !wanted.has(name) && names.has(nodes.items[i]?.metadata?.labels?.[POOL_LABEL] ?? ''));
  if (extra.length > 0) {
    log(`removing ${extra.length} node(s) this run does not need`);
    await inBatches(extra, 32, async (name) => {
      await ignoreNotFound(() => core.deleteNode({ name }));
      const pvs = await core.listPersistentVolume({ labelSelector: `${PV_NODE_LABEL}=${name}` });
      await Promise.all(pvs.items.map((pv) => ignoreNotFound(() => core.deletePersistentVolume({ name: pv.metadata?.name ?? '' }))));
    });
  }
  await recycleReleasedPvs(kc);
  return { kc, layout };
}

export async function storageClassExists(kc: KubeConfig): Promise<boolean> {
  try {
    await kc.makeApiClient(StorageV1Api).readStorageClass({ name: NVME_STORAGE_CLASS });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

async function ignoreNotFound(f: () => Promise<unknown>): Promise<void> {
  try {
    await f();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

export async function inBatches<T>(items: T[], width: number, f: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await f(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** Creates or replaces each CRD as given (source: the controller whose CRDs they are), each Established. */
export async function installCrds(kc: KubeConfig, crds: object[], source: string): Promise<void> {
  for (const crd of crds) await installCrdObject(kc, crd, { source, replace: true });
  // The API server swaps its handler for a changed CRD asynchronously; give it a moment.
  await sleep(2000);
}

async function createNamespaceIfMissing(core: CoreV1Api, name: string, labels: Record<string, string>): Promise<void> {
  try {
    await core.createNamespace({ body: { metadata: { name, labels } } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** The release namespace with the default inference ConfigMap that both controllers copy per workspace. */
/**
 * The release namespace as KAITO's chart leaves it: the default inference config and the two tuning
 * templates (KAITO's tuning reads them there; kaito-ts falls back to the same content built in).
 */
export async function ensureReleaseNamespace(kc: KubeConfig, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await createNamespaceIfMissing(core, name, {});
  const bodies = [
    {
      metadata: { name: DEFAULT_INFERENCE_CONFIG_TEMPLATE, namespace: name },
      data: { [INFERENCE_CONFIG_KEY]: 'vllm:\n  cpu-offload-gb: 0\n  swap-space: 4\n' },
    },
    ...TUNING_METHODS.map((m) => ({
      metadata: { name: defaultTuningTemplate(m), namespace: name },
      data: { [TRAINING_CONFIG_KEY]: builtinTrainingConfig(m) },
    })),
  ];
  for (const body of bodies) {
    try {
      await core.createNamespacedConfigMap({ namespace: name, body });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

const RUN_NAMESPACE_LABEL = 'kaito-ts.bench';

/**
 * Removes what an interrupted earlier run left: its namespace and workspaces. Otherwise the next controller
 * (which watches every namespace) would reconcile them too and their pods would hold GPUs.
 */
export async function removeStaleRunNamespaces(kc: KubeConfig, log: (line: string) => void): Promise<void> {
  const list = await kc.makeApiClient(CoreV1Api).listNamespace({ labelSelector: `${RUN_NAMESPACE_LABEL}=true` });
  for (const ns of list.items) {
    const name = ns.metadata?.name ?? '';
    log(`removing namespace ${name} left by an earlier run`);
    await removeRunNamespace(kc, name);
  }
}

/** A fresh namespace with its default ServiceAccount (pods are refused until it exists). */
export async function createRunNamespace(kc: KubeConfig, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await createNamespaceIfMissing(core, name, { [RUN_NAMESPACE_LABEL]: 'true' });
  for (let i = 0; ; i++) {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      return;
    } catch (err) {
      if (!isNotFound(err) || i > 300) throw err;
      await sleep(200);
    }
  }
}

export async function createWorkspaces(kc: KubeConfig, workspaces: Workspace[], width = 16): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  await inBatches(workspaces, width, async (ws) => {
    await api.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ws.metadata.namespace ?? '', plural: PLURAL, body: ws });
  });
}

/** StatefulSet name → model-weights volume kind, for every StatefulSet in the namespace. */
export async function volumeKinds(kc: KubeConfig, namespace: string): Promise<Map<string, VolumeKind>> {
  const list = await kc.makeApiClient(AppsV1Api).listNamespacedStatefulSet({ namespace });
  return new Map(list.items.map((s) => [s.metadata?.name ?? '', volumeKindOf(s)]));
}

async function listObjects(kc: KubeConfig, namespace: string, plural: string): Promise<{ metadata: { name?: string; finalizers?: string[] } }[]> {
  const list = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural })) as {
    items: { metadata: { name?: string; finalizers?: string[] } }[];
  };
  return list.items;
}

/** Asks for every workspace to go while its controller still runs (it owns the finalizer), waiting up to `timeoutMs`. */
export async function deleteWorkspaces(kc: KubeConfig, namespace: string, timeoutMs: number): Promise<number> {
  const api = kc.makeApiClient(CustomObjectsApi);
  // At 1000 workspaces the server answers the collection delete with a timeout after 60 s while it goes
  // on deleting: what counts is the poll below.
  await api.deleteCollectionNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL }).catch(() => undefined);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = (await listObjects(kc, namespace, PLURAL)).length;
    if (left === 0 || Date.now() > deadline) return left;
    await sleep(1000);
  }
}

/**
 * After the controller stopped: drops finalizers it left behind, deletes the namespace, waits until it is
 * gone, and makes the NVMe volumes its claims held Available again.
 */
export async function removeRunNamespace(kc: KubeConfig, namespace: string, timeoutMs = 600_000): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  // InferenceSets too (--scenario inferenceset); on a cluster without their CRD the list is a 404.
  for (const plural of [INFERENCESET_PLURAL, PLURAL]) {
    const items = await listObjects(kc, namespace, plural).catch((err: unknown) => {
      if (isNotFound(err)) return [];
      throw err;
    });
    for (const o of items) {
      if ((o.metadata.finalizers ?? []).length === 0) continue;
      await ignoreNotFound(() =>
        api.patchNamespacedCustomObject(
          { group: GROUP, version: VERSION, namespace, plural, name: o.metadata.name ?? '', body: { metadata: { finalizers: null } } },
          merge,
        ),
      );
    }
  }
  await ignoreNotFound(() => core.deleteNamespace({ name: namespace, propagationPolicy: 'Background' }));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await core.readNamespace({ name: namespace });
    } catch (err) {
      if (isNotFound(err)) break;
      throw err;
    }
    if (Date.now() > deadline) throw new Error(`namespace ${namespace} still exists after ${timeoutMs / 1000}s`);
    await sleep(1000);
  }
  await recycleReleasedPvs(kc);
}
