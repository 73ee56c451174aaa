// Operator end-to-end support: the CRD, an operator per test (in-process or as a child process),
// private simulated node pools, and small readers of workspace state.
//
// Why private pools: other engineers' tests (and manual smoke tests) hold GPUs on the shared a100 /
// h100 / a10 nodes at the same time. Each test adds its own nodes (same SKUs, labels and NVMe PVs as
// the shared pools, pool label `kaito.sh/sim-pool: <unique>`) and removes them afterwards, so GPU
// counts are exact and no test waits for another.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, Watch, type KubernetesObject, type V1Node } from '@kubernetes/client-node';
import { ANNOTATION_REVISION, WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import type { WorkspaceCondition } from '../../../src/api/types.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { createLogger } from '../../../src/manager/logging.js';
import { startManager, type RunningManager } from '../../../src/manager/manager.js';
import { parseManagerOptions } from '../../../src/manager/options.js';
import { isNodeReady } from '../../../src/simcluster/nodes.js';
import { localPvManifests } from '../../../src/simcluster/storage.js';
import { addNodes, bed, freshNamespace, isAlreadyExists, isNotFound, kubectl, nodeNames, removeNodes, uniqueName, waitFor, type NodePool } from '../harness.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
export const CRD_PATH = join(ROOT, 'config', 'crd', 'kaito.sh_workspaces.yaml');
export const INFERENCESET_CRD_PATH = join(ROOT, 'config', 'crd', 'kaito.sh_inferencesets.yaml');
export const CLI_PATH = join(ROOT, 'bin', 'kaito-ts.js');

/** Installs (or updates) the Workspace and InferenceSet CRDs and waits until it is served. Idempotent. */
export async function installCrd(): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=kaito-ts-e2e', '-f', CRD_PATH]);
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=kaito-ts-e2e', '-f', INFERENCESET_CRD_PATH]);
  await kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/workspaces.kaito.sh', 'crd/inferencesets.kaito.sh']);
}

// --- node pools ---------------------------------------------------------------------------------

/** SKU shapes of the shared pools (simcluster/nodes.yaml), reused for private pools. */
export const Sku = {
  a100: {
    instanceType: 'Standard_NC24ads_A100_v4',
    gpu: { product: 'NVIDIA-A100-80GB-PCIe', count: 1, memoryMiB: 81920 },
    cpu: '24',
    memory: '220Gi',
    nvme: { volumes: 2, size: '1000Gi' },
  },
  h100: {
    instanceType: 'Standard_NC80adis_H100_v5',
    gpu: { product: 'NVIDIA-H100-NVL', count: 2, memoryMiB: 96256 },
    cpu: '80',
    memory: '640Gi',
    nvme: { volumes: 2, size: '1000Gi' },
  },
  a10: { instanceType: 'Standard_NV36ads_A10_v5', gpu: { product: 'NVIDIA-A10', count: 1, memoryMiB: 24576 }, cpu: '36', memory: '440Gi' },
} satisfies Record<string, Omit<NodePool, 'name' | 'count'>>;

export function pool(sku: keyof typeof Sku, count: number, name = uniqueName(`e2e${sku}`)): NodePool {
  return { name, count, ...Sku[sku] };
}

