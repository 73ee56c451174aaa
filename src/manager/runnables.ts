// What the manager runs, in groups with a fixed order (controller-runtime's runnableGroup):
//
//   start: servers (health, metrics) → caches (reflectors, on every replica) → [leader election] → leader-gated (workers)
//   stop:  leader-gated (drain within the deadline) → [lease released] → caches → servers
//
// Probes answer from the first moment to the last, caches fill on leader and standby alike (so a
// takeover starts warm), and the lease is handed back only once no reconcile runs any more.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Server } from 'node:http';
import type { Controller } from '../runtime/controller.js';
import type { Reflector } from '../runtime/reflector.js';
import { serve, type Handler } from './http.js';

export interface Runnable {
  readonly name: string;
  /** Resolves once running (a server listening, workers started); a rejection is a failed start. */
  start(signal: AbortSignal): Promise<void>;
  /**
   * Called on every runnable of a group at stop, whether its start ran, finished or never began:
   * it must be safe either way. A leader-gated runnable drains its in-flight work within the deadline
   * and resolves false when it could not.
   */
  stop(deadlineMs: number): Promise<boolean | void>;
}

/** In start order; stop runs the reverse. */
export type RunnableGroup = 'servers' | 'caches' | 'leaderGated';

/** Leader election as the groups need it (LeaderElector fits). */
export interface LeaderGate {
  /** Resolves true once leading, false when the signal fired first. */
  acquire(signal: AbortSignal): Promise<boolean>;
  /** Keeps the lease; `onLost` once it is gone. */
  keepRenewing(onLost: (reason: string) => void): void;
  /** Stops renewing and hands the lease back; called after the leader-gated group stopped. */
  release(): Promise<unknown>;
}

export interface RunnableGroupsOptions {
  /** Without one, leader-gated runnables start right after the caches. */
  leader?: LeaderGate;
  /**
   * The lease was lost, or a leader-gated runnable failed to start once leading: the process must
   * stop at once (another replica may lead already).
   */
  onFatal: (reason: string) => void;
}

export class RunnableGroups {
  private readonly groups: Record<RunnableGroup, Runnable[]> = { servers: [], caches: [], leaderGated: [] };
  private readonly stopper = new AbortController();
  private startedOnce = false;

  constructor(private readonly o: RunnableGroupsOptions) {}

  add(group: RunnableGroup, runnable: Runnable): this {
    if (this.startedOnce) throw new Error(`runnables: ${runnable.name} added after start`);
    this.groups[group].push(runnable);
    return this;
  }

  /**
   * Starts servers, then caches, in order, each awaited. Without leader election the leader-gated
   * group starts too, awaited; a failure anywhere stops what was started (in reverse) and rejects.
   * With leader election `leading` resolves once this replica leads and the group runs, and stays
   * pending on a standby.
   */
  async start(): Promise<{ leading: Promise<void> }> {
    if (this.startedOnce) throw new Error('runnables: started twice');
    this.startedOnce = true;
    const { leader } = this.o;
    const now: RunnableGroup[] = leader ? ['servers', 'caches'] : ['servers', 'caches', 'leaderGated'];
    const started: Runnable[] = [];
    try {
      for (const g of now)
        for (const r of this.groups[g]) {
          started.push(r);
          await r.start(this.stopper.signal);
        }
    } catch (err) {
      for (const r of started.reverse()) await r.stop(0);
      throw err;
    }
    if (!leader) return { leading: Promise.resolve() };
    const leading = (async () => {
      if (!(await leader.acquire(this.stopper.signal))) return new Promise<void>(() => {}); // stopped while standing by
      leader.keepRenewing((reason) => this.o.onFatal(`leader election lost: ${reason}`));
      for (const r of this.groups.leaderGated) {
        try {
          await r.start(this.stopper.signal);
        } catch (err) {
          this.o.onFatal(`${r.name} did not start: ${(err as Error).message}`);
          return;
        }
      }
    })();
    return { leading };
  }

  /**
   * Stops in reverse group order: the leader-gated runnables drain within `deadlineMs`, the lease is
   * released, then caches and servers stop (the runnables of one group together). Resolves whether
   * every leader-gated runnable drained.
   */
  async stop(deadlineMs: number): Promise<boolean> {
    this.stopper.abort();
    // Within a group, runnables stop together; groups one after the other.
    const stopGroup = async (g: RunnableGroup) => (await Promise.all(this.groups[g].map((r) => r.stop(deadlineMs)))).every((d) => d !== false);
    const drained = await stopGroup('leaderGated');
    // Only now, with no reconcile running, may another replica start: hand the lease back.
    if (this.o.leader) await this.o.leader.release();
    await stopGroup('caches');
    await stopGroup('servers');
    return drained;
  }
}

/** An HTTP endpoint (probes, metrics) on "host:port"; `url` once listening. */
export function httpServer(name: string, address: string, routes: Record<string, Handler>): Runnable & { readonly url: string | undefined } {
  let server: Server | undefined;
  let url: string | undefined;
  return {
    name,
    get url() {
      return url;
    },
    async start() {
      const s = await serve(address, routes);
      server = s.server;
      url = s.url;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

/** Reflectors filling caches: started without waiting for their sync, stopped together. */
export function reflectorsRunnable(name: string, reflectors: readonly Reflector<KubernetesObject>[]): Runnable {
  return {
    name,
    async start() {
      for (const r of reflectors) r.start();
    },
    async stop() {
      await Promise.all(reflectors.map((r) => r.stop()));
    },
  };
}

/**
 * A controller's workers (leader-gated). Stop drains in-flight reconciles within the deadline; a
 * controller that never started (a standby) handed out no work, so it stops at once and counts as drained.
 */
export function controllerRunnable(controller: Controller): Runnable & { readonly running: boolean } {
  let running = false;
  return {
    name: 'controller',
    get running() {
      return running;
    },
    async start() {
      await controller.start();
      running = true;
    },
    async stop(deadlineMs) {
      if (running) return controller.stop(deadlineMs);
      await controller.stop(0);
      return true;
    },
  };
}
