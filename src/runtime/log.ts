import { AsyncLocalStorage } from 'node:async_hooks';

// The logging surface the runtime needs, shaped like pino's `logger.info(fields, msg)` so the
// manager can pass its pino logger straight in. Nothing in the runtime logs through a global.

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
