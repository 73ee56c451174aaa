// `npm run bench -- --workspaces N [--json FILE] [--controllers kaito-ts,kaito-v0.8.0]`: runs each controller
// in turn against the same cluster and the same N workspaces and prints (and optionally writes) the figures.
// `--scenario update`: the same for one workspace per controller, which then has its template changed while
// it serves (bench/update-cluster.ts). `--scenario inferenceset`: per controller an InferenceSet made at
// replicas 0 and scaled to N by one write of its scale subresource (bench/inferenceset.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Workspace } from '../src/api/types.js';
import { GROUP, PLURAL, VERSION } from '../src/api/types.js';
import { INFERENCESET_PLURAL, type InferenceSet } from '../src/api/inferenceset-types.js';
import { ANNOTATION_UPDATE_STRATEGY } from '../src/api/labels.js';
import { down, isRunning } from '../src/simcluster/cluster.js';
import { QWEN3_0_6B } from '../src/simcluster/fake-hub.js';
import { startHubStandIn, type HubStandIn } from '../src/simcluster/hub-standin.js';
import { adminKubeconfig } from '../src/simcluster/kubeconfig.js';
import { layoutFor, type Layout } from '../src/simcluster/layout.js';
import { loadNodePools, removeNodes, type NodePool } from '../src/simcluster/nodes.js';
import { BENCH_USAGE, BenchArgsError, parseBenchArgs, type BenchOptions } from './args.js';
import { freePort, startController, type RunningController } from './child.js';
import {
  controllerManagerArgs,
  controllerManagerThrottleSeconds,
  controlPlaneCpuTicks,
  createRunNamespace,
  createWorkspaces,
  deleteWorkspaces,
  ensureReleaseNamespace,
  installCrds,
  prepareCluster,
  removeRunNamespace,
  removeStaleRunNamespaces,
  selectBenchCluster,
  storageClassExists,
  tuneControllerManager,
  tuneKwok,
  volumeKinds,
} from './cluster.js';
import { CONTROLLERS, KAITO_VERSIONS, missingPrerequisite, nodeClassSpecFor, type ControllerId, type VolumeKind } from './controllers.js';
import { NODEPOOLS_PATH, removeKarpenterObjects, removeNodeClass, waitForKarpenterCleanup } from './karpenter-cluster.js';
import { KarpenterTracker, karpenterRunSelector, karpenterSummary, resourceRequests } from './karpenter.js';
import { ConvergenceTracker } from './convergence.js';
import { createInferenceSet, deleteInferenceSet, scaleInferenceSet } from './inferenceset-cluster.js';
import {
  INFERENCESET_NAME,
  INFERENCESET_POOL,
  InferenceSetTracker,
  childPlan,
  inferenceSetManifest,
  inferenceSetPools,
  inferenceSetSettingsLine,
  inferenceSetSummaryLine,
  parentOf,
  windowWrites,
  type InferenceSetWrites,
} from './inferenceset.js';
import { runScaleProbes } from './scale-probes-cluster.js';
import { ScaleProbeTracker, scaleProbeLine } from './scale-probes.js';
import { NODECLAIMS_PATH, NODES_PATH, removeNodeClaims, runSelector, waitForCleanup } from './nap-cluster.js';
import { NapTracker, nodeClaimCreates } from './nap.js';
import { napPools, planWorkspaces, poolsForPlan, workspaceManifest, type WorkspacePlan } from './plan.js';
import { clockTicksPerSecond } from './proc.js';
import { startCountingProxy, type CountingProxy } from './proxy.js';
import { settle } from './settle.js';
import { restartController } from './restart-run.js';
import { restartSummaryLine } from './restart.js';
import { TimelineTracker } from './timeline.js';
import { runUpdates } from './update-cluster.js';
import { updatePlan, updatePools, updateSettingsLine, updateSummaryLine } from './update.js';
import {
  benchDocument,
  checkVolumes,
  formatTable,
  hubSummary,
  napSummary,
  type ControllerResult,
  type HubFigures,
  type KarpenterSettings,
  type NapSettings,
} from './results.js';
import { countWrites, diffCounts } from './verbs.js';
import { watchForever } from './watch.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
/** Namespace of the inference-params-template ConfigMap for both controllers (kaito-ts's default too). */
const RELEASE_NAMESPACE = 'kaito-workspace';

