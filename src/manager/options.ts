// `kaito-ts run` flags, named as KAITO's workspace controller names them where they exist.
import { DEFAULT_UPDATE_STRATEGY, isUpdateStrategy, UPDATE_STRATEGIES, type UpdateStrategy } from '../api/update-strategy.js';
import { LOG_LEVELS } from './logging.js';
import { LEGACY_PRESETS_FLAG, parseLegacyPresets, type KaitoGeneration } from '../api/legacy-presets.js';
import { parseArgs } from 'node:util';
import { parseFeatureGates, FeatureGateError, DEFAULT_FEATURE_GATES_FLAG, type FeatureGates } from '../api/feature-gates.js';
import { resolveCloudProvider } from '../catalog/gpu-skus.js';
import { presetRegistry } from '../catalog/presets.js';
import type { CloudProvider } from '../catalog/types.js';
import { DEFAULT_RELEASE_NAMESPACE } from '../builders/facts.js';
import { parseNodeClassConfig, type NodeClassConfig } from '../api/node-class-config.js';
import { resolveNodeProvisioner, type NodeProvisioner } from '../api/node-provisioner.js';
import { positiveDurationFlag } from '../runtime/duration.js';
import { DEFAULT_RELEASED_PASSES } from '../runtime/controller.js';
import { resolveHubEndpoint } from '../runtime/hub-client.js';
import { checkTimings, DEFAULT_LEADER_ELECTION_NAMESPACE, DEFAULT_TIMINGS, type LeaderElectionTimings } from './leader-election.js';

export interface ManagerOptions {
  kubeconfig?: string;
  featureGates: FeatureGates;
  /** Kept in step with featureGates.disableNodeAutoProvisioning (src/api/node-provisioner.ts). */
  nodeProvisioner: NodeProvisioner;
  /** Said once at start when --node-provisioner overrode the gate. */
  nodeProvisionerWarning?: string;
  /** Karpenter mode only: the NodeClass kind and the classes created at start. */
  nodeClasses?: NodeClassConfig;
  cloudProvider: CloudProvider;
  presetRegistry: string;
  releaseNamespace: string;
  nodeProvisioningTimeoutMs: number;
  defaultUpdateStrategy: UpdateStrategy;
  /** `--legacy-presets`: the KAITO release new workloads of legacy short names are rendered as. */
  legacyPresets: KaitoGeneration;
  /** Hugging Face endpoint for ids outside KAITO's catalog: --hf-endpoint, else HF_ENDPOINT, else huggingface.co. */
  hubEndpoint: string;
  maxConcurrentReconciles: number;
  maxReleasedPasses: number;
  kubeClientQps: number;
  kubeClientBurst: number;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  /** Only this namespace's workspaces (tests, benchmarks, multi-tenant installs); all otherwise. */
  namespace?: string;
  leaderElect: boolean;
  leaderElectionNamespace?: string;
  leaderElectionTimings: LeaderElectionTimings;
  /** Every workspace is reconciled again this often even without an event (controller-runtime's SyncPeriod). */
  syncPeriodMs: number;
  logLevel: string;
}

