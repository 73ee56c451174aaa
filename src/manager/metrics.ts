// Prometheus metrics under controller-runtime's and client-go's names (so existing dashboards and
// alerts work), plus KAITO's kaito_workspace_count{phase}. A registry per manager, not a global
// one, so two managers in one process (tests) never collide. Gauges that mirror state are
// read at scrape time (collect), so nothing runs between scrapes.
import { Counter, Histogram, Registry, registerProcessMetrics } from '../runtime/prometheus.js';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ConditionReason, ConditionType } from '../api/labels.js';
import type { Workspace } from '../api/types.js';
import type { Controller, ReconcileOutcome } from '../runtime/controller.js';
import type { CacheReader } from '../runtime/cache.js';
import type { RequestCounter, Verb } from '../runtime/transport.js';

export type WorkspacePhase = 'succeeded' | 'error' | 'pending' | 'deleting';
export const WORKSPACE_PHASES: readonly WorkspacePhase[] = ['succeeded', 'error', 'pending', 'deleting'];

type Conditions = readonly { type: string; status: string; reason?: string }[] | undefined;

/**
 * KAITO's phase of a workspace, with conditions looked up BY TYPE in a fixed precedence
 * (Deleting, then Succeeded True/False) — KAITO takes the first decisive condition in stored
 * order, so the same workspace could count differently depending on list order (W9).
 */
export function workspacePhase(ws: { metadata?: { deletionTimestamp?: unknown }; status?: { conditions?: Conditions } }): WorkspacePhase {
  const find = (type: string) => ws.status?.conditions?.find((c) => c.type === type);
  if (find(ConditionType.WorkspaceDeleting)?.status === 'True') return 'deleting';
  const succeeded = find(ConditionType.WorkspaceSucceeded);
  if (succeeded?.status === 'True') return 'succeeded';
  // A running tuning Job (False/workspacePending) is pending, not an error (KAITO counts it as one: W13).
  if (succeeded?.status === 'False') return succeeded.reason === ConditionReason.WorkspacePending ? 'pending' : 'error';
  return 'pending';
}

export function countPhases(workspaces: Iterable<Parameters<typeof workspacePhase>[0]>): Record<WorkspacePhase, number> {
  const counts: Record<WorkspacePhase, number> = { succeeded: 0, error: 0, pending: 0, deleting: 0 };
  for (const ws of workspaces) counts[workspacePhase(ws)]++;
  return counts;
}

/** controller-runtime's result label values; a terminal error is an error that is not retried. */
const RESULT: Record<ReconcileOutcome, string> = { success: 'success', error: 'error', terminal_error: 'error', requeue_after: 'requeue_after' };

/** Buckets of controller-runtime's reconcile_time_seconds and client-go's workqueue histograms. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10,
  15, 20, 25, 30, 40, 50, 60,
];
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000];

export interface MetricsSources {
  controller: Controller;
  workspaces: CacheReader<KubernetesObject & Workspace>;
  requests: RequestCounter;
  /** Whether this replica holds the lease (1) or is a standby (0); omitted without leader election. */
  isLeader?: () => boolean;
}

export class OperatorMetrics {
  readonly registry = new Registry();

  constructor(s: MetricsSources) {
    const r = this.registry;
    const name = s.controller.name;
    registerProcessMetrics(r);

    const total = r.add(new Counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller'));
    const errors = r.add(new Counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller'));
    const terminal = r.add(new Counter('controller_runtime_terminal_reconcile_errors_total', 'Total number of terminal reconciliation errors per controller'));
    const time = r.add(new Histogram('controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', RECONCILE_BUCKETS));
    for (const result of new Set(Object.values(RESULT))) total.inc({ controller: name, result }, 0);
    errors.inc({ controller: name }, 0);
    terminal.inc({ controller: name }, 0);
    s.controller.observer = {
      reconciled: (pass) => {
        total.inc({ controller: pass.controller, result: RESULT[pass.outcome] });
        if (pass.outcome === 'error' || pass.outcome === 'terminal_error') errors.inc({ controller: pass.controller });
        if (pass.outcome === 'terminal_error') terminal.inc({ controller: pass.controller });
        time.observe({ controller: pass.controller }, pass.seconds);
      },
    };
    const byController = { controller: name };
    r.collected('controller_runtime_active_workers', 'Number of currently used workers per controller', 'gauge', () => [
      { labels: byController, value: s.controller.metrics.activeWorkers },
    ]);
    r.collected('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', 'gauge', () => [
      { labels: byController, value: s.controller.maxConcurrentReconciles },
    ]);

    const q = s.controller.queue;
    const byQueue = { name, controller: name };
    r.collected('workqueue_depth', 'Current depth of workqueue', 'gauge', () => [{ labels: byQueue, value: q.len }]);
    r.collected('workqueue_adds_total', 'Total number of adds handled by workqueue', 'counter', () => [{ labels: byQueue, value: q.metrics.adds }]);
    r.collected('workqueue_retries_total', 'Total number of retries handled by workqueue', 'counter', () => [{ labels: byQueue, value: q.metrics.retries }]);
    const queued = r.add(
      new Histogram('workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested', QUEUE_BUCKETS),
    );
    const worked = r.add(new Histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes', QUEUE_BUCKETS));
    q.observer = {
      queued: (sec) => queued.observe(byQueue, sec),
      worked: (sec) => worked.observe(byQueue, sec),
    };

    // client-go labels rest_client_requests_total by code/method/host; our transport counts by verb.
    r.collected('rest_client_requests_total', 'Number of HTTP requests to the API server, by verb', 'counter', () =>
      (Object.entries(s.requests.snapshot()) as [Verb, number][]).map(([verb, value]) => ({ labels: { verb }, value })),
    );

    r.collected('kaito_workspace_count', 'Number of Workspaces in a certain phase (succeeded, error, pending, deleting)', 'gauge', () => {
      const counts = countPhases(s.workspaces.list());
      return WORKSPACE_PHASES.map((phase) => ({ labels: { phase }, value: counts[phase] }));
    });

    const isLeader = s.isLeader;
    if (isLeader) {
      r.collected('leader_election_master_status', 'Whether this replica holds the leader lease (1) or not (0)', 'gauge', () => [
        { labels: { name: 'kaito-ts-leader' }, value: isLeader() ? 1 : 0 },
      ]);
    }
  }

  render(): { contentType: string; body: string } {
    return { contentType: this.registry.contentType, body: this.registry.render() };
  }
}
