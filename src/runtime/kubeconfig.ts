// Which cluster to talk to: --kubeconfig, else KUBECONFIG, else in-cluster (as KAITO/controller-runtime).
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConfigOptions {
  /** The --kubeconfig flag. */
  kubeconfig?: string;
  env?: NodeJS.ProcessEnv;
  /** Override the context in the file. */
  context?: string;
}

export function createKubeConfig(opts: KubeConfigOptions = {}): KubeConfig {
  const env = opts.env ?? process.env;
  const kc = new KubeConfig();
  const file = opts.kubeconfig || env.KUBECONFIG;
  if (file) {
    // KUBECONFIG may list several files (':'-separated); the first one's context wins, as kubectl.
    const files = opts.kubeconfig ? [opts.kubeconfig] : file.split(delimiter).filter(Boolean);
    const missing = files.filter((f) => !existsSync(f));
    if (missing.length) throw new Error(`kubeconfig not found: ${missing.join(', ')}`);
    files.forEach((f, i) => {
      if (i === 0) return kc.loadFromFile(f);
      const more = new KubeConfig();
      more.loadFromFile(f);
      kc.mergeConfig(more, true);
    });
  } else if (env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
  } else {
    throw new Error('no cluster configured: pass --kubeconfig, set KUBECONFIG, or run in a pod');
  }
  if (opts.context) kc.setCurrentContext(opts.context);
  if (!kc.getCurrentCluster()) throw new Error(`kubeconfig ${file ?? '(in-cluster)'} has no current cluster`);
  return kc;
}
