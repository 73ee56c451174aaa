// How a pass that cannot finish explains itself. Every failure the workspace can do something about
// is reported: a False condition plus a Warning event with the reason and message. What happens
// next depends on what can change the outcome:
//   a watched input (spec, nodes, ConfigMaps, Secrets, a colliding object) → TerminalError: no requeue, the event brings it back;
//   the API server refused a child object                        → retried with the queue's backoff up to its cap,
//                                                                  never sooner than 5 min (REFUSAL_RETRY_MIN_MS).
import { TerminalError } from '../../runtime/controller.js';
import { isConflict, isRefused, toKubeError } from '../../runtime/errors.js';

export const CHILD_OBJECT_REJECTED = 'ChildObjectRejected';
export const PERSISTENT_CONFLICT = 'PersistentConflict';
/** Consecutive 409s (≈5 s of the queue's backoff) after which a conflict is no stale-cache blip. */
export const CONFLICTS_BEFORE_REPORT = 10;

export interface Failure {
  reason: string;
  message: string;
  /** Retry with the queue's per-key backoff (the request may pass later: an admission policy, a CRD upgrade). */
  backoff: boolean;
}

/**
 * The failure to report for `err`, or undefined when it is not the workspace's to explain (a network
 * error, a conflict: plain retries). A refusal carries the server's own words, which name the object.
 */
export function reportable(err: unknown): Failure | undefined {
  if (err instanceof TerminalError) return { reason: err.reason, message: err.message, backoff: false };
  if (!isRefused(err)) return undefined;
  const e = toKubeError(err);
  return { reason: CHILD_OBJECT_REJECTED, message: `the API server refused an object of this workspace (HTTP ${e.status}): ${e.message}`, backoff: true };
}

/**
 * A 409 that keeps coming back (someone else keeps writing, or an object we cannot see holds the
 * name) is reported too; it stays a plain retry with the queue's backoff.
 */
export function persistentConflict(err: unknown, failuresSoFar: number): Failure | undefined {
  if (!isConflict(err) || failuresSoFar < CONFLICTS_BEFORE_REPORT) return undefined;
  return { reason: PERSISTENT_CONFLICT, message: `the API server answered 409 Conflict ${failuresSoFar + 1} times in a row: ${toKubeError(err).message}`, backoff: false };
}