export const RUN_USAGE = `Usage: kaito-ts run [flags]

  --kubeconfig PATH                  cluster to manage (else KUBECONFIG, else in-cluster)
  --feature-gates k=v,...            default ${DEFAULT_FEATURE_GATES_FLAG}
  --cloud-provider azure|aws|arc     GPU SKU catalog (else CLOUD_PROVIDER, else azure)
  --node-provisioner P               azure-gpu-provisioner (NodeClaims, default) | karpenter (one
                                     NodePool per workspace) | byo; sets disableNodeAutoProvisioning
  --karpenter-node-class-group G     karpenter mode: NodeClass API group (default karpenter.azure.com)
  --karpenter-node-class-kind K      NodeClass kind (default AKSNodeClass)
  --karpenter-node-class-version V   NodeClass version (default v1beta1)
  --karpenter-node-class-resource-name R
                                     NodeClass plural (default aksnodeclasses)
  --karpenter-node-classes JSON      [{"name":..,"default":true,"spec":{..}}]: the NodeClasses created
                                     at start; exactly one default (required in karpenter mode)
  --hf-endpoint URL                  Hugging Face endpoint (or mirror) read for model ids outside
                                     KAITO's catalog (else HF_ENDPOINT, else https://huggingface.co)
  --max-concurrent-reconciles N      workers (default 5)
  --max-released-passes N            passes that finish their Services and status without a worker,
                                     so the workers start later model loads first (default 50; 0: off)
  --kube-client-qps N                client-side QPS limit (default 30)
  --kube-client-burst N              client-side burst (default 50)
  --metrics-bind-address HOST:PORT   Prometheus /metrics (default :8080; "0" disables; port 0 picks one)
  --health-probe-bind-address H:P    /healthz and /readyz (default :8081)
  --namespace NS                     reconcile only the workspaces of this namespace (default: all)
  --leader-elect                     hold the Lease kaito-ts-leader before reconciling (losing it
                                     exits the process)
  --leader-election-namespace NS     Lease namespace (default POD_NAMESPACE, else kaito-workspace)
  --leader-election-lease-duration D how long standbys wait after the last renewal they saw (default 9s,
                                     whole seconds)
  --leader-election-renew-deadline D how long the leader keeps trying to renew before it exits (default 6s)
  --leader-election-retry-period D   between tries to acquire or renew (default 1.2s)
  --sync-period DUR                  reconcile every workspace again this often (default 10h)
  --release-namespace NS             namespace of inference-params-template (else RELEASE_NAMESPACE)
  --node-provisioning-timeout DUR    how long a NodeClaim may stay not Ready before the workspace
                                     says so (default 30m; e.g. 90s, 45m, 2h); it keeps waiting after
  --default-update-strategy S        how a serving single-node workspace takes a new template unless
                                     its kaito-ts.io/update-strategy annotation says: SurgeIfCapacity
                                     (default), Surge or Recreate (docs/controller.md, "Updates")
  --legacy-presets v0.12|v0.8        how a new workload of a legacy short name (phi-4-mini-instruct)
                                     is rendered: as KAITO v0.12.0 maps it to its catalog (default) or
                                     as KAITO v0.8.0 did; a live workload keeps its own until its
                                     workspace's spec changes (docs/api.md, "Behaviours by KAITO release")
  --log-level LEVEL                  debug|info|warn|error (default info); JSON lines on stdout
`;

function updateStrategyFlag(value: string | undefined): UpdateStrategy {
  if (value === undefined) return DEFAULT_UPDATE_STRATEGY;
  if (!isUpdateStrategy(value)) throw new Error(`--default-update-strategy must be one of ${UPDATE_STRATEGIES.join(', ')}, got "${value}"`);
  return value;
}

/** An integer flag of at least `min` (1 unless said): a positive integer, or a whole number with min 0. */
function integerFlag(flag: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min)
    throw new Error(`--${flag} must be ${min === 0 ? 'a whole number' : 'a positive integer'}, got "${value}"`);
  return n;
}

export const DEFAULT_NODE_PROVISIONING_TIMEOUT_MS = 30 * 60_000;
/** controller-runtime's default SyncPeriod. */
export const DEFAULT_SYNC_PERIOD_MS = 10 * 3_600_000;
/**
 * Workers, as KAITO. A pass left with only deferred writes frees its worker (DEFAULT_RELEASED_PASSES),
 * so 5 start a burst's model loads as fast as the QPS budget allows (N = 50: last StatefulSet 3.2 s);
 * 50 workers did it less well (4.1 s) for about 5.5 MiB more peak RSS (docs/benchmarks.md).
 */
export const DEFAULT_WORKERS = 5;

type Values = Record<string, string | boolean | undefined>;

function leaderElectionTimings(values: Values): LeaderElectionTimings {
  const flag = (name: string, fallback: number) =>
    positiveDurationFlag(`leader-election-${name}`, values[`leader-election-${name}`] as string | undefined, fallback);
  const t = {
    leaseDurationMs: flag('lease-duration', DEFAULT_TIMINGS.leaseDurationMs),
    renewDeadlineMs: flag('renew-deadline', DEFAULT_TIMINGS.renewDeadlineMs),
    retryPeriodMs: flag('retry-period', DEFAULT_TIMINGS.retryPeriodMs),
  };
  // The Lease stores leaseDurationSeconds as an integer.
  if (t.leaseDurationMs % 1000 !== 0)
    throw new Error(`--leader-election-lease-duration must be whole seconds, got "${String(values['leader-election-lease-duration'])}"`);
  checkTimings(t);
  return t;
}

function logLevel(value: string | undefined): string {
  const level = (value ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`--log-level must be one of ${LOG_LEVELS.join('|')}, got "${value}"`);
  return level;
}

/** The --karpenter-node-class* flags as `kaito-ts run` reads them (kaito-ts diff reads the same). */
/** `--node-provisioner` and the NodeClass flags, for every command that plans as the operator does (run, diff). */
export const PROVISIONER_FLAGS = {
  'node-provisioner': { type: 'string' },
  'karpenter-node-class-group': { type: 'string' },
  'karpenter-node-class-kind': { type: 'string' },
  'karpenter-node-class-version': { type: 'string' },
  'karpenter-node-class-resource-name': { type: 'string' },
  'karpenter-node-classes': { type: 'string' },
} as const;

