// What the workspace controller's caches keep of each object: only what the reconciler (and the
// ownership, collision and drift rules) read, so that memory grows with what we use, not with
// what the cluster stores. Everything stored passes through here: list, watch and write-through.
// What stays, and why, is pinned by cache-transforms.test.ts.
import type {
  KubernetesObject,
  V1ControllerRevision,
  V1EndpointSlice,
  V1ManagedFieldsEntry,
  V1Node,
  V1Pod,
  V1PodSpec,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { specWriterOf } from '../../api/spec-version.js';
import { templateWriterOf } from '../shared/template-ownership.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { withoutFieldSets, type CacheTransform } from '../../runtime/cache.js';
import { Interner } from '../../runtime/interner.js';

/** kubectl's client-side apply copy of the whole object: nothing here reads it. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Every kind: managedFields reduced to who wrote it (ownership.ts), no last-applied copy. */
export function leanObject<T extends KubernetesObject>(obj: T): T {
  const slim = withoutFieldSets(obj);
  const annotations = slim.metadata?.annotations;
  if (!annotations || !(LAST_APPLIED in annotations)) return slim;
  const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
  return { ...slim, metadata: { ...slim.metadata, annotations: rest } };
}

/** `into` with the managedFields of `from`, each entry reduced by `reduce` (none: `into` as it is). */
function withManagedFields<T extends KubernetesObject>(into: T, from: KubernetesObject, reduce: (e: V1ManagedFieldsEntry) => V1ManagedFieldsEntry): T {
  const fields = from.metadata?.managedFields;
  return fields ? { ...into, metadata: { ...into.metadata, managedFields: fields.map(reduce) } } : into;
}

/**
 * Workspaces keep a little more of managedFields: each writer's apiVersion and which spec fields it
 * owns, from which spec-version.ts tells a workspace written in v1alpha1 (KAITO applies more rules to those).
 */
export function leanWorkspace<T extends KubernetesObject>(ws: T): T {
  return withSharedWorkerNodes(withManagedFields(leanObject(ws), ws, specWriterOf));
}

/**
 * `status.workerNodes` lists every ready node the workspace's selector matches (as KAITO does): with a
 * pool-wide selector, hundreds of names in each workspace. Stored once per name, not once per workspace
 * (10 MiB of peak RSS at N = 1000 in the benchmark, docs/benchmarks.md).
 */
const workerNodeNames = new Interner(10_000);
function withSharedWorkerNodes<T extends KubernetesObject>(ws: T): T {
  const status = (ws as { status?: { workerNodes?: unknown } }).status;
  const names = status?.workerNodes;
  if (!Array.isArray(names) || names.length === 0) return ws;
  return { ...ws, status: { ...status, workerNodes: names.map((n: unknown) => (typeof n === 'string' ? workerNodeNames.intern(n) : n)) } };
}

/**
 * StatefulSets keep, of managedFields, which template containers each writer put there: whether
 * kaito-ts or another manager wrote the pod template decides how a new revision updates it
 * (template-ownership.ts).
 */
export const leanStatefulSet: CacheTransform<V1StatefulSet> = (sts) => withManagedFields(leanObject(sts), sts, templateWriterOf);

/** The object whole but for managedFields, reduced to who wrote which template containers (`kaito-ts diff` compares the rest). */
export function withTemplateWriters<T extends KubernetesObject>(obj: T): T {
  return withManagedFields(obj, obj, templateWriterOf);
}

/**
 * Pods are read for where they run (spec.nodeName), the GPUs their containers hold, their phase, conditions and container states
 * (readiness.ts, pod-problems.ts, tuning-status.ts, migration.ts, stranded-claims.ts) and their
 * metadata (names, labels, owners). The spec, the template's copy of the StatefulSet, is the bulk.
 */
export const leanPod: CacheTransform<V1Pod> = (pod) => {
  const { metadata, spec, status } = leanObject(pod);
  return {
    apiVersion: pod.apiVersion,
    kind: pod.kind,
    metadata,
    ...(spec ? { spec: leanPodSpec(spec) } : {}),
    ...(status ? { status: pick(status, ['phase', 'reason', 'message', 'conditions', 'containerStatuses', 'initContainerStatuses', 'startTime']) } : {}),
  };
};

/** Where the pod runs, and each container's name and resources (migration.ts: do legacy pods hold GPUs). */
function leanPodSpec(spec: V1PodSpec): V1PodSpec {
  const containers = spec.containers.map((c) => ({ name: c.name, ...(c.resources ? { resources: c.resources } : {}) }));
  return { ...(spec.nodeName ? { nodeName: spec.nodeName } : {}), containers };
}

/**
 * Nodes are read for labels (selection, GPU facts), spec (unschedulable), Ready and pressure
 * conditions and GPU capacity. Images, addresses, nodeInfo and attached volumes are not read.
 */
export const leanNode: CacheTransform<V1Node> = (node) => {
  const { status, ...rest } = leanObject(node);
  return status ? { ...rest, status: pick(status, ['capacity', 'allocatable', 'conditions']) } : rest;
};

/**
 * Revisions are compared by name, owner, labels, hash annotation and number (revisions.ts,
 * reconciler.ts syncRevision); their `data` is never read. The StatefulSet controller's own
 * revisions (a whole pod template each) are still seen, so a name collision is still noticed.
 */
export const leanRevision: CacheTransform<V1ControllerRevision> = (cr) => {
  const lean: Omit<V1ControllerRevision, 'data'> & { data?: unknown } = { ...leanObject(cr) };
  delete lean.data;
  return lean;
};

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/** The label the endpoints controller puts on every EndpointSlice: the Service it is for. */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';

/**
 * EndpointSlices are read for which pods a Service really routes to (update-plan.ts): the slice's
 * Service, and each endpoint's pod and serving condition. Addresses, ports, zones and hints are not.
 */
export const leanEndpointSlice: CacheTransform<V1EndpointSlice> = (slice) => {
  const service = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
  return {
    apiVersion: slice.apiVersion,
    kind: slice.kind,
    addressType: slice.addressType,
    metadata: {
      name: slice.metadata?.name,
      namespace: slice.metadata?.namespace,
      resourceVersion: slice.metadata?.resourceVersion,
      ...(service ? { labels: { [LABEL_SERVICE_NAME]: service } } : {}),
    },
    endpoints: (slice.endpoints ?? []).map((e) => ({
      addresses: [],
      ...(e.targetRef ? { targetRef: { kind: e.targetRef.kind, name: e.targetRef.name } } : {}),
      ...(e.conditions ? { conditions: e.conditions } : {}),
    })),
  };
};

/**
 * Pods the slices list as serving. `serving`, not `ready`: KAITO's main Service publishes not-ready
 * addresses, so `ready` is true for a pod still loading its model.
 */
export function servingPodsOf(slices: readonly DeepReadonly<V1EndpointSlice>[]): string[] {
  const pods = slices.flatMap((s) =>
    (s.endpoints ?? []).filter((e) => (e.conditions?.serving ?? e.conditions?.ready) === true).map((e) => e.targetRef?.name ?? ''),
  );
  return [...new Set(pods.filter((p) => !!p))].sort();
}
