// The one failure policy of the workspace controller. Every failure the workspace can do something
// about is reported: a False condition plus a Warning event with the reason and message. What
// happens next depends on what can change the outcome:
//   a watched input (spec, nodes, ConfigMaps, Secrets, a colliding object) → terminal: the next event brings it back;
//   the API server refused a child object (its content comes from the spec)  → terminal, the same; the
//                                                                            periodic resync (--sync-period) tries again for cluster rules that changed;
//   a 409 that keeps coming back                                            → reported, and retried with the queue's backoff;
//   anything else (network, 5xx, throttling, a stale cache's 409)           → retried with the queue's backoff, never sooner than the server's Retry-After.
import { TerminalError } from '../../runtime/controller.js';
import { isConflict, isRefused, toKubeError } from '../../runtime/errors.js';
import { ActionFailed, causeOf } from '../shared/actions.js';
import { Reason } from './reasons.js';

/** Consecutive 409s (≈5 s of the queue's backoff) after which a conflict is no stale-cache blip. */
export const CONFLICTS_BEFORE_REPORT = 10;
/** The server's words are kept to this length in a condition message. */
const MESSAGE_LIMIT = 500;

export interface Failure {
  reason: string;
  message: string;
  /** Retried with the queue's backoff after reporting (otherwise terminal). */
  retry: boolean;
}

/**
 * The failure to report for `err`, or undefined when it is not the workspace's to explain (a
 * network error, a passing conflict: plain retries). A refusal carries the server's own words.
 */
export function failureOf(err: unknown, failuresSoFar: number): Failure | undefined {
  const cause = causeOf(err);
  if (cause instanceof TerminalError) return { reason: cause.reason, message: cause.message, retry: false };
  if (isRefused(cause)) {
    const e = toKubeError(cause);
    const reason = (err instanceof ActionFailed && 'refusedReason' in err.action && err.action.refusedReason) || Reason.ChildObjectRejected;
    const text = e.message.length > MESSAGE_LIMIT ? `${e.message.slice(0, MESSAGE_LIMIT)}…` : e.message;
    return { reason, message: `the API server refused an object of this workspace (HTTP ${e.status}): ${text}`, retry: false };
  }
  if (isConflict(cause) && failuresSoFar >= CONFLICTS_BEFORE_REPORT) {
    return {
      reason: Reason.PersistentConflict,
      message: `the API server answered 409 Conflict ${failuresSoFar + 1} times in a row: ${toKubeError(cause).message}`,
      retry: true,
    };
  }
  return undefined;
}