export function karpenterNodeClasses(values: Values): NodeClassConfig {
  const flag = (name: string) => values[`karpenter-node-class-${name}`] as string | undefined;
  const parsed = parseNodeClassConfig({
    group: flag('group'),
    kind: flag('kind'),
    version: flag('version'),
    resourceName: flag('resource-name'),
    nodeClasses: values['karpenter-node-classes'] as string | undefined,
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

export function parseManagerOptions(args: string[], env: NodeJS.ProcessEnv = process.env): ManagerOptions | 'help' {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      kubeconfig: { type: 'string' },
      'feature-gates': { type: 'string' },
      'cloud-provider': { type: 'string' },
      ...PROVISIONER_FLAGS,
      'max-concurrent-reconciles': { type: 'string' },
      'max-released-passes': { type: 'string' },
      'kube-client-qps': { type: 'string' },
      'kube-client-burst': { type: 'string' },
      'metrics-bind-address': { type: 'string' },
      'health-probe-bind-address': { type: 'string' },
      namespace: { type: 'string' },
      'leader-elect': { type: 'boolean' },
      'leader-election-namespace': { type: 'string' },
      'leader-election-lease-duration': { type: 'string' },
      'leader-election-renew-deadline': { type: 'string' },
      'leader-election-retry-period': { type: 'string' },
      'sync-period': { type: 'string' },
      'release-namespace': { type: 'string' },
      'log-level': { type: 'string' },
      'node-provisioning-timeout': { type: 'string' },
      'hf-endpoint': { type: 'string' },
      'default-update-strategy': { type: 'string' },
      [LEGACY_PRESETS_FLAG]: { type: 'string' },
    },
  });
  if (values.help) return 'help';
  let featureGates: FeatureGates;
  try {
    featureGates = parseFeatureGates(values['feature-gates']);
  } catch (err) {
    throw new Error(`--feature-gates: ${(err as FeatureGateError).message}`);
  }
  const gateExplicit = /disableNodeAutoProvisioning\s*=/.test(values['feature-gates'] ?? '');
  const provisioner = resolveNodeProvisioner(values['node-provisioner'], featureGates, gateExplicit);
  const nodeClasses = provisioner.provisioner === 'karpenter' ? karpenterNodeClasses(values) : undefined;
  return {
    kubeconfig: values.kubeconfig,
    ...(nodeClasses ? { nodeClasses } : {}),
    featureGates: provisioner.featureGates,
    nodeProvisioner: provisioner.provisioner,
    ...(provisioner.warning ? { nodeProvisionerWarning: provisioner.warning } : {}),
    cloudProvider: resolveCloudProvider(values['cloud-provider'], env),
    presetRegistry: presetRegistry(env),
    releaseNamespace: values['release-namespace'] ?? env.RELEASE_NAMESPACE ?? DEFAULT_RELEASE_NAMESPACE,
    nodeProvisioningTimeoutMs: positiveDurationFlag('node-provisioning-timeout', values['node-provisioning-timeout'], DEFAULT_NODE_PROVISIONING_TIMEOUT_MS),
    hubEndpoint: hubEndpointFlag(values['hf-endpoint'], env),
    defaultUpdateStrategy: updateStrategyFlag(values['default-update-strategy']),
    legacyPresets: parseLegacyPresets(values[LEGACY_PRESETS_FLAG]),
    maxConcurrentReconciles: integerFlag('max-concurrent-reconciles', values['max-concurrent-reconciles'], DEFAULT_WORKERS),
    maxReleasedPasses: integerFlag('max-released-passes', values['max-released-passes'], DEFAULT_RELEASED_PASSES, 0),
    kubeClientQps: integerFlag('kube-client-qps', values['kube-client-qps'], 30),
    kubeClientBurst: integerFlag('kube-client-burst', values['kube-client-burst'], 50),
    metricsBindAddress: values['metrics-bind-address'] ?? ':8080',
    healthProbeBindAddress: values['health-probe-bind-address'] ?? ':8081',
    namespace: values.namespace,
    leaderElect: values['leader-elect'] ?? false,
    leaderElectionNamespace: values['leader-election-namespace'] ?? (env.POD_NAMESPACE || DEFAULT_LEADER_ELECTION_NAMESPACE),
    leaderElectionTimings: leaderElectionTimings(values),
    syncPeriodMs: positiveDurationFlag('sync-period', values['sync-period'], DEFAULT_SYNC_PERIOD_MS),
    logLevel: logLevel(values['log-level']),
  };
}

export function hubEndpointFlag(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  try {
    return resolveHubEndpoint(flag, env);
  } catch (err) {
    throw new Error(`--hf-endpoint (or HF_ENDPOINT): ${(err as Error).message}`);
  }
}
