// Rate limiters, with an injectable clock so tests are exact. Numbers follow client-go
// (util/workqueue/default_rate_limiters.go, tools/cache/reflector.go).

export type Clock = () => number;
export const monotonicNow: Clock = () => performance.now();

/**
 * Token bucket that hands out reservations: `reserve()` consumes a token now and returns how long
 * the caller must wait before using it (0 when a token was in the bucket). Like Go's
 * `rate.Limiter.Reserve`, the balance may go negative, so waiting callers queue up fairly.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
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
   * Waits for a token (client-side QPS limit); an abort ends the wait early. A `deferrable` request
   * reserves nothing ahead: it takes a token only when one is free now, so every other request,
   * however late it came, goes first; deferrable ones keep their own arrival order. `urgent` ends
   * the deferral: once it fires the request queues like any other.
   */
  async acquire(signal?: AbortSignal, deferrable = false, urgent?: AbortSignal): Promise<void> {
    if (deferrable && !urgent?.aborted && (await this.deferredTurn(signal, urgent))) return;
    if (signal?.aborted) return;
    const ms = this.reserve();
    if (ms > 0) await sleep(ms, signal);
  }
  /**
   * A deferrable request's wait: its turn among deferrable ones, then a free token. True when it took
   * one; false when `signal` or `urgent` fired first.
   */
  private async deferredTurn(signal: AbortSignal | undefined, urgent: AbortSignal | undefined): Promise<boolean> {
    const turn = this.deferredTail;
    let done = (): void => {};
    this.deferredTail = new Promise<void>((resolve) => (done = resolve));
    // Two listeners, not AbortSignal.any: a composite signal per request would hang on the
    // long-lived controller signal until a garbage collection clears it.
    const woken = urgent ? new AbortController() : undefined;
    const wakeUp = (): void => woken?.abort();
    if (woken) for (const s of [signal, urgent]) s?.addEventListener('abort', wakeUp, { once: true });
    if (signal?.aborted || urgent?.aborted) wakeUp();
    const wake = woken?.signal ?? signal;
    try {
      await untilAborted(turn, wake);
      while (!wake?.aborted) {
        this.refill();
        if (this.tokens >= 1) {
          this.tokens -= 1;
          return true;
        }
        await sleep(((1 - this.tokens) / this.qps) * 1000, wake);
      }
      return false;
    } finally {
      if (woken) for (const s of [signal, urgent]) s?.removeEventListener('abort', wakeUp);
      done();
    }
  }
  private deferredTail: Promise<void> = Promise.resolve();
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

/** Resolves when `p` settles or `signal` fires, whichever is first. */
function untilAborted(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void p.then(done, done);
  });
}
