// `kaito-ts demo [--exit] [--timeout S]`: flags and Ctrl-C only; the demo itself is in src/demo/.
import { parseArgs } from 'node:util';
import { CliError, type CliIO } from '../command-io.js';

const USAGE = `Usage: kaito-ts demo [--exit] [--timeout S] [--karpenter]

Starts the local cluster (building it on the first run), installs the Workspace CRD, applies sample
workspaces in namespace kaito-demo (NVMe and non-NVMe GPU nodes, one legacy Deployment to migrate),
runs the operator in this process and shows a live table until every workspace is InferenceReady.

  --exit        exit 0 once everything is ready (the operator stops; the cluster stays up)
  --timeout S   seconds to wait for readiness, from the first sample applied (default 300);
                on timeout: exit 1 with the reason on one line
  --karpenter   Karpenter NodePool mode: real Karpenter (its kwok provider) joins the cluster and
                the provisioned sample gets a NodePool; the cluster keeps Karpenter until
                "simcluster down"
Ctrl-C stops the operator, and the local cluster when the demo started it.
`;

export async function demo(args: string[], io: CliIO): Promise<number> {
  const { values } = (() => {
    try {
      return parseArgs({
        args,
        strict: true,
        allowPositionals: false,
        options: { exit: { type: 'boolean' }, timeout: { type: 'string' }, karpenter: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      });
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  })();
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const timeoutSeconds = Number(values.timeout ?? '300');
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new CliError(`--timeout must be a positive number of seconds, got "${values.timeout}"`);

  const { runDemo } = await import('../../demo/run.js');
  const abort = new AbortController();
  const onSignal = (): void => {
    if (abort.signal.aborted) process.exit(130); // a second Ctrl-C: stop waiting for the cleanup
    io.stderr('\nstopping (Ctrl-C again to quit at once)\n');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runDemo({
      exit: values.exit ?? false,
      karpenter: values.karpenter ?? false,
      timeoutSeconds,
      signal: abort.signal,
      out: io.stdout,
      tty: process.stdout.isTTY === true,
      ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    });
    if (result.error) throw new CliError(result.error, result.code);
    return result.code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
