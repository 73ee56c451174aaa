// The Workspace reconciler: snapshot (caches) → plan (pure) → execute (SSA). Level-triggered and
// idempotent: it gets only a key and re-reads everything; a pass with nothing to change sends no
// request. It never waits for readiness: it returns and is woken by events (or by a timer for a
// timeout no event marks).
import { TerminalError, type ReconcileContext, type Result } from '../../runtime/controller.js';
import { mutableCopy } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { PlanExecutor, type ExecutionRecord } from '../shared/executor.js';
import { failureOf } from './failures.js';
import { isNotFound } from '../../runtime/errors.js';
import { orphanSelectors, planOrphans } from './orphans.js';
import { ModelSecrets } from './model-secret.js';
import { planFailure, planWorkspace } from './plan.js';
import { takeSnapshot } from './snapshot.js';

export class WorkspaceReconciler {
  private readonly secrets: ModelSecrets;
  private readonly executor: PlanExecutor<WorkspaceObject>;
  /** Requests of the last pass per key (tests and the benchmark read it). */
  lastExecution?: ExecutionRecord;

  constructor(private readonly deps: WorkspaceDeps) {
    this.secrets = new ModelSecrets(deps.client, deps.caches.secrets);
    this.executor = new PlanExecutor<WorkspaceObject>({ client: deps.client, caches: deps.caches, recorder: deps.recorder, owner: Resources.workspaces });
  }

  /** The context's `signal`: shutdown or a stuck API server cannot hold the worker; `release`: see PlanExecutor. */
  reconcile = async (key: string, ctx: Partial<Pick<ReconcileContext, 'retries' | 'signal' | 'release' | 'urgent' | 'fast'>> = {}): Promise<Result> => {
    const { retries: failuresSoFar = 0, signal, release, urgent, fast } = ctx;
    const cached = this.deps.caches.workspaces.getByKey(key);
    if (!cached) return this.collectOrphans(key, signal);
    const snap = await takeSnapshot(cached, this.deps, this.secrets);
    const plan = planWorkspace(snap);
    try {
      this.lastExecution = await this.executor.execute(snap.ws, plan, { signal, release, urgent, fast });
    } catch (err) {
      const failure = failureOf(err, failuresSoFar);
      if (failure) {
        // The pass may have written the workspace already: report from what the cache holds now. A
        // conflict would meet the same 409 on the conditional metadata write, so it writes status only.
        const latest = mutableCopy<WorkspaceObject>(this.deps.caches.workspaces.getByKey(key) ?? snap.ws);
        const report = planFailure({ ...snap, ws: latest }, failure, { metadata: failure.retry === false });
        await this.executor
          .execute(latest, report, { signal })
          .catch((e: unknown) => this.deps.log.error({ key, error: (e as Error).message }, 'reporting a failure failed'));
      }
      throw err; // the error policy (failures.ts) decides between backoff and terminal
    }
    if (plan.failure) throw new TerminalError(plan.failure.reason, plan.failure.message);
    return plan.requeueAfterMs ? { requeueAfterMs: plan.requeueAfterMs } : {};
  };

  /** A key with no workspace in the cache: NodeClaims or NodePools still labelled for it are deleted once a live GET confirms it is gone. */
  private async collectOrphans(key: string, signal: AbortSignal | undefined): Promise<Result> {
    const slash = key.indexOf('/');
    const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
    // Cluster-scoped claims of every namespace reach a namespaced operator: only its own are its to judge.
    if (slash < 0 || (this.deps.namespace && namespace !== this.deps.namespace)) return {};
    const { caches } = this.deps;
    const selectors = orphanSelectors(namespace, name);
    const input = {
      namespace,
      name,
      claims: caches.nodeClaims?.list({ selector: { matchLabels: selectors.claims } }) ?? [],
      pools: caches.nodePools?.list({ selector: { matchLabels: selectors.pools } }) ?? [],
    };
    const first = planOrphans(input);
    if (first.verdict !== 'confirm') return {};
    const client = signal ? this.deps.client.withSignal(signal) : this.deps.client;
    const live = await client.get(Resources.workspaces, namespace, name).then(
      () => 'present' as const,
      (err: unknown) => {
        if (isNotFound(err)) return 'absent' as const;
        throw err;
      },
    );
    const verdict = planOrphans({ ...input, live });
    if (verdict.verdict !== 'collect') return {};
    const gone = { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { namespace, name } } as WorkspaceObject;
    this.lastExecution = await this.executor.execute(gone, verdict.plan, { signal });
    this.deps.log.info({ workspace: key, nodeClaims: first.claims, nodePools: first.pools }, 'deleted nodes left by a workspace that no longer exists');
    return {};
  }
}
