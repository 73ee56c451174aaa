// The manager (controller-runtime's Manager): one client, the workspace controller with its caches,
// probes, and an orderly stop. `kaito-ts run` is a thin shell around startManager().
import type { Server } from 'node:http';
import { pino, type Logger as Pino } from 'pino';
import { KubeClient } from '../runtime/client.js';
import { clientEventSink, EventRecorder } from '../runtime/events.js';
import { createKubeConfig } from '../runtime/kubeconfig.js';
import { KubeTransport } from '../runtime/transport.js';
import { setupWorkspaceController, type WorkspaceController } from '../controllers/workspace/setup.js';
import { serve } from './http.js';
import type { ManagerOptions } from './options.js';

export interface RunningManager {
  log: Pino;
  client: KubeClient;
  workspace: WorkspaceController;
  healthUrl?: string;
  /** Stops taking work, finishes in-flight reconciles within the deadline, closes endpoints. */
  stop(deadlineMs?: number): Promise<boolean>;
}

export async function startManager(o: ManagerOptions, log: Pino = pino({ level: o.logLevel })): Promise<RunningManager> {
  const kc = createKubeConfig({ kubeconfig: o.kubeconfig });
  const transport = new KubeTransport(kc, { qps: o.kubeClientQps, burst: o.kubeClientBurst });
  const client = new KubeClient(transport);
  const recorder = new EventRecorder({ sink: clientEventSink(client), log });
  const workspace = setupWorkspaceController({
    client,
    recorder,
    log,
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    namespace: o.namespace,
    config: { featureGates: o.featureGates, cloudProvider: o.cloudProvider, presetRegistry: o.presetRegistry, releaseNamespace: o.releaseNamespace },
  });

  let started = false;
  const servers: Server[] = [];
  let healthUrl: string | undefined;
  if (o.healthProbeBindAddress !== '0') {
    const h = await serve(o.healthProbeBindAddress, {
      '/healthz': (_q, res) => void res.writeHead(200).end('ok\n'),
      '/readyz': (_q, res) => void res.writeHead(started ? 200 : 503).end(started ? 'ok\n' : 'caches not synced\n'),
    });
    servers.push(h.server);
    healthUrl = h.url;
  }
  await workspace.controller.start();
  started = true;
  log.info({ workers: o.maxConcurrentReconciles, featureGates: o.featureGates, cloudProvider: o.cloudProvider, healthUrl }, 'kaito-ts operator started');

  return {
    log,
    client,
    workspace,
    healthUrl,
    async stop(deadlineMs = 30_000) {
      const drained = await workspace.controller.stop(deadlineMs);
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      log.info({ drained }, 'kaito-ts operator stopped');
      return drained;
    },
  };
}
