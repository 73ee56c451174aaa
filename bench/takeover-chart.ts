// KAITO v0.12.0 installed from its own Helm chart (charts/kaito/workspace of its source tree) on the
// takeover run's private cluster: its CRDs, webhook configurations, RBAC, ConfigMaps and Deployment, as
// a user has them. Two stand-ins, here and nowhere in the product, because the cluster runs no image:
//  - KAITO's controller runs as a local process (its binary, its Deployment's flags, webhooks on), and
//    the chart's webhook Service becomes an ExternalName for localhost, so the API server reaches that
//    process (as the simcluster's metrics adapter is reached behind the aggregation layer); the
//    certificate KAITO generates names <service>.<namespace>.svc, which is what the API server checks;
//  - the chart's local-CSI StorageClass is left out: the simcluster has its own of that name.
// The rest is KAITO's chart as rendered by helm (a post-renderer applies the two changes).
import { existsSync, mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { NVME_STORAGE_CLASS_NAME } from '../src/diff/takeover-check.js';
import type { TakeoverMode } from './takeover-plan.js';

/** KAITO's documented install: `helm install kaito-workspace … --namespace kaito-workspace`. */
export const KAITO_RELEASE = 'kaito-workspace';
/** The chart's names for that release (templates/_helpers.tpl: fullname is the release name when it contains "workspace"). */
export const KAITO_WEBHOOK_SERVICE = `${KAITO_RELEASE}-svc`;
export const KAITO_LOGGING_CONFIGMAP = 'kaito-logging-config';
export const KAITO_WEBHOOKS = ['validation.workspace.kaito.sh', 'validation.inferenceset.kaito.sh'];

/**
 * The chart folder: KAITO_V0120_CHART, else charts/kaito/workspace of the source tree under KAITO_SRC
 * (default ../shared/kaito-src, as simcluster/build-kaito.sh): a folder kaito-v0.12.0/ or the archive
 * kaito-v0.12.0.tar.gz, extracted into `scratch`. Undefined with the reason when there is none.
 */
export function kaitoChartSource(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): { dir: string } | { archive: string; member: string } | { missing: string } {
  if (env.KAITO_V0120_CHART) return { dir: env.KAITO_V0120_CHART };
  const src = env.KAITO_SRC ?? join(root, '..', 'shared', 'kaito-src');
  const member = 'kaito-v0.12.0/charts/kaito/workspace';
  if (existsSync(join(src, member, 'Chart.yaml'))) return { dir: join(src, member) };
  if (existsSync(join(src, 'charts', 'kaito', 'workspace', 'Chart.yaml'))) return { dir: join(src, 'charts', 'kaito', 'workspace') };
  if (existsSync(join(src, 'kaito-v0.12.0.tar.gz'))) return { archive: join(src, 'kaito-v0.12.0.tar.gz'), member };
  return { missing: `KAITO v0.12.0's chart not found under ${src} (set KAITO_SRC to its source tree, or KAITO_V0120_CHART to charts/kaito/workspace)` };
}

/**
 * The values the run installs KAITO's chart with: its defaults, but no NVIDIA device plugin and no
 * local-CSI driver subchart (no kubelet to run them), the run's node provisioner (and, in Karpenter
 * mode, the simcluster's kwok NodeClass as a provider entry), and a free webhook port.
 */
export function kaitoChartValues(mode: TakeoverMode, webhookPort: number): Record<string, unknown> {
  return {
    nvidiaDevicePlugin: { enabled: false },
    localCSIDriver: { useLocalCSIDriver: false },
    webhook: { port: webhookPort },
    nodeProvisioner: mode === 'karpenter' ? 'karpenter' : 'byo',
    ...(mode === 'karpenter'
      ? {
          karpenterProvider: 'kwok',
          karpenterProviders: {
            kwok: {
              group: 'karpenter.kwok.sh',
              kind: 'KWOKNodeClass',
              version: 'v1alpha1',
              resourceName: 'kwoknodeclasses',
              nodeClasses: [{ name: 'default', default: true, spec: {} }],
            },
          },
        }
      : {}),
  };
}

/** The post-renderer's change to helm's rendered manifests (the two stand-ins above). Pure. */
export function standInManifests(rendered: string): string {
  const out: string[] = [];
  for (const doc of parseAllDocuments(rendered)) {
    const o = doc.toJS() as { kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> } | null;
    if (!o) continue;
    if (o.kind === 'StorageClass' && o.metadata?.name === NVME_STORAGE_CLASS_NAME) continue;
    if (o.kind === 'Service' && o.metadata?.name === KAITO_WEBHOOK_SERVICE && o.spec) {
      const { selector: _selector, clusterIP: _ip, ...spec } = o.spec;
      o.spec = { ...spec, type: 'ExternalName', externalName: 'localhost' };
    }
    out.push(stringify(o));
  }
  return out.map((d) => `---\n${d}`).join('');
}

/** An executable helm can run as `--post-renderer` (helm v3 takes a path). */
export function writePostRenderer(dir: string, projectRoot: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'kaito-chart-post-renderer.sh');
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${join(projectRoot, 'dist', 'bench', 'chart-post-renderer.js')}"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The operator flags of a rendered Deployment's first container: the ones kaito-ts and KAITO share. */
export function operatorFlagsOf(args: readonly string[]): string[] {
  return args.filter((a) => /^--(feature-gates|node-provisioner|karpenter-node-class[a-z-]*)=/.test(a));
}

/** The first container's args of the Deployment `name` among rendered manifests. */
export function deploymentArgs(rendered: string, name: string): string[] | undefined {
  for (const doc of parseAllDocuments(rendered)) {
    const o = doc.toJS() as { kind?: string; metadata?: { name?: string }; spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } } | null;
    if (o?.kind === 'Deployment' && o.metadata?.name === name) return o.spec?.template?.spec?.containers?.[0]?.args ?? [];
  }
  return undefined;
}
