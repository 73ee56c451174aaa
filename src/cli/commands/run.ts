// `kaito-ts run`: the operator process. Flags → ManagerOptions; SIGTERM/SIGINT → orderly stop
// (stop taking work, finish in-flight reconciles within 30 s, release the lease, exit 0).
// Losing the lease exits at once with 1 (inside the manager): another replica may be leading already.
import { startManager } from '../../manager/manager.js';
import { parseManagerOptions, RUN_USAGE } from '../../manager/options.js';
import { CliError, type CliIO } from '../command-io.js';

export const SHUTDOWN_DEADLINE_MS = 30_000;

export async function run(args: string[], io: CliIO): Promise<number> {
  let opts;
  try {
    opts = parseManagerOptions(args);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (opts === 'help') {
    io.stdout(RUN_USAGE);
    return 0;
  }
  let mgr;
  try {
    mgr = await startManager(opts);
  } catch (err) {
    throw new CliError(`cannot start: ${(err as Error).message}`, 1);
  }
  const running = mgr;
  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) {
        // A second signal means "now": skip the drain.
        running.log.warn({ signal }, 'second signal; exiting without draining');
        resolve(1);
        return;
      }
      stopping = true;
      running.log.info({ signal, deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutting down');
      void running.stop(SHUTDOWN_DEADLINE_MS).then((drained) => {
        const code = drained ? 0 : 1;
        // Backstop: a stray handle must not keep a stopped operator alive past its grace period.
        setTimeout(() => process.exit(code), 5_000).unref();
        resolve(code);
      });
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  });
}
