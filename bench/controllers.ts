// The two controllers under test: how each is started, which Workspace CRD it needs, its own client
// defaults, and which model-weights volume it is expected to give a workspace.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { workspaceCrd } from '../src/api/crd.js';
import { parseManagerOptions } from '../src/manager/options.js';
import type { WorkspacePlan } from './plan.js';

export const CONTROLLER_IDS = ['kaito-ts', 'kaito-v0.8.0'] as const;
export type ControllerId = (typeof CONTROLLER_IDS)[number];
export type VolumeKind = 'nvme' | 'emptyDir' | 'none';

export interface LaunchOptions {
  kubeconfig: string;
  qps: number;
  burst: number;
  metricsAddress: string;
  probeAddress: string;
  releaseNamespace: string;
  projectRoot: string;
  /** Node auto-provisioning on (KAITO's default) instead of bring-your-own nodes. */
  nap: boolean;
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
  /** CRDs to install before the run (the Workspace CRD first). */
  crds(): object[];
  launch(o: LaunchOptions): Launch;
  /**
   * The model-weights volume this controller's own rules give the workspace: kaito-ts puts weights on a
   * local NVMe claim when the node's SKU has NVMe and the StorageClass exists; KAITO v0.8.0 takes GPU facts
   * from node labels in bring-your-own mode, which never enable NVMe, so it always uses an emptyDir there,
   * and from the instanceType's catalog entry under auto-provisioning, which gives the same rule as ours.
   */
  expectedVolume(w: WorkspacePlan, storageClassExists: boolean, nap: boolean): VolumeKind;
}

/** Where the locally built KAITO v0.8.0 controller and its CRDs are (nothing of KAITO is in this repository). */
export function kaitoPaths(env: NodeJS.ProcessEnv = process.env): { binary: string; crdDir: string } {
  const root = env.KAITO_V080_DIR ?? join(env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts'), 'kaito-v0.8.0');
  return { binary: env.KAITO_BIN ?? join(root, 'bin', 'workspace'), crdDir: env.KAITO_CRD_DIR ?? join(root, 'crds') };
}

function readYamlObjects(path: string): object[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as object | null)
    .filter((o): o is object => o !== null);
}

const featureGates = (nap: boolean): string => `vLLM=true,disableNodeAutoProvisioning=${!nap}`;
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
  defaults: (() => {
    const o = parseManagerOptions([], {});
    if (o === 'help') throw new Error('unreachable');
    return { qps: o.kubeClientQps, burst: o.kubeClientBurst };
  })(),
  crds: () => [workspaceCrd()],
  launch: (o) => ({
    command: process.execPath,
    args: [
      ...shippedNodeOptions(o.projectRoot),
      join(o.projectRoot, 'bin', 'kaito-ts.js'),
      'run',
      `--kubeconfig=${o.kubeconfig}`,
      `--feature-gates=${featureGates(o.nap)}`,
      `--kube-client-qps=${o.qps}`,
      `--kube-client-burst=${o.burst}`,
      `--metrics-bind-address=${o.metricsAddress}`,
      `--health-probe-bind-address=${o.probeAddress}`,
      `--release-namespace=${o.releaseNamespace}`,
    ],
    env: { CLOUD_PROVIDER: 'azure' },
  }),
  expectedVolume: nvmeIfTheSkuHasIt,
};

const kaitoV080: ControllerSpec = {
  id: 'kaito-v0.8.0',
  // cmd/workspace/main.go at v0.8.0: kubeClientQPS = 30, kubeClientBurst = 50.
  defaults: { qps: 30, burst: 50 },
  crds: () => {
    const { crdDir } = kaitoPaths();
    // KAITO #1725: v0.8.0 watches NodeClaims unconditionally, so the CRD must exist even with BYO nodes.
    return ['kaito.sh_workspaces.yaml', 'karpenter.sh_nodeclaims.yaml'].flatMap((f) => readYamlObjects(join(crdDir, f)));
  },
  launch: (o) => ({
    command: kaitoPaths().binary,
    args: [
      `--kubeconfig=${o.kubeconfig}`,
      '--webhook=false',
      `--feature-gates=${featureGates(o.nap)}`,
      `--kube-client-qps=${o.qps}`,
      `--kube-client-burst=${o.burst}`,
      `--metrics-bind-address=${o.metricsAddress}`,
      `--health-probe-bind-address=${o.probeAddress}`,
    ],
    // The inference ConfigMap template is read from RELEASE_NAMESPACE; the SKU catalog from CLOUD_PROVIDER.
    env: { CLOUD_PROVIDER: 'azure', RELEASE_NAMESPACE: o.releaseNamespace },
  }),
  expectedVolume: (w, storageClassExists, nap) => (nap ? nvmeIfTheSkuHasIt(w, storageClassExists) : 'emptyDir'),
};

export const CONTROLLERS: Record<ControllerId, ControllerSpec> = { 'kaito-ts': kaitoTs, 'kaito-v0.8.0': kaitoV080 };

/** Why a controller cannot run here, or undefined when it can. */
export function missingPrerequisite(id: ControllerId, projectRoot: string): string | undefined {
  if (id === 'kaito-v0.8.0') {
    const { binary, crdDir } = kaitoPaths();
    if (!existsSync(binary)) return `KAITO v0.8.0 controller not found at ${binary} (set KAITO_BIN; see docs/benchmarks.md)`;
    for (const f of ['kaito.sh_workspaces.yaml', 'karpenter.sh_nodeclaims.yaml']) {
      if (!existsSync(join(crdDir, f))) return `${f} not found in ${crdDir} (set KAITO_CRD_DIR)`;
    }
    return undefined;
  }
  if (!existsSync(join(projectRoot, 'bin', 'kaito-ts.js'))) return `bin/kaito-ts.js not found under ${projectRoot}`;
  return undefined;
}
