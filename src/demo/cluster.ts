// The demo's cluster work: start (or reuse) the local cluster through the simcluster API, install the
// CRDs, give the demo a clean namespace, apply the samples, and read what the table shows.
import type { KubeConfig, KubernetesObject, V1Deployment, V1Namespace, V1Node, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { workspaceCrd } from '../api/crd.js';
import { inferenceSetCrd } from '../api/inferenceset-crd.js';
import type { InferenceSet } from '../api/inferenceset-types.js';
import { INFERENCESET_FINALIZER, LABEL_KARPENTER_WORKSPACE_NAMESPACE, LABEL_WORKSPACE_NAMESPACE, WORKSPACE_FINALIZER } from '../api/labels.js';
import type { Workspace } from '../api/types.js';
import { workspaceName } from '../builders/meta.js';
import type { NodeClaim } from '../builders/nodeclaim.js';
import { Reason } from '../controllers/workspace/reasons.js';
import { KubeClient, MERGE_PATCH } from '../runtime/client.js';
import { ignoreNotFound, isAlreadyExists, isConflict } from '../runtime/errors.js';
import { Resources, type ResourceType } from '../runtime/resources.js';
import { KubeTransport } from '../runtime/transport.js';
import { adminKubeConfig, isRunning, up, type ClusterInfo } from '../simcluster/cluster.js';
import { CRDS } from '../simcluster/crds.js';
import { layoutFor } from '../simcluster/layout.js';
import { recycleReleasedPvs } from '../simcluster/storage.js';
import { ownedLegacyDeployment, type Samples } from './samples.js';
import type { Snapshot } from './table.js';
import { waitUntil } from './wait.js';

export const DEMO_FIELD_MANAGER = 'kaito-ts-demo';

const SERVICE_ACCOUNTS: ResourceType = { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true };

type Log = (line: string) => void;

/** Reuses a running cluster as it is; otherwise `simcluster up` (building binaries first if needed). */
export async function startOrReuseCluster(log: Log, karpenter = false): Promise<ClusterInfo & { started: boolean }> {
  const l = layoutFor();
  const running = await isRunning(l);
  if (running && !karpenter) {
    log(`reusing the running local cluster (${l.kubeconfigPath})`);
    return { kubeconfigPath: l.kubeconfigPath, binDir: l.binDir, started: false };
  }
  // `up` keeps what runs and adds Karpenter to a running cluster (it stays until `simcluster down`).
  log(
    running
      ? 'adding Karpenter to the running local cluster (simcluster up --karpenter)'
      : `starting the local cluster (simcluster up${karpenter ? ' --karpenter' : ''})`,
  );
  return { ...(await up({ log: (line) => log(`  ${line}`), karpenter })), started: !running };
}

export interface DemoApi {
  kc: KubeConfig;
  client: KubeClient;
  close(): void;
}

export function demoApi(): DemoApi {
  const kc = adminKubeConfig();
  const transport = new KubeTransport(kc, { qps: 50, burst: 100 });
  return { kc, client: new KubeClient(transport, { fieldManager: DEMO_FIELD_MANAGER }), close: () => transport.close() };
}

/** Server-side apply of the Workspace and InferenceSet CRDs, then wait until both are Established and served. */
export async function installCrds(client: KubeClient, namespace: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const [crd, type] of [
    [workspaceCrd(), Resources.workspaces],
    [inferenceSetCrd(), Resources.inferenceSets],
  ] as const) {
    await client.apply(CRDS, crd);
    await waitUntil(
      `CRD ${crd.metadata.name} Established`,
      deadline,
      async () => {
        const live = await client.get<KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }>(CRDS, undefined, crd.metadata.name);
        return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      },
      signal,
      200,
    );
    // Established can precede the REST handler by a moment: list until it answers.
    await waitUntil(
      `the ${type.plural} API to be served`,
      deadline,
      async () =>
        await client.list(type, { namespace }).then(
          () => true,
          () => undefined,
        ),
      signal,
      200,
    );
  }
}

