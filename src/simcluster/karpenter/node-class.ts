// KWOKNodeClass readiness. Karpenter's kwok provider has no node class controller: it relies on the
// CRD's default status (Ready=True). On this apiserver that default never shows (create drops the
// status of a resource with a status subresource), so a new class stays unready and Karpenter
// launches nothing. This sets what the default says, as a cloud provider's node class controller
// would; it creates no class (the operator or the test does).
import type { KubernetesObject } from '@kubernetes/client-node';
import { MERGE_PATCH, type KubeClient } from '../../runtime/client.js';
import { Controller, type Result } from '../../runtime/controller.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Reflector } from '../../runtime/reflector.js';
import type { ResourceType } from '../../runtime/resources.js';

export const KWOK_NODE_CLASSES: ResourceType = {
  group: 'karpenter.kwok.sh',
  version: 'v1alpha1',
  plural: 'kwoknodeclasses',
  kind: 'KWOKNodeClass',
  namespaced: false,
};

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface KwokNodeClass extends KubernetesObject {
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[] };
}

/** The status to write, or undefined when the class is Ready=True for its generation already. Pure. */
export function readyStatus(nc: DeepReadonly<KwokNodeClass>, now: Date): { conditions: Condition[] } | undefined {
  const generation = nc.metadata?.generation ?? 1;
  const ready = nc.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'True' && ready.observedGeneration === generation) return undefined;
  const others = (nc.status?.conditions ?? []).filter((c) => c.type !== 'Ready').map((c) => ({ ...c }));
  const since = ready?.status === 'True' ? ready.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    conditions: [...others, { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: since, observedGeneration: generation }],
  };
}

export function nodeClassController(d: {
  client: KubeClient;
  log: (fields: Record<string, unknown>, msg: string) => void;
  onError: (name: string) => (err: Error) => void;
}): Controller {
  const classes = new Reflector<KwokNodeClass>({ client: d.client, type: KWOK_NODE_CLASSES, onError: d.onError('kwoknodeclasses') });
  const reconcile = async (name: string): Promise<Result> => {
    const nc = classes.cache.get(undefined, name);
    const status = nc && !nc.metadata?.deletionTimestamp ? readyStatus(nc, new Date()) : undefined;
    if (!status) return {};
    await d.client.patch(KWOK_NODE_CLASSES, { name }, { status }, MERGE_PATCH, 'status');
    d.log({ nodeClass: name }, 'KWOKNodeClass marked Ready');
    return {};
  };
  const controller = new Controller({ name: 'sim-kwok-node-class', maxConcurrentReconciles: 1, reconcile, log: { info: d.log, error: d.log } });
  return controller.watch(classes, (e) => [e.obj.metadata?.name ?? '']);
}
