import { AsyncLocalStorage } from 'node:async_hooks';

// The logging surface the runtime needs, `logger.info(fields, msg)`, which the manager's JSON logger
// (src/manager/logging.ts) serves. Nothing in the runtime logs through a global.

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
}

export const silentLogger: Logger = { info: () => {}, error: () => {} };

/**
 * Fields of the reconcile pass running in this async context (controller, key, reconcileID).
 * The manager's logger mixes them into every line, so anything logged during a pass — by the
 * reconciler, the event recorder or the client — carries the pass's reconcileID.
 */
export const reconcileScope = new AsyncLocalStorage<LogFields>();

/**
 * A watch-failure logger for a controller's caches. A reflector retries for ever, so a resource that is
 * not served (an optional CRD not installed) would log the same line every backoff period: the same
 * failure of a resource is logged again only after `quietMs`, with the number of repeats in between.
 */
export function watchFailureLog(log: Logger, quietMs = 10 * 60_000, now: () => number = Date.now): (resource: string, message: string) => void {
  const last = new Map<string, { message: string; at: number; repeats: number }>();
  return (resource, message) => {
    const seen = last.get(resource);
    if (seen?.message === message && now() - seen.at < quietMs) {
      seen.repeats++;
      return;
    }
    const repeats = seen?.message === message ? { repeatsSinceLastLog: seen.repeats } : {};
    last.set(resource, { message, at: now(), repeats: 0 });
    log.error({ resource, error: message, ...repeats }, 'watch failed; retrying');
  };
}
