// What a revision change may modify on an existing StatefulSet. KAITO updates only the main
// container's env and volume mounts, the init containers and the volumes, and leaves the rest "in
// case the user customised it". kaito-ts keeps that rule, expressed for server-side apply: the
// object we apply is the desired one, with every other field we own taken back from the live
// object, so applying it changes exactly the four updatable parts. Fields other managers own (a
// user's label, annotation or sidecar) are not in what we apply, so SSA leaves them alone. At the
// revision the live object already has, its pod template is kept as it is (atRevisionUpdate). A
// template another manager wrote (a takeover of KAITO's) is replaced whole instead (wholeTemplateUpdate).
import type { V1Container, V1PodSpec, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../../api/labels.js';
import type { Workspace } from '../../api/types.js';
import { needsApply } from '../../runtime/drift.js';
import { mutableCopy, type DeepReadonly } from '../../runtime/readonly.js';

const UPDATABLE_POD_FIELDS = new Set<keyof V1PodSpec>(['initContainers', 'volumes', 'containers']);
const UPDATABLE_CONTAINER_FIELDS = new Set<keyof V1Container>(['env', 'volumeMounts']);

function keepLive<T extends object>(desired: T, live: T | undefined, updatable: Set<keyof T>): T {
  const out = { ...desired };
  for (const key of Object.keys(desired) as (keyof T)[]) {
    if (updatable.has(key)) continue;
    const liveValue = live?.[key];
    if (liveValue !== undefined) out[key] = liveValue;
  }
  return out;
}

export function selectiveUpdate(desired: V1StatefulSet, cached: DeepReadonly<V1StatefulSet>): V1StatefulSet {
  // The result takes fields from the live object, which is the cache's (frozen): a copy of it goes in.
  const live = mutableCopy<V1StatefulSet>(cached);
  const dSpec = desired.spec!;
  const dPod = dSpec.template.spec!;
  const lPod = live.spec!.template.spec;
  const [main, ...others] = dPod.containers;
  const liveMain = lPod?.containers.find((c) => c.name === main?.name);
  const containers = main
    ? [keepLive(main, liveMain, UPDATABLE_CONTAINER_FIELDS), ...others.map((c) => lPod?.containers.find((l) => l.name === c.name) ?? c)]
    : dPod.containers;
  const whole = wholeTemplateUpdate(desired, cached);
  return {
    ...whole,
    spec: { ...whole.spec!, template: { ...dSpec.template, spec: { ...keepLive(dPod, lPod, UPDATABLE_POD_FIELDS), containers } } },
  };
}

/**
 * The apply of a new revision on a template another manager wrote (template-ownership.ts): our pod
 * template whole, so the pod is kaito-ts's shape and never KAITO's image and command with our init
 * containers and volumes. What is immutable after creation, and the replicas, stay as live.
 */
export function wholeTemplateUpdate(desired: V1StatefulSet, cached: DeepReadonly<V1StatefulSet>): V1StatefulSet {
  const lSpec = mutableCopy<V1StatefulSet>(cached).spec!;
  const dSpec = desired.spec!;
  return {
    ...desired,
    spec: {
      ...dSpec,
      replicas: lSpec.replicas ?? dSpec.replicas,
      // Immutable after creation: always what the live object has.
      selector: lSpec.selector,
      serviceName: lSpec.serviceName,
      ...(lSpec.volumeClaimTemplates ? { volumeClaimTemplates: lSpec.volumeClaimTemplates.map(stripClaimStatus) } : {}),
    },
  };
}

/** The keys of `desired` that `live` has, with live's values: applied, it changes nothing and removes nothing. */
function asLive<T extends object>(desired: T, live: T): T {
  const out: Partial<T> = {};
  for (const key of Object.keys(desired) as (keyof T)[]) if (live[key] !== undefined) out[key] = live[key];
  return out as T;
}

/**
 * The apply of a StatefulSet that is at the workspace's revision when only its replicas change (BYO
 * nodes appeared): the selective update with the pod template as the live object has it. At its
 * revision the live template is adopted whoever generated it (KAITO's init containers and their
 * scripts, an earlier kaito-ts): the keys of ours it has carry its values, the ones it lacks are left
 * out, so no pod is replaced for a replica change. The template becomes ours with the next revision.
 */
export function atRevisionUpdate(desired: V1StatefulSet, cached: DeepReadonly<V1StatefulSet>): V1StatefulSet {
  const update = selectiveUpdate(desired, cached);
  const live = mutableCopy<V1StatefulSet>(cached).spec?.template;
  const dTemplate = desired.spec!.template;
  if (!live?.spec) return update;
  const liveContainer = (name: string) => live.spec?.containers.find((c) => c.name === name);
  const containers = dTemplate.spec!.containers.flatMap((c) => {
    const l = liveContainer(c.name);
    return l ? [asLive(c, l)] : [];
  });
  return {
    ...update,
    spec: {
      ...update.spec!,
      template: {
        ...(dTemplate.metadata ? { metadata: asLive(dTemplate.metadata, live.metadata ?? {}) } : {}),
        spec: { ...asLive(dTemplate.spec!, live.spec), containers },
      },
    },
  };
}

function stripClaimStatus<T extends { status?: unknown; apiVersion?: string; kind?: string }>(claim: T): T {
  const { status: _s, apiVersion: _a, kind: _k, ...rest } = claim;
  return rest as T;
}

/**
 * KAITO v0.8.0 writes no revision annotation on template StatefulSets. Taking one over changes
 * nothing when KAITO's selective update would change nothing apart from that annotation: it is
 * left as it is, so a takeover writes no StatefulSet (idle passes stay write-free: this is a cache check).
 */
export function adoptableAsIs(ws: Workspace, desired: V1StatefulSet, live: DeepReadonly<V1StatefulSet>, replicas: number | undefined): boolean {
  if (!ws.inference?.template || live.metadata?.annotations?.[ANNOTATION_REVISION] !== undefined || replicas !== live.spec?.replicas) return false;
  const update = selectiveUpdate(desired, live);
  const annotations = { ...update.metadata?.annotations };
  delete annotations[ANNOTATION_REVISION];
  return !needsApply({ ...update, metadata: { ...update.metadata, annotations } }, live);
}
