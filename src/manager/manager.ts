// The manager (controller-runtime's Manager): one client, the workspace controller with its caches,
// leader election, probes, metrics, and an orderly stop. `kaito-ts run` is a thin shell around it.
//
// With --leader-elect every replica fills its caches (so /readyz means "caches synced" on leader and
// standby alike, and a takeover starts warm), but only the Lease holder runs workers.
import { KubeClient } from '../runtime/client.js';
import { LatchedLeadership } from '../runtime/leadership.js';
import { clientEventSink, EventRecorder } from '../runtime/events.js';
import { loadClusterAccess } from '../runtime/cluster-access.js';
import { KubeTransport } from '../runtime/transport.js';
import { setupInferenceSetController, type InferenceSetController } from '../controllers/inferenceset/setup.js';
import { provisionerOf } from '../controllers/workspace/context.js';
import { setupWorkspaceController, type WorkspaceController } from '../controllers/workspace/setup.js';
import { DEFAULT_LEADER_ELECTION_NAMESPACE, LeaderElector } from './leader-election.js';
import { createLogger, type JsonLogger } from './logging.js';
import { nodeClassesRunnable } from './node-classes.js';
import { OperatorMetrics } from './metrics.js';
import type { ManagerOptions } from './options.js';
import { controllerRunnable, httpServer, reflectorsRunnable, RunnableGroups } from './runnables.js';

export interface RunningManager {
  log: JsonLogger;
  client: KubeClient;
  workspace: WorkspaceController;
  /** With the enableInferenceSetController feature gate (on by default, as in KAITO v0.12). */
  inferenceSet?: InferenceSetController;
  metrics: OperatorMetrics;
  healthUrl?: string;
  metricsUrl?: string;
  /** Present with --leader-elect. */
  elector?: LeaderElector;
  /** Resolves when this replica leads and its workers run (at once without leader election). */
  leading: Promise<void>;
  /** Stops taking work, finishes in-flight reconciles within the deadline, releases the lease, closes endpoints. */
  stop(deadlineMs?: number): Promise<boolean>;
}

export interface ManagerHooks {
  /**
   * The lease was lost (or, once leading, the controller could not start): the process must stop
   * at once, without draining — another replica may already be reconciling. Default: exit(1).
   */
  onFatal?: (reason: string) => void;
}

