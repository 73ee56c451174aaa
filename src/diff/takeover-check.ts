// `kaito-ts check`: what a cluster running KAITO holds that kaito-ts would not serve as KAITO does, or
// that the switch of docs/takeover.md would lose. Pure: the command lists the objects, this decides.
// Each finding names one object or setting and what to do about it (docs/takeover.md).
import type { KubernetesObject } from '@kubernetes/client-node';
import { FEATURE_GATES_DOC, FeatureGateError, readFeatureGates, unimplementedGatesOn } from '../api/feature-gates.js';
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE } from '../api/labels.js';
import { GROUP } from '../api/types.js';

/** Helm's marks on what a release installed from its templates (`crds/` files get none). */
const HELM_RELEASE_ANNOTATION = 'meta.helm.sh/release-name';
const HELM_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const HELM_KEEP_ANNOTATION = 'helm.sh/resource-policy';

/** The objects of KAITO's chart kaito-ts reads once KAITO is gone: the ConfigMaps it copies or mounts, the NVMe StorageClass. */
export const KAITO_CHART_CONFIGMAPS = [DEFAULT_INFERENCE_CONFIG_TEMPLATE, 'lora-params-template', 'qlora-params-template'];
export const NVME_STORAGE_CLASS_NAME = 'kaito-local-nvme-disk';

interface WebhookRule {
  apiGroups?: string[];
  resources?: string[];
  operations?: string[];
}
export interface WebhookConfiguration extends KubernetesObject {
  webhooks?: { name: string; failurePolicy?: string; rules?: WebhookRule[] }[];
}
interface Container {
  name?: string;
  image?: string;
  args?: string[];
  command?: string[];
}
export interface DeploymentLike extends KubernetesObject {
  spec?: { template?: { spec?: { containers?: Container[] } } };
}
type WithPartition = KubernetesObject & { resource?: { partition?: unknown }; spec?: { template?: { resource?: { partition?: unknown } } } };

/** What a deployed Helm release's stored manifest says of each object: the only place `helm uninstall` reads the keep mark. */
export interface ReleaseManifest {
  release: string;
  /** `Kind/name` of every object of the manifest, with its keep mark. */
  objects: Map<string, boolean>;
}

export interface TakeoverState {
  /** The deployed releases of the release namespace (from Helm's release Secrets). */
  releases?: ReleaseManifest[];
  /** CustomResourceDefinitions of the kaito.sh group. */
  crds: KubernetesObject[];
  /** ConfigMaps of the release namespace and StorageClasses (only KAITO_CHART_CONFIGMAPS and the NVMe class are read). */
  configMaps: KubernetesObject[];
  storageClasses: KubernetesObject[];
  webhookConfigurations: WebhookConfiguration[];
  /** Objects of kinds kaito-ts has no controller for (absent CRD: none). */
  multiRoleInferences: KubernetesObject[];
  modelMirrors: KubernetesObject[];
  workspaces: WithPartition[];
  inferenceSets: WithPartition[];
  deployments: DeploymentLike[];
}