/** HEAD of the checkout, with `-dirty` when tracked files differ from it; undefined outside git. */
function gitCommit(root: string): string | undefined {
  try {
    const head = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}-dirty` : head;
  } catch {
    return undefined;
  }
}

const log = (line: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

/** Things to stop if the run is interrupted. */
const cleanups = new Set<() => Promise<void>>();
/** Set before the cleanups run when the run ends in an error or an interrupt. */
let runFailed = false;

/** Copies the cluster's component logs under bench/results before the cluster (and they) go. */
function keepClusterLogs(clusterLogDir: string): void {
  if (!existsSync(clusterLogDir)) return;
  const kept = join(PROJECT_ROOT, 'bench', 'results', `cluster-logs-${Date.now().toString(36)}`);
  cpSync(clusterLogDir, kept, { recursive: true });
  log(`the cluster's component logs are kept in ${kept}`);
}

interface RunContext {
  opts: BenchOptions;
  kc: KubeConfig;
  layout: Layout;
  plan: WorkspacePlan[];
  storageClass: boolean;
  runId: string;
  logDir: string;
  /** --scenario inferenceset: the pool of the set's nodes. */
  inferenceSetPool?: NodePool;
  /** --hf-models: the Hugging Face stand-in serving the plan's ids. */
  hub?: HubStandIn;
}

const RUN_NAMESPACE_PREFIX = 'bench-';

function namespaceFor(id: ControllerId, runId: string): string {
  return `${RUN_NAMESPACE_PREFIX}${id.replace(/[^a-z0-9]+/g, '-')}-${runId}`;
}

/** "20 × Standard_NC24ads_A100_v4, …" of a plan's instance types. */
function planMix(plan: WorkspacePlan[]): string {
  const counts = new Map<string, number>();
  for (const w of plan) counts.set(w.instanceType, (counts.get(w.instanceType) ?? 0) + 1);
  return [...counts].map(([t, c]) => `${c} × ${t}`).join(', ');
}

