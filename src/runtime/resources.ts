// Descriptors of the API resources the operator reads or writes, and how to build their URLs.
// Kept static (no discovery round trip): the set is small and known at build time.

export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const apiVersionOf = (t: ResourceType): string => (t.group ? `${t.group}/${t.version}` : t.version);

const core = (plural: string, kind: string, namespaced = true): ResourceType => ({ group: '', version: 'v1', plural, kind, namespaced });

export const Resources = {
  configMaps: core('configmaps', 'ConfigMap'),
  secrets: core('secrets', 'Secret'),
  services: core('services', 'Service'),
  pods: core('pods', 'Pod'),
  persistentVolumeClaims: core('persistentvolumeclaims', 'PersistentVolumeClaim'),
  persistentVolumes: core('persistentvolumes', 'PersistentVolume', false),
  nodes: core('nodes', 'Node', false),
  namespaces: core('namespaces', 'Namespace', false),
  statefulSets: { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  deployments: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  controllerRevisions: { group: 'apps', version: 'v1', plural: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  endpointSlices: { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
  jobs: { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true },
  storageClasses: { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses', kind: 'StorageClass', namespaced: false },
  events: { group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true },
  workspaces: { group: 'kaito.sh', version: 'v1beta1', plural: 'workspaces', kind: 'Workspace', namespaced: true },
  inferenceSets: { group: 'kaito.sh', version: 'v1beta1', plural: 'inferencesets', kind: 'InferenceSet', namespaced: true },
  nodeClaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', kind: 'NodeClaim', namespaced: false },
  nodePools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', kind: 'NodePool', namespaced: false },
} satisfies Record<string, ResourceType>;

/**
 * `/api/v1/namespaces/ns/pods/name/status`. Without `namespace` a namespaced type gives the
 * all-namespaces collection (for list/watch).
 */
export function resourcePath(t: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  const prefix = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  const ns = t.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  if (t.namespaced && name && !namespace) throw new Error(`${t.kind} ${name}: namespace required`);
  const obj = name ? `/${encodeURIComponent(name)}` : '';
  const sub = name && subresource ? `/${subresource}` : '';
  return `${prefix}${ns}/${t.plural}${obj}${sub}`;
}

/** `namespace/name` (or just `name` for cluster-scoped objects) — the work-queue key format. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