/**
 * Gives the demo a clean namespace: created when missing; what an earlier run left (InferenceSets,
 * workspaces, legacy Deployments, claims) is removed, so every run shows the whole flow. The operator
 * is not running yet, so the demo lifts the InferenceSet and workspace finalizers itself.
 */
export async function resetNamespace(api: DemoApi, namespace: string, signal: AbortSignal, log: Log): Promise<void> {
  const { client } = api;
  const deadline = Date.now() + 120_000;
  await waitUntil(
    `namespace ${namespace} to be usable`,
    deadline,
    async () => {
      const ns = await client.get<V1Namespace>(Resources.namespaces, undefined, namespace).catch((err: unknown) => (ignoreNotFound(err), undefined));
      if (ns?.status?.phase === 'Terminating') return undefined;
      if (ns) return true;
      await client
        .create(Resources.namespaces, { metadata: { name: namespace, labels: { 'app.kubernetes.io/part-of': 'kaito-ts-demo' } } })
        .catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
      return undefined; // look again: it may still be terminating
    },
    signal,
  );

  // The sets first, so no child is made again; their children are workspaces like the others below.
  for (const is of await listIn<InferenceSet>(client, Resources.inferenceSets, namespace)) {
    await dropFinalizerAndDelete(client, Resources.inferenceSets, is, namespace, INFERENCESET_FINALIZER);
  }
  const left = await listIn<Workspace & KubernetesObject>(client, Resources.workspaces, namespace);
  if (left.length > 0) log(`removing what an earlier demo run left in ${namespace}: ${left.map((w) => workspaceName(w)).join(', ')}`);
  for (const ws of left) await dropFinalizerAndDelete(client, Resources.workspaces, ws, namespace, WORKSPACE_FINALIZER);
  // Owner references would take the children too, but the garbage collector may take half a minute,
  // and a same-named child of the old workspace makes the new one report ObjectNotOwned until then.
  // The namespace is the demo's own: everything of these kinds goes now (claims and legacy Deployments included).
  const kinds = [Resources.deployments, Resources.statefulSets, Resources.services, Resources.controllerRevisions, Resources.persistentVolumeClaims];
  for (const type of kinds) {
    for (const obj of await listIn(client, type, namespace)) {
      await client.delete(type, { namespace, name: obj.metadata?.name ?? '' }).catch(ignoreNotFound);
    }
  }
  // Pods go before the nodes made for them, at once (grace period 0, as `kubectl delete --force`): a pod
  // whose node vanished first (the child an earlier run scaled down: its NodeClaim went with it) stays
  // Terminating until kube-controller-manager's pod GC takes it, about 40 s later. The StatefulSets went
  // above, so none comes back.
  for (const pod of await listIn(client, Resources.pods, namespace)) {
    await client.delete(Resources.pods, { namespace, name: pod.metadata?.name ?? '' }, { gracePeriodSeconds: 0 }).catch(ignoreNotFound);
  }
  await waitUntil(
    `the earlier demo pods in ${namespace} to be gone`,
    deadline,
    async () => ((await listIn(client, Resources.pods, namespace)).length === 0 ? true : undefined),
    signal,
  );
  // The finalizer was stripped above, so the earlier run's NodeClaims (cluster-scoped) go here too;
  // the provisioner then removes their nodes.
  for (const nc of await namespaceClaims(client, namespace)) {
    await client.delete(Resources.nodeClaims, { name: nc.metadata.name }).catch(ignoreNotFound);
  }
  for (const np of await labelledFor(client, Resources.nodePools, `${LABEL_KARPENTER_WORKSPACE_NAMESPACE}=${namespace}`)) {
    await client.delete(Resources.nodePools, { name: np.metadata?.name ?? '' }).catch(ignoreNotFound);
  }
  await waitUntil(
    `the earlier demo objects in ${namespace} to be gone`,
    deadline,
    async () => {
      const counts = await Promise.all(
        [Resources.inferenceSets, Resources.workspaces, Resources.pods, ...kinds].map(async (t) => (await listIn(client, t, namespace)).length),
      );
      const claims = (await namespaceClaims(client, namespace)).length;
      return counts.every((n) => n === 0) && claims === 0 ? true : undefined;
    },
    signal,
  );
  // Retain volumes of the deleted claims: make them Available for this run's claims.
  await recycleReleasedPvs(api.kc);
  await waitUntil(
    `ServiceAccount default in ${namespace}`,
    deadline,
    async () =>
      await client.get(SERVICE_ACCOUNTS, namespace, 'default').then(
        () => true,
        () => undefined,
      ),
    signal,
    200,
  );
}

