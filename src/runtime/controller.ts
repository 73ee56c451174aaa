// Watches → mappers → work queue → N workers → reconcile(key). Level-triggered: a reconcile gets
// only the key and re-reads the world from the caches, so any number of events for one object
// collapse into one pass. Results follow controller-runtime's reconcileHandler:
//   error           → rate-limited requeue (per-key 5 ms·2^n ≤ 1000 s, bucket 10 qps/100)
//   TerminalError   → no requeue (bad input the next event will re-trigger), counted; or one
//                     later look when it names an input nothing watches (recheckAfterMs)
//   requeueAfterMs  → forget the failures, add again after the delay (how to "wait" for readiness
//                     without ever blocking a worker)
//   otherwise       → forget the failures.
import { randomUUID } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { toKubeError } from './errors.js';
import type { Leadership } from './leadership.js';
import { reconcileScope, silentLogger, type Logger } from './log.js';
import type { ObjectEvent } from './cache.js';
import type { Mapper } from './mappers.js';
import type { Reflector } from './reflector.js';
import { WorkQueue, type Lane } from './workqueue.js';

export interface Result {
  requeueAfterMs?: number;
}

export interface ReconcileContext {
  /** Aborted when the controller stops; long calls should pass it on. */
  signal: AbortSignal;
  reconcileID: string;
  /** Failures of this key so far (0 on a fresh key). */
  retries: number;
  /**
   * Frees this pass's worker for the next key while the pass goes on: what is left of it only waits
   * for the client's QPS budget behind other passes' model loads. The key stays in process until the
   * pass ends. False when releasing is off (`maxReleasedPasses` 0): the pass keeps its worker.
   */
  release(): boolean;
  /**
   * Fires on a fast event that status must report at once (a pod turned Ready, `urgentWhen`) while
   * this pass runs: writes it deferred wait no longer, so the pass that reports it is not held up.
   */
  urgent: AbortSignal;
  /**
   * The key came from the fast lane (a child's status moved): the pass reports it, and its writes go
   * before those of passes from the normal lane (first passes) in the client's QPS budget.
   */
  fast: boolean;
}

/**
 * Released passes past which no first pass starts. On a burst of new workspaces each holds its
 * Services and status while later workspaces' StatefulSets go first; 50 × ~5 such writes are ~8 s of a
 * 30 QPS budget, well inside a model load, so status is out before pods turn Ready (docs/benchmarks.md).
 */
export const DEFAULT_RELEASED_PASSES = 50;

export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<Result | void>;

/**
 * The one way to say "report, don't retry" (controller-runtime's TerminalError): retrying cannot fix
 * this (bad input, a name collision), so the key waits for the next event instead of hot-looping.
 * `reason` is the condition and event reason a reconciler reports it under; `recheckAfterMs` asks for
 * one later look at an input that no watch covers.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(
    readonly reason: string,
    message: string,
    readonly recheckAfterMs?: number,
  ) {
    super(message);
  }
}

/** What a failed pass means for its key (controller-rs's error_policy). */
export type ErrorVerdict =
  /** No requeue: the next event for the key brings it back; `recheckAfterMs` asks for one later look. */
  | { terminal: true; recheckAfterMs?: number }
  /** The queue's per-key backoff, never sooner than `notBeforeMs` (a server's Retry-After). */
  | { terminal: false; notBeforeMs?: number };

export type ErrorPolicy = (err: unknown, ctx: ReconcileContext) => ErrorVerdict;

/** TerminalError is terminal; anything else backs off, honouring a throttling server's Retry-After. */
export const defaultErrorPolicy: ErrorPolicy = (err) =>
  err instanceof TerminalError
    ? { terminal: true, ...(err.recheckAfterMs ? { recheckAfterMs: err.recheckAfterMs } : {}) }
    : { terminal: false, notBeforeMs: toKubeError(err).retryAfterMs ?? 0 };

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** How errors requeue (default: defaultErrorPolicy). */
  errorPolicy?: ErrorPolicy;
  /** Workers; KAITO uses 5 (--max-concurrent-reconciles). */
  maxConcurrentReconciles?: number;
  /**
   * Released passes (`ReconcileContext.release`) beyond which the normal lane waits: workers then take
   * only fast keys until one ends. 0 turns releasing off.
   */
  maxReleasedPasses?: number;
  queue?: WorkQueue;
  /** How long start() waits for required sources (controller-runtime CacheSyncTimeout: 2 min). */
  cacheSyncTimeoutMs?: number;
  log?: Logger;
  /**
   * controller-runtime's SyncPeriod: every key from `keys` is enqueued again this often (×[1, 1.1)
   * jitter), so a missed event or a drifted child is corrected even when nothing wakes the key.
   */
  resync?: { periodMs: number; keys: () => Iterable<string> };
  /**
   * Asked just before every pass starts (first passes, fast lanes, and so the passes a released worker
   * goes on to): a pass starts only while this process leads. Absent: every pass starts.
   */
  leadership?: Leadership;
}

