// The manager (controller-runtime's Manager): one client, the workspace controller with its caches,
// leader election, probes, metrics, and an orderly stop. `kaito-ts run` is a thin shell around it.
//
// With --leader-elect every replica fills its caches (so /readyz means "caches synced" on leader and
// standby alike, and a takeover starts warm), but only the Lease holder runs workers.
import type { Server } from 'node:http';
import type { Logger as Pino } from 'pino';
import { KubeClient } from '../runtime/client.js';
import { clientEventSink, EventRecorder } from '../runtime/events.js';
import { loadClusterAccess } from '../runtime/cluster-access.js';
import { Resources } from '../runtime/resources.js';
import { KubeTransport } from '../runtime/transport.js';
import { setupWorkspaceController, type WorkspaceController } from '../controllers/workspace/setup.js';
import { serve, type Handler } from './http.js';
import { DEFAULT_LEADER_ELECTION_NAMESPACE, LeaderElector } from './leader-election.js';
import { createLogger } from './logging.js';
import { OperatorMetrics } from './metrics.js';
import type { ManagerOptions } from './options.js';

export interface RunningManager {
  log: Pino;
  client: KubeClient;
  workspace: WorkspaceController;
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

export async function startManager(o: ManagerOptions, log: Pino = createLogger({ level: o.logLevel }), hooks: ManagerHooks = {}): Promise<RunningManager> {
  const kc = await loadClusterAccess({ kubeconfig: o.kubeconfig });
  const transport = new KubeTransport(kc, { qps: o.kubeClientQps, burst: o.kubeClientBurst });
  const client = new KubeClient(transport);
  const recorder = new EventRecorder({ sink: clientEventSink(client), log });
  const workspace = setupWorkspaceController({
    client,
    recorder,
    log,
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    namespace: o.namespace,
    syncPeriodMs: o.syncPeriodMs,
    config: { featureGates: o.featureGates, cloudProvider: o.cloudProvider, presetRegistry: o.presetRegistry, releaseNamespace: o.releaseNamespace, nodeProvisioningTimeoutMs: o.nodeProvisioningTimeoutMs },
  });
  const { controller } = workspace;
  const leaseNamespace = o.leaderElectionNamespace ?? DEFAULT_LEADER_ELECTION_NAMESPACE;
  const elector = o.leaderElect ? new LeaderElector({ client, namespace: leaseNamespace, log, timings: o.leaderElectionTimings }) : undefined;
  const metrics = new OperatorMetrics({
    controller,
    workspaces: workspace.caches.workspaces,
    requests: client.counter,
    ...(elector ? { isLeader: () => elector.isLeader } : {}),
  });
  // One debug line per pass from a child logger bound to the pass (lines logged DURING the pass get
  // the same fields from the runtime's reconcileScope).
  const countPass = controller.observer;
  controller.observer = {
    reconciled(pass) {
      countPass?.reconciled(pass);
      const { controller: name, key, reconcileID, ...rest } = pass;
      log.child({ controller: name, key, reconcileID }).debug({ ...rest, seconds: Number(rest.seconds.toFixed(4)) }, 'reconciled');
    },
  };
  const fatal = hooks.onFatal ?? ((reason: string) => {
    log.fatal({ reason }, 'stopping at once');
    log.flush?.();
    process.exit(1);
  });

  // The optional NodeClaim watch may never sync (CRD absent); it must not hold readiness back.
  const required = workspace.reflectors.filter((r) => r.name.split('@')[0] !== Resources.nodeClaims.plural);
  let workersRunning = false;
  const ready = () => required.every((r) => r.hasSynced);

  const servers: Server[] = [];
  const endpoint = async (address: string, routes: Record<string, Handler>): Promise<string | undefined> => {
    if (address === '0') return undefined;
    const s = await serve(address, routes);
    servers.push(s.server);
    return s.url;
  };
  const closeServers = () => Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));

  let healthUrl: string | undefined;
  let metricsUrl: string | undefined;
  try {
    healthUrl = await endpoint(o.healthProbeBindAddress, {
      '/healthz': (_q, res) => void res.writeHead(200).end('ok\n'),
      // Not tied to the lease: a standby with synced caches is ready to take over (Kubebuilder's advice).
      '/readyz': (_q, res) => void (ready() ? res.writeHead(200).end('ok\n') : res.writeHead(503).end('caches not synced\n')),
    });
    metricsUrl = await endpoint(o.metricsBindAddress, {
      '/metrics': async (_q, res) => {
        const m = await metrics.render();
        res.writeHead(200, { 'content-type': m.contentType }).end(m.body);
      },
    });
  } catch (err) {
    await closeServers();
    throw err;
  }

  const startWorkers = async () => {
    await controller.start();
    workersRunning = true;
  };
  const acquiring = new AbortController();
  let leading: Promise<void>;
  if (!elector) {
    try {
      await startWorkers();
    } catch (err) {
      await closeServers();
      throw err;
    }
    leading = Promise.resolve();
  } else {
    for (const r of workspace.reflectors) r.start();
    leading = (async () => {
      if (!(await elector.acquire(acquiring.signal))) return new Promise<void>(() => {}); // stopped while standing by
      elector.keepRenewing((reason) => fatal(`leader election lost: ${reason}`));
      await startWorkers().catch((err: unknown) => fatal(`controller did not start: ${(err as Error).message}`));
    })();
  }
  log.info({
    workers: o.maxConcurrentReconciles, featureGates: o.featureGates, cloudProvider: o.cloudProvider, namespace: o.namespace ?? '(all)',
    healthUrl, metricsUrl, ...(elector ? { lease: `${leaseNamespace}/${elector.name}`, identity: elector.identity } : {}),
  }, 'kaito-ts operator started');

  return {
    log,
    client,
    workspace,
    metrics,
    healthUrl,
    metricsUrl,
    elector,
    leading,
    async stop(deadlineMs = 30_000) {
      acquiring.abort();
      // A standby never handed out work: nothing is in flight, so there is nothing to wait for.
      const drained = workersRunning ? await controller.stop(deadlineMs) : (await controller.stop(0), true);
      // Only now, with no reconcile running, may another replica start: hand the lease back.
      if (elector) await elector.release();
      await closeServers();
      transport.close();
      log.info({ drained }, 'kaito-ts operator stopped');
      return drained;
    },
  };
}
