// `kaito-ts demo`: the local cluster, the CRDs, sample workspaces (one migrated from a legacy
// Deployment) and an InferenceSet, the operator in this process, a live table until every workspace
// serves, then the InferenceSet scaled up by one replica with kubectl and back.
import { join } from 'node:path';
import { createLogger, fileDestination } from '../manager/logging.js';
import { startManager, type RunningManager } from '../manager/manager.js';
import { parseManagerOptions, type ManagerOptions } from '../manager/options.js';
import { down } from '../simcluster/cluster.js';
import { layoutFor } from '../simcluster/layout.js';
import { KWOK_NODE_CLASS_FLAGS } from '../simcluster/karpenter/operator-flags.js';
import { POOL_LABEL } from '../simcluster/nodes.js';
import {
  applySamples,
  demoApi,
  installCrds,
  installLegacy,
  migrationEvents,
  resetNamespace,
  snapshot,
  startOrReuseCluster,
  takenByAnotherOperator,
  type DemoApi,
} from './cluster.js';
import { KubectlFailed } from './kubectl.js';
import { liveUntilReady, sec, type LiveContext } from './live.js';
import { DEMO_NAMESPACE, loadSamples, samplesDir, type Samples } from './samples.js';
import { scaleUpAndBack, type ScaleReport } from './scale.js';
import { workspaceRows } from './table.js';
import { Interrupted, TimedOut } from './wait.js';

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

const replicasText = (n: number): string => `${n} replica${n === 1 ? '' : 's'}`;

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
  const set = samples.inferenceSets[0]?.metadata.name;
  return [
    "Look around with kubectl (the cluster's own build):",
    '  eval "$(node bin/kaito-ts.js simcluster env)"',
    `  kubectl -n ${namespace} get workspaces,sts,svc,pvc,pods -o wide`,
    ...(set
      ? [
          `  kubectl -n ${namespace} get inferenceset ${set}`,
          `  kubectl -n ${namespace} get workspaces -l inferenceset.kaito.sh/created-by=${set}`,
          `  kubectl -n ${namespace} scale inferenceset/${set} --replicas=2`,
        ]
      : []),
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
    say('[1/5] local cluster');
    const cluster = await startOrReuseCluster(say, o.karpenter);
    clusterStarted = cluster.started;
    if (o.signal.aborted) throw new Interrupted();
    api = demoApi();
    const { client } = api;

    say(`[2/5] CRDs workspaces.kaito.sh and inferencesets.kaito.sh (server-side apply) and namespace ${DEMO_NAMESPACE}`);
    await installCrds(client, DEMO_NAMESPACE, o.signal);
    await resetNamespace(api, DEMO_NAMESPACE, o.signal, (l) => say(`  ${l}`));

    // The timeout counts from the first sample applied: the cluster build has its own pace.
    const deadline = Date.now() + o.timeoutSeconds * 1000;
    say(`[3/5] samples from ${samplesDir(layoutFor().projectRoot)}`);
    await applySamples(client, samples);
    const made = o.karpenter ? 'by Karpenter for its NodePool' : 'on the fly (NodeClaim)';
    const where = (instanceType: string | undefined, pool: string | undefined): string =>
      pool ? `${instanceType} nodes of pool ${pool}` : `a ${instanceType} node provisioned ${made}`;
    for (const ws of samples.workspaces) {
      // Samples on the simcluster's pools select `kaito.sh/sim-pool`; the others get nodes provisioned for them.
      const pool = ws.resource.labelSelector?.matchLabels?.[POOL_LABEL];
      say(
        `  workspace ${ws.metadata.name}: ${ws.inference?.preset?.name ?? 'template'} on ${where(ws.resource.instanceType, pool)}${legacyNames.has(ws.metadata.name ?? '') ? ' (legacy, to migrate)' : ''}`,
      );
    }
    for (const is of samples.inferenceSets) {
      const pool = is.spec.labelSelector.matchLabels?.[POOL_LABEL];
      say(
        `  inferenceset ${is.metadata.name}: ${is.spec.template.inference?.preset?.name ?? 'template'}, ${replicasText(is.spec.replicas ?? 1)}, one child Workspace each, each on ${where(is.spec.template.resource?.instanceType, pool)}`,
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
    say(`[4/5] operator (in this process, namespace ${DEMO_NAMESPACE}, ${mode}; JSON logs: ${logFile})`);
    const opts = demoManagerOptions(cluster.kubeconfigPath, DEMO_NAMESPACE, o.karpenter);
    manager = await startManager(opts, createLogger({ level: opts.logLevel, destination: fileDestination(logFile) }));
    say(`  started (health ${manager.healthUrl ?? 'off'})`);
    say('');

    const live: LiveContext = {
      client,
      namespace: DEMO_NAMESPACE,
      samples,
      legacyNames,
      deadline,
      timeoutSeconds: o.timeoutSeconds,
      signal: o.signal,
      out: o.out,
      tty: o.tty,
      ...(o.columns !== undefined ? { columns: o.columns } : {}),
    };
    const first = await liveUntilReady(live, 'the operator started');
    const firstCount = workspaceRows(first.rows).length;
    say(`\nAll ${firstCount} workspaces InferenceReady=True, ${sec(first.ms)} after the operator started (${sec(Date.now() - t0)} in all).`);
    const migrated = (await snapshot(client, DEMO_NAMESPACE)).workspaces;
    for (const [name, events] of await migrationEvents(client, DEMO_NAMESPACE, migrated)) {
      const warned = events.some((e) => e.type === 'Warning');
      say(
        `Migration of ${name}: ${warned ? 'delete-then-create (the old pod held the GPUs the new pod needed)' : 'no downtime (StatefulSet pod 0 was Ready before the Deployment was deleted)'}`,
      );
      const counts = new Map<string, number>();
      for (const e of events) counts.set(`${e.type}: ${e.note}`, (counts.get(`${e.type}: ${e.note}`) ?? 0) + 1);
      for (const [line, n] of counts) say(`  ${line}${n > 1 ? ` (×${n})` : ''}`);
    }

    const scaled: ScaleReport[] = [];
    for (const is of samples.inferenceSets) {
      say('');
      say(`[5/5] inferenceset ${is.metadata.name}: scale it up by one replica with kubectl, then back`);
      scaled.push(await scaleUpAndBack(live, cluster, is, say));
    }
    ready = true;
    const end = workspaceRows(scaled.at(-1)?.rows ?? first.rows).length;
    const sets = scaled.map((r) => `inferenceset/${r.set} scaled ${r.from} → ${r.to} → ${r.from}`).join(', ');
    say(`\nDone: all ${end} workspaces InferenceReady=True${sets ? `, ${sets}` : ''}, ${sec(Date.now() - t0)} in all.`);
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
    if (err instanceof Interrupted || o.signal.aborted) return { code: ready ? 0 : 130 };
    if (err instanceof TimedOut || err instanceof KubectlFailed) return { code: 1, error: err.message };
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