/** Creates the pools' nodes and their local NVMe PVs (never the StorageClass) and waits until the nodes are Ready. */
export async function createPools(pools: NodePool[]): Promise<void> {
  const { kc } = await bed();
  const core = kc.makeApiClient(CoreV1Api);
  await addNodes(kc, pools);
  await Promise.all(
    localPvManifests(pools).map(async (body) => {
      try {
        await core.createPersistentVolume({ body });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }),
  );
  const names = pools.flatMap(nodeNames);
  await waitFor(
    `nodes ${names.join(',')} Ready`,
    async () => {
      const nodes = await Promise.all(names.map((name) => core.readNode({ name })));
      return nodes.every(isNodeReady);
    },
    { timeoutMs: 30_000 },
  );
}

export async function deletePools(pools: NodePool[]): Promise<void> {
  const { kc } = await bed();
  const core = kc.makeApiClient(CoreV1Api);
  await removeNodes(kc, pools);
  await Promise.all(
    localPvManifests(pools).map(async (pv) => {
      try {
        await core.deletePersistentVolume({ name: pv.metadata?.name ?? '' });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }),
  );
}

export function selectorFor(p: NodePool): { matchLabels: Record<string, string> } {
  return { matchLabels: { 'kaito.sh/sim-pool': p.name } };
}

// --- the operator -------------------------------------------------------------------------------

export interface TestOperator {
  mgr: RunningManager;
  /** API write requests (create/update/patch/apply/delete) this operator sent so far. */
  writes(): number;
  /** Reconciles finished so far (any outcome). */
  reconciles(): number;
  stop(): Promise<void>;
}

/**
 * Starts the operator in this process, as `kaito-ts run` would with: BYO nodes, metrics off, health on
 * 127.0.0.1:0, scoped to `namespace`. KAITO_TS_E2E_LOG=debug|info shows its log on stderr.
 */
export async function startOperator(namespace: string, extraArgs: string[] = []): Promise<TestOperator> {
  const b = await bed();
  const opts = parseManagerOptions(runArgs(b.kubeconfigPath, namespace, extraArgs));
  if (opts === 'help') throw new Error('unexpected help');
  const level = process.env.KAITO_TS_E2E_LOG ?? 'silent';
  const mgr = await startManager(opts, createLogger({ level, destination: process.stderr, bindings: { ns: namespace } }));
  let stopped = false;
  return {
    mgr,
    writes: () => mgr.client.counter.writes,
    reconciles: () => Object.values(mgr.workspace.controller.metrics.reconciles).reduce((a, b) => a + b, 0),
    async stop() {
      if (stopped) return;
      stopped = true;
      await mgr.stop(10_000);
    },
  };
}

/** `kaito-ts run` flags of a test operator, in process or as a child: metrics off, health on a free port. */
function runArgs(kubeconfigPath: string, namespace: string, extraArgs: string[]): string[] {
  return [
    '--kubeconfig',
    kubeconfigPath,
    ...gatesUnlessGiven(extraArgs),
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    '--namespace',
    namespace,
    ...extraArgs,
  ];
}

/** Bring-your-own nodes unless the test names its own feature gates (node auto-provisioning tests). */
function gatesUnlessGiven(extraArgs: string[]): string[] {
  return extraArgs.some((a) => a.startsWith('--feature-gates')) ? [] : ['--feature-gates', 'disableNodeAutoProvisioning=true'];
}

/** Node auto-provisioning (KAITO's default mode) against the simulated gpu-provisioner. */
export const NAP_ARGS = ['--feature-gates', 'disableNodeAutoProvisioning=false'];

/** `node bin/kaito-ts.js run …` as a child process (for SIGKILL tests). Output goes to the returned buffer. */
export async function spawnOperator(namespace: string, extraArgs: string[] = []): Promise<{ child: ChildProcess; output: () => string }> {
  const b = await bed();
  const child = spawn(process.execPath, [CLI_PATH, 'run', ...runArgs(b.kubeconfigPath, namespace, extraArgs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CLOUD_PROVIDER: 'azure' },
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => void (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => void (out += d.toString()));
  return { child, output: () => out };
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

// --- one test's world ---------------------------------------------------------------------------

export interface World {
  ns: string;
  pools: NodePool[];
  op?: TestOperator;
  start(extraArgs?: string[]): Promise<TestOperator>;
}

/**
 * A fresh namespace, the CRD, private node pools and (unless `operator: false`) a running operator.
 * Teardown order matters: workspaces carry our finalizer, so the namespace is deleted while the
 * operator still runs; finalizers left by a stopped operator are stripped; only then nodes go.
 */
export async function world(t: TestContext, o: { pools?: NodePool[]; operator?: boolean; operatorArgs?: string[] } = {}): Promise<World> {
  await installCrd();
  const pools = o.pools ?? [];
  const [ns] = await Promise.all([freshNamespace(undefined, 'op'), createPools(pools)]);
  const w: World = {
    ns,
    pools,
    async start(extraArgs = o.operatorArgs ?? []) {
      await w.op?.stop();
      w.op = await startOperator(ns, extraArgs);
      return w.op;
    },
  };
  t.after(async () => {
    if (process.env.KAITO_TS_KEEP_NAMESPACES) {
      await w.op?.stop();
      return;
    }
    await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
    await waitFor(`workspaces of ${ns} finalized`, async () => (await listWorkspaces(ns)).length === 0, { timeoutMs: 20_000 }).catch(async () => {
      for (const ws of await listWorkspaces(ns)) await stripFinalizer(ns, ws.metadata.name ?? '');
    });
    await w.op?.stop();
    await waitFor(`pods of ${ns} gone`, async () => (await kubectl(['get', 'pods', '-o', 'name'], { namespace: ns }).catch(() => '')).trim() === '', {
      timeoutMs: 30_000,
    }).catch(() => undefined);
    await deletePools(pools);
    // NodeClaims are cluster-scoped: whatever a failed test left of this namespace's goes too.
    if (o.operatorArgs)
      await kubectl(['delete', 'nodeclaims', '-l', `kaito.sh/workspacenamespace=${ns}`, '--wait=false', '--ignore-not-found']).catch(() => undefined);
  });
  if (o.operator !== false) await w.start();
  return w;
}

// --- workspace state ----------------------------------------------------------------------------

const WS = { group: 'kaito.sh', version: 'v1beta1', plural: 'workspaces' };

export async function applyWorkspace(ns: string, ws: Record<string, unknown>): Promise<void> {
  await kubectl(['apply', '-f', '-'], { namespace: ns, input: JSON.stringify({ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', ...ws }) });
}

export async function getWorkspace(ns: string, name: string): Promise<WorkspaceObject | undefined> {
  const api = (await bed()).kc.makeApiClient(CustomObjectsApi);
  try {
    return (await api.getNamespacedCustomObject({ ...WS, namespace: ns, name })) as WorkspaceObject;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function listWorkspaces(ns: string): Promise<WorkspaceObject[]> {
  const api = (await bed()).kc.makeApiClient(CustomObjectsApi);
  try {
    return ((await api.listNamespacedCustomObject({ ...WS, namespace: ns })) as { items: WorkspaceObject[] }).items;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

async function stripFinalizer(ns: string, name: string): Promise<void> {
  const ws = await getWorkspace(ns, name);
  if (!ws?.metadata.finalizers?.includes(WORKSPACE_FINALIZER)) return;
  const api = (await bed()).kc.makeApiClient(CustomObjectsApi);
  await api
    .patchNamespacedCustomObject(
      { ...WS, namespace: ns, name, body: { metadata: { finalizers: ws.metadata.finalizers.filter((f) => f !== WORKSPACE_FINALIZER) } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )
    .catch(() => undefined);
}

export function conditionOf(ws: WorkspaceObject | undefined, type: string): WorkspaceCondition | undefined {
  return ws?.status?.conditions?.find((c) => c.type === type);
}

/** Waits until condition `type` has `status` for the workspace's current generation; returns the workspace. */
export async function waitCondition(
  ns: string,
  name: string,
  type: string,
  status: 'True' | 'False',
  opts: { reason?: string; timeoutMs?: number } = {},
): Promise<WorkspaceObject> {
  let last = '';
  try {
    return await waitFor(
      `${ns}/${name} ${type}=${status}${opts.reason ? ` (${opts.reason})` : ''}`,
      async () => {
        const ws = await getWorkspace(ns, name);
        const c = conditionOf(ws, type);
        last = c ? `${c.status} ${c.reason}: ${c.message}` : 'absent';
        return c?.status === status && c.observedGeneration === ws?.metadata.generation && (!opts.reason || c.reason === opts.reason) ? ws : undefined;
      },
      { timeoutMs: opts.timeoutMs ?? 60_000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last ${type}: ${last}`);
  }
}

export const waitReady = (ns: string, name: string, timeoutMs = 60_000) => waitCondition(ns, name, 'InferenceReady', 'True', { timeoutMs });

/**
 * Waits until revision `revision` runs in the workspace's StatefulSet and no update is under way (a
 * serving workspace stays Ready while a surge stands in for it: Ready alone does not say the update is done).
 */
export async function waitRolledOut(ns: string, name: string, revision: number, timeoutMs = 120_000): Promise<WorkspaceObject> {
  return waitFor(
    `${ns}/${name} revision ${revision} rolled out`,
    async () => {
      const ws = await getWorkspace(ns, name);
      const sts = await getOne<KubernetesObject>(ns, 'statefulset', name);
      const ready = conditionOf(ws, 'InferenceReady');
      return (
        sts?.metadata?.annotations?.[ANNOTATION_REVISION] === String(revision) &&
        conditionOf(ws, 'Updating')?.status !== 'True' &&
        ready?.status === 'True' &&
        ready.observedGeneration === ws?.metadata.generation &&
        ws
      );
    },
    { timeoutMs },
  );
}

/** `kubectl get <kind> -o json` items. */
export async function getAll<T = KubernetesObject>(ns: string, kind: string, selector?: string): Promise<T[]> {
  const out = await kubectl(['get', kind, '-o', 'json', ...(selector ? ['-l', selector] : [])], { namespace: ns });
  return (JSON.parse(out) as { items: T[] }).items;
}

export async function getOne<T = KubernetesObject>(ns: string, kind: string, name: string): Promise<T | undefined> {
  const out = await kubectl(['get', kind, name, '-o', 'json', '--ignore-not-found'], { namespace: ns });
  return out.trim() ? (JSON.parse(out) as T) : undefined;
}

export async function warningEvents(ns: string, regarding: string): Promise<{ reason: string; note: string; resourceVersion: string }[]> {
  const items = await getAll<{ type?: string; reason?: string; note?: string; regarding?: { name?: string }; metadata: { resourceVersion?: string } }>(
    ns,
    'events.events.k8s.io',
  );
  return items
    .filter((e) => e.type === 'Warning' && e.regarding?.name === regarding)
    .map((e) => ({ reason: e.reason ?? '', note: e.note ?? '', resourceVersion: e.metadata.resourceVersion ?? '0' }));
}

// --- recording what happened, in etcd order -----------------------------------------------------

export interface Recorded<T = KubernetesObject> {
  type: string;
  rv: bigint;
  obj: T;
  /** Local arrival time (ms since epoch). */
  at: number;
}

/**
 * Watches a collection and keeps every event. One etcd backs the cluster, so resourceVersions of
 * different kinds are comparable: they order what happened across objects.
 */
export async function record<T extends KubernetesObject = KubernetesObject>(t: TestContext, path: string): Promise<Recorded<T>[]> {
  const { kc } = await bed();
  const events: Recorded<T>[] = [];
  let stopped = false;
  let current: AbortController | undefined;
  let lastRv: string | undefined;
  // The API server closes every watch of a kind when its CRD changes (another test applying the CRDs):
  // the recording goes on from the last resourceVersion it saw (bookmarks included), so no event is missed.
  const start = async (): Promise<void> => {
    current = await new Watch(kc).watch(
      path,
      { allowWatchBookmarks: true, ...(lastRv ? { resourceVersion: lastRv } : {}) },
      (type: string, obj: T) => {
        if (type === 'ERROR') return;
        lastRv = obj.metadata?.resourceVersion ?? lastRv;
        if (type === 'BOOKMARK') return;
        events.push({ type, rv: BigInt(obj.metadata?.resourceVersion ?? '0'), obj, at: Date.now() });
      },
      () => {
        if (!stopped) setTimeout(() => void start().catch(() => undefined), 200);
      },
    );
  };
  await start();
  t.after(() => {
    stopped = true;
    current?.abort();
  });
  return events;
}

export function nodeNamesOf(pools: NodePool[]): string[] {
  return pools.flatMap(nodeNames);
}

export async function setUnschedulable(node: string, unschedulable: boolean): Promise<void> {
  const core = (await bed()).kc.makeApiClient(CoreV1Api);
  await core.patchNode({ name: node, body: { spec: { unschedulable } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}

export async function readNode(name: string): Promise<V1Node> {
  return (await bed()).kc.makeApiClient(CoreV1Api).readNode({ name });
}

export { sleep };

/**
 * Once the operator is idle, two annotation touches of the workspace are reconciled with zero API
 * writes (what "a converged workspace costs nothing" means); fails with the per-verb counts otherwise.
 */
export async function assertNoWritesWhenTouched(op: TestOperator, ns: string, name: string): Promise<void> {
  // Let the last events (status write echo, pod updates) drain.
  await waitFor(
    'operator idle',
    async () => {
      const before = op.reconciles();
      await sleep(1500);
      return op.reconciles() === before && op.mgr.workspace.controller.queue.len === 0;
    },
    { timeoutMs: 20_000 },
  );
  const writes = op.writes();
  const reconciles = op.reconciles();
  const snapshot = JSON.stringify(op.mgr.client.counter.snapshot());
  for (const touch of [1, 2]) {
    await kubectl(['annotate', '--overwrite', 'workspace', name, `e2e.example/touch=${touch}`], { namespace: ns });
    await waitFor(`touch ${touch} reconciled`, async () => op.reconciles() >= reconciles + touch, { timeoutMs: 10_000 });
  }
  await sleep(1000);
  if (op.writes() !== writes) throw new Error(`writes changed: before ${snapshot}, after ${JSON.stringify(op.mgr.client.counter.snapshot())}`);
}
