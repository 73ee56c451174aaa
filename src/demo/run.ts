// `kaito-ts demo`: the local cluster, the CRD, sample workspaces (one migrated from a legacy
// Deployment), the operator in this process, and a live table until every workspace serves.
import { join } from 'node:path';
import { createLogger, fileDestination } from '../manager/logging.js';
import { startManager, type RunningManager } from '../manager/manager.js';
import { parseManagerOptions, type ManagerOptions } from '../manager/options.js';
import { down } from '../simcluster/cluster.js';
import { layoutFor } from '../simcluster/layout.js';
import { KWOK_NODE_CLASS_FLAGS } from '../simcluster/karpenter/operator-flags.js';
import { POOL_LABEL } from '../simcluster/nodes.js';
import {
  applyWorkspaces,
  demoApi,
  installCrd,
  installLegacy,
  migrationEvents,
  resetNamespace,
  snapshot,
  startOrReuseCluster,
  takenByAnotherOperator,
  type DemoApi,
} from './cluster.js';
import { DEMO_NAMESPACE, loadSamples, samplesDir, type Samples } from './samples.js';
import { LiveBlock } from './screen.js';
import { formatRows, notReadySummary, rowsOf, type Row } from './table.js';
import { Interrupted, TimedOut, waitUntil } from './wait.js';

export interface DemoOptions {
  /** Exit once everything is ready (else keep the operator running until Ctrl-C). */
  exit: boolean;
  /** Karpenter NodePool mode: real Karpenter in the cluster, the operator with --node-provisioner=karpenter. */
  karpenter?: boolean;
  timeoutSeconds: number;
  signal: AbortSignal;
  out: (text: string) => void;
  tty: boolean;
  columns?: number;
}

export type DemoResult = { code: number; error?: string };

const sec = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/**
 * The operator as `kaito-ts run` would start it for the demo: KAITO's default mode (node
 * auto-provisioning; existing matching nodes count), one namespace, local probes.
 */
export function demoManagerOptions(kubeconfig: string, namespace: string, karpenter = false): ManagerOptions {
  const opts = parseManagerOptions([
    ...(karpenter ? KWOK_NODE_CLASS_FLAGS : []),
    '--kubeconfig',
    kubeconfig,
    '--feature-gates',
    'disableNodeAutoProvisioning=false',
    '--cloud-provider',
    'azure',
    '--namespace',
    namespace,
    '--health-probe-bind-address',
    '127.0.0.1:0',
    '--metrics-bind-address',
    '127.0.0.1:0',
  ]);
  if (opts === 'help') throw new Error('unreachable');
  return opts;
}

export function kubectlHints(namespace: string, samples: Samples): string[] {
  const first = samples.legacy[0]?.metadata?.name ?? samples.workspaces[0]?.metadata.name ?? '<name>';
  return [
    "Look around with kubectl (the cluster's own build):",
    '  eval "$(node bin/kaito-ts.js simcluster env)"',
    `  kubectl -n ${namespace} get workspaces,sts,svc,pvc,pods -o wide`,
    `  kubectl -n ${namespace} describe workspace ${first}`,
    `  kubectl -n ${namespace} get events --sort-by=.metadata.creationTimestamp`,
    `  kubectl -n ${namespace} get workspace ${first} -o jsonpath='{.status.conditions}'`,
  ];
}

