// How a pass that cannot finish explains itself. Every failure the workspace can do something about
// becomes a Reported: a False condition plus a Warning event with the reason and message. What
// happens next depends on what can change the outcome:
//   a watched input (spec, nodes, ConfigMaps, a colliding object) → no requeue, the event brings it back;
//   an unwatched input (a Secret)                                → one recheck after `recheckAfterMs`;
//   the API server refused a child object                        → retried with the queue's backoff, up to its cap.
import { isRefused, toKubeError } from '../../runtime/errors.js';

export const CHILD_OBJECT_REJECTED = 'ChildObjectRejected';

export class Reported extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly recheckAfterMs?: number,
    /** Retry with the queue's per-key backoff (the request may pass later: an admission policy, a CRD upgrade). */
    readonly backoff = false,
  ) {
    super(message);
  }
}

/**
 * The failure to report for `err`, or undefined when it is not the workspace's to explain (a network
 * error, a conflict: plain retries). A refusal carries the server's own words, which name the object.
 */
export function reportable(err: unknown): Reported | undefined {
  if (err instanceof Reported) return err;
  if (!isRefused(err)) return undefined;
  const e = toKubeError(err);
  return new Reported(CHILD_OBJECT_REJECTED, `the API server refused an object of this workspace (HTTP ${e.status}): ${e.message}`, undefined, true);
}