export async function startManager(
  o: ManagerOptions,
  log: JsonLogger = createLogger({ level: o.logLevel }),
  hooks: ManagerHooks = {},
): Promise<RunningManager> {
  const kc = await loadClusterAccess({ kubeconfig: o.kubeconfig });
  // Every write in the debug log, so which process wrote what, and when, can be read from outside.
  const logWrite = log.isLevelEnabled('debug') ? (verb: string, path: string) => log.debug({ verb, path }, 'write sent') : undefined;
  const transport = new KubeTransport(kc, { qps: o.kubeClientQps, burst: o.kubeClientBurst, ...(logWrite ? { onWrite: logWrite } : {}) });
  // The elector's own client: its Lease writes are how it leads, never refused.
  const leaseClient = new KubeClient(transport);
  const leaseNamespace = o.leaderElectionNamespace ?? DEFAULT_LEADER_ELECTION_NAMESPACE;
  const elector = o.leaderElect ? new LeaderElector({ client: leaseClient, namespace: leaseNamespace, log, timings: o.leaderElectionTimings }) : undefined;
  const fatal =
    hooks.onFatal ??
    ((reason: string) => {
      log.fatal({ reason }, 'stopping at once');
      log.flush();
      process.exit(1);
    });
  // With leader election, no pass starts and no write is sent unless the lease was renewed recently
  // enough by this process's clock; the first refusal stops all writing, then the process exits.
  const leadership = elector ? new LatchedLeadership(elector, (reason) => fatal(`leader election lost: ${reason}`)) : undefined;
  const client = leadership ? leaseClient.guardedBy(leadership) : leaseClient;
  const recorder = new EventRecorder({ sink: clientEventSink(client), log });
  const workspace = setupWorkspaceController({
    client,
    recorder,
    log,
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    maxReleasedPasses: o.maxReleasedPasses,
    namespace: o.namespace,
    syncPeriodMs: o.syncPeriodMs,
    config: {
      featureGates: o.featureGates,
      nodeProvisioner: o.nodeProvisioner,
      ...(o.nodeClasses ? { nodeClasses: o.nodeClasses } : {}),
      cloudProvider: o.cloudProvider,
      presetRegistry: o.presetRegistry,
      releaseNamespace: o.releaseNamespace,
      nodeProvisioningTimeoutMs: o.nodeProvisioningTimeoutMs,
      defaultUpdateStrategy: o.defaultUpdateStrategy,
      legacyPresets: o.legacyPresets,
    },
    hubEndpoint: o.hubEndpoint,
  });
  const { controller } = workspace;
  const inferenceSet = o.featureGates.enableInferenceSetController
    ? setupInferenceSetController({
        client,
        recorder,
        log,
        byo: o.featureGates.disableNodeAutoProvisioning,
        karpenter: provisionerOf(o) === 'karpenter',
        namespace: o.namespace,
      })
    : undefined;
  if (leadership) for (const c of [controller, inferenceSet?.controller]) if (c) c.leadership = leadership;
  const metrics = new OperatorMetrics({
    controller,
    workspaces: workspace.caches.workspaces,
    requests: client.counter,
    ...(elector ? { isLeader: () => elector.isLeader } : {}),
  });
  // One debug line per pass of either controller from a child logger bound to the pass (lines logged
  // DURING the pass get the same fields from the runtime's reconcileScope).
  for (const c of [controller, inferenceSet?.controller]) {
    if (!c) continue;
    const countPass = c.observer;
    c.observer = {
      reconciled(pass) {
        countPass?.reconciled(pass);
        if (!log.isLevelEnabled('debug')) return; // no child logger per pass when its line is dropped anyway
        const { controller: name, key, reconcileID, ...rest } = pass;
        log.child({ controller: name, key, reconcileID }).debug({ ...rest, seconds: Number(rest.seconds.toFixed(4)) }, 'reconciled');
      },
    };
  }
  // The optional NodeClaim watch may never sync (CRD absent); it must not hold readiness back.
  const ready = () => [...workspace.required, ...(inferenceSet?.required ?? [])].every((r) => r.hasSynced);

  // servers → caches → (the lease) → workers; stopped in reverse (runnables.ts).
  const groups = new RunnableGroups({ ...(elector ? { leader: elector } : {}), onFatal: fatal });
  const health =
    o.healthProbeBindAddress === '0'
      ? undefined
      : httpServer('health', o.healthProbeBindAddress, {
          '/healthz': (_q, res) => void res.writeHead(200).end('ok\n'),
          // Not tied to the lease: a standby with synced caches is ready to take over (Kubebuilder's advice).
          '/readyz': (_q, res) => void (ready() ? res.writeHead(200).end('ok\n') : res.writeHead(503).end('caches not synced\n')),
        });
  const metricsServer =
    o.metricsBindAddress === '0'
      ? undefined
      : httpServer('metrics', o.metricsBindAddress, {
          '/metrics': (_q, res) => {
            const m = metrics.render();
            res.writeHead(200, { 'content-type': m.contentType }).end(m.body);
          },
        });
  for (const server of [health, metricsServer]) if (server) groups.add('servers', server);
  // With --leader-elect every replica fills its caches; without, the controller would start them anyway.
  groups.add('caches', reflectorsRunnable('workspace caches', workspace.reflectors));
  if (inferenceSet) groups.add('caches', reflectorsRunnable('inferenceset caches', inferenceSet.reflectors));
  // Karpenter mode: the configured NodeClasses exist before any NodePool names one (KAITO's start).
  if (o.nodeClasses) groups.add('leaderGated', nodeClassesRunnable(client, o.nodeClasses, log));
  groups.add('leaderGated', controllerRunnable(controller));
  if (inferenceSet) groups.add('leaderGated', controllerRunnable(inferenceSet.controller));
  const { leading } = await groups.start();
  const healthUrl = health?.url;
  const metricsUrl = metricsServer?.url;
  log.info(
    {
      workers: o.maxConcurrentReconciles,
      featureGates: o.featureGates,
      nodeProvisioner: o.nodeProvisioner,
      cloudProvider: o.cloudProvider,
      legacyPresets: o.legacyPresets,
      namespace: o.namespace ?? '(all)',
      healthUrl,
      metricsUrl,
      ...(elector ? { lease: `${leaseNamespace}/${elector.name}`, identity: elector.identity } : {}),
    },
    'kaito-ts operator started',
  );
  if (o.nodeProvisionerWarning) log.warn({ nodeProvisioner: o.nodeProvisioner }, o.nodeProvisionerWarning);

  return {
    log,
    client,
    workspace,
    ...(inferenceSet ? { inferenceSet } : {}),
    metrics,
    healthUrl,
    metricsUrl,
    elector,
    leading,
    async stop(deadlineMs = 30_000) {
      // Workers drain (a standby's stop at once), the lease is handed back, then caches and endpoints close.
      const drained = await groups.stop(deadlineMs);
      transport.close();
      log.info({ drained }, 'kaito-ts operator stopped');
      return drained;
    },
  };
}