export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  const say = (line: string): void => o.out(`${line}\n`);
  const t0 = Date.now();
  const samples = loadSamples(samplesDir(layoutFor().projectRoot));
  const legacyNames = new Set(samples.legacy.map((d) => d.metadata?.name ?? ''));
  let clusterStarted = false;
  let api: DemoApi | undefined;
  let manager: RunningManager | undefined;
  let ready = false;
  try {
    say('[1/4] local cluster');
    const cluster = await startOrReuseCluster(say, o.karpenter);
    clusterStarted = cluster.started;
    if (o.signal.aborted) throw new Interrupted();
    api = demoApi();
    const { client } = api;

    say(`[2/4] CRD workspaces.kaito.sh (server-side apply) and namespace ${DEMO_NAMESPACE}`);
    await installCrd(client, DEMO_NAMESPACE, o.signal);
    await resetNamespace(api, DEMO_NAMESPACE, o.signal, (l) => say(`  ${l}`));

    // The timeout counts from the first sample applied: the cluster build has its own pace.
    const deadline = Date.now() + o.timeoutSeconds * 1000;
    say(`[3/4] sample workspaces from ${samplesDir(layoutFor().projectRoot)}`);
    await applyWorkspaces(client, samples);
    for (const ws of samples.workspaces) {
      // Samples on the simcluster's pools select `kaito.sh/sim-pool`; the others get nodes provisioned for them.
      const pool = ws.resource.labelSelector?.matchLabels?.[POOL_LABEL];
      const made = o.karpenter ? 'by Karpenter for its NodePool' : 'on the fly (NodeClaim)';
      const where = pool ? `${ws.resource.instanceType} nodes of pool ${pool}` : `a ${ws.resource.instanceType} node provisioned ${made}`;
      say(
        `  workspace ${ws.metadata.name}: ${ws.inference?.preset?.name ?? 'template'} on ${where}${legacyNames.has(ws.metadata.name ?? '') ? ' (legacy, to migrate)' : ''}`,
      );
    }
    const legacyNodes = await installLegacy(client, samples, DEMO_NAMESPACE, deadline, o.signal);
    for (const [name, node] of legacyNodes) {
      say(
        node
          ? `  legacy Deployment ${name} controlled by workspace ${name}: pod running on ${node}, as an older KAITO release left it`
          : `  legacy Deployment ${name} was deleted before its pod ran: another operator migrated it`,
      );
    }
    const taken = await takenByAnotherOperator(client, DEMO_NAMESPACE);
    if (taken.length > 0) {
      say(
        `  warning: another operator is already reconciling ${taken.join(', ')} in ${DEMO_NAMESPACE} (a "kaito-ts run" without --namespace?); the demo still waits for readiness, but the migration is not its own to show`,
      );
    }

    const logFile = join(layoutFor().logDir, 'demo-operator.log');
    const mode = o.karpenter ? 'Karpenter NodePool mode' : "node auto-provisioning on, KAITO's default";
    say(`[4/4] operator (in this process, namespace ${DEMO_NAMESPACE}, ${mode}; JSON logs: ${logFile})`);
    const opts = demoManagerOptions(cluster.kubeconfigPath, DEMO_NAMESPACE, o.karpenter);
    manager = await startManager(opts, createLogger({ level: opts.logLevel, destination: fileDestination(logFile) }));
    say(`  started (health ${manager.healthUrl ?? 'off'})`);
    say('');

    const screen = new LiveBlock({ write: o.out, tty: o.tty, ...(o.columns !== undefined ? { columns: o.columns } : {}) });
    const tStart = Date.now();
    let rows: Row[] = [];
    const done = await waitUntil(
      'every workspace to be InferenceReady',
      deadline,
      async () => {
        rows = rowsOf(await snapshot(client, DEMO_NAMESPACE), legacyNames);
        const n = rows.filter((r) => r.ready).length;
        screen.show(`${DEMO_NAMESPACE}: ${n}/${rows.length} InferenceReady, ${sec(Date.now() - tStart)} since the operator started`, formatRows(rows));
        return rows.length === samples.workspaces.length && n === rows.length ? rows : undefined;
      },
      o.signal,
      1000,
    ).catch((err: unknown) => {
      if (err instanceof TimedOut) throw new TimedOut(`timed out after ${o.timeoutSeconds}s: ${notReadySummary(rows)}`);
      throw err;
    });
    screen.detach();
    ready = true;
    say(`\nAll ${done.length} workspaces InferenceReady=True, ${sec(Date.now() - tStart)} after the operator started (${sec(Date.now() - t0)} in all).`);
    const live = (await snapshot(client, DEMO_NAMESPACE)).workspaces;
    for (const [name, events] of await migrationEvents(client, DEMO_NAMESPACE, live)) {
      const warned = events.some((e) => e.type === 'Warning');
      say(
        `Migration of ${name}: ${warned ? 'delete-then-create (the old pod held the GPUs the new pod needed)' : 'no downtime (StatefulSet pod 0 was Ready before the Deployment was deleted)'}`,
      );
      const counts = new Map<string, number>();
      for (const e of events) counts.set(`${e.type}: ${e.note}`, (counts.get(`${e.type}: ${e.note}`) ?? 0) + 1);
      for (const [line, n] of counts) say(`  ${line}${n > 1 ? ` (×${n})` : ''}`);
    }
    say('');
    for (const line of kubectlHints(DEMO_NAMESPACE, samples)) say(line);
    say('');
    if (o.exit) return { code: 0 };

    say(
      `The operator keeps running. Ctrl-C stops it${clusterStarted ? ' and the local cluster, which this demo started' : '; the local cluster was already running and stays up'}.`,
    );
    await new Promise<void>((resolve) => (o.signal.aborted ? resolve() : o.signal.addEventListener('abort', () => resolve(), { once: true })));
    return { code: 0 };
  } catch (err) {
    if (err instanceof Interrupted) return { code: ready ? 0 : 130 };
    if (err instanceof TimedOut) return { code: 1, error: err.message };
    throw err;
  } finally {
    await stopAll(manager, api, clusterStarted && o.signal.aborted, say);
  }
}

/** Stops what the demo started: the operator; on Ctrl-C also the cluster, when the demo started it. */
async function stopAll(manager: RunningManager | undefined, api: DemoApi | undefined, stopCluster: boolean, say: (line: string) => void): Promise<void> {
  if (manager) {
    say('stopping the operator');
    await manager.stop(10_000);
    manager.client.transport.close();
  }
  api?.close();
  if (stopCluster) {
    say('stopping the local cluster (the demo started it)');
    await down();
  }
}
