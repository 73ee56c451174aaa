// Leadership as the controller loop and the client's write path see it: "may this process act now?"
// The manager supplies it (the Lease elector's own monotonic clock); without leader election there is
// none and every pass and write goes ahead. One answer for both, latched: once a check fails, this
// process never writes again, and the manager's `onLost` (log, exit) runs once.

export interface Leadership {
  /** True while this process may start a pass or send a write; `what` (the pass, the write) names the first refusal. */
  holds(what?: string): boolean;
}

/** Why a write was not sent: this process could not tell that it still leads. */
export class NotLeaderError extends Error {
  override readonly name = 'NotLeaderError';
}

/**
 * What the lease holder knows of itself: undefined while it may act, else why not (never led, or its
 * last renewal is older than it may trust). `led` says whether it ever held the lease: a standby that
 * is asked (a bug, not a lost lease) is refused without the process being stopped.
 */
export interface LeaseClock {
  leadershipProblem(): string | undefined;
  readonly hasLed: boolean;
}

/**
 * The latch over a lease clock: the first refusal after having led calls `onLost` once (stop writing
 * first: every later check is refused too; the caller exits after).
 */
export class LatchedLeadership implements Leadership {
  private lost?: string;

  constructor(
    private readonly clock: LeaseClock,
    private readonly onLost: (reason: string) => void,
  ) {}

  holds(what?: string): boolean {
    if (this.lost !== undefined) return false;
    const problem = this.clock.leadershipProblem();
    if (problem === undefined) return true;
    if (this.clock.hasLed) {
      this.lost = what ? `${problem}; refused: ${what}` : problem;
      this.onLost(this.lost);
    }
    return false;
  }

  /** Why this process stopped acting, once it did. */
  get lostReason(): string | undefined {
    return this.lost;
  }
}