async function runController(id: ControllerId, ctx: RunContext): Promise<ControllerResult> {
  const spec = CONTROLLERS[id];
  const { kc, layout, plan, opts } = ctx;
  const ns = namespaceFor(id, ctx.runId);
  const tag = (line: string): void => log(`${id}: ${line}`);

  tag(
    `installing its CRDs (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  const nap = opts.mode === 'nap';
  const karpenter = opts.mode === 'karpenter';
  const scaling = opts.inferenceSet;
  await installCrds(kc, spec.crds(opts.mode, !!scaling), id);
  // Each controller creates the NodeClass from its own flags (both leave an existing one as it is).
  if (karpenter) await removeNodeClass(kc);
  await createRunNamespace(kc, ns);

  const pki = (f: string): string => join(layout.pkiDir, f);
  const proxy: CountingProxy = await startCountingProxy(`https://127.0.0.1:${layout.ports.apiserver}`, {
    certFile: pki('apiserver.crt'),
    keyFile: pki('apiserver.key'),
    clientCertFile: pki('admin.crt'),
    clientKeyFile: pki('admin.key'),
    caFile: pki('ca.crt'),
  });
  const kubeconfig = join(ctx.logDir, `${id}.kubeconfig`);
  writeFileSync(kubeconfig, adminKubeconfig({ server: proxy.url, caFile: pki('ca.crt'), certFile: pki('admin.crt'), keyFile: pki('admin.key') }));
  const probePort = await freePort();
  const metricsPort = await freePort();
  const launch = spec.launch({
    kubeconfig,
    qps: opts.qps,
    burst: opts.burst,
    releaseNamespace: RELEASE_NAMESPACE,
    projectRoot: PROJECT_ROOT,
    nap: opts.mode !== 'byo',
    ...(karpenter ? { karpenter: { nodeClassSpec: nodeClassSpecFor(opts.provisionDelaySeconds) } } : {}),
    ...(scaling ? { inferenceSets: true } : {}),
    ...(ctx.hub ? { hub: { endpoint: ctx.hub.hub.url, proxyUrl: ctx.hub.proxy.url, caFile: ctx.hub.caFile } } : {}),
    metricsAddress: `127.0.0.1:${metricsPort}`,
    probeAddress: `127.0.0.1:${probePort}`,
  });
  const words = (text: string | undefined): string[] => (text ?? '').split(/\s+/).filter((w) => w !== '');
  if (id === 'kaito-ts') {
    // Node.js flags go before the script, after the shipped ones, so that they win.
    const script = launch.args.findIndex((a) => a.endsWith('kaito-ts.js'));
    launch.args = [...launch.args.slice(0, script), ...words(opts.nodeOptions), ...launch.args.slice(script), ...words(opts.kaitoTsFlags)];
  }
  const logFile = join(ctx.logDir, `${id}.log`);
  // Read at start-up of the controller, not of the benchmark: the code measured is the code started.
  const codeCommit = id === 'kaito-ts' ? gitCommit(PROJECT_ROOT) : undefined;
  if (codeCommit) tag(`code: commit ${codeCommit}`);
  tag(`starting: ${[launch.command, ...launch.args].join(' ')} (log ${logFile})`);
  let ctl: RunningController = await startController(launch, logFile, `http://127.0.0.1:${probePort}/readyz`);
  const stopAll = async (): Promise<void> => {
    await ctl.stop();
    await proxy.close();
  };
  cleanups.add(stopAll);

  // The workspaces of the run: the plan's, or (inferenceset) the set's children, added as they appear.
  const names = new Set(plan.map((w) => w.name));
  const tracker = new ConvergenceTracker(names);
  const timeline = new TimelineTracker(names);
  const isTracker = scaling ? new InferenceSetTracker(INFERENCESET_NAME, scaling.replicas) : undefined;
  const probeTracker = scaling?.scaleProbes ? new ScaleProbeTracker(INFERENCESET_NAME) : undefined;
  let t0 = performance.now();
  const now = (): number => (performance.now() - t0) / 1000;
  const live = (type: string): boolean => type !== 'DELETED' && type !== 'BOOKMARK';
  const watches = [
    watchForever(kc, `/apis/apps/v1/namespaces/${ns}/statefulsets`, (type, obj) => {
      if (!live(type)) return;
      tracker.onStatefulSet(obj as never, now());
      timeline.onStatefulSet(obj as never, now());
    }),
    watchForever(kc, `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`, (type, obj) => {
      if (!live(type)) return;
      const ws = obj as Workspace;
      if (isTracker && parentOf(ws) === INFERENCESET_NAME && ws.metadata.name) {
        names.add(ws.metadata.name);
        isTracker.onChild(ws, now());
        probeTracker?.onChild(ws, performance.now());
      }
      tracker.onWorkspace(ws, now());
      timeline.onWorkspace(ws, now());
    }),
    watchForever(kc, `/api/v1/namespaces/${ns}/pods`, (type, obj) => {
      if (live(type)) timeline.onPod(obj as never, now());
    }),
    watchForever(kc, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, (type, obj) => {
      if (live(type)) timeline.onClaim(obj as never, now());
    }),
  ];
  if (isTracker)
    watches.push(
      watchForever(kc, `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${INFERENCESET_PLURAL}`, (type, obj) => {
        if (live(type)) isTracker.onInferenceSet(obj as InferenceSet, now());
      }),
    );
  const napTracker = new NapTracker(new Set(plan.map((w) => w.name)));
  if (nap) {
    // Creates are counted by distinct claim name: a watch that restarts replays every claim as ADDED.
    const query = { labelSelector: runSelector(ns) };
    watches.push(
      watchForever(
        kc,
        NODECLAIMS_PATH,
        (type, obj) => {
          if (type === 'ADDED' || type === 'MODIFIED') napTracker.onClaim(obj as never, now());
        },
        query,
      ),
      watchForever(
        kc,
        NODES_PATH,
        (type, obj) => {
          if (type === 'ADDED' || type === 'MODIFIED') napTracker.onNode(obj as never, now());
        },
        query,
      ),
    );
  }
  const karpenterTracker = new KarpenterTracker(new Set(plan.map((w) => w.name)));
  if (karpenter) {
    // NodePools, and Karpenter's claims and nodes for them, all carry the pool's workspace labels.
    const query = { labelSelector: karpenterRunSelector(ns) };
    const seen = (f: (o: never, at: number) => void) => (type: string, obj: unknown) => {
      if (type === 'ADDED' || type === 'MODIFIED') f(obj as never, now());
    };
    watches.push(
      watchForever(
        kc,
        NODEPOOLS_PATH,
        seen((o, at) => karpenterTracker.onNodePool(o, at)),
        query,
      ),
      watchForever(
        kc,
        NODECLAIMS_PATH,
        seen((o, at) => karpenterTracker.onClaim(o, at)),
        query,
      ),
      watchForever(
        kc,
        NODES_PATH,
        seen((o, at) => karpenterTracker.onNode(o, at)),
        query,
      ),
    );
  }
  const progress = setInterval(() => {
    const p = tracker.progress();
    const s = isTracker?.progress();
    tag(
      s
        ? `${now().toFixed(0)}s: ${s.children} children, ${p.statefulSets} StatefulSets, ${s.ready} InferenceReady, readyReplicas ${s.readyReplicas ? 'reached' : 'not yet'} ${scaling?.replicas}`
        : `${now().toFixed(0)}s: ${p.statefulSets}/${p.total} StatefulSets, ${p.ready}/${p.total} ready`,
    );
  }, 15_000);

  let result: ControllerResult | undefined;
  let leftAfterCleanup: { nodeClaims: number; nodes: number } | undefined;
  let karpenterLeft: { nodePools: number; nodeClaims: number; nodes: number } | undefined;
  const throttleBefore = await controllerManagerThrottleSeconds(layout);
  try {
    const manifests = plan.map((w) => workspaceManifest(w, ns, ctx.runId, opts.mode));
    // The update scenario's strategy is kaito-ts's own annotation; KAITO has none.
    const strategy = opts.update?.strategy;
    if (strategy && id === 'kaito-ts')
      for (const m of manifests) m.metadata.annotations = { ...m.metadata.annotations, [ANNOTATION_UPDATE_STRATEGY]: strategy };
    // --scenario inferenceset: the set at 0, taken in by the controller (status written, quiet for a moment).
    let atScale: { writes: number; detail: Record<string, number> } | undefined;
    if (scaling && isTracker) {
      await createInferenceSet(kc, inferenceSetManifest(ns, ctx.runId));
      tag(`created InferenceSet ${INFERENCESET_NAME} with replicas 0; waiting for its status and a quiet controller`);
      for (const start = Date.now(); !isTracker.hasAccepted() && !ctl.exited();) {
        if (Date.now() - start > 120_000) throw new Error(`${id} wrote no status of InferenceSet ${INFERENCESET_NAME} within 120s; see ${logFile}`);
        await sleep(100);
      }
      const quiet = await settle(proxy, ctl);
      atScale = { writes: countWrites(proxy.byVerb()), detail: proxy.byVerbAndResource() };
      tag(`taken in at 0 with ${atScale.writes} writes (quiet after ${quiet.toFixed(1)}s more); scale write 0 → ${scaling.replicas}`);
    }
    const cpuBefore = await controlPlaneCpuTicks(layout);
    const selfBefore = process.cpuUsage();
    const hubBefore = ctx.hub?.hub.requests.length ?? 0;
    if (scaling && isTracker) {
      isTracker.begin();
      t0 = performance.now();
      await scaleInferenceSet(kc, ns, INFERENCESET_NAME, scaling.replicas);
      tag(`scaled through the scale subresource in ${now().toFixed(2)}s; waiting for readyReplicas = ${scaling.replicas} and every child InferenceReady=True`);
    } else {
      t0 = performance.now();
      await createWorkspaces(kc, manifests);
      tag(`created ${manifests.length} workspaces in ${now().toFixed(1)}s; waiting for all InferenceReady=True`);
    }
    const exited = (async () => {
      while (!ctl.exited()) await sleep(500);
    })();
    await Promise.race([isTracker ? isTracker.whenDone() : tracker.whenAllReady(), sleep(opts.timeoutSeconds * 1000), exited]);
    const isWrites: InferenceSetWrites | undefined = atScale
      ? { beforeScale: atScale.writes, ...windowWrites(atScale.detail, proxy.byVerbAndResource()) }
      : undefined;
    const stsAt = tracker.allStatefulSetsAt();
    const readyAt = isTracker ? isTracker.doneAt() : tracker.allReadyAt();
    // Who used the 2 cores while the workspaces converged: the control plane, the controller, the benchmark.
    const window = now();
    const cpuAfter = await controlPlaneCpuTicks(layout);
    const ctlCpu = await ctl.sample();
    const selfCpu = process.cpuUsage(selfBefore);
    const share = (ticks: number): string => `${((ticks / clockTicksPerSecond() / window) * 100).toFixed(0)}%`;
    tag(
      `CPU over those ${window.toFixed(1)}s (100% = one core): ` +
        Object.entries(cpuAfter)
          .map(([k, v]) => `${k} ${share(v - (cpuBefore[k] ?? 0))}`)
          .join(', ') +
        `, benchmark ${(((selfCpu.user + selfCpu.system) / 1e6 / window) * 100).toFixed(0)}%` +
        (ctlCpu ? `; controller ${(ctlCpu.cpuTicks / clockTicksPerSecond()).toFixed(1)} CPU s since its start` : ''),
    );
    if (ctl.exited()) tag(`the controller exited during the run; see ${logFile}`);
    else if (readyAt === undefined) tag(`not all ready after ${opts.timeoutSeconds}s`);
    else
      tag(
        `all ${isTracker ? scaling?.replicas : plan.length} ready after ${readyAt.toFixed(1)}s (all StatefulSets after ${stsAt?.toFixed(1)}s); idle window ${opts.idleSeconds}s`,
      );
    const isFigures = isTracker?.figures(isWrites);
    if (isFigures) tag(inferenceSetSummaryLine(isFigures));

    // --scenario update: the serving workspace's template changes, `repeat` times.
    const update =
      opts.update && readyAt !== undefined && !ctl.exited()
        ? await runUpdates({
            kc,
            namespace: ns,
            workspace: plan[0]?.name ?? '',
            surges: id === 'kaito-ts',
            repeat: KAITO_VERSIONS[id] ? opts.update.kaitoRepeat : opts.update.repeat,
            coldLoadSeconds: opts.update.coldLoadSeconds,
            warmLoadSeconds: opts.update.warmLoadSeconds,
            alive: () => !ctl.exited(),
            log: tag,
          })
        : undefined;
    if (update) tag(updateSummaryLine(update.summary));

    // The idle window starts once the controller has been quiet for a moment (the last status writes of
    // convergence are not idleness), and at the latest a minute after all-ready (settle.ts).
    const atReady = proxy.byVerb();
    const settled = await settle(proxy, ctl);
    const firstMinute = diffCounts(atReady, proxy.byVerb());
    const atIdle = proxy.byVerb();
    const hubAtIdle = ctx.hub?.hub.requests.length ?? 0;
    if (!ctl.exited()) await sleep(opts.idleSeconds * 1000);
    const idle = diffCounts(atIdle, proxy.byVerb());
    const hub: HubFigures | undefined = ctx.hub
      ? {
          models: opts.hfModels,
          requestsToIdle: hubAtIdle - hubBefore,
          requestsPerIdleMinute: opts.idleSeconds > 0 ? Math.round(((ctx.hub.hub.requests.length - hubAtIdle) * 60) / opts.idleSeconds) : 0,
        }
      : undefined;
    if (hub) tag(hubSummary(hub));
    const throttleAfter = await controllerManagerThrottleSeconds(layout);
    const throttle = throttleBefore !== undefined && throttleAfter !== undefined ? `${(throttleAfter - throttleBefore).toFixed(0)}s` : 'unknown';
    tag(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; kube-controller-manager waited ${throttle} on its client rate limiter`,
    );
    tag(
      `settled ${settled.toFixed(1)}s after all-ready (${countWrites(firstMinute)} writes meanwhile); ${countWrites(idle)} writes in the ${opts.idleSeconds}s idle window`,
    );
    const sample = await ctl.sample();
    const requestsByVerb = proxy.byVerb();
    writeFileSync(join(ctx.logDir, `${id}-requests.json`), JSON.stringify({ total: proxy.byVerbAndResource(), settling: firstMinute, idle }, null, 2));

    const pool = ctx.inferenceSetPool;
    const workspaces = isTracker && pool ? isTracker.children().map((c) => childPlan(c, pool)) : plan;
    const expected = new Map<string, VolumeKind>(workspaces.map((w) => [w.name, spec.expectedVolume(w, ctx.storageClass, opts.mode !== 'byo')]));
    const check = checkVolumes(expected, await volumeKinds(kc, ns));
    tag(`volumes: ${JSON.stringify(check.kinds)}${check.ok ? '' : `; ${check.problems.length} wrong, e.g. ${check.problems.slice(0, 3).join('; ')}`}`);
    result = {
      controller: id,
      allStatefulSetsSeconds: round(stsAt),
      allReadySeconds: round(readyAt),
      peakRssMiB: sample ? Math.round((sample.peakRssKiB / 1024) * 10) / 10 : 0,
      cpuSeconds: sample ? Math.round((sample.cpuTicks / clockTicksPerSecond()) * 100) / 100 : 0,
      requestsByVerb,
      writesPerIdleMinute: opts.idleSeconds > 0 ? Math.round((countWrites(idle) * 60) / opts.idleSeconds) : 0,
      correct:
        check.ok &&
        readyAt !== undefined &&
        !ctl.exited() &&
        (!isFigures || isFigures.childrenCreated === isFigures.replicas) &&
        (!opts.update || (update !== undefined && update.summary.completed === (KAITO_VERSIONS[id] ? opts.update.kaitoRepeat : opts.update.repeat))),
      timeline: timeline.figures(
        (w) => tracker.statefulSetAt(w),
        (w) => tracker.readyAt(w),
      ),
      ...(update ? { update } : {}),
      ...(isFigures ? { inferenceSet: isFigures } : {}),
      ...(codeCommit ? { codeCommit } : {}),
      ...(hub ? { hub } : {}),
    };
    if (nap) {
      result.nap = {
        ...napTracker.figures(
          (w) => tracker.statefulSetAt(w),
          (w) => tracker.readyAt(w),
        ),
        createRequests: nodeClaimCreates(proxy.byVerbAndResource()),
      };
      // Every workspace must have had a claim of its own; more than one is reported, not refused.
      result.correct &&= result.nap.claimsPerWorkspace.min >= 1;
    }
    if (karpenter) {
      result.karpenter = {
        ...karpenterTracker.figures(
          (w) => tracker.statefulSetAt(w),
          (w) => tracker.readyAt(w),
        ),
        nodePoolRequests: resourceRequests(proxy.byVerbAndResource(), 'karpenter.sh/nodepools'),
      };
      // Every workspace must have had a NodePool of its own; more than one is reported, not refused.
      result.correct &&= result.karpenter.nodePoolsPerWorkspace.min >= 1;
    }
    // --restart: the same command line again over the converged workspaces.
    if (opts.restart && readyAt !== undefined && !ctl.exited()) {
      const restarted = await restartController(ctl, {
        launch,
        logFile: join(ctx.logDir, `${id}-restart.log`),
        readyUrl: `http://127.0.0.1:${probePort}/readyz`,
        metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
        proxy,
        workspaces: plan.length,
        idleSeconds: opts.idleSeconds,
        log: tag,
      });
      ctl = restarted.ctl;
      result.restart = restarted.figures;
      result.correct &&= !ctl.exited() && restarted.figures.allPassesSeconds !== null;
      tag(restartSummaryLine(restarted.figures));
    }
    // --scale-probes: after every figure above is taken, so none of them counts the probes' work.
    if (probeTracker && scaling?.scaleProbes && result.inferenceSet && !ctl.exited()) {
      clearInterval(progress);
      const probes = await runScaleProbes({
        kc,
        namespace: ns,
        name: INFERENCESET_NAME,
        probes: scaling.scaleProbes,
        tracker: probeTracker,
        alive: () => !ctl.exited(),
        log: tag,
      });
      tag(scaleProbeLine(probes));
      result.inferenceSet.scaleProbes = probes;
      result.correct &&= probes.childrenCreated === probes.probes;
    }
  } finally {
    clearInterval(progress);
    for (const w of watches) w.stop();
    if (!ctl.exited() && scaling) {
      tag(`deleting InferenceSet ${INFERENCESET_NAME} while the controller runs`);
      const since = performance.now();
      const left = await deleteInferenceSet(kc, ns, INFERENCESET_NAME, 300_000).catch(() => undefined);
      tag(
        left && left.sets === 0 && left.workspaces === 0
          ? `the set and every child gone after ${((performance.now() - since) / 1000).toFixed(1)}s`
          : `${left ? `${left.sets} set(s) and ${left.workspaces} workspace(s)` : 'objects'} not gone after 300s; removing their finalizers`,
      );
    } else if (!ctl.exited()) {
      tag('deleting the workspaces while the controller runs');
      const since = performance.now();
      const took = (): string => `${((performance.now() - since) / 1000).toFixed(1)}s`;
      const left = await deleteWorkspaces(kc, ns, 300_000).catch(() => -1);
      tag(left === 0 ? `every workspace gone after ${took()}` : `${left} workspace(s) not gone after 300s; removing their finalizers`);
      if (nap) {
        // What the controller's own clean-up (its finalizer, then the provisioner) leaves within a minute.
        const rest = await waitForCleanup(kc, ns, CLEANUP_WAIT_MS);
        leftAfterCleanup = { nodeClaims: rest.nodeClaims.length, nodes: rest.nodes.length };
        tag(`${rest.nodeClaims.length} NodeClaim(s) and ${rest.nodes.length} node(s) of the run left ${took()} after the deletes`);
      }
      if (karpenter) {
        // What the controller's own clean-up (its finalizer deletes the NodePool, then Karpenter) leaves within a minute.
        const rest = await waitForKarpenterCleanup(kc, ns, CLEANUP_WAIT_MS);
        karpenterLeft = { nodePools: rest.nodePools.length, nodeClaims: rest.nodeClaims.length, nodes: rest.nodes.length };
        tag(
          `${rest.nodePools.length} NodePool(s), ${rest.nodeClaims.length} NodeClaim(s) and ${rest.nodes.length} node(s) of the run left ${took()} after the deletes`,
        );
      }
    }
    await stopAll();
    cleanups.delete(stopAll);
    const removing = performance.now();
    await removeRunNamespace(kc, ns);
    tag(`namespace deleted in ${((performance.now() - removing) / 1000).toFixed(1)}s`);
    // Nothing of this run may stay for the next controller: claims, nodes, volumes.
    if (nap) await removeNodeClaims(kc, (x) => x === ns, tag);
    // Karpenter: no NodePool, no Karpenter NodeClaim, no Karpenter node on the cluster at all.
    if (karpenter) await removeKarpenterObjects(kc, (x) => x === ns, tag);
    tag(
      `namespace ${ns} removed${nap ? ', no NodeClaim or node of it left' : ''}${karpenter ? ', no NodePool, Karpenter NodeClaim or Karpenter node left' : ''}`,
    );
  }
  if (result.karpenter && karpenterLeft) {
    result.karpenter.leftAfterCleanup = karpenterLeft;
    result.correct &&= karpenterLeft.nodePools === 0 && karpenterLeft.nodeClaims === 0 && karpenterLeft.nodes === 0;
    tag(karpenterSummary(result.karpenter));
  }
  if (result.nap && leftAfterCleanup) {
    result.nap.leftAfterCleanup = leftAfterCleanup;
    result.correct &&= leftAfterCleanup.nodeClaims === 0 && leftAfterCleanup.nodes === 0;
    tag(napSummary(result.nap));
  }
  return result;
}

