// The smallest structured logger the runtime needs: one JSON line per message on stderr.
// Callers (the manager, tests) inject their own; nothing in the runtime logs through a global.

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function jsonLogger(write: (line: string) => void = (l) => process.stderr.write(l), base: LogFields = {}): Logger {
  const emit = (level: string) => (msg: string, fields?: LogFields) =>
    write(`${JSON.stringify({ ts: new Date().toISOString(), level, msg, ...base, ...fields })}\n`);
  return { info: emit('info'), error: emit('error') };
}

export const silentLogger: Logger = { info: () => {}, error: () => {} };
