// Leader election on a coordination.k8s.io/v1 Lease, the client-go algorithm
// (tools/leaderelection/leaderelection.go) with controller-runtime's ratios scaled to 0.6 so a
// standby takes over within 15 s of a leader's death: lease 9 s, renew deadline 6 s, retry 1.2 s.
// Expiry of another holder is judged by OUR clock from the moment we last saw its record change
// (not by its renewTime), so clock skew between replicas cannot matter.
// Every write carries the resourceVersion we read: two candidates racing get one 409.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
import { MERGE_PATCH, type KubeClient } from '../runtime/client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../runtime/errors.js';
import { microTime } from '../runtime/events.js';
import { silentLogger, type Logger } from '../runtime/log.js';
import { sleep } from '../runtime/rate-limit.js';
import { Resources } from '../runtime/resources.js';

export const LEASE_NAME = 'kaito-ts-leader';
export const DEFAULT_LEADER_ELECTION_NAMESPACE = 'kaito-workspace';

export interface LeaderElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** controller-runtime's 15/10/2 s × 0.6: worst failover ≈ lease + one jittered retry (observation lag). */
export const DEFAULT_TIMINGS: LeaderElectionTimings = { leaseDurationMs: 9_000, renewDeadlineMs: 6_000, retryPeriodMs: 1_200 };

/** client-go's JitterFactor: retries wait retryPeriod·[1, 2.2). */
const JITTER = 1.2;
/** Wake a little after expiry so the check that follows sees it expired. */
const EXPIRY_SLACK_MS = 50;

/** client-go's constraint: leaseDuration > renewDeadline > 1.2 · retryPeriod. */
export function checkTimings(t: LeaderElectionTimings): void {
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) throw new Error('leader election: lease duration must exceed the renew deadline');
  if (!(t.renewDeadlineMs > JITTER * t.retryPeriodMs)) throw new Error('leader election: renew deadline must exceed 1.2 × retry period');
}

/** `<host>_<uuid>`: unique per process even when two replicas share a host name. */
export const newIdentity = (): string => `${hostname()}_${randomUUID()}`;

export interface LeaderElectorOptions {
  client: KubeClient;
  namespace: string;
  name?: string;
  identity?: string;
  timings?: LeaderElectionTimings;
  log?: Logger;
  /** Monotonic milliseconds (tests pass a fake). */
  now?: () => number;
  /** Wall clock for the Lease's timestamps. */
  wallClock?: () => number;
}

/** What a try concluded: we hold the lease, someone else does, or the API did not answer usefully. */
export type TryResult = 'leader' | 'held' | 'failed';

export class LeaderElector {
  readonly identity: string;
  readonly name: string;
  private readonly t: LeaderElectionTimings;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly wall: () => number;
  private observed?: { spec: V1LeaseSpec | undefined; resourceVersion?: string; at: number };
  private leading = false;
  /** Our clock when the last successful acquire or renew STARTED: a standby sees the record change after that. */
  private renewedAt?: number;
  private stopper = new AbortController();
  private renewing?: Promise<void>;

  constructor(private readonly o: LeaderElectorOptions) {
    this.identity = o.identity ?? newIdentity();
    this.name = o.name ?? LEASE_NAME;
    this.t = o.timings ?? DEFAULT_TIMINGS;
    checkTimings(this.t);
    this.log = o.log ?? silentLogger;
    this.now = o.now ?? (() => performance.now());
    this.wall = o.wallClock ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  get hasLed(): boolean {
    return this.renewedAt !== undefined;
  }

  /**
   * Undefined while this process may act as leader by its own monotonic clock (a process paused by
   * SIGSTOP sees the time that passed): it holds the lease and acquired or renewed it within the lease
   * duration less a margin. The margin is lease − renew deadline (3 s by default): room for a write
   * already on the wire, and for a standby whose clock runs a little fast, before the standby may
   * take over. Otherwise, why not.
   */
  leadershipProblem(): string | undefined {
    if (!this.leading || this.renewedAt === undefined) return 'not the leader';
    const since = this.now() - this.renewedAt;
    const trusted = this.t.renewDeadlineMs;
    return since < trusted ? undefined : `lease last renewed ${Math.round(since)} ms ago by this process's clock (trusted for ${trusted} ms)`;
  }

  /** Retries every retryPeriod (jittered) until this process holds the lease; false when aborted first. */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    let announced = false;
    for (;;) {
      if (signal?.aborted) return false;
      const r = await this.tryAcquireOrRenew();
      if (r === 'leader') {
        this.leading = true;
        this.log.info({ lease: `${this.o.namespace}/${this.name}`, identity: this.identity }, 'acquired leader lease');
        return true;
      }
      if (!announced && r === 'held') {
        this.log.info({ lease: `${this.o.namespace}/${this.name}`, holder: this.observed?.spec?.holderIdentity }, 'waiting for the leader lease');
        announced = true;
      }
      await sleep(this.nextTryInMs(this.t.retryPeriodMs * (1 + Math.random() * JITTER)), signal);
    }
  }

  /**
   * The jittered retry, cut short to just past the moment the observed lease expires: a standby then
   * tries at expiry instead of up to one retry later. The expiry itself (observation + duration) is
   * unchanged, so safety is too.
   */
  nextTryInMs(jitteredMs: number): number {
    const expiresAt = this.expiresAt();
    const remaining = expiresAt === undefined ? 0 : expiresAt - this.now();
    // Already past it (the last try failed or lost a race): the plain retry, never a tight loop.
    if (remaining <= 0) return jitteredMs;
    return Math.min(jitteredMs, remaining + EXPIRY_SLACK_MS);
  }

