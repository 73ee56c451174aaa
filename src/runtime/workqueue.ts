// A keyed work queue with client-go semantics (util/workqueue/doc.go):
//  fair     — keys come out in FIFO order;
//  stingy   — a key added many times before it is processed is processed once;
//  exclusive— a key is never handed to two workers at once; re-added while processing,
//             it is queued again when `done` is called.
//  two lanes — a key added as `fast` (a child's status moved: the pass that reports it is cheap)
//             is handed out before the normal lane, so status never waits behind a burst of first passes;
//             a gate (`gateNormalLane`) may hold the normal lane back while fast keys still go out.
// Rate limiting = max(per-key exponential 5 ms·2^n capped at 1000 s, token bucket 10 qps/100 burst),
// as client-go's DefaultTypedControllerRateLimiter.
import { ItemExponentialBackoff, TokenBucket } from './rate-limit.js';

export interface WorkQueueOptions {
  backoff?: ItemExponentialBackoff<string>;
  /** Overall limit on rate-limited re-adds; `null` turns it off. */
  bucket?: TokenBucket | null;
}

export interface WorkQueueMetrics {
  adds: number;
  retries: number;
}

/** Latency hooks for Prometheus (client-go's workqueue metrics provider); seconds. */
export interface WorkQueueObserver {
  queued(seconds: number): void;
  worked(seconds: number): void;
}

/** Which lane a key waits in: `fast` keys are handed out first. */
export type Lane = 'fast' | 'normal';

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly fastQueue: string[] = [];
  /** Keys that asked for the fast lane and have not been handed out since. */
  private readonly wantsFast = new Set<string>();
  /** Keys in process that were handed out from the fast lane. */
  private readonly takenFast = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private readonly backoff: ItemExponentialBackoff<string>;
  private readonly bucket: TokenBucket | null;
  private normalOpen: () => boolean = () => true;
  readonly metrics: WorkQueueMetrics = { adds: 0, retries: 0 };
  observer?: WorkQueueObserver;
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();

  constructor(opts: WorkQueueOptions = {}) {
    this.backoff = opts.backoff ?? new ItemExponentialBackoff<string>(5, 1_000_000);
    this.bucket = opts.bucket === undefined ? new TokenBucket(10, 100) : opts.bucket;
  }

  /** While `open` says false, normal-lane keys wait and fast ones still go out; call `reopened()` when it turns true. */
  gateNormalLane(open: () => boolean): void {
    this.normalOpen = open;
  }

  /** Keys waiting to be handed out (not counting in-flight or delayed ones). */
  get len(): number {
    return this.queue.length + this.fastQueue.length;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(key: string, lane: Lane = 'normal'): void {
    if (this.shuttingDown) return;
    if (lane === 'fast' && !this.wantsFast.has(key)) {
      this.wantsFast.add(key);
      // Already waiting in the normal lane (dirty, not in a worker's hands): move it up.
      const at = this.dirty.has(key) && !this.processing.has(key) ? this.queue.indexOf(key) : -1;
      if (at >= 0) {
        this.queue.splice(at, 1);
        this.fastQueue.push(key);
      }
    }
    if (this.dirty.has(key)) return;
    this.metrics.adds++;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // `done` will queue it again
    this.push(key);
  }

  /** Adds after `ms`. One pending timer per key; the earliest deadline wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, timer });
  }

  /**
   * Re-adds after the backoff for this key (at least `minDelayMs`, e.g. a server's Retry-After);
   * every call counts as one more failure. Returns the delay.
   */
  addRateLimited(key: string, minDelayMs = 0): number {
    this.metrics.retries++;
    const delay = Math.max(this.backoff.when(key), this.bucket?.reserve() ?? 0, minDelayMs);
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the failure count of a key (call on success). */
  forget(key: string): void {
    this.backoff.forget(key);
  }

  numRequeues(key: string): number {
    return this.backoff.retries(key);
  }

  /** Next key, or undefined once shut down and empty. The caller MUST call `done(key)`. */
  get(): Promise<string | undefined> {
    const key = this.next();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.shuttingDown && this.len === 0) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The gate may have opened: hands held normal-lane keys to waiting workers. */
  reopened(): void {
    this.dispatch();
  }

  private next(): string | undefined {
    return this.fastQueue.shift() ?? (this.queue.length && this.normalOpen() ? this.queue.shift() : undefined);
  }

  private dispatch(): void {
    while (this.waiters.length) {
      const key = this.next();
      if (key === undefined) break;
      this.waiters.shift()!(this.take(key));
    }
    if (this.shuttingDown && this.len === 0) this.waiters.splice(0).forEach((w) => w(undefined));
  }

  done(key: string): void {
    const started = this.startedAt.get(key);
    if (started !== undefined) this.observer?.worked((performance.now() - started) / 1000);
    this.startedAt.delete(key);
    this.processing.delete(key);
    this.takenFast.delete(key);
    if (this.dirty.has(key)) this.push(key);
    else if (this.processing.size === 0 && this.len === 0) this.idleWaiters.splice(0).forEach((w) => w());
  }

  /** Stops accepting keys, drops delayed ones and wakes idle workers. Queued keys are still handed out. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    if (this.len === 0) this.waiters.splice(0).forEach((w) => w(undefined));
    if (this.processing.size === 0 && this.len === 0) this.idleWaiters.splice(0).forEach((w) => w());
  }

  /** Shuts down and waits until queued and in-flight keys are done, or the deadline passes. Resolves true when drained. */
  async shutDownWithDrain(deadlineMs: number): Promise<boolean> {
    this.shutDown();
    if (this.processing.size === 0 && this.len === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
    try {
      return await Promise.race([drained, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private push(key: string): void {
    if (!this.addedAt.has(key)) this.addedAt.set(key, performance.now());
    (this.wantsFast.has(key) ? this.fastQueue : this.queue).push(key);
    this.dispatch();
  }

  private take(key: string): string {
    const now = performance.now();
    const added = this.addedAt.get(key);
    if (added !== undefined) this.observer?.queued((now - added) / 1000);
    this.addedAt.delete(key);
    this.startedAt.set(key, now);
    this.processing.add(key);
    this.dirty.delete(key);
    if (this.wantsFast.delete(key)) this.takenFast.add(key);
    return key;
  }

  /** Whether `key`, in process, was handed out from the fast lane. */
  takenFromFastLane(key: string): boolean {
    return this.takenFast.has(key);
  }
}