export interface Finding {
  /** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
  object: string;
  problem: string;
}

const id = (kind: string, o: KubernetesObject): string => `${kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? '?'}`;

/**
 * The Helm release that would delete this object on `helm uninstall`, or undefined (not Helm's, or kept).
 * A release's stored manifest decides when it lists the object (the live annotation is not read by Helm);
 * otherwise Helm's marks on the live object.
 */
export function deletedByUninstall(o: KubernetesObject, releases: readonly ReleaseManifest[] = []): string | undefined {
  const key = `${o.kind}/${o.metadata?.name ?? ''}`;
  const listed = releases.filter((r) => r.objects.has(key));
  if (listed.length) return listed.find((r) => !r.objects.get(key))?.release;
  const annotations = o.metadata?.annotations ?? {};
  if (annotations[HELM_KEEP_ANNOTATION] === 'keep') return undefined;
  const release = annotations[HELM_RELEASE_ANNOTATION];
  if (release) return release;
  return o.metadata?.labels?.[HELM_MANAGED_BY] === 'Helm' ? '(unknown release)' : undefined;
}

const writes = (ops: string[] | undefined): boolean => (ops ?? []).some((op) => op === '*' || op === 'CREATE' || op === 'UPDATE');
const kaitoRule = (r: WebhookRule): boolean => (r.apiGroups ?? []).some((g) => g === GROUP || g === '*') && writes(r.operations);

/** Webhooks on kaito.sh writes that refuse when their backend is gone (failurePolicy Fail, the v1 default). */
function refusingWebhooks(c: WebhookConfiguration): string[] {
  return (c.webhooks ?? [])
    .filter((w) => (w.failurePolicy ?? 'Fail') === 'Fail' && (w.rules ?? []).some(kaitoRule))
    .map((w) => `${w.name} (${[...new Set((w.rules ?? []).filter(kaitoRule).flatMap((r) => r.resources ?? []))].join(', ')})`);
}

/** `--feature-gates` of a container: `--feature-gates=v` or `--feature-gates v`, in args or command; the last wins, as Go's flag package. */
export function featureGatesArg(c: Container): string | undefined {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  let value: string | undefined;
  argv.forEach((a, i) => {
    if (a.startsWith('--feature-gates=') || a.startsWith('-feature-gates=')) value = a.slice(a.indexOf('=') + 1);
    else if ((a === '--feature-gates' || a === '-feature-gates') && i + 1 < argv.length) value = argv[i + 1];
  });
  return value;
}

/** KAITO's workspace controller: its chart's name label, or its image (mcr.microsoft.com/aks/kaito/workspace). */
function isKaitoController(d: DeploymentLike, c: Container): boolean {
  return d.metadata?.labels?.['app.kubernetes.io/name'] === 'workspace' || /(^|\/)kaito\/workspace([:@]|$)/.test(c.image ?? '');
}

function gateFindings(d: DeploymentLike): Finding[] {
  const out: Finding[] = [];
  for (const c of d.spec?.template?.spec?.containers ?? []) {
    const flag = featureGatesArg(c);
    if (flag === undefined || !isKaitoController(d, c)) continue;
    try {
      for (const gate of unimplementedGatesOn(readFeatureGates(flag)))
        out.push({
          object: id('Deployment', d),
          problem: `KAITO runs with feature gate ${gate}=true, which kaito-ts does not implement (${FEATURE_GATES_DOC})`,
        });
    } catch (err) {
      const why = err instanceof FeatureGateError ? err.message : String(err);
      out.push({ object: id('Deployment', d), problem: `its --feature-gates cannot be read as KAITO's: ${why}` });
    }
  }
  return out;
}

/** Every finding, in a stable order: what is lost on uninstall, what refuses writes, what is not served. */
export function takeoverFindings(s: TakeoverState, releaseNamespace: string): Finding[] {
  const findings: Finding[] = [];
  const uninstall = (kind: string, o: KubernetesObject, what: string): void => {
    const release = deletedByUninstall({ ...o, kind }, s.releases);
    if (release)
      findings.push({
        object: id(kind, o),
        problem: `\`helm uninstall\` of release ${release} deletes it (${what}); annotate it ${HELM_KEEP_ANNOTATION}=keep first`,
      });
  };
  for (const crd of s.crds) uninstall('CustomResourceDefinition', crd, 'and every object of its kind, with what they own');
  for (const cm of s.configMaps)
    if (cm.metadata?.namespace === releaseNamespace && KAITO_CHART_CONFIGMAPS.includes(cm.metadata?.name ?? ''))
      uninstall('ConfigMap', cm, 'kaito-ts reads it for new workspaces');
  for (const sc of s.storageClasses) if (sc.metadata?.name === NVME_STORAGE_CLASS_NAME) uninstall('StorageClass', sc, 'new workspaces lose local NVMe');
  for (const c of s.webhookConfigurations) {
    const refusing = refusingWebhooks(c);
    if (refusing.length)
      findings.push({
        object: id(c.kind ?? 'WebhookConfiguration', c),
        problem: `failurePolicy Fail on kaito.sh writes: ${refusing.join('; ')}; with KAITO's controller stopped every such write is refused (kaito-ts serves no webhook): delete it`,
      });
  }
  for (const o of s.multiRoleInferences)
    findings.push({ object: id('MultiRoleInference', o), problem: 'kaito-ts has no MultiRoleInference controller: nothing reconciles it once KAITO stops' });
  for (const o of s.modelMirrors)
    findings.push({ object: id('ModelMirror', o), problem: 'kaito-ts has no ModelMirror controller: nothing reconciles it once KAITO stops' });
  for (const w of s.workspaces)
    if (w.resource?.partition !== undefined && w.resource.partition !== null)
      findings.push({
        object: id('Workspace', w),
        problem: 'resource.partition is set: kaito-ts refuses a partitioned workspace (InvalidSpec, nothing created)',
      });
  for (const is of s.inferenceSets)
    if (is.spec?.template?.resource?.partition !== undefined && is.spec.template.resource.partition !== null)
      findings.push({
        object: id('InferenceSet', is),
        problem: 'spec.template.resource.partition is set: kaito-ts refuses a partitioned InferenceSet (no child created)',
      });
  for (const d of s.deployments) findings.push(...gateFindings(d));
  return findings;
}

/**
 * `helm uninstall` keeps an object only when the release's stored manifest marks it
 * `helm.sh/resource-policy: keep`; an annotation added to the live object is not read. So the
 * takeover re-renders KAITO's release with this as helm's post-renderer (`kaito-ts helm-keep`): every
 * kaito.sh CRD, KAITO's ConfigMaps and the NVMe StorageClass get the mark, nothing else changes.
 */
export function markKept(objects: KubernetesObject[]): KubernetesObject[] {
  return objects.map((o) => {
    const kept =
      (o.kind === 'CustomResourceDefinition' && (o as { spec?: { group?: string } }).spec?.group === GROUP) ||
      (o.kind === 'ConfigMap' && KAITO_CHART_CONFIGMAPS.includes(o.metadata?.name ?? '')) ||
      (o.kind === 'StorageClass' && o.metadata?.name === NVME_STORAGE_CLASS_NAME);
    return kept ? { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, [HELM_KEEP_ANNOTATION]: 'keep' } } } : o;
  });
}

/** A release's objects and their keep marks, from its manifest (helm's rendered YAML stream). */
export function releaseManifestOf(release: string, manifest: KubernetesObject[]): ReleaseManifest {
  return {
    release,
    objects: new Map(manifest.map((o) => [`${o.kind}/${o.metadata?.name ?? ''}`, o.metadata?.annotations?.[HELM_KEEP_ANNOTATION] === 'keep'])),
  };
}