const CLEANUP_WAIT_MS = 60_000;

function round(v: number | undefined): number | null {
  return v === undefined ? null : Math.round(v * 10) / 10;
}

async function main(argv: string[]): Promise<number> {
  let opts: BenchOptions | 'help';
  try {
    opts = parseBenchArgs(argv);
  } catch (err) {
    if (err instanceof BenchArgsError) {
      process.stderr.write(`bench: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (opts === 'help') {
    process.stdout.write(BENCH_USAGE);
    return 0;
  }
  const cacheRoot = process.env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts');
  selectBenchCluster(process.env, opts.sharedCluster, cacheRoot);
  for (const id of opts.controllers) {
    const why = missingPrerequisite(id, PROJECT_ROOT, opts.mode);
    if (why) {
      process.stderr.write(`bench: ${id}: ${why}\n`);
      return 1;
    }
  }
  const base = loadNodePools(layoutFor().defaultNodesFile);
  const update = opts.update;
  const scaling = opts.inferenceSet;
  // inferenceset: the benchmark creates no workspace, the set's controller does.
  const plan = update ? [updatePlan(base)] : scaling ? [] : planWorkspaces(opts.workspaces, base, opts.hfModels);
  const nap = opts.mode === 'nap';
  const karpenter = opts.mode === 'karpenter';
  // nap: no nodes up front, the simulated gpu-provisioner makes one per NodeClaim; karpenter: Karpenter one per NodePool replica;
  // update: the workspace's node and a spare one (or none).
  const pools = update
    ? updatePools(base, update.spareNode)
    : scaling
      ? inferenceSetPools(base, scaling.replicas)
      : opts.mode !== 'byo'
        ? napPools(base)
        : poolsForPlan(base, plan);
  const napSettings: NapSettings | undefined = nap
    ? {
        provisionDelaySeconds: opts.provisionDelaySeconds,
        devicePluginDelaySeconds: opts.devicePluginDelaySeconds,
        podReadyDelaySeconds: opts.podReadyDelaySeconds,
      }
    : undefined;
  const karpenterSettings: KarpenterSettings | undefined = karpenter
    ? {
        registrationDelaySeconds: opts.provisionDelaySeconds,
        devicePluginDelaySeconds: opts.devicePluginDelaySeconds,
        podReadyDelaySeconds: opts.podReadyDelaySeconds,
      }
    : undefined;
  if (update) log(`update scenario: ${updateSettingsLine(update)}`);
  if (scaling) log(`inferenceset scenario: ${inferenceSetSettingsLine(scaling)}`);
  log(
    karpenter
      ? `N = ${opts.workspaces}; Karpenter NodePools: ${planMix(plan)}; node registration delay ${opts.provisionDelaySeconds}s (KWOKNodeClass nodeRegistrationDelay), device-plugin delay ${opts.devicePluginDelaySeconds}s`
      : nap
        ? `N = ${opts.workspaces}; node auto-provisioning: ${planMix(plan)}; provision delay ${opts.provisionDelaySeconds}s, device-plugin delay ${opts.devicePluginDelaySeconds}s`
        : `N = ${opts.workspaces}; nodes: ${pools.map((p) => `${p.count} × ${p.instanceType}${p.nvme ? ' (NVMe)' : ''}`).join(', ')}`,
  );
  // karpenter: the simulated device plugin (in the provisioner process) gives Karpenter's nodes their GPUs.
  const delays = nap
    ? { launchDelayMs: opts.provisionDelaySeconds * 1000, devicePluginDelayMs: opts.devicePluginDelaySeconds * 1000 }
    : karpenter
      ? { devicePluginDelayMs: opts.devicePluginDelaySeconds * 1000 }
      : undefined;
  // The benchmark's own cluster is stopped at the end when this run started it (ports shifted by
  // BENCH_PORT_OFFSET would otherwise stay taken by seven processes), unless --keep-cluster.
  if (!opts.sharedCluster && !opts.keepCluster && !(await isRunning())) {
    cleanups.add(async () => {
      // `down` removes the cluster's state, its component logs with it: a failed run keeps them.
      if (runFailed) keepClusterLogs(layoutFor().logDir);
      log('stopping the benchmark cluster this run started (--keep-cluster leaves it running)');
      await down(log);
    });
  }
  const modelLoad = update ? { coldMs: update.coldLoadSeconds * 1000, warmMs: update.warmLoadSeconds * 1000 } : undefined;
  const { kc, layout } = await prepareCluster(pools, log, delays, karpenter, modelLoad);
  if (!opts.sharedCluster) {
    await tuneControllerManager(layout, controllerManagerArgs(opts.kcmQps), log);
    // With the model-load simulation kwok keeps the Stages `up` gave it (a stock restart would drop them).
    if (!modelLoad) await tuneKwok(layout, opts.podReadyDelaySeconds * 1000, log);
  }
  log(`cluster: ${layout.kubeconfigPath}`);
  await removeStaleRunNamespaces(kc, log);
  await removeNodeClaims(kc, (ns) => ns.startsWith(RUN_NAMESPACE_PREFIX), log);
  if (karpenter) await removeKarpenterObjects(kc, (ns) => ns.startsWith(RUN_NAMESPACE_PREFIX), log);
  const storageClass = await storageClassExists(kc);
  await ensureReleaseNamespace(kc, RELEASE_NAMESPACE);
  const runId = Date.now().toString(36);
  const logDir = join(
    PROJECT_ROOT,
    'bench',
    'results',
    update ? `run-${runId}-update` : scaling ? `run-${runId}-inferenceset-${scaling.replicas}` : `run-${runId}-n${opts.workspaces}`,
  );
  mkdirSync(logDir, { recursive: true });

  // --hf-models: one fake endpoint for the run; each controller's requests are counted from its own start.
  const hub =
    opts.hfModels > 0 ? await startHubStandIn(layout.pkiDir, Object.fromEntries(plan.slice(0, opts.hfModels).map((w) => [w.preset, QWEN3_0_6B]))) : undefined;
  if (hub) {
    cleanups.add(() => hub.close());
    log(
      `fake Hugging Face endpoint ${hub.hub.url} (as https://huggingface.co through ${hub.proxy.url}) serving ${opts.hfModels} models (${plan[0]?.preset}, …)`,
    );
  }
  const results: ControllerResult[] = [];
  const inferenceSetPool = pools.find((p) => p.name === INFERENCESET_POOL);
  for (const id of opts.controllers)
    results.push(
      await runController(id, {
        opts,
        kc,
        layout,
        plan,
        storageClass,
        runId,
        logDir,
        ...(scaling && inferenceSetPool ? { inferenceSetPool } : {}),
        ...(hub ? { hub } : {}),
      }),
    );

  const doc = benchDocument(opts.workspaces, results, napSettings, karpenterSettings, update, scaling);
  process.stdout.write(formatTable(doc));
  process.stdout.write(
    `client limits for every controller: --kube-client-qps=${opts.qps} --kube-client-burst=${opts.burst}; own defaults: ` +
      opts.controllers.map((id) => `${id} ${CONTROLLERS[id].defaults.qps}/${CONTROLLERS[id].defaults.burst}`).join(', ') +
      `\nlogs and per-resource request counts: ${logDir}\n`,
  );
  writeFileSync(join(logDir, 'result.json'), JSON.stringify(doc, null, 2) + '\n');
  if (opts.json) writeFileSync(opts.json, JSON.stringify(doc, null, 2) + '\n');
  if (opts.removeNodes) await removeNodes(kc, pools);
  return results.every((r) => r.correct) ? 0 : 1;
}

const interrupted = async (): Promise<void> => {
  log('interrupted: stopping the controller (the next run removes the namespace it leaves)');
  runFailed = true;
  for (const c of cleanups) await c().catch(() => undefined);
  process.exit(130);
};
process.once('SIGINT', () => void interrupted());
process.once('SIGTERM', () => void interrupted());

main(process.argv.slice(2)).then(
  async (code) => {
    for (const c of cleanups) await c().catch(() => undefined);
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    runFailed = true;
    void Promise.all([...cleanups].map((c) => c().catch(() => undefined))).then(() => process.exit(1));
  },
);
