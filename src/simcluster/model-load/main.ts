// The model-load simulation process (`simcluster up --model-load cold=…,warm=…` starts it detached):
// list/watch workspace pods and every PersistentVolumeClaim with the project's runtime, annotate each
// workspace pod bound to a node with when its model is loaded (kwok's pod-ready-model-load Stage turns
// it Ready then), and mark the claims of Ready pods as holding loaded weights. /healthz on 127.0.0.1;
// SIGTERM stops it cleanly. Simcluster only, never the product.
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { KubeClient, MERGE_PATCH } from '../../runtime/client.js';
import { loadClusterAccess } from '../../runtime/cluster-access.js';
import { Controller, type Result } from '../../runtime/controller.js';
import { isNotFound } from '../../runtime/errors.js';
import { Reflector } from '../../runtime/reflector.js';
import { objectKey, Resources } from '../../runtime/resources.js';
import { KubeTransport } from '../../runtime/transport.js';
import { WORKSPACE_LABEL } from '../provisioner/claim-view.js';
import { jsonLog as log, logWatchError as onError, runComponentProcess, serveHealth } from '../sim-process.js';
import { claimsOf, modelLoadStep, WEIGHTS_LOADED_ANNOTATION } from './model-load.js';
import { parseModelLoadArgs, type ModelLoadOptions } from './model-load-options.js';

const MODEL_LOAD_FIELD_MANAGER = 'kaito-ts-sim-model-load';
/** How soon a pod whose claim is not cached yet is looked at again (a claim event also wakes it). */
const WAIT_MS = 500;

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  await p.catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}

async function runModelLoad(o: ModelLoadOptions): Promise<{ stop: () => Promise<void> }> {
  const transport = new KubeTransport(await loadClusterAccess({ kubeconfig: o.kubeconfig }), { qps: 50, burst: 100 });
  const client = new KubeClient(transport, { fieldManager: MODEL_LOAD_FIELD_MANAGER });
  const pods = new Reflector<V1Pod>({ client, type: Resources.pods, labelSelector: WORKSPACE_LABEL, onError: onError('pods') });
  const claims = new Reflector<V1PersistentVolumeClaim>({ client, type: Resources.persistentVolumeClaims, onError: onError('persistentvolumeclaims') });
  const stats = { cold: 0, warm: 0, claimsMarked: 0 };
  // The ready-at written per pod UID: a pass that runs again before the pod's watch event keeps it.
  const written = new Map<string, Record<string, string>>();
  const reconcile = async (key: string): Promise<Result> => {
    const pod = pods.cache.getByKey(key);
    if (!pod) return {};
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const uid = pod.metadata?.uid ?? '';
    const step = modelLoadStep(pod, (claim) => claims.cache.get(ns, claim), Date.now(), o);
    switch (step.action) {
      case 'none':
        return {};
      case 'wait':
        return { requeueAfterMs: WAIT_MS };
      case 'load': {
        const annotations = written.get(uid) ?? step.annotations;
        await ignoreNotFound(client.patch(Resources.pods, { namespace: ns, name }, { metadata: { uid, annotations } }, MERGE_PATCH));
        if (!written.has(uid)) {
          written.set(uid, annotations);
          stats[step.kind]++;
          log({ pod: key, node: pod.spec?.nodeName, kind: step.kind, delayMs: step.delayMs, claims: claimsOf(pod), ...annotations }, 'model load started');
        }
        return {};
      }
      case 'mark-loaded':
        for (const claim of step.claims) {
          const body = { metadata: { annotations: { [WEIGHTS_LOADED_ANNOTATION]: step.loadedAt } } };
          await ignoreNotFound(client.patch(Resources.persistentVolumeClaims, { namespace: ns, name: claim }, body, MERGE_PATCH));
          stats.claimsMarked++;
          log({ pod: key, claim: objectKey(ns, claim), loadedAt: step.loadedAt }, 'weights loaded on the claim');
        }
        written.delete(uid);
        return {};
    }
  };
  const controller = new Controller({ name: 'sim-model-load', maxConcurrentReconciles: 2, reconcile, log: { info: log, error: log } });
  controller
    .watch(pods, (e) => {
      if (e.type === 'delete') written.delete(e.obj.metadata?.uid ?? '');
      return [objectKey(e.obj.metadata?.namespace, e.obj.metadata?.name ?? '')];
    })
    // A claim that shows up or changes wakes the pods of its namespace that mount it.
    .watch(claims, (e) => {
      const ns = e.obj.metadata?.namespace;
      const claim = e.obj.metadata?.name ?? '';
      return pods.cache
        .list({ namespace: ns })
        .filter((p) => claimsOf(p).includes(claim))
        .map((p) => objectKey(ns, p.metadata?.name ?? ''));
    });
  await controller.start();
  const server = await serveHealth(o.healthPort, () => ({ ok: true, pods: pods.cache.size, claims: claims.cache.size, ...stats }));
  log({ coldMs: o.coldMs, warmMs: o.warmMs, healthPort: o.healthPort }, 'model-load simulation started');
  return {
    stop: async () => {
      server.close();
      await controller.stop(5_000);
      transport.close();
    },
  };
}

runComponentProcess('sim-model-load', () => runModelLoad(parseModelLoadArgs(process.argv.slice(2))));
