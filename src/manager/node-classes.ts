// Karpenter mode: the NodeClasses of --karpenter-node-classes are created once the operator leads,
// as KAITO does at start. One that exists is left as it is. Unlike KAITO, a missing NodeClass CRD
// does not stop the process: the attempt repeats with a growing delay, and workspaces say why they wait.
import type { NodeClassConfig } from '../api/node-class-config.js';
import { buildNodeClass } from '../builders/nodepool.js';
import { nodeClassResource } from '../controllers/workspace/karpenter-provision.js';
import type { KubeClient } from '../runtime/client.js';
import { ignoreAlreadyExists } from '../runtime/errors.js';
import type { Logger } from '../runtime/log.js';
import { sleep } from '../runtime/rate-limit.js';
import type { Runnable } from './runnables.js';

const FIRST_RETRY_MS = 2_000;
const MAX_RETRY_MS = 5 * 60_000;

/** Creates every configured NodeClass that is missing; resolves when all exist or the signal fires. */
export async function ensureNodeClasses(client: KubeClient, cfg: NodeClassConfig, log: Logger, signal: AbortSignal): Promise<void> {
  let delay = FIRST_RETRY_MS;
  for (const entry of cfg.nodeClasses) {
    while (!signal.aborted) {
      try {
        await client.create(nodeClassResource(cfg), buildNodeClass(cfg, entry)).catch(ignoreAlreadyExists);
        break;
      } catch (err) {
        log.error({ nodeClass: `${cfg.kind}/${entry.name}`, error: (err as Error).message, retryInMs: delay }, 'cannot create the NodeClass yet');
        await sleep(delay, signal);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
    }
  }
}

export function nodeClassesRunnable(client: KubeClient, cfg: NodeClassConfig, log: Logger): Runnable {
  const stopper = new AbortController();
  let done: Promise<void> = Promise.resolve();
  return {
    name: 'node classes',
    start(signal) {
      signal.addEventListener('abort', () => stopper.abort(), { once: true });
      // In the background: workers need not wait for it (a workspace waits on the NodeClass watch).
      done = ensureNodeClasses(client, cfg, log, stopper.signal);
      return Promise.resolve();
    },
    async stop() {
      stopper.abort();
      await done;
    },
  };
}
