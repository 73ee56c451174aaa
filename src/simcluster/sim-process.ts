// What the simcluster's own Node.js components (the simulated gpu-provisioner, the model-load
// simulation) share as processes: JSON log lines on stdout, a /healthz server on 127.0.0.1, and a
// main that starts the component and stops it cleanly on SIGTERM or SIGINT.
import { createServer, type Server } from 'node:http';

export function jsonLog(fields: Record<string, unknown>, msg: string): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg, ...fields })}\n`);
}

/** A reflector's onError: a log line, the reflector retries anyway. */
export const logWatchError =
  (name: string) =>
  (err: Error): void =>
    jsonLog({ reflector: name, error: err.message }, 'watch failed; retrying');

/** /healthz and /readyz answer 200 with `body()` as JSON (the component's counters); anything else 404. */
export function serveHealth(port: number, body: () => Record<string, unknown>): Promise<Server> {
  const server = createServer((req, res) => {
    const ok = req.url === '/healthz' || req.url === '/readyz';
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(ok ? JSON.stringify(body()) : '{}');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Runs a component until SIGTERM/SIGINT, then stops it and exits 0; a failed start prints `<name>: <error>` and exits 1. */
export function runComponentProcess(name: string, start: () => Promise<{ stop: () => Promise<void> }>): void {
  Promise.resolve()
    .then(start)
    .then((running) => {
      const shutdown = (): void => {
        void running.stop().finally(() => process.exit(0));
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    })
    .catch((err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