  private expiresAt(): number | undefined {
    const o = this.observed;
    if (!o?.spec?.holderIdentity || o.spec.holderIdentity === this.identity) return undefined;
    return o.at + (o.spec.leaseDurationSeconds ?? this.t.leaseDurationMs / 1000) * 1000;
  }

  /**
   * Renews every retryPeriod while leading. `onLost` is called once when no renewal succeeded
   * within renewDeadline, or another holder took the lease; the caller must stop at once.
   */
  keepRenewing(onLost: (reason: string) => void): void {
    this.renewing ??= (async () => {
      const lastRenew = () => this.renewedAt ?? this.now();
      while (!this.stopper.signal.aborted) {
        await sleep(this.t.retryPeriodMs, this.stopper.signal);
        if (this.stopper.signal.aborted) return;
        const r = await this.tryAcquireOrRenew(this.t.renewDeadlineMs - (this.now() - lastRenew()));
        if (this.stopper.signal.aborted) return;
        if (r === 'leader') continue;
        const reason =
          r === 'held' ? `lease taken by ${this.observed?.spec?.holderIdentity ?? 'another holder'}` : `no renewal within ${this.t.renewDeadlineMs} ms`;
        if (r === 'held' || this.now() - lastRenew() >= this.t.renewDeadlineMs) {
          this.leading = false;
          onLost(reason);
          return;
        }
      }
    })();
  }

  /**
   * Stops renewing and, when leading, hands the lease back (empty holder, 1 s duration) so a standby
   * takes over at its next retry instead of after a full lease duration. Call only after the
   * guarded work stopped.
   */
  async release(): Promise<boolean> {
    this.stopper.abort();
    await this.renewing;
    if (!this.leading) return false;
    this.leading = false;
    const lease = await this.read().catch(() => undefined);
    if (!lease || lease.spec?.holderIdentity !== this.identity) return false;
    const now = microTime(this.wall());
    try {
      await this.write(lease, {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        renewTime: now,
        acquireTime: now,
        leaseTransitions: lease.spec?.leaseTransitions ?? 0,
      } as unknown as V1LeaseSpec);
      this.log.info({ lease: `${this.o.namespace}/${this.name}` }, 'released leader lease');
      return true;
    } catch (err) {
      this.log.error({ error: (err as Error).message }, 'could not release the leader lease');
      return false;
    }
  }

  /** One step of the algorithm; `budgetMs` bounds how long it may wait for the API server. */
  async tryAcquireOrRenew(budgetMs = this.t.renewDeadlineMs): Promise<TryResult> {
    try {
      return await withTimeout(this.step(), Math.max(budgetMs, 1));
    } catch (err) {
      this.log.error({ lease: `${this.o.namespace}/${this.name}`, error: (err as Error).message }, 'leader lease request failed');
      return 'failed';
    }
  }

  private async step(): Promise<TryResult> {
    const started = this.now();
    const r = await this.stepFrom();
    if (r === 'leader') this.renewedAt = Math.max(this.renewedAt ?? started, started);
    return r;
  }

  private async stepFrom(): Promise<TryResult> {
    const wallNow = microTime(this.wall());
    let lease: V1Lease;
    try {
      lease = await this.read();
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const spec: V1LeaseSpec = {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.t.leaseDurationMs / 1000,
        acquireTime: wallNow as unknown as Date,
        renewTime: wallNow as unknown as Date,
        leaseTransitions: 0,
      };
      try {
        const created = await this.o.client.create<V1Lease>(Resources.leases, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.name, namespace: this.o.namespace },
          spec,
        });
        this.observe(created);
        return 'leader';
      } catch (e) {
        if (isAlreadyExists(e)) return 'held';
        throw e;
      }
    }
    this.observe(lease);
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if ((this.expiresAt() ?? 0) > this.now()) return 'held';

    const mine = holder === this.identity;
    const next: V1LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.t.leaseDurationMs / 1000,
      acquireTime: (mine ? spec.acquireTime : wallNow) as Date,
      renewTime: wallNow as unknown as Date,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
    };
    try {
      this.observe(await this.write(lease, next));
      return 'leader';
    } catch (err) {
      if (isConflict(err)) return 'held'; // someone wrote in between: re-read next time
      throw err;
    }
  }

  private read(): Promise<V1Lease> {
    return this.o.client.get<V1Lease>(Resources.leases, this.o.namespace, this.name);
  }

  /** Merge patch guarded by the resourceVersion we read: a stale write is refused with 409. */
  private write(lease: V1Lease, spec: V1LeaseSpec): Promise<V1Lease> {
    return this.o.client.patch<V1Lease>(
      Resources.leases,
      { namespace: this.o.namespace, name: this.name },
      { metadata: { resourceVersion: lease.metadata?.resourceVersion }, spec },
      MERGE_PATCH,
    );
  }

  /** Restarts the expiry clock whenever the record changed (client-go's observedTime). */
  private observe(lease: V1Lease): void {
    if (!this.observed || !isDeepStrictEqual(this.observed.spec, lease.spec)) {
      this.observed = { spec: lease.spec, resourceVersion: lease.metadata?.resourceVersion, at: this.now() };
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms)} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
