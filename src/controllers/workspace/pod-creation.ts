// Pods the StatefulSet controller cannot create (an admission refusal, a quota, an invalid label)
// show in its status only as missing replicas; the why is in its FailedCreate Events. The operator
// watches those Events (field-selected) and names the newest in InferenceReady.
import type { EventsV1Event, V1StatefulSet } from '@kubernetes/client-node';
import type { Readiness } from './readiness.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export const POD_CREATION_FAILED = 'PodCreationFailed';
/** What the watch asks the API server for: nothing else is cached. */
export const FAILED_CREATE_FIELD_SELECTOR = 'regarding.kind=StatefulSet,reason=FailedCreate';

const timeOf = (e: DeepReadonly<EventsV1Event>): number =>
  new Date(e.series?.lastObservedTime ?? e.deprecatedLastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? 0).getTime();

/** Readiness saying why pods are missing, when some are and a FailedCreate Event of this StatefulSet says why. */
export function podCreationFailure(
  sts: DeepReadonly<V1StatefulSet>,
  events: readonly DeepReadonly<EventsV1Event>[],
): Extract<Readiness, { ready: false }> | undefined {
  const created = sts.status?.replicas ?? 0;
  if (created >= (sts.spec?.replicas ?? 1)) return undefined;
  const uid = sts.metadata?.uid;
  const latest = events.filter((e) => !!uid && e.regarding?.uid === uid).sort((a, b) => timeOf(b) - timeOf(a))[0];
  if (!latest) return undefined;
  return { ready: false, reason: POD_CREATION_FAILED, message: `StatefulSet ${sts.metadata?.name} cannot create its pods: ${latest.note ?? 'FailedCreate'}` };
}