export type ReconcileOutcome = 'success' | 'error' | 'terminal_error' | 'requeue_after';

export interface ControllerMetrics {
  reconciles: Record<ReconcileOutcome, number>;
  activeWorkers: number;
}

/** Called after every pass (metrics, a per-pass log line). */
export interface ControllerObserver {
  reconciled(pass: { controller: string; key: string; reconcileID: string; outcome: ReconcileOutcome; seconds: number; error?: string }): void;
}

interface Source {
  reflector: Reflector<KubernetesObject>;
  required: boolean;
}

export class Controller {
  readonly queue: WorkQueue;
  readonly metrics: ControllerMetrics = {
    reconciles: { success: 0, error: 0, terminal_error: 0, requeue_after: 0 },
    activeWorkers: 0,
  };
  observer?: ControllerObserver;
  /** Set by the manager with leader election (ControllerOptions.leadership). */
  leadership?: Leadership;
  /** Passes not started because leadership did not hold. */
  refusedPasses = 0;
  private readonly sources: Source[] = [];
  private readonly stopper = new AbortController();
  private workers: Promise<void>[] = [];
  private readonly log: Logger;
  private resyncTimer?: NodeJS.Timeout;
  private released = 0;
  /** The `urgent` trigger of each pass in process, by key. */
  private readonly urgent = new Map<string, AbortController>();

  constructor(private readonly o: ControllerOptions) {
    this.queue = o.queue ?? new WorkQueue();
    // Released passes hold their memory until they end: past the limit no first pass starts, but fast keys do.
    this.queue.gateNormalLane(() => this.maxReleasedPasses === 0 || this.released < this.maxReleasedPasses);
    this.log = o.log ?? silentLogger;
    if (o.leadership) this.leadership = o.leadership;
  }

  get maxConcurrentReconciles(): number {
    return this.o.maxConcurrentReconciles ?? 5;
  }

  get maxReleasedPasses(): number {
    return this.o.maxReleasedPasses ?? DEFAULT_RELEASED_PASSES;
  }

  /**
   * Feeds events of a reflector through a mapper into the queue. `required: false` for sources
   * that may never sync (an optional CRD that is not installed) so they cannot block start().
   */
  watch<T extends KubernetesObject>(
    reflector: Reflector<T>,
    mapper: Mapper<T>,
    opts: { required?: boolean; lane?: Lane; urgentWhen?: (e: ObjectEvent<T>) => boolean } = {},
  ): this {
    // Events before the cache synced are the initial list: every key's first pass, never the fast lane.
    reflector.on((event) => {
      const lane = opts.lane === 'fast' && reflector.hasSynced ? 'fast' : 'normal';
      const urgent = lane === 'fast' && !!opts.urgentWhen?.(event);
      for (const key of mapper(event)) {
        if (urgent) this.urgent.get(key)?.abort();
        this.queue.add(key, lane);
      }
    });
    this.sources.push({ reflector: reflector as unknown as Reflector<KubernetesObject>, required: opts.required ?? true });
    return this;
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Starts the sources, waits for the required ones to sync, then starts the workers. */
  async start(): Promise<void> {
    for (const s of this.sources) s.reflector.start();
    const timeout = this.o.cacheSyncTimeoutMs ?? 120_000;
    const pending = await Promise.all(
      this.sources.filter((s) => s.required).map(async (s) => ((await s.reflector.waitForSync(timeout)) ? undefined : s.reflector.name)),
    );
    const unsynced = pending.filter((n): n is string => n !== undefined);
    if (unsynced.length) throw new Error(`controller ${this.o.name}: caches not synced within ${timeout} ms: ${unsynced.join(', ')}`);
    this.workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.worker());
    this.scheduleResync();
    this.log.info({ controller: this.o.name, workers: this.maxConcurrentReconciles }, 'controller started');
  }

  private scheduleResync(): void {
    const r = this.o.resync;
    if (!r || this.stopper.signal.aborted) return;
    this.resyncTimer = setTimeout(
      () => {
        let n = 0;
        for (const key of r.keys()) {
          this.queue.add(key);
          n++;
        }
        this.log.info({ controller: this.o.name, keys: n }, 'periodic resync');
        this.scheduleResync();
      },
      r.periodMs * (1 + Math.random() * 0.1),
    );
    this.resyncTimer.unref();
  }

