// The controllers under test: how each is started, which Workspace CRD it needs, its own client
// defaults, and which model-weights volume it is expected to give a workspace.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { workspaceCrd } from '../src/api/crd.js';
import { inferenceSetCrd } from '../src/api/inferenceset-crd.js';
import { parseManagerOptions } from '../src/manager/options.js';
import { kwokNodeClassFlags } from '../src/simcluster/karpenter/operator-flags.js';
import type { WorkspacePlan } from './plan.js';

export const CONTROLLER_IDS = ['kaito-ts', 'kaito-v0.8.0', 'kaito-v0.12.0'] as const;
export type ControllerId = (typeof CONTROLLER_IDS)[number];
export type VolumeKind = 'nvme' | 'emptyDir' | 'none';
/** How a controller gets its nodes: bring-your-own, NodeClaims (KAITO's default), or one Karpenter NodePool per workspace. */
export type NodeMode = 'byo' | 'nap' | 'karpenter';
/** The KAITO releases the benchmark can run, each built by simcluster/build-kaito.sh into its own cache folder. */
export type KaitoVersion = 'v0.8.0' | 'v0.12.0';

export interface LaunchOptions {
  kubeconfig: string;
  qps: number;
  burst: number;
  metricsAddress: string;
  probeAddress: string;
  releaseNamespace: string;
  projectRoot: string;
  /** Node auto-provisioning on (KAITO's default) instead of bring-your-own nodes; true in karpenter mode too. */
  nap: boolean;
  /** Karpenter NodePool mode (--node-provisioner=karpenter) with this KWOKNodeClass spec. */
  karpenter?: { nodeClassSpec: Record<string, unknown> };
  /** The InferenceSet controller on, explicitly (its gate enableInferenceSetController; on by default in both). */
  inferenceSets?: boolean;
  /** The Hugging Face stand-in: its endpoint (kaito-ts's --hf-endpoint) and, for KAITO v0.12, which reads
   * https://huggingface.co by a fixed address, the CONNECT proxy (HTTPS_PROXY) and the CA that signed it. */
  hub?: { endpoint: string; proxyUrl: string; caFile: string };
  /**
   * The gate and provisioner flags as a Helm chart's Deployment renders them (`--feature-gates`,
   * `--node-provisioner`, `--karpenter-node-class*`): used instead of the ones derived from `nap`,
   * `karpenter` and `inferenceSets` (the takeover run from KAITO v0.12.0's chart, bench/takeover-chart.ts).
   */
  operatorFlags?: string[];
  /**
   * KAITO only: serve its admission webhooks (knative) on this port, for the Service its chart installed
   * (`service` in `namespace`), with its certificates in that namespace's `workspace-webhook-cert` Secret.
   */
  webhook?: { port: number; service: string; namespace: string; loggingConfigMap: string; profilingPort: number };
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface ControllerSpec {
  id: ControllerId;
  /** The controller's own --kube-client-qps / --kube-client-burst defaults, reported beside the run's values. */
  defaults: { qps: number; burst: number };
  /** CRDs to install before the run (the Workspace CRD first); `inferenceSets`: the InferenceSet CRD too. */
  crds(mode?: NodeMode, inferenceSets?: boolean): object[];
  /** The node modes this controller has (KAITO v0.8.0 has no Karpenter mode). */
  modes: readonly NodeMode[];
  /** It has an InferenceSet controller (kaito-ts, KAITO v0.11+). */
  inferenceSets: boolean;
  launch(o: LaunchOptions): Launch;
  /**
   * The model-weights volume this controller's own rules give the workspace: kaito-ts puts weights on a
   * local NVMe claim when the node's SKU has NVMe and the StorageClass exists; KAITO v0.8.0 takes GPU facts
   * from node labels in bring-your-own mode, which never enable NVMe, so it always uses an emptyDir there,
   * and from the instanceType's catalog entry under auto-provisioning, which gives the same rule as ours.
   */
  expectedVolume(w: WorkspacePlan, storageClassExists: boolean, nap: boolean): VolumeKind;
}

/**
 * Where a locally built KAITO controller and its CRDs are (nothing of KAITO is in this repository):
 * `~/.cache/kaito-ts/kaito-<version>/{bin/workspace,crds/}` as simcluster/build-kaito.sh leaves them.
 * v0.8.0 also honours KAITO_V080_DIR, KAITO_BIN and KAITO_CRD_DIR (older set-ups); v0.12.0 KAITO_V0120_DIR.
 */
export function kaitoPaths(version: KaitoVersion = 'v0.8.0', env: NodeJS.ProcessEnv = process.env): { binary: string; crdDir: string } {
  const cached = join(env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts'), `kaito-${version}`);
  if (version === 'v0.12.0') {
    const root = env.KAITO_V0120_DIR ?? cached;
    return { binary: join(root, 'bin', 'workspace'), crdDir: join(root, 'crds') };
  }
  const root = env.KAITO_V080_DIR ?? cached;
  return { binary: env.KAITO_BIN ?? join(root, 'bin', 'workspace'), crdDir: env.KAITO_CRD_DIR ?? join(root, 'crds') };
}

/** The KWOKNodeClass spec for a registration delay: the kwok provider waits that long before it creates the Node. */
export function nodeClassSpecFor(registrationDelaySeconds: number): Record<string, unknown> {
  return registrationDelaySeconds > 0 ? { nodeRegistrationDelay: `${registrationDelaySeconds}s` } : {};
}

function readYamlObjects(path: string): object[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as object | null)
    .filter((o): o is object => o !== null);
}

const featureGates = (nap: boolean, inferenceSets = false): string =>
  `vLLM=true,disableNodeAutoProvisioning=${!nap}${inferenceSets ? ',enableInferenceSetController=true' : ''}`;
const nvmeIfTheSkuHasIt = (w: WorkspacePlan, storageClassExists: boolean): VolumeKind => (w.nvme && storageClassExists ? 'nvme' : 'emptyDir');

/**
 * The Node.js flags kaito-ts ships with: the image's entrypoint flags (`image/node-flags`), then the
 * chart's `nodeOptions`, so the benchmark measures the operator as it is deployed.
 */
export function shippedNodeOptions(projectRoot: string): string[] {
  const words = (text: unknown): string[] => (typeof text === 'string' ? text.split(/\s+/).filter((w) => w !== '') : []);
  const flagsFile = join(projectRoot, 'image', 'node-flags');
  const valuesFile = join(projectRoot, 'charts', 'kaito-ts', 'values.yaml');
  const image = existsSync(flagsFile) ? words(readFileSync(flagsFile, 'utf8')) : [];
  const values = existsSync(valuesFile) ? (parse(readFileSync(valuesFile, 'utf8')) as { nodeOptions?: unknown } | null) : null;
  return [...image, ...words(values?.nodeOptions)];
}

const kaitoTs: ControllerSpec = {
  id: 'kaito-ts',
  modes: ['byo', 'nap', 'karpenter'],
  inferenceSets: true,
  defaults: (() => {
    const o = parseManagerOptions([], {});
    if (o === 'help') throw new Error('unreachable');
    return { qps: o.kubeClientQps, burst: o.kubeClientBurst };
  })(),
  // Karpenter mode runs both controllers with every default gate, enableInferenceSetController included,
  // so both get their InferenceSet CRD (kaito-ts runs without it, KAITO v0.12 does not start).
  crds: (mode, inferenceSets) => (mode === 'karpenter' || inferenceSets ? [workspaceCrd(), inferenceSetCrd()] : [workspaceCrd()]),
  launch: (o) => ({
    command: process.execPath,
    args: [
      ...shippedNodeOptions(o.projectRoot),
      join(o.projectRoot, 'bin', 'kaito-ts.js'),
      'run',
      `--kubeconfig=${o.kubeconfig}`,
      ...(o.operatorFlags ?? [`--feature-gates=${featureGates(o.nap, o.inferenceSets)}`]),
      `--kube-client-qps=${o.qps}`,
      `--kube-client-burst=${o.burst}`,
      `--metrics-bind-address=${o.metricsAddress}`,
      `--health-probe-bind-address=${o.probeAddress}`,
      `--release-namespace=${o.releaseNamespace}`,
      ...(o.karpenter && !o.operatorFlags ? kwokNodeClassFlags(o.karpenter.nodeClassSpec) : []),
      ...(o.hub ? [`--hf-endpoint=${o.hub.endpoint}`] : []),
    ],
    env: { CLOUD_PROVIDER: 'azure' },
  }),
  expectedVolume: nvmeIfTheSkuHasIt,
};

/** KAITO's CRD files each release needs in a mode, from its chart (build-kaito.sh copies them). */
export function kaitoCrdFiles(version: KaitoVersion, mode: NodeMode = 'byo'): string[] {
  if (version === 'v0.8.0') {
    // KAITO #1725: v0.8.0 watches NodeClaims unconditionally, so the CRD must exist even with BYO nodes.
    return ['kaito.sh_workspaces.yaml', 'karpenter.sh_nodeclaims.yaml'];
  }
  // v0.12 starts its InferenceSet controller by default (gate enableInferenceSetController=true), whose
  // cache needs the CRD. In karpenter mode Karpenter's own CRDs are the cluster's (KAITO checks them at
  // start); its chart's NodeClaim copy is installed only where no Karpenter runs.
  return ['kaito.sh_workspaces.yaml', 'kaito.sh_inferencesets.yaml', ...(mode === 'karpenter' ? [] : ['karpenter.sh_nodeclaims.yaml'])];
}

/**
 * KAITO's workspace controller (cmd/workspace) of one release, launched the same way for every release:
 * webhooks off (they need a Service and certificates; the bench validates nothing through them),
 * CLOUD_PROVIDER=azure (its SKU catalog), RELEASE_NAMESPACE (where the inference-params-template
 * ConfigMap is), PRESET_REGISTRY_NAME as its chart sets it, the run's client limits. v0.12.0 in karpenter mode adds `--node-provisioner=karpenter`
 * and the NodeClass flags, which it reads exactly as kaito-ts does; with bring-your-own nodes `--node-provisioner=byo`.
 */
function kaitoController(id: ControllerId, version: KaitoVersion): ControllerSpec {
  return {
    id,
    modes: version === 'v0.8.0' ? ['byo', 'nap'] : ['byo', 'nap', 'karpenter'],
    inferenceSets: version !== 'v0.8.0',
    // cmd/workspace/main.go at both tags: kubeClientQPS = 30, kubeClientBurst = 50 (and 5 workers).
    defaults: { qps: 30, burst: 50 },
    crds: (mode) => {
      const { crdDir } = kaitoPaths(version);
      return kaitoCrdFiles(version, mode).flatMap((f) => readYamlObjects(join(crdDir, f)));
    },
    launch: (o) => ({
      command: kaitoPaths(version).binary,
      args: [
        `--kubeconfig=${o.kubeconfig}`,
        ...(o.webhook ? [] : ['--webhook=false']),
        ...(o.operatorFlags ?? [
          `--feature-gates=${featureGates(o.nap, o.inferenceSets)}`,
          // v0.12 derives the gate from --node-provisioner (default azure-gpu-provisioner, which sets
          // disableNodeAutoProvisioning=false whatever --feature-gates says): bring-your-own is `byo`.
          ...(version !== 'v0.8.0' && !o.nap ? ['--node-provisioner=byo'] : []),
          ...(o.karpenter ? kwokNodeClassFlags(o.karpenter.nodeClassSpec) : []),
        ]),
        `--kube-client-qps=${o.qps}`,
        `--kube-client-burst=${o.burst}`,
        `--metrics-bind-address=${o.metricsAddress}`,
        `--health-probe-bind-address=${o.probeAddress}`,
      ],
      // The inference ConfigMap template is read from RELEASE_NAMESPACE; the SKU catalog from CLOUD_PROVIDER;
      // the registry of the base image and weights from PRESET_REGISTRY_NAME, which KAITO's chart sets to
      // its presetRegistryName (without it the images are "/kaito-base:…"; kaito-ts defaults to the same registry).
      env: {
        CLOUD_PROVIDER: 'azure',
        RELEASE_NAMESPACE: o.releaseNamespace,
        PRESET_REGISTRY_NAME: KAITO_CHART_REGISTRY,
        ...(o.hub && version !== 'v0.8.0' ? { HTTPS_PROXY: o.hub.proxyUrl, SSL_CERT_FILE: o.hub.caFile } : {}),
        // What its chart's Deployment gives the webhook server (knative): the Service its certificate
        // names, the port, the namespace of the certificate Secret and of the logging ConfigMap.
        ...(o.webhook
          ? {
              WEBHOOK_SERVICE: o.webhook.service,
              WEBHOOK_PORT: String(o.webhook.port),
              SYSTEM_NAMESPACE: o.webhook.namespace,
              CONFIG_LOGGING_NAME: o.webhook.loggingConfigMap,
              PROFILING_PORT: String(o.webhook.profilingPort),
            }
          : {}),
      },
    }),
    // Bring-your-own: GPU facts from node labels, which never enable NVMe; otherwise the SKU's catalog entry.
    expectedVolume: (w, storageClassExists, nap) => (nap ? nvmeIfTheSkuHasIt(w, storageClassExists) : 'emptyDir'),
  };
}

/** charts/kaito/workspace/values.yaml presetRegistryName at v0.8.0 and v0.12.0. */
export const KAITO_CHART_REGISTRY = 'mcr.microsoft.com/aks/kaito';

export const KAITO_VERSIONS: Partial<Record<ControllerId, KaitoVersion>> = { 'kaito-v0.8.0': 'v0.8.0', 'kaito-v0.12.0': 'v0.12.0' };

export const CONTROLLERS: Record<ControllerId, ControllerSpec> = {
  'kaito-ts': kaitoTs,
  'kaito-v0.8.0': kaitoController('kaito-v0.8.0', 'v0.8.0'),
  'kaito-v0.12.0': kaitoController('kaito-v0.12.0', 'v0.12.0'),
};

/** Why a controller cannot run here, or undefined when it can. */
export function missingPrerequisite(id: ControllerId, projectRoot: string, mode: NodeMode = 'byo'): string | undefined {
  const version = KAITO_VERSIONS[id];
  if (version) {
    const { binary, crdDir } = kaitoPaths(version);
    const how = `build it with \`bash simcluster/build-kaito.sh ${version}\` (docs/benchmarks.md)`;
    if (!existsSync(binary)) return `KAITO ${version} controller not found at ${binary}; ${how}`;
    for (const f of kaitoCrdFiles(version, mode)) {
      if (!existsSync(join(crdDir, f))) return `${f} not found in ${crdDir}; ${how}`;
    }
    return undefined;
  }
  if (!existsSync(join(projectRoot, 'bin', 'kaito-ts.js'))) return `bin/kaito-ts.js not found under ${projectRoot}`;
  return undefined;
}
