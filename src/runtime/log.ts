// The logging surface the runtime needs, shaped like pino's `logger.info(fields, msg)` so the
// manager can pass its pino logger straight in. Nothing in the runtime logs through a global.

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
}

export const silentLogger: Logger = { info: () => {}, error: () => {} };
