// `kaito-ts diff`: what the operator would change in each workspace's children on the live cluster,
// field by field, without writing. The reconciler's own decisions say which children it would
// apply (src/diff/intent.ts); a server-side apply dry-run under its field manager says what that
// apply would do, compared with the live object. Exit 0: nothing would change; 1: something would.
import { parseArgs } from 'node:util';
import type { KubernetesObject, V1ControllerRevision, V1StorageClass } from '@kubernetes/client-node';
import { parseFeatureGates } from '../../api/feature-gates.js';
import { resolveNodeProvisioner } from '../../api/node-provisioner.js';
import { nodeClassResource } from '../../controllers/workspace/karpenter-provision.js';
import { withTemplateWriters } from '../../controllers/workspace/cache-transforms.js';
import { karpenterNodeClasses, PROVISIONER_FLAGS } from '../../manager/options.js';
import { LABEL_KARPENTER_WORKSPACE_NAME } from '../../api/labels.js';
import { DEFAULT_RELEASE_NAMESPACE } from '../../builders/facts.js';
import { resolveCloudProvider } from '../../catalog/gpu-skus.js';
import { presetRegistry } from '../../catalog/presets.js';
import type { OperatorConfig, WorkspaceObject } from '../../controllers/workspace/context.js';
import { comparable, fieldChanges, formatChange, markRebuilt, type FieldChange } from '../../diff/changes.js';
import { workspaceIntent, type ChildIntent, type DiffCaches } from '../../diff/intent.js';
import { childWorkspaceChanges, planInferenceSetOffline } from '../../diff/inferenceset-intent.js';
import type { InferenceSetObject } from '../../controllers/inferenceset/children.js';
import { ObjectCache } from '../../runtime/cache.js';
import { KubeClient, withTypeMeta } from '../../runtime/client.js';
import { loadClusterAccess } from '../../runtime/cluster-access.js';
import { isNotFound, toKubeError } from '../../runtime/errors.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import { KubeTransport } from '../../runtime/transport.js';
import { inferencePresetOf } from '../../api/resolved-workspace.js';
import { LEGACY_PRESETS_FLAG, parseLegacyPresets } from '../../api/legacy-presets.js';
import { generationLines } from '../../builders/generation.js';
import type { HubModelState } from '../../catalog/model-generator.js';
import { ModelSecrets } from '../../controllers/workspace/model-secret.js';
import { hubPart } from '../../controllers/workspace/snapshot.js';
import { METADATA_LIST } from '../../runtime/reflector.js';
import { CliError, type CliIO } from '../command-io.js';
import { CliHub, HUB_FLAGS, HUB_USAGE, hubFailure } from '../hub.js';
import { compareText } from '../../runtime/order.js';

const USAGE = `Usage: kaito-ts diff [-n NAMESPACE] [WORKSPACE] [--kubeconfig FILE]
                     [--feature-gates k=v,...] [--cloud-provider azure|aws|arc]
                     [--node-provisioner P] [--karpenter-node-class-* ...] [--rebuild]
                     [--hf-endpoint URL] [--hf-timeout DURATION] [--legacy-presets v0.12|v0.8]

Shows, for each workspace, what kaito-ts would change in its StatefulSet, Services and
ControllerRevision (server-side apply dry-run under the field manager "kaito-ts"; nothing is
written); for each InferenceSet, the child Workspaces it would create or delete (a rollout step,
a scale) and the labels it would add. Without -n: every namespace; a WORKSPACE without -n is looked up in "default".
The cluster: --kubeconfig, else KUBECONFIG, else in-cluster. Give the operator's --feature-gates, and
in Karpenter mode its --node-provisioner=karpenter and --karpenter-node-class* flags (NodePools
are read to decide, as the operator does, but not compared), and its --legacy-presets: each workspace
of a legacy short name says which KAITO generation its workload has and which it would get.
--rebuild compares the StatefulSet kaito-ts would build even where the live one is at kaito-ts's
revision (which the operator leaves as it is): how its generator differs from the one that wrote it.
Each difference is marked [would be written] (the operator's own apply changes it), [kept (adopted)]
(the live StatefulSet is at the workspace's revision: kept until its spec changes) or [kept (selective
update)] (a new revision writes only env, volume mounts, init containers and volumes).
A Hugging Face id outside KAITO's catalog is sized from the hub, as the operator sizes it: HF_TOKEN
of the workspace's model access Secret, one read per repo for the run. ${HUB_USAGE}
Exit status: 0 nothing would change, 1 something would, 2 bad input, the cluster cannot be read or
a model's Hugging Face metadata cannot be read (its reason on stderr).
`;

