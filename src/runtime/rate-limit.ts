// Rate limiters, with an injectable clock so tests are exact. Numbers follow client-go
// (util/workqueue/default_rate_limiters.go, tools/cache/reflector.go).

export type Clock = () => number;
export const monotonicNow: Clock = () => performance.now();

/** Which line a request waits in for the QPS budget: every `high` one goes before any `normal`, every `normal` before any `deferred`. */
export type Priority = 'high' | 'normal' | 'deferred';

interface Waiter {
  grant(): void;
}

/**
 * Token bucket. `acquire` waits for a token in its priority's line (arrival order within a line);
 * `reserve()` consumes a token now and returns how long the caller must wait before using it (0 when
 * a token was in the bucket): like Go's `rate.Limiter.Reserve`, the balance may go negative.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly lines: Record<Priority, Waiter[]> = { high: [], normal: [], deferred: [] };
  private timer?: NodeJS.Timeout;
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: Clock = monotonicNow,
  ) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`token bucket needs qps > 0 and burst >= 1 (got ${qps}, ${burst})`);
    this.tokens = burst;
    this.last = now();
  }
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  /**
   * Waits for a token (client-side QPS limit). A request goes at once when a token is free and no
   * request of its priority or a higher one waits; otherwise it waits in its line, and each token
   * that comes goes to the first of the highest line. An abort ends the wait without a token.
   * `promote` moves a waiting (or later) `deferred` request to the end of the `high` line.
   */
  acquire(signal?: AbortSignal, priority: Priority = 'normal', promote?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    const line = priority === 'deferred' && promote?.aborted ? 'high' : priority;
    this.refill();
    if (this.tokens >= 1 && !this.waitingAtOrAbove(line)) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const stopListening = (): void => {
        signal?.removeEventListener('abort', leave);
        promote?.removeEventListener('abort', raise);
      };
      const waiter: Waiter = {
        grant: () => {
          stopListening();
          resolve();
        },
      };
      const leave = (): void => {
        this.remove(waiter);
        waiter.grant();
        this.pump();
      };
      const raise = (): void => {
        if (this.remove(waiter)) this.lines.high.push(waiter);
        this.pump();
      };
      signal?.addEventListener('abort', leave, { once: true });
      if (line === 'deferred') promote?.addEventListener('abort', raise, { once: true });
      this.lines[line].push(waiter);
      this.pump();
    });
  }
  /** Requests waiting for a token (tests, metrics). */
  get waiting(): number {
    return this.lines.high.length + this.lines.normal.length + this.lines.deferred.length;
  }
  private waitingAtOrAbove(priority: Priority): boolean {
    if (this.lines.high.length > 0) return true;
    if (priority === 'high') return false;
    return this.lines.normal.length > 0 || (priority === 'deferred' && this.lines.deferred.length > 0);
  }
  private remove(waiter: Waiter): boolean {
    for (const line of Object.values(this.lines)) {
      const i = line.indexOf(waiter);
      if (i >= 0) {
        line.splice(i, 1);
        return true;
      }
    }
    return false;
  }
  /** Hands the tokens there are to the waiters in line order; wakes itself when the next one is due. */
  private pump(): void {
    this.refill();
    while (this.tokens >= 1) {
      const next = this.lines.high.shift() ?? this.lines.normal.shift() ?? this.lines.deferred.shift();
      if (!next) break;
      this.tokens -= 1;
      next.grant();
    }
    if (this.waiting === 0) {
      // Nobody left to wake (the last wait was aborted): a pending timer would only hold the process.
      clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(1, ((1 - this.tokens) / this.qps) * 1000),
    );
  }
  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
  }
}

/** Per-key exponential backoff: base·2^failures, capped (client-go ItemExponentialFailureRateLimiter). */
export class ItemExponentialBackoff<K = string> {
  private readonly failures = new Map<K, number>();
  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1_000_000,
  ) {}
  when(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2^n overflows to Infinity long after the cap, so Math.min keeps the cap exact.
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }
  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }
  forget(key: K): void {
    this.failures.delete(key);
  }
}

export interface JitteredBackoffOptions {
  initialMs?: number;
  maxMs?: number;
  factor?: number;
  /** Adds up to `jitter × delay` at random (client-go uses 1.0). */
  jitter?: number;
  /** A quiet period this long resets the delay to the initial value. */
  resetAfterMs?: number;
  random?: () => number;
  now?: Clock;
}

/** Backoff for list/watch restarts: 800 ms → 30 s, ×2, jitter 1.0, reset after 2 min (client-go reflector, kube-rs watcher). */
export class JitteredBackoff {
  private attempt = 0;
  private lastAt = -Infinity;
  private readonly o: Required<JitteredBackoffOptions>;
  constructor(opts: JitteredBackoffOptions = {}) {
    this.o = {
      initialMs: 800,
      maxMs: 30_000,
      factor: 2,
      jitter: 1,
      resetAfterMs: 120_000,
      random: Math.random,
      now: monotonicNow,
      ...opts,
    };
  }
  next(): number {
    const t = this.o.now();
    if (t - this.lastAt > this.o.resetAfterMs) this.attempt = 0;
    this.lastAt = t;
    const base = Math.min(this.o.maxMs, this.o.initialMs * this.o.factor ** this.attempt++);
    return Math.round(base * (1 + this.o.jitter * this.o.random()));
  }
  reset(): void {
    this.attempt = 0;
  }
}

/** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * At most `size` holders at once; the others wait in arrival order. Bounds work whose transient memory
 * adds up when it runs side by side (the reflectors' list pages at start). An abort ends a wait with
 * the signal's reason; a held slot is handed straight to the next waiter on release.
 */
export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly size: number) {
    if (!(size >= 1)) throw new Error(`slots needs size >= 1 (got ${size})`);
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Holders now (tests). */
  get inUse(): number {
    return this.held;
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.held < this.size) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        const reason: unknown = signal?.reason;
        reject(reason instanceof Error ? reason : new Error('aborted while waiting for a slot'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}