/**
 * Lifts our finalizer (the operator is not running to do it), then deletes; either may find the object
 * gone. The patch is guarded by the resourceVersion read, and read again on a conflict: deleting an
 * InferenceSet makes the garbage collector mark its children while the demo lifts their finalizers.
 */
async function dropFinalizerAndDelete(client: KubeClient, type: ResourceType, obj: KubernetesObject, namespace: string, finalizer: string): Promise<void> {
  const name = obj.metadata?.name ?? '';
  let live: KubernetesObject | undefined = obj;
  for (let attempt = 0; live?.metadata?.finalizers?.includes(finalizer); attempt++) {
    const finalizers = live.metadata.finalizers;
    const lifted = await client
      .patch(
        type,
        { namespace, name },
        { metadata: { finalizers: finalizers.filter((f) => f !== finalizer), resourceVersion: live.metadata.resourceVersion } },
        MERGE_PATCH,
      )
      .then(
        () => true,
        (err: unknown) => {
          if (isConflict(err) && attempt < 5) return false;
          ignoreNotFound(err);
          return true;
        },
      );
    if (lifted) break;
    live = await client.get<KubernetesObject>(type, namespace, name).catch((err: unknown) => (ignoreNotFound(err), undefined));
  }
  await client.delete(type, { namespace, name }).catch(ignoreNotFound);
}

async function listIn<T extends KubernetesObject>(client: KubeClient, type: ResourceType, namespace?: string): Promise<T[]> {
  return (await client.list<T>(type, namespace ? { namespace } : {})).items;
}

/** Applies every sample workspace and InferenceSet (server-side apply under the demo's field manager). */
export async function applySamples(client: KubeClient, samples: Samples): Promise<void> {
  for (const ws of samples.workspaces) {
    await client.apply(Resources.workspaces, ws);
  }
  for (const is of samples.inferenceSets) {
    await client.apply(Resources.inferenceSets, is);
  }
}

/**
 * Creates each legacy Deployment controlled by its live workspace and waits for its pods to run,
 * as an older KAITO release would have left it. Resolves with `name → node of its pod`, or
 * `undefined` when the Deployment vanished first (another operator already migrated it).
 */
export async function installLegacy(
  client: KubeClient,
  samples: Samples,
  namespace: string,
  deadline: number,
  signal: AbortSignal,
): Promise<Map<string, string | undefined>> {
  const nodes = new Map<string, string | undefined>();
  for (const template of samples.legacy) {
    const name = template.metadata?.name ?? '';
    const live = await client.get<Workspace & KubernetesObject>(Resources.workspaces, namespace, name);
    await client.apply(Resources.deployments, ownedLegacyDeployment(template, live));
  }
  for (const template of samples.legacy) {
    const name = template.metadata?.name ?? '';
    const want = template.spec?.replicas ?? 1;
    await waitUntil(
      `legacy Deployment ${namespace}/${name} to have ${want} pod(s) ready`,
      deadline,
      async () => {
        const d = await client.get<V1Deployment>(Resources.deployments, namespace, name).catch((err: unknown) => (ignoreNotFound(err), undefined));
        if (!d) {
          nodes.set(name, undefined);
          return true;
        }
        if ((d.status?.readyReplicas ?? 0) < want) return undefined;
        const pods = await listIn<V1Pod>(client, Resources.pods, namespace);
        const pod = pods.find((p) => p.metadata?.ownerReferences?.some((o) => o.kind === 'ReplicaSet') && p.metadata?.name?.startsWith(`${name}-`));
        nodes.set(name, pod?.spec?.nodeName ?? '?');
        return true;
      },
      signal,
    );
  }
  return nodes;
}