function options(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        namespace: { type: 'string', short: 'n' },
        kubeconfig: { type: 'string' },
        'feature-gates': { type: 'string' },
        'cloud-provider': { type: 'string' },
        ...PROVISIONER_FLAGS,
        rebuild: { type: 'boolean' },
        [LEGACY_PRESETS_FLAG]: { type: 'string' },
        ...HUB_FLAGS,
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

export async function diff(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = options(args);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new CliError(`diff takes at most one WORKSPACE, got ${positionals.join(' ')}`);
  const [only] = positionals;
  const namespace = values.namespace ?? (only ? 'default' : undefined);
  let config: OperatorConfig;
  let client: KubeClient;
  const hub = CliHub.fromFlags(values);
  try {
    const gates = parseFeatureGates(values['feature-gates']);
    const provisioner = resolveNodeProvisioner(values['node-provisioner'], gates, false);
    config = {
      featureGates: provisioner.featureGates,
      nodeProvisioner: provisioner.provisioner,
      ...(provisioner.provisioner === 'karpenter' ? { nodeClasses: karpenterNodeClasses(values) } : {}),
      cloudProvider: resolveCloudProvider(values['cloud-provider']),
      presetRegistry: presetRegistry(),
      releaseNamespace: process.env.RELEASE_NAMESPACE?.trim() || DEFAULT_RELEASE_NAMESPACE,
      nodeProvisioningTimeoutMs: 0,
      legacyPresets: parseLegacyPresets(values[LEGACY_PRESETS_FLAG]),
    };
    client = new KubeClient(new KubeTransport(await loadClusterAccess({ kubeconfig: values.kubeconfig })));
  } catch (err) {
    throw new CliError((err as Error).message);
  }

  const read = async <T extends KubernetesObject>(type: ResourceType, ns?: string): Promise<T[]> => {
    try {
      return (await client.list<T>(type, { namespace: ns })).items;
    } catch (err) {
      throw new CliError(`cannot list ${type.plural}: ${(err as Error).message.split('\n')[0]}`);
    }
  };
  const allWorkspaces = await read<WorkspaceObject>(Resources.workspaces, namespace);
  // A cluster without the InferenceSet CRD has none.
  let inferenceSets = await client.list<InferenceSetObject>(Resources.inferenceSets, { namespace }).then(
    (l) => l.items,
    (err: unknown) => {
      if (isNotFound(err)) return [];
      throw new CliError(`cannot list ${Resources.inferenceSets.plural}: ${(err as Error).message.split('\n')[0]}`);
    },
  );
  let workspaces = allWorkspaces;
  if (only) {
    workspaces = workspaces.filter((w) => w.metadata.name === only);
    inferenceSets = inferenceSets.filter((is) => is.metadata.name === only);
    if (!workspaces.length && !inferenceSets.length) throw new CliError(`workspace ${namespace}/${only} not found`);
  }
  const caches = await loadCaches(read, namespace, config.releaseNamespace);
  if (config.nodeClasses) {
    // Karpenter mode: the plan reads the workspace's NodePool, Karpenter's claims for it and the NodeClasses.
    const cluster = async <T extends KubernetesObject>(type: ResourceType, selector?: string): Promise<ObjectCache<T>> => {
      const items = (await client.list<T>(type, selector ? { labelSelector: selector } : {}).catch((err: unknown) => {
        throw new CliError(`cannot list ${type.plural}: ${(err as Error).message.split('\n')[0]}`);
      })) as { items: T[] };
      return ObjectCache.from(items.items.map((o) => withTypeMeta(type, o)));
    };
    Object.assign(caches, {
      nodePools: await cluster(Resources.nodePools, LABEL_KARPENTER_WORKSPACE_NAME),
      poolClaims: await cluster(Resources.nodeClaims, LABEL_KARPENTER_WORKSPACE_NAME),
      nodeClasses: await cluster(nodeClassResource(config.nodeClasses)),
    });
  }

  const fromHub = await readHub(client, workspaces, hub);

  let changed = 0;
  const hubFailures: string[] = [];
  for (const ws of workspaces.sort((a, b) => compareText(`${a.metadata.namespace}/${a.metadata.name}`, `${b.metadata.namespace}/${b.metadata.name}`))) {
    const key = `${ws.metadata.namespace}/${ws.metadata.name}`;
    io.stdout(`workspace ${key}:\n`);
    for (const line of generationLines(ws, caches.statefulSets.get(ws.metadata.namespace, ws.metadata.name ?? ''), config.legacyPresets))
      io.stdout(`  ${line}\n`);
    const hubModels = fromHub.get(key);
    const failed = hubFailure(hubModels);
    if (failed) hubFailures.push(`workspace ${key}: ${failed.reason}: ${failed.message}`);
    const intent = workspaceIntent(ws, caches, config, new Date(), values.rebuild === true, hubModels);
    if (!intent.ok) {
      io.stdout(`  ${intent.message}\n`);
      continue;
    }
    let wouldChange = false;
    for (const child of intent.children) {
      const lines = await childLines(client, child, values.rebuild === true);
      wouldChange ||= lines.changed;
      io.stdout(lines.text.map((l) => `  ${l}\n`).join(''));
    }
    if (wouldChange) changed++;
  }
  io.stdout(`${changed} of ${workspaces.length} workspace(s) would change\n`);
  // InferenceSets: the child Workspaces their controller's next pass would create or delete (the same plan).
  let setsChanged = 0;
  const revisions = caches.controllerRevisions.list();
  for (const is of inferenceSets.sort((a, b) => compareText(`${a.metadata.namespace}/${a.metadata.name}`, `${b.metadata.namespace}/${b.metadata.name}`))) {
    io.stdout(`inferenceset ${is.metadata.namespace}/${is.metadata.name}:\n`);
    const plan = planInferenceSetOffline(
      is,
      { workspaces: allWorkspaces, controllerRevisions: revisions },
      { byo: config.featureGates.disableNodeAutoProvisioning },
    );
    const { lines, failure } = childWorkspaceChanges(plan);
    if (failure) io.stdout(`  ${failure}\n`);
    else if (!lines.length) io.stdout('  no child Workspace created or deleted\n');
    for (const l of lines) io.stdout(`  ${l}\n`);
    if (lines.length) setsChanged++;
  }
  if (inferenceSets.length) io.stdout(`${setsChanged} of ${inferenceSets.length} inferenceset(s) would change\n`);
  // What was not compared for want of hub metadata is not "nothing would change".
  for (const line of hubFailures) io.stderr(`kaito-ts: ${line}\n`);
  if (hubFailures.length) return 2;
  return changed || setsChanged ? 1 : 0;
}

/**
 * The hub's answer for every workspace naming an id outside the catalog, read as the operator reads
 * it (hubPart): the token from the model access Secret, whose metadata is listed and whose value is
 * read only by the hub read that needs it. All reads run at once; one per repo.
 */
async function readHub(client: KubeClient, workspaces: readonly WorkspaceObject[], hub: CliHub): Promise<Map<string, ReadonlyMap<string, HubModelState>>> {
  const asking = workspaces.flatMap((ws) => {
    const preset = ws.tuning || ws.metadata.deletionTimestamp ? undefined : inferencePresetOf(ws);
    return preset?.kind === 'resolving' ? [{ ws, name: preset.name }] : [];
  });
  const out = new Map<string, ReadonlyMap<string, HubModelState>>();
  if (!asking.length) return out;
  const namespaces = [...new Set(asking.filter((a) => a.ws.inference?.preset?.presetOptions?.modelAccessSecret).map((a) => a.ws.metadata.namespace))];
  const listed: KubernetesObject[] = [];
  for (const ns of namespaces) {
    const items = await client.list(Resources.secrets, { namespace: ns, accept: METADATA_LIST }).then(
      (l) => l.items ?? [],
      (err: unknown) => {
        throw new CliError(`cannot list ${Resources.secrets.plural} in ${ns}: ${(err as Error).message.split('\n')[0]}`);
      },
    );
    // Names and versions only: annotations may carry a copy of the data (kubectl's last-applied).
    for (const o of items)
      listed.push({ kind: 'Secret', metadata: { name: o.metadata?.name, namespace: o.metadata?.namespace, resourceVersion: o.metadata?.resourceVersion } });
  }
  const caches = { secrets: ObjectCache.from(listed) };
  const secrets = new ModelSecrets(client, caches.secrets);
  try {
    await Promise.all(
      asking.map(async ({ ws, name }) => {
        const key = `${ws.metadata.namespace}/${ws.metadata.name}`;
        out.set(key, await hub.settled(key, (models) => hubPart(ws, name, models, caches, secrets)));
      }),
    );
  } finally {
    hub.close();
  }
  return out;
}

async function loadCaches(
  read: <T extends KubernetesObject>(type: ResourceType, ns?: string) => Promise<T[]>,
  ns: string | undefined,
  releaseNs: string,
): Promise<DiffCaches> {
  const fill = async <T extends KubernetesObject>(type: ResourceType, namespaces: (string | undefined)[], transform?: (o: T) => T): Promise<ObjectCache<T>> => {
    const listed: T[] = [];
    // List items come without apiVersion/kind; the informers' objects (what the reconciler compares) have them.
    for (const n of new Set(namespaces)) for (const o of await read<T>(type, n)) listed.push(withTypeMeta(type, o));
    return ObjectCache.from(listed, transform ? { transform } : {});
  };
  return {
    storageClasses: await fill<V1StorageClass>(Resources.storageClasses, [undefined]),
    nodes: await fill(Resources.nodes, [undefined]),
    configMaps: await fill(Resources.configMaps, ns === undefined ? [undefined] : [ns, releaseNs]),
    controllerRevisions: await fill<V1ControllerRevision>(Resources.controllerRevisions, [ns]),
    // Who wrote a pod template decides how a new revision updates it, as in the reconciler.
    statefulSets: await fill(Resources.statefulSets, [ns], withTemplateWriters),
    services: await fill(Resources.services, [ns]),
  };
}

async function childLines(client: KubeClient, child: ChildIntent, rebuild = false): Promise<{ changed: boolean; text: string[] }> {
  const title = `${child.type.kind} ${child.namespace}/${child.name}`;
  if (child.note) return { changed: child.recreate === true, text: [`${title}: ${child.note}`] };
  if (!child.apply) return { changed: false, text: [`${title}: no change`] };
  if (!child.live) return { changed: true, text: [`${title}: would be created`] };
  let result: KubernetesObject;
  try {
    result = await client.apply(child.type, child.apply, { dryRun: true });
  } catch (err) {
    if (isNotFound(err)) return { changed: true, text: [`${title}: would be created`] };
    if (rebuild && toKubeError(err).kind === 'Invalid' && child.live) {
      // A rebuilt StatefulSet that differs in an immutable field: the server refuses the dry-run, so
      // compare directly the fields kaito-ts sets (those only the live object has are left out).
      const direct = fieldChanges(comparable(child.live), comparable(child.apply)).filter((c) => 'after' in c);
      return {
        changed: true,
        text: [
          `${title}: an apply would be refused (${(err as Error).message.split('\n')[0]}); the fields kaito-ts sets that differ:`,
          ...(await changeLines(client, child, direct)),
        ],
      };
    }
    throw new CliError(`dry-run apply of ${title}: ${(err as Error).message.split('\n')[0]}`);
  }
  const changes = fieldChanges(comparable(child.live), comparable(result));
  if (!changes.length) return { changed: false, text: [`${title}: no change`] };
  return { changed: true, text: [`${title}: would change`, ...(await changeLines(client, child, changes))] };
}

/**
 * One line per change; a rebuilt StatefulSet's say whether the reconciler would write that field or
 * keep the live one (by adoption until the workspace's spec changes, or by the selective update).
 */
async function changeLines(client: KubeClient, child: ChildIntent, changes: FieldChange[]): Promise<string[]> {
  if (!child.rebuild || !child.live) return changes.map((c) => `  ${formatChange(c)}`);
  const { written, adopted } = child.rebuild;
  let writes: FieldChange[] = [];
  if (written) {
    const live = comparable(child.live);
    // Refused too (an immutable field): the fields it sets that differ, as above.
    writes = await client.apply(child.type, written, { dryRun: true }).then(
      (applied) => fieldChanges(live, comparable(applied)),
      () => fieldChanges(live, comparable(written)).filter((c) => 'after' in c),
    );
  }
  return markRebuilt(changes, writes, adopted).map(({ change, mark }) => `  ${formatChange(change)}  [${mark}]`);
}
