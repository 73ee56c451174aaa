// `kaito-ts run`: the operator process. Flags → ManagerOptions; SIGTERM/SIGINT → orderly stop.
import { startManager } from '../../manager/manager.js';
import { parseManagerOptions, RUN_USAGE } from '../../manager/options.js';
import { CliError, type CliIO } from '../errors.js';

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
    const shutdown = (signal: string) => {
      running.log.info({ signal }, 'shutting down');
      void running.stop(30_000).then((drained) => resolve(drained ? 0 : 1));
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