  /** Stops taking work, lets in-flight reconciles finish within the deadline, stops the sources. */
  async stop(deadlineMs = 30_000): Promise<boolean> {
    clearTimeout(this.resyncTimer);
    const drained = await this.queue.shutDownWithDrain(deadlineMs);
    this.stopper.abort();
    await Promise.all(this.sources.map((s) => s.reflector.stop()));
    if (drained) await Promise.all(this.workers);
    return drained;
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      // Checked here, after the wait for a key (a process paused by SIGSTOP wakes up here): a pass that
      // starts outside leadership would write beside the new leader. The worker stops; the manager exits.
      if (this.leadership && !this.leadership.holds(`the ${this.o.name} pass of ${key}`)) {
        this.refusedPasses++;
        this.queue.done(key);
        this.queue.add(key); // still to do, by whoever leads
        this.log.error({ controller: this.o.name, key }, 'pass not started: this process no longer holds the leader lease');
        return;
      }
      this.metrics.activeWorkers++;
      let released = false;
      let freeWorker = (): void => {};
      const freed = new Promise<void>((resolve) => (freeWorker = resolve));
      const release = (): boolean => {
        if (released || this.maxReleasedPasses === 0) return released;
        released = true;
        this.released++;
        this.metrics.activeWorkers--;
        freeWorker();
        return true;
      };
      const pass = this.processOne(key, release).finally(() => {
        if (released) this.released--;
        else this.metrics.activeWorkers--;
        this.queue.done(key);
        if (released) this.queue.reopened();
      });
      await Promise.race([pass, freed]);
      // A pass that writes nothing never leaves the microtask queue, and neither does the next `get`:
      // without this yield a backlog of such passes (a restart over 1000 converged workspaces: ~13 s)
      // starves watches, health probes and metrics until the queue is empty.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  get name(): string {
    return this.o.name;
  }

  private async processOne(key: string, release: () => boolean): Promise<void> {
    const urgent = new AbortController();
    this.urgent.set(key, urgent);
    const ctx: ReconcileContext = {
      signal: this.stopper.signal,
      reconcileID: randomUUID(),
      retries: this.queue.numRequeues(key),
      release,
      urgent: urgent.signal,
      fast: this.queue.takenFromFastLane(key),
    };
    const started = performance.now();
    let error: string | undefined;
    const outcome = await reconcileScope.run({ controller: this.o.name, key, reconcileID: ctx.reconcileID }, () =>
      this.o.reconcile(key, ctx).then(
        (res) => this.onSuccess(key, res ?? {}),
        (err: unknown) => {
          error = err instanceof Error ? err.message : String(err);
          return this.onError(key, err, ctx);
        },
      ),
    );
    this.urgent.delete(key);
    this.metrics.reconciles[outcome]++;
    this.observer?.reconciled({
      controller: this.o.name,
      key,
      reconcileID: ctx.reconcileID,
      outcome,
      seconds: (performance.now() - started) / 1000,
      ...(error !== undefined ? { error } : {}),
    });
  }

  private onSuccess(key: string, res: Result): ReconcileOutcome {
    this.queue.forget(key);
    if (res.requeueAfterMs !== undefined && res.requeueAfterMs > 0) {
      this.queue.addAfter(key, res.requeueAfterMs);
      return 'requeue_after';
    }
    return 'success';
  }

  private onError(key: string, err: unknown, ctx: ReconcileContext): ReconcileOutcome {
    const message = err instanceof Error ? err.message : String(err);
    const verdict = (this.o.errorPolicy ?? defaultErrorPolicy)(err, ctx);
    const reason = err instanceof TerminalError ? { reason: err.reason } : {};
    if (verdict.terminal) {
      this.queue.forget(key);
      if (verdict.recheckAfterMs !== undefined && verdict.recheckAfterMs > 0) this.queue.addAfter(key, verdict.recheckAfterMs);
      this.log.error(
        {
          controller: this.o.name,
          key,
          reconcileID: ctx.reconcileID,
          ...reason,
          error: message,
          ...(verdict.recheckAfterMs ? { recheckInMs: verdict.recheckAfterMs } : {}),
        },
        'reconcile failed (terminal)',
      );
      return 'terminal_error';
    }
    const delayMs = this.queue.addRateLimited(key, verdict.notBeforeMs ?? 0);
    this.log.error({ controller: this.o.name, key, reconcileID: ctx.reconcileID, error: message, requeueInMs: delayMs }, 'reconcile failed');
    return 'error';
  }
}
