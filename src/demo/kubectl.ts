// The demo runs the cluster's own kubectl for the steps a user would type (`kubectl scale`), and shows
// the command line as the user would type it after `eval "$(node bin/kaito-ts.js simcluster env)"`.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** kubectl exited non-zero: its own words, on one line. */
export class KubectlFailed extends Error {}

export interface KubectlTarget {
  binDir: string;
  kubeconfigPath: string;
}

/** `kubectl -n NS scale inferenceset/NAME --replicas=N`, as arguments. */
export function scaleArgs(namespace: string, name: string, replicas: number): string[] {
  return ['-n', namespace, 'scale', `inferenceset/${name}`, `--replicas=${replicas}`];
}

/** The command line as shown to the user. */
export const commandLine = (args: string[]): string => `kubectl ${args.join(' ')}`;

/** Runs kubectl against the local cluster; resolves its stdout, trimmed. */
export function kubectl(target: KubectlTarget, args: string[], signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      join(target.binDir, 'kubectl'),
      args,
      { env: { ...process.env, KUBECONFIG: target.kubeconfigPath }, signal, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new KubectlFailed(`${commandLine(args)} failed: ${(stderr.trim() || err.message).split('\n').join(' ')}`));
        else resolve(stdout.trim());
      },
    );
  });
}
