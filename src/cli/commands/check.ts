// `kaito-ts check`: before taking over from KAITO (docs/takeover.md), lists every object and setting on
// the live cluster that kaito-ts would not serve as KAITO does, or that the switch would lose. Reads
// only. Exit 0: nothing found; 1: findings (one line each); 2: bad input or the cluster cannot be read.
import { parseArgs } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { DEFAULT_RELEASE_NAMESPACE } from '../../builders/facts.js';
import { gunzipSync } from 'node:zlib';
import { parseAllDocuments } from 'yaml';
import {
  releaseManifestOf,
  takeoverFindings,
  type DeploymentLike,
  type ReleaseManifest,
  type TakeoverState,
  type WebhookConfiguration,
} from '../../diff/takeover-check.js';
import { GROUP } from '../../api/types.js';
import { KubeClient } from '../../runtime/client.js';
import { loadClusterAccess } from '../../runtime/cluster-access.js';
import { isNotFound, toKubeError } from '../../runtime/errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import { KubeTransport } from '../../runtime/transport.js';
import { CliError, type CliIO } from '../command-io.js';

const USAGE = `Usage: kaito-ts check [--kubeconfig FILE] [--release-namespace NS]

Lists, on the live cluster, what kaito-ts would not serve as KAITO does or what the switch of
docs/takeover.md would lose, one line each:
  - kaito.sh CRDs, and KAITO's ConfigMaps (inference/lora/qlora-params-template in the release
    namespace) and NVMe StorageClass, that \`helm uninstall\` of KAITO's release would delete
    (Helm's, without helm.sh/resource-policy=keep);
  - webhook configurations on kaito.sh writes with failurePolicy Fail (every write refused once
    KAITO's controller is stopped; kaito-ts serves no webhook);
  - MultiRoleInference and ModelMirror objects (kaito-ts has no controller for them);
  - Workspaces and InferenceSets that set resource.partition (refused by kaito-ts);
  - KAITO feature gates set to true that kaito-ts does not implement (read from KAITO's Deployment).
--release-namespace: KAITO's release namespace (default RELEASE_NAMESPACE, else ${DEFAULT_RELEASE_NAMESPACE}).
The cluster: --kubeconfig, else KUBECONFIG, else in-cluster. Reads only.
Exit status: 0 nothing found, 1 findings, 2 bad input or the cluster cannot be read.
`;

const crds: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};
const admission = (plural: string, kind: string): ResourceType => ({ group: 'admissionregistration.k8s.io', version: 'v1', plural, kind, namespaced: false });
const kaito = (plural: string, kind: string, namespaced: boolean): ResourceType => ({ group: GROUP, version: 'v1alpha1', plural, kind, namespaced });
const WEBHOOK_KINDS = [
  admission('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'),
  admission('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'),
];

function options(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { kubeconfig: { type: 'string' }, 'release-namespace': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** A list the API server answers with a retryable error is asked again, up to this many times (about 8 s in all). */
const LIST_ATTEMPTS = 5;

/** Every object check reads, listed once; a kind whose CRD is absent has none. */
async function readState(client: KubeClient, releaseNamespace: string): Promise<TakeoverState> {
  const list = async <T extends KubernetesObject>(type: ResourceType, namespace?: string, optional = false): Promise<T[]> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await client.list<T>(type, namespace ? { namespace } : {})).items.map((o) => ({ ...o, kind: type.kind }));
      } catch (err) {
        if (optional && isNotFound(err)) return [];
        // A CRD installed a moment ago answers 503 "storage is (re)initializing" for a while: asked again.
        if (toKubeError(err).retryable && attempt < LIST_ATTEMPTS) {
          await sleep(250 * 2 ** attempt);
          continue;
        }
        throw new CliError(`cannot list ${type.plural}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
  };
  const webhookConfigurations = (await Promise.all(WEBHOOK_KINDS.map((t) => list<WebhookConfiguration>(t)))).flat();
  return {
    releases: await deployedReleases(client, releaseNamespace),
    crds: (await list(crds)).filter((c) => (c as { spec?: { group?: string } }).spec?.group === GROUP),
    configMaps: await list(Resources.configMaps, releaseNamespace),
    storageClasses: await list(Resources.storageClasses),
    webhookConfigurations,
    multiRoleInferences: await list(kaito('multiroleinferences', 'MultiRoleInference', true), undefined, true),
    modelMirrors: await list(kaito('modelmirrors', 'ModelMirror', false), undefined, true),
    workspaces: await list(Resources.workspaces, undefined, true),
    inferenceSets: await list(Resources.inferenceSets, undefined, true),
    deployments: await list<DeploymentLike>(Resources.deployments),
  };
}

/**
 * Helm's deployed releases in the namespace, read from their release Secrets (`owner=helm`): the
 * `release` key holds base64 of gzipped JSON whose `manifest` is the rendered YAML `helm uninstall` reads.
 */
async function deployedReleases(client: KubeClient, namespace: string): Promise<ReleaseManifest[]> {
  let secrets: (KubernetesObject & { data?: Record<string, string> })[];
  try {
    secrets = (
      await client.list<KubernetesObject & { data?: Record<string, string> }>(Resources.secrets, { namespace, labelSelector: 'owner=helm,status=deployed' })
    ).items;
  } catch (err) {
    throw new CliError(`cannot list Helm's release Secrets in ${namespace}: ${(err as Error).message.split('\n')[0]}`);
  }
  return secrets.flatMap((sec) => {
    try {
      const packed = Buffer.from(Buffer.from(sec.data?.release ?? '', 'base64').toString('utf8'), 'base64');
      const release = JSON.parse(gunzipSync(packed).toString('utf8')) as { name?: string; manifest?: string };
      const objects = parseAllDocuments(release.manifest ?? '')
        .map((d) => d.toJS() as KubernetesObject | null)
        .filter((o): o is KubernetesObject => !!o);
      return [releaseManifestOf(release.name ?? sec.metadata?.labels?.name ?? '?', objects)];
    } catch {
      return []; // not a release this version of Helm wrote: the live objects' marks decide
    }
  });
}

export async function check(args: string[], io: CliIO): Promise<number> {
  const { values } = options(args);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const releaseNamespace = values['release-namespace']?.trim() || process.env.RELEASE_NAMESPACE?.trim() || DEFAULT_RELEASE_NAMESPACE;
  let client: KubeClient;
  try {
    client = new KubeClient(new KubeTransport(await loadClusterAccess({ kubeconfig: values.kubeconfig })));
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const findings = takeoverFindings(await readState(client, releaseNamespace), releaseNamespace);
  for (const f of findings) io.stdout(`${f.object}: ${f.problem}\n`);
  io.stdout(
    findings.length
      ? `${findings.length} finding(s): kaito-ts would not serve these as KAITO does, or the switch would lose them (docs/takeover.md)\n`
      : 'nothing found: every object and setting is served by kaito-ts, and nothing of KAITO would be lost by uninstalling its release\n',
  );
  return findings.length ? 1 : 0;
}