/**
 * Sample workspaces some other operator already took (finalizer or status set before the demo's
 * operator started): a `kaito-ts run` without --namespace, for instance. The demo still converges,
 * but the migration is then not the demo's to show.
 */
export async function takenByAnotherOperator(client: KubeClient, namespace: string): Promise<string[]> {
  const live = await listIn<Workspace & KubernetesObject>(client, Resources.workspaces, namespace);
  return live.filter((ws) => ws.metadata.finalizers?.includes(WORKSPACE_FINALIZER) || (ws.status?.conditions?.length ?? 0) > 0).map((ws) => workspaceName(ws));
}

/** One read of everything the table shows (eight lists; the API server is local). */
export async function snapshot(client: KubeClient, namespace: string): Promise<Snapshot> {
  const [workspaces, inferenceSets, statefulSets, deployments, claims, pods, nodes, nodeClaims] = await Promise.all([
    listIn<Workspace & KubernetesObject>(client, Resources.workspaces, namespace),
    listIn<InferenceSet>(client, Resources.inferenceSets, namespace),
    listIn<V1StatefulSet>(client, Resources.statefulSets, namespace),
    listIn<V1Deployment>(client, Resources.deployments, namespace),
    listIn<V1PersistentVolumeClaim>(client, Resources.persistentVolumeClaims, namespace),
    listIn<V1Pod>(client, Resources.pods, namespace),
    listIn<V1Node>(client, Resources.nodes),
    namespaceClaims(client, namespace),
  ]);
  return { workspaces, inferenceSets, statefulSets, deployments, claims, pods, nodes, nodeClaims };
}

/** Cluster-scoped objects labelled with the namespace (NodeClaims, NodePools); none without the CRD. */
async function labelledFor<T extends KubernetesObject>(client: KubeClient, type: ResourceType, selector: string): Promise<T[]> {
  const list = await client.list<T>(type, { labelSelector: selector }).catch((err: unknown) => (ignoreNotFound(err), undefined));
  return list?.items ?? [];
}

/** The namespace's NodeClaims: gpu-provisioner's (our labels) and Karpenter's (its NodePool's template labels). */
async function namespaceClaims(client: KubeClient, namespace: string): Promise<NodeClaim[]> {
  const [ours, pools] = await Promise.all([
    labelledFor<NodeClaim>(client, Resources.nodeClaims, `${LABEL_WORKSPACE_NAMESPACE}=${namespace}`),
    labelledFor<NodeClaim>(client, Resources.nodeClaims, `${LABEL_KARPENTER_WORKSPACE_NAMESPACE}=${namespace}`),
  ]);
  return [...ours, ...pools];
}

/**
 * How each migration went, from the operator's WorkloadMigration events about the live workspace
 * (its UID: the namespace is reused, so earlier runs' events may still be there). Normal = no downtime.
 */
export async function migrationEvents(client: KubeClient, namespace: string, workspaces: Workspace[]): Promise<Map<string, { type: string; note: string }[]>> {
  const events = await listIn<KubernetesObject & { type?: string; reason?: string; note?: string; regarding?: { uid?: string } }>(
    client,
    Resources.events,
    namespace,
  );
  const out = new Map<string, { type: string; note: string }[]>();
  for (const ws of workspaces) {
    const mine = events.filter((e) => e.reason === Reason.WorkloadMigration && e.regarding?.uid === ws.metadata.uid);
    if (mine.length > 0)
      out.set(
        workspaceName(ws),
        mine.map((e) => ({ type: e.type ?? '', note: e.note ?? '' })),
      );
  }
  return out;
}
