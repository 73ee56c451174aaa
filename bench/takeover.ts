// The takeover run (docs/takeover.md): KAITO's controller (v0.8.0 with bring-your-own nodes, or v0.12.0
// in Karpenter NodePool mode against real Karpenter: --from kaito-v0.12.0 --mode karpenter) brings preset
// and template workspaces to InferenceReady on a private local cluster, is stopped, `kaito-ts diff` runs,
// kaito-ts's CRD is applied and kaito-ts starts. Then: was any pod restarted, was any StatefulSet, Service
// or ControllerRevision re-created or changed apart from status, and in Karpenter mode was any NodePool
// rewritten or any NodeClaim or node replaced? Needs KAITO's binary (docs/benchmarks.md), so it is a
// script, not part of `npm test`: `npm run takeover -- [--from kaito-v0.12.0 --mode karpenter]`.
// The cluster is its own (state dir ~/.cache/kaito-ts/takeover-simcluster, ports +3000): KAITO
// watches every namespace and must not touch the shared cluster. It is stopped at the end.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, KubeConfig, type KubernetesObject, type V1StatefulSet } from '@kubernetes/client-node';
import { liveServedModelNames } from '../src/builders/generation.js';
import { stringify } from 'yaml';
import { GROUP, PLURAL, VERSION } from '../src/api/types.js';
import { comparable, fieldChanges, formatChange } from '../src/diff/changes.js';
import { adminKubeconfig } from '../src/simcluster/kubeconfig.js';
import { freePort, startController, type RunningController } from './child.js';
import { startCountingProxy } from './proxy.js';
import { countWrites } from './verbs.js';
import { ensureReleaseNamespace, installCrds } from './cluster.js';
import { ANNOTATION_REVISION, LABEL_INFERENCESET_CREATED_BY, LABEL_KARPENTER_WORKSPACE_NAMESPACE } from '../src/api/labels.js';
import { INFERENCESET_PLURAL } from '../src/api/inferenceset-types.js';
import { kwokNodeClassFlags } from '../src/simcluster/karpenter/operator-flags.js';
import { CONTROLLERS, missingPrerequisite, type ControllerId } from './controllers.js';
import {
  ADAPTER_PULL_SECRET,
  GENERIC_HF_ID,
  HF_SECRET,
  TAKEOVER_USAGE,
  compareKarpenter,
  parseTakeoverArgs,
  servingProblems,
  takeoverInferenceSets,
  takeoverWorkspaces,
  type KarpenterObjectState,
  type KarpenterSnapshot,
  type Serving,
  type TakeoverMode,
  type TakeoverOptions,
} from './takeover-plan.js';
import { QWEN3_8B } from '../src/simcluster/fake-hub.js';
import { startHubStandIn, type HubStandIn } from '../src/simcluster/hub-standin.js';
import {
  KAITO_RELEASE,
  KAITO_WEBHOOK_SERVICE,
  KAITO_LOGGING_CONFIGMAP,
  KAITO_WEBHOOKS,
  deploymentArgs,
  kaitoChartSource,
  kaitoChartValues,
  operatorFlagsOf,
  writePostRenderer,
} from './takeover-chart.js';
import { localScript, switchProcedure, type SwitchProcedure } from './takeover-doc.js';
import { evaluateSettings, kaitoTsShim, probeObjects, runStep, waitForKaitoWebhooks, writesThroughBothVersions } from './takeover-switch.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'kaito-ts.js');
const CACHE = process.env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts');
// The run's own cluster: KAITO_TS_TAKEOVER_DIR and KAITO_TS_TAKEOVER_PORT_OFFSET move it (two checkouts
// running takeovers at once must not share a state folder or ports).
const CLUSTER_ENV = {
  ...process.env,
  KAITO_TS_SIMCLUSTER_DIR: process.env.KAITO_TS_TAKEOVER_DIR ?? join(CACHE, 'takeover-simcluster'),
  KAITO_TS_SIM_PORT_OFFSET: process.env.KAITO_TS_TAKEOVER_PORT_OFFSET ?? '3000',
};
const RELEASE_NAMESPACE = 'kaito-workspace';
const NS = 'takeover';

const A100_NODE = {
  count: 3,
  instanceType: 'Standard_NC24ads_A100_v4',
  gpu: { product: 'NVIDIA-A100-80GB-PCIe', count: 1, memoryMiB: 81920 },
  cpu: '24',
  memory: '220Gi',
  nvme: { volumes: 2, size: '1000Gi' },
};
/** Bring-your-own GPU nodes; in Karpenter mode none (Karpenter makes them), the pools still define the NVMe volumes. */
const NODES = {
  pools: [
    { name: 'a10', count: 3, instanceType: 'Standard_NV36ads_A10_v5', gpu: { product: 'NVIDIA-A10', count: 1, memoryMiB: 24576 }, cpu: '36', memory: '440Gi' },
    { name: 'a100', ...A100_NODE },
    // A multi-node group's own nodes (from KAITO v0.12.0).
    { name: 'a100-group', ...A100_NODE },
    // An InferenceSet's two children (from KAITO v0.12.0), and the child of the one created as v1alpha1.
    ...(
      [
        ['a10-set', 2],
        ['a10-set-alpha', 1],
      ] as const
    ).map(([name, count]) => ({
      name,
      count,
      instanceType: 'Standard_NV36ads_A10_v5',
      gpu: { product: 'NVIDIA-A10', count: 1, memoryMiB: 24576 },
      cpu: '36',
      memory: '440Gi',
    })),
  ],
};

const workspacesOf = (mode: TakeoverMode, from: TakeoverOptions['from']) =>
  takeoverWorkspaces(mode, from).map((w) => ({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Workspace', ...w, metadata: { ...w.metadata, namespace: NS } }));

function sh(cmd: string, args: string[], env = process.env, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) || 1 : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

async function must(cmd: string, args: string[], env = process.env, stdin?: string): Promise<string> {
  const r = await sh(cmd, args, env, stdin);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

const log = (line: string): void => void process.stderr.write(`[takeover] ${line}\n`);

interface Snapshot {
  pods: Map<string, { uid: string; restarts: number; started: string }>;
  children: Map<string, { uid: string; rv: string; body: unknown; managers: string[] }>;
  /** Each InferenceSet's spec and its child Workspaces (name → uid). */
  sets: Map<string, { spec: string; members: Map<string, string> }>;
  /** Every Workspace: its uid and its spec (resource, inference, tuning), as the API server returns it. */
  workspaces: Map<string, { uid: string; spec: unknown }>;
}

async function snapshot(kubectl: (args: string[]) => Promise<string>): Promise<Snapshot> {
  const items = async (kind: string): Promise<(KubernetesObject & Record<string, unknown>)[]> =>
    (JSON.parse(await kubectl(['get', kind, '-n', NS, '-o', 'json', '--show-managed-fields'])) as { items: (KubernetesObject & Record<string, unknown>)[] })
      .items;
  const pods = new Map<string, { uid: string; restarts: number; started: string }>();
  for (const p of await items('pods')) {
    const statuses =
      (p.status as { containerStatuses?: { restartCount: number; state?: { running?: { startedAt?: string } } }[] } | undefined)?.containerStatuses ?? [];
    pods.set(p.metadata?.name ?? '', {
      uid: p.metadata?.uid ?? '',
      restarts: statuses.reduce((a, c) => a + c.restartCount, 0),
      started: statuses.map((c) => c.state?.running?.startedAt ?? '-').join(','),
    });
  }
  const children = new Map<string, { uid: string; rv: string; body: unknown; managers: string[] }>();
  for (const kind of ['statefulsets', 'services', 'controllerrevisions', 'jobs']) {
    for (const o of await items(kind)) {
      children.set(`${kind}/${o.metadata?.name}`, {
        uid: o.metadata?.uid ?? '',
        rv: o.metadata?.resourceVersion ?? '',
        body: comparable(o),
        managers: (o.metadata?.managedFields ?? []).map((m) => `${m.manager}:${m.operation}${m.subresource ? `/${m.subresource}` : ''}`).sort(),
      });
    }
  }
  const sets = new Map<string, { spec: string; members: Map<string, string> }>();
  const setItems = await items('inferencesets.kaito.sh').catch(() => []);
  const memberItems = await items('workspaces.kaito.sh');
  const workspaces = new Map(
    memberItems.map((w) => [w.metadata?.name ?? '', { uid: w.metadata?.uid ?? '', spec: { resource: w.resource, inference: w.inference, tuning: w.tuning } }]),
  );
  for (const is of setItems) {
    const name = is.metadata?.name ?? '';
    const members = memberItems.filter((w) => w.metadata?.labels?.[LABEL_INFERENCESET_CREATED_BY] === name);
    sets.set(name, { spec: JSON.stringify(is.spec), members: new Map(members.map((w) => [w.metadata?.name ?? '', w.metadata?.uid ?? ''])) });
  }
  return { pods, children, sets, workspaces };
}

/** No child Workspace of an InferenceSet created or deleted, no set's spec changed. */
function compareSets(before: Snapshot, after: Snapshot): string[] {
  const problems: string[] = [];
  for (const [name, b] of before.sets) {
    const a = after.sets.get(name);
    if (!a) {
      problems.push(`inferenceset/${name} is gone`);
      continue;
    }
    if (a.spec !== b.spec) problems.push(`inferenceset/${name} spec changed: ${b.spec} → ${a.spec}`);
    for (const [child, uid] of b.members) if (a.members.get(child) !== uid) problems.push(`inferenceset/${name}: child ${child} was deleted or re-created`);
    for (const child of a.members.keys()) if (!b.members.has(child)) problems.push(`inferenceset/${name}: child ${child} is new`);
  }
  return problems;
}

function compare(before: Snapshot, after: Snapshot): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const [name, p] of before.pods) {
    const a = after.pods.get(name);
    if (!a) problems.push(`pod ${name} is gone`);
    else if (a.uid !== p.uid) problems.push(`pod ${name} was re-created`);
    else if (a.restarts !== p.restarts || a.started !== p.started)
      problems.push(`pod ${name} restarted (restarts ${p.restarts} → ${a.restarts}, started ${p.started} → ${a.started})`);
  }
  for (const name of after.pods.keys()) if (!before.pods.has(name)) problems.push(`pod ${name} is new`);
  for (const [name, c] of before.children) {
    const a = after.children.get(name);
    if (!a) {
      problems.push(`${name} is gone`);
      continue;
    }
    if (a.uid !== c.uid) {
      problems.push(`${name} was re-created`);
      continue;
    }
    for (const change of fieldChanges(c.body, a.body)) problems.push(`${name} changed: ${formatChange(change)}`);
    if (a.rv !== c.rv) notes.push(`${name}: resourceVersion ${c.rv} → ${a.rv}; field managers ${c.managers.join(' ')} → ${a.managers.join(' ')}`);
  }
  for (const name of after.children.keys()) if (!before.children.has(name)) problems.push(`${name} is new`);
  for (const [name, w] of before.workspaces) {
    const a = after.workspaces.get(name);
    if (!a) problems.push(`workspace ${name} is gone`);
    else if (a.uid !== w.uid) problems.push(`workspace ${name} was re-created`);
    else for (const change of fieldChanges(w.spec, a.spec)) problems.push(`workspace ${name} spec changed: ${formatChange(change)}`);
  }
  return { problems, notes };
}

async function waitUntil(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(1000);
  }
}

async function start(
  id: ControllerId,
  kubeconfig: string,
  dir: string,
  mode: TakeoverMode,
  hub: HubStandIn | undefined,
  operatorFlags?: string[],
  webhookPort?: number,
): Promise<{ ctl: RunningController; metrics: string }> {
  const [probe, metrics] = [await freePort(), await freePort()];
  const webhook = webhookPort
    ? {
        port: webhookPort,
        service: KAITO_WEBHOOK_SERVICE,
        namespace: RELEASE_NAMESPACE,
        loggingConfigMap: KAITO_LOGGING_CONFIGMAP,
        profilingPort: await freePort(),
      }
    : undefined;
  const launch = CONTROLLERS[id].launch({
    kubeconfig,
    qps: 30,
    burst: 50,
    releaseNamespace: RELEASE_NAMESPACE,
    projectRoot: ROOT,
    nap: mode === 'karpenter',
    // The same NodeClass flags for KAITO and kaito-ts, as an operator would carry them over.
    ...(mode === 'karpenter' ? { karpenter: { nodeClassSpec: {} } } : {}),
    ...(hub ? { hub: { endpoint: hub.hub.url, proxyUrl: hub.proxy.url, caFile: hub.caFile } } : {}),
    metricsAddress: `127.0.0.1:${metrics}`,
    probeAddress: `127.0.0.1:${probe}`,
    ...(operatorFlags ? { operatorFlags } : {}),
    ...(webhook ? { webhook } : {}),
  });
  const logFile = join(dir, `${id}.log`);
  log(`starting ${id} (log ${logFile})`);
  return { ctl: await startController(launch, logFile, `http://127.0.0.1:${probe}/readyz`), metrics: `http://127.0.0.1:${metrics}/metrics` };
}

/**
 * Adds an adapter to a taken-over workspace (a new revision) and checks that its StatefulSet becomes
 * kaito-ts's own, whole: its revision moves, `kaito-ts diff --rebuild` finds nothing to change in it,
 * and only kaito-ts's apply owns its pod template.
 */
async function specChangeAfterTakeover(
  kubectl: (args: string[]) => Promise<string>,
  workspace: string,
  rebuild: string[],
): Promise<{ workspace: string; problem?: string; summary: string }> {
  type Sts = {
    metadata: { generation?: number; annotations?: Record<string, string>; managedFields?: { manager: string; operation: string; fieldsV1?: unknown }[] };
    spec?: V1StatefulSet['spec'];
    status?: { observedGeneration?: number; updatedReplicas?: number; readyReplicas?: number };
  };
  const servingOf = (o: Sts): Serving => ({
    servedNames: liveServedModelNames(o as V1StatefulSet),
    image: o.spec?.template?.spec?.containers?.[0]?.image ?? '',
  });
  const sts = async (): Promise<Sts> => JSON.parse(await kubectl(['get', 'statefulset', workspace, '-n', NS, '-o', 'json', '--show-managed-fields'])) as Sts;
  const before = await sts();
  const revisionBefore = before.metadata.annotations?.[ANNOTATION_REVISION];
  // One more LoRA adapter: a new revision of the workspace's own spec.
  const ws = JSON.parse(await kubectl(['get', 'workspace', workspace, '-n', NS, '-o', 'json'])) as { inference?: { adapters?: unknown[] } };
  const adapter = { inference: { adapters: [...(ws.inference?.adapters ?? []), { source: { name: 'added-lora', image: 'kaito/phi-3-lora:0.0.1' } }] } };
  await kubectl(['patch', 'workspace', workspace, '-n', NS, '--type=merge', '-p', JSON.stringify(adapter)]);
  try {
    await waitUntil(
      `StatefulSet ${workspace} at a new revision`,
      120_000,
      async () => (await sts()).metadata.annotations?.[ANNOTATION_REVISION] !== revisionBefore,
    );
  } catch (err) {
    return { workspace, problem: (err as Error).message, summary: '' };
  }
  const after = await sts();
  // Clients keep working: every name the workspace answered to still answers, on the same or a newer engine.
  const serving = servingProblems(servingOf(before), servingOf(after));
  if (serving.length) return { workspace, problem: `after the spec change: ${serving.join('; ')}`, summary: '' };
  const templateOwners = (after.metadata.managedFields ?? [])
    .filter((m) => JSON.stringify(m.fieldsV1 ?? {}).includes('"f:template"'))
    .map((m) => `${m.manager}:${m.operation}`);
  const r = await sh(process.execPath, rebuild);
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => l.trim().startsWith(`StatefulSet ${NS}/${workspace}:`));
  const line = at >= 0 ? (lines[at] ?? '').trim() : '(no line)';
  // The fields listed under it; claim templates are immutable and stay as KAITO sized them, by design.
  const fields: string[] = [];
  for (const l of at >= 0 ? lines.slice(at + 1) : []) {
    if (!l.startsWith('    ')) break;
    fields.push(l);
  }
  const differing = fields.filter((f) => !/^\s+[~+-] spec\.volumeClaimTemplates/.test(f));
  const revision = `revision ${revisionBefore} → ${after.metadata.annotations?.[ANNOTATION_REVISION]}`;
  if (!/: no change$/.test(line) && (fields.length === 0 || differing.length > 0))
    return { workspace, problem: `after the spec change, diff --rebuild says: ${line}${differing.length ? `\n${differing.join('\n')}` : ''}`, summary: '' };
  if (templateOwners.join() !== 'kaito-ts:Apply')
    return { workspace, problem: `the pod template of ${workspace} is owned by ${templateOwners.join(', ')}`, summary: '' };
  return {
    workspace,
    summary: `StatefulSet ${workspace} ${revision}: kaito-ts's own template whole (diff --rebuild: no change; template owned by kaito-ts:Apply only); served names ${servingOf(before).servedNames.join(', ')} → ${servingOf(after).servedNames.join(', ')}, image ${servingOf(before).image} → ${servingOf(after).image}`,
  };
}

async function writesOf(metricsUrl: string): Promise<string> {
  const text = await (await fetch(metricsUrl)).text();
  return (
    text
      .split('\n')
      .filter((l) => l.startsWith('rest_client_requests_total{') && !/verb="(get|list|watch)"/.test(l))
      .map((l) => l.replace('rest_client_requests_total', ''))
      .join(' ') || 'none'
  );
}

/** ConfigMap names of the namespace and each workspace's status, to say what kaito-ts's writes were. */
async function sideState(kubectl: (args: string[]) => Promise<string>): Promise<{ configMaps: string[]; statuses: Map<string, unknown> }> {
  const get = async (kind: string) =>
    (JSON.parse(await kubectl(['get', kind, '-n', NS, '-o', 'json'])) as { items: { metadata: { name: string }; status?: unknown }[] }).items;
  const statuses = new Map<string, unknown>();
  for (const w of await get('workspaces.kaito.sh')) {
    // Transition times and observed generations move with every status write; what a reader sees is the rest.
    const status = JSON.parse(
      JSON.stringify(w.status ?? {}, (k, v: unknown) => (k === 'lastTransitionTime' || k === 'observedGeneration' ? undefined : v)),
    ) as unknown;
    statuses.set(w.metadata.name, status);
  }
  return { configMaps: (await get('configmaps')).map((c) => c.metadata.name).sort(), statuses };
}

function sideNotes(before: Awaited<ReturnType<typeof sideState>>, after: Awaited<ReturnType<typeof sideState>>): string[] {
  const notes: string[] = [];
  const added = after.configMaps.filter((c) => !before.configMaps.includes(c));
  const gone = before.configMaps.filter((c) => !after.configMaps.includes(c));
  if (added.length || gone.length) notes.push(`ConfigMaps in ${NS}: ${added.map((c) => `+${c}`).join(' ')} ${gone.map((c) => `-${c}`).join(' ')}`.trim());
  for (const [name, b] of before.statuses) {
    for (const c of fieldChanges(b, after.statuses.get(name))) notes.push(`workspace ${name} status: ${formatChange(c)}`);
  }
  return notes;
}

/** Reconciles kaito-ts's workspace controller has finished, from its /metrics. */
async function reconcilesOf(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('controller_runtime_reconcile_total{') && l.includes('controller="workspace"'))
    .reduce((a, l) => a + (Number(l.slice(l.lastIndexOf(' ') + 1)) || 0), 0);
}

/** NodePools, Karpenter's NodeClaims and nodes of the takeover namespace's workspaces, and every KWOKNodeClass. */
async function karpenterSnapshot(kubectl: (args: string[]) => Promise<string>): Promise<KarpenterSnapshot> {
  const items = async (kind: string, selector?: string): Promise<(KubernetesObject & Record<string, unknown>)[]> =>
    (
      JSON.parse(await kubectl(['get', kind, '-o', 'json', '--show-managed-fields', ...(selector ? ['-l', selector] : [])])) as {
        items: (KubernetesObject & Record<string, unknown>)[];
      }
    ).items;
  const states = (list: (KubernetesObject & Record<string, unknown>)[]): Map<string, KarpenterObjectState> =>
    new Map(
      list.map((o) => [
        o.metadata?.name ?? '',
        {
          uid: o.metadata?.uid ?? '',
          resourceVersion: o.metadata?.resourceVersion ?? '',
          ...(o.metadata?.generation !== undefined ? { generation: o.metadata.generation } : {}),
          body: comparable(o),
          managers: (o.metadata?.managedFields ?? []).map((m) => `${m.manager}:${m.operation}${m.subresource ? `/${m.subresource}` : ''}`).sort(),
          ...((o.status as { nodeName?: string } | undefined)?.nodeName ? { nodeName: (o.status as { nodeName: string }).nodeName } : {}),
        },
      ]),
    );
  const selector = `${LABEL_KARPENTER_WORKSPACE_NAMESPACE}=${NS}`;
  return {
    nodePools: states(await items('nodepools.karpenter.sh', selector)),
    nodeClaims: states(await items('nodeclaims.karpenter.sh', selector)),
    nodes: states(await items('nodes', selector)),
    nodeClasses: states(await items('kwoknodeclasses.karpenter.kwok.sh')),
  };
}

function describeKarpenter(s: KarpenterSnapshot): string {
  const pools = [...s.nodePools].map(([n, p]) => `${n} (replicas ${(p.body as { spec?: { replicas?: number } }).spec?.replicas}, generation ${p.generation})`);
  return `NodePools ${pools.join(', ') || 'none'}; ${s.nodeClaims.size} NodeClaims, ${s.nodes.size} nodes, NodeClasses ${[...s.nodeClasses.keys()].join(', ') || 'none'}`;
}

/** The findings of `kaito-ts check` the switch takes care of (steps a and c); any other must be resolved first. */
const HANDLED_BY_SWITCH = /^(CustomResourceDefinition|ConfigMap|StorageClass|ValidatingWebhookConfiguration) /;

/** KAITO's chart folder: as found, or extracted from its source archive into the run's folder. */
async function kaitoChartDir(source: ReturnType<typeof kaitoChartSource>, dir: string): Promise<string> {
  if ('dir' in source) return source.dir;
  if ('missing' in source) throw new Error(source.missing);
  await must('tar', ['-xzf', source.archive, '-C', dir, source.member]);
  return join(dir, source.member);
}

/** The first container's args of a Deployment in the release namespace. */
async function deploymentArgsLive(kubectl: (args: string[]) => Promise<string>, name: string): Promise<string[]> {
  const d = JSON.parse(await kubectl(['get', 'deployment', name, '-n', RELEASE_NAMESPACE, '-o', 'json'])) as {
    spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } };
  };
  return d.spec?.template?.spec?.containers?.[0]?.args ?? [];
}

/** A create, retried while the webhook is not answering yet; a refusal by the webhook or the schema fails the run. */
async function retryCreate(what: string, create: () => Promise<unknown>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await create();
      return;
    } catch (err) {
      const e = err as { code?: number; body?: unknown; message?: string };
      if (e.code === 409) return; // an earlier run's, kept by an interrupted cleanup
      const text = `${e.message ?? ''} ${typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '')}`;
      if (/denied the request|is invalid|Unsupported value|Required value/.test(text) || Date.now() > deadline)
        throw new Error(`create ${what} refused: ${text.slice(0, 600)}`);
      await sleep(1000);
    }
  }
}

/** docs/takeover.md's switch and the flags its settings read from KAITO's Deployment. */
async function readSwitch(env: NodeJS.ProcessEnv, chartDir: string): Promise<{ procedure: SwitchProcedure; flags: string[] }> {
  const procedure = switchProcedure(readFileSync(join(ROOT, 'docs', 'takeover.md'), 'utf8'));
  // The chart comes from KAITO's source tree here, not from its Helm repository.
  const values: Record<string, string | undefined> = { ...(await evaluateSettings(procedure.settings, env, ROOT)), CHART: chartDir };
  if (values.NS !== RELEASE_NAMESPACE || values.RELEASE !== KAITO_RELEASE)
    throw new Error(`docs/takeover.md names release ${values.RELEASE} in ${values.NS}; the run installed ${KAITO_RELEASE} in ${RELEASE_NAMESPACE}`);
  Object.assign(env, values);
  return { procedure, flags: (values.FLAGS ?? '').split(/\s+/).filter(Boolean) };
}

/** With KAITO stopped and its webhook configurations in place, a Workspace create (server dry run). */
async function refusedWhileStopped(kubectl: (args: string[], stdin?: string) => Promise<string>, mode: TakeoverMode): Promise<string> {
  const body = JSON.stringify(probeObjects(mode, VERSION, NS).workspace);
  return kubectl(['create', '--dry-run=server', '-o', 'name', '-f', '-'], body).then(
    () => 'a Workspace create (server dry run) was accepted',
    (err: unknown) => `a Workspace create (server dry run) is refused: ${(err as Error).message.split('\n')[0]?.slice(0, 300)}`,
  );
}

async function main(opts: TakeoverOptions): Promise<number> {
  const { from, mode } = opts;
  const karpenter = mode === 'karpenter';
  // From KAITO v0.12.0: its own Helm chart, webhooks served, and the switch run from docs/takeover.md.
  const chart = from === 'kaito-v0.12.0';
  const WORKSPACES = workspacesOf(mode, from);
  for (const id of [from, 'kaito-ts'] as const) {
    const missing = missingPrerequisite(id, ROOT, mode);
    if (missing) throw new Error(missing);
  }
  const chartSource = chart ? kaitoChartSource(ROOT) : undefined;
  if (chartSource && 'missing' in chartSource) throw new Error(chartSource.missing);
  const nodes = karpenter ? { pools: NODES.pools.map((p) => ({ ...p, count: 0 })) } : NODES;
  const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-takeover-'));
  const nodesFile = join(dir, 'nodes.yaml');
  writeFileSync(nodesFile, stringify(nodes));
  log(
    `private cluster in ${CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR} (port offset ${CLUSTER_ENV.KAITO_TS_SIM_PORT_OFFSET})${karpenter ? ' with Karpenter' : ''}; ${from} → kaito-ts, ${mode} mode`,
  );
  mkdirSync(CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR, { recursive: true });
  await must(process.execPath, [CLI, 'simcluster', 'up', '--nodes-file', nodesFile, ...(karpenter ? ['--karpenter'] : [])], CLUSTER_ENV);
  try {
    const kubeconfig = join(CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR, 'admin.kubeconfig');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const kubectlBin = (await must(process.execPath, [CLI, 'simcluster', 'env'], CLUSTER_ENV)).match(/PATH='([^']+)'/)?.[1] ?? '';
    const kubectl = (args: string[], stdin?: string) => must(join(kubectlBin, 'kubectl'), ['--kubeconfig', kubeconfig, ...args], process.env, stdin);
    // The document's commands find kubectl, helm and kaito-ts on the PATH, and the cluster in KUBECONFIG.
    const docEnv: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${kaitoTsShim(dir, ROOT)}:${kubectlBin}:${process.env.PATH ?? ''}`,
      KUBECONFIG: kubeconfig,
      TMPDIR: dir,
    };
    let webhookPort: number | undefined;
    let kaitoChart: string | undefined;
    if (chart) {
      if (!existsSync(join(kubectlBin, 'helm'))) throw new Error(`helm not found in ${kubectlBin}: build it with \`bash simcluster/build-helm.sh\``);
      const chartDir = (kaitoChart = await kaitoChartDir(chartSource!, dir));
      webhookPort = await freePort();
      writeFileSync(join(dir, 'kaito-values.json'), JSON.stringify(kaitoChartValues(mode, webhookPort)));
      log(`helm install ${KAITO_RELEASE} ${chartDir} (webhook port ${webhookPort})`);
      await must(
        'helm',
        [
          'install',
          KAITO_RELEASE,
          chartDir,
          '-n',
          RELEASE_NAMESPACE,
          '--create-namespace',
          '-f',
          join(dir, 'kaito-values.json'),
          '--post-renderer',
          writePostRenderer(dir, ROOT),
        ],
        docEnv,
      );
    } else {
      await installCrds(kc, CONTROLLERS[from].crds(mode), from);
      await ensureReleaseNamespace(kc, RELEASE_NAMESPACE);
    }
    await kubectl(['create', 'namespace', NS]).catch(() => '');
    // The multi-node preset is gated: its modelAccessSecret must hold HF_TOKEN.
    await kubectl(['create', 'secret', 'generic', HF_SECRET, '-n', NS, '--from-literal=HF_TOKEN=hf_takeover_not_a_real_token']).catch(() => '');
    // The private adapter's pull Secret (bring-your-own), the tuning output's push Secret (Karpenter).
    await kubectl([
      'create',
      'secret',
      'docker-registry',
      ADAPTER_PULL_SECRET,
      '-n',
      NS,
      '--docker-server=registry.example',
      '--docker-username=takeover',
      '--docker-password=not-a-real-password',
    ]).catch(() => '');
    const api = kc.makeApiClient(CustomObjectsApi);
    const SETS = takeoverInferenceSets(mode, from);
    const workspaces = async () =>
      (
        (await api.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: NS })) as {
          items: { metadata: { name: string }; status?: { state?: string; conditions?: { type: string; status: string }[] } }[];
        }
      ).items;
    // Done: an inference workspace serves; a tuning one's Job succeeded.
    const tuningNames = new Set(WORKSPACES.filter((w) => w.tuning).map((w) => w.metadata.name));
    // Every set's children exist too (they are Workspaces: the check above covers their readiness).
    const childCount = SETS.reduce((n, s) => n + s.spec.replicas, 0);
    const allReady = async () => {
      const all = await workspaces();
      return (
        all.length === WORKSPACES.length + childCount &&
        all.every((w) => {
          const done = tuningNames.has(w.metadata.name) ? 'WorkspaceSucceeded' : 'InferenceReady';
          return w.status?.conditions?.some((c) => c.type === done && c.status === 'True');
        })
      );
    };

    // Models outside the catalog come from the fake hub: KAITO v0.12 reaches it as https://huggingface.co.
    const generic = WORKSPACES.filter((w) => (w.inference as { preset?: { name?: string } } | undefined)?.preset?.name === GENERIC_HF_ID);
    const hub = generic.length ? await startHubStandIn(join(CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR, 'pki'), { [GENERIC_HF_ID]: QWEN3_8B }) : undefined;
    if (hub) log(`fake Hugging Face endpoint ${hub.hub.url}, as https://huggingface.co through ${hub.proxy.url}`);
    // From its chart, KAITO runs with its Deployment's flags and serves its webhooks, before anything is created.
    const kaitoFlags = chart ? operatorFlagsOf(await deploymentArgsLive(kubectl, KAITO_RELEASE)) : undefined;
    const kaito = await start(from, kubeconfig, dir, mode, hub, kaitoFlags, webhookPort);
    if (chart) {
      await waitForKaitoWebhooks(kubectl);
      log(`KAITO's webhooks ${KAITO_WEBHOOKS.join(', ')} have their CA: every create below goes through them`);
    }
    const create = async (plural: string, apiVersion: string, body: Record<string, unknown>) => {
      const version = apiVersion.split('/')[1] ?? VERSION;
      await retryCreate(`${plural}/${(body.metadata as { name: string }).name}`, () =>
        api.createNamespacedCustomObject({ group: GROUP, version, plural, namespace: NS, body: { ...body, apiVersion } }),
      );
    };
    for (const body of WORKSPACES) await create(PLURAL, `${GROUP}/${VERSION}`, body);
    for (const set of SETS) await create(INFERENCESET_PLURAL, set.apiVersion, { kind: 'InferenceSet', ...set, metadata: { ...set.metadata, namespace: NS } });
    await waitUntil(`${from}: every workspace InferenceReady`, karpenter ? 600_000 : 300_000, allReady);
    await sleep(10_000); // let KAITO settle (its last status writes)

    const switched = chart ? await readSwitch(docEnv, kaitoChart!) : undefined;
    const operatorFlags = [
      ...(switched
        ? switched.flags
        : karpenter
          ? ['--feature-gates', 'disableNodeAutoProvisioning=false', ...kwokNodeClassFlags()]
          : ['--feature-gates', 'disableNodeAutoProvisioning=true']),
      ...(hub ? ['--hf-endpoint', hub.hub.url] : []),
    ];
    if (switched) docEnv.FLAGS = operatorFlags.join(' ');
    // Section 1 of docs/takeover.md: check (findings expected: what the switch handles) while KAITO runs.
    const checkBefore = chart ? await sh(process.execPath, [CLI, 'check', '--kubeconfig', kubeconfig, '--release-namespace', RELEASE_NAMESPACE]) : undefined;
    if (checkBefore) log(`kaito-ts check before the switch (exit ${checkBefore.code}):\n${checkBefore.stdout}${checkBefore.stderr}`);
    if (!chart) {
      await kaito.ctl.stop();
      log(`${from} stopped`);
    }
    const hubBefore = hub?.hub.requests.length ?? 0;
    const diff = await sh(process.execPath, [CLI, 'diff', '-n', NS, '--kubeconfig', kubeconfig, ...operatorFlags]);
    log(`kaito-ts diff (exit ${diff.code}):\n${diff.stdout}${diff.stderr}`);
    // The same with --rebuild: the StatefulSets kaito-ts would build, compared although their revision
    // matches (which the operator leaves alone): how KAITO's generator and ours differ.
    const rebuilt = await sh(process.execPath, [CLI, 'diff', '-n', NS, '--kubeconfig', kubeconfig, ...operatorFlags, '--rebuild']);
    log(`kaito-ts diff --rebuild (exit ${rebuilt.code}):\n${rebuilt.stdout}${rebuilt.stderr}`);

    // kaito-ts talks through the counting proxy, so every request it sends is counted by resource.
    const pki = (f: string): string => join(CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR, 'pki', f);
    const proxy = await startCountingProxy(kc.getCurrentCluster()?.server ?? '', {
      certFile: pki('apiserver.crt'),
      keyFile: pki('apiserver.key'),
      clientCertFile: pki('admin.crt'),
      clientKeyFile: pki('admin.key'),
      caFile: pki('ca.crt'),
    });
    const proxied = join(dir, 'kaito-ts.kubeconfig');
    writeFileSync(proxied, adminKubeconfig({ server: proxy.url, caFile: pki('ca.crt'), certFile: pki('admin.crt'), keyFile: pki('admin.key') }));
    let ours: { ctl: RunningController; metrics: string } | undefined;
    let before: Snapshot | undefined;
    let sideBefore: Awaited<ReturnType<typeof sideState>> | undefined;
    let karpenterBefore: KarpenterSnapshot | undefined;
    const takeBefore = async () => {
      before = await snapshot(kubectl);
      sideBefore = await sideState(kubectl);
      karpenterBefore = karpenter ? await karpenterSnapshot(kubectl) : undefined;
      if (karpenterBefore) log(`before: ${describeKarpenter(karpenterBefore)}`);
    };
    const startOurs = async (flags?: string[]) => {
      ours = await start('kaito-ts', proxied, dir, mode, hub, flags);
      const running = ours;
      // Reconciled: status.state (KAITO v0.9's field, which v0.8.0 never sets) and, since v0.12 sets it too,
      // as many finished workspace reconciles as there are workspaces.
      await waitUntil(
        'kaito-ts: every workspace reconciled and InferenceReady',
        180_000,
        async () => (await workspaces()).every((w) => !!w.status?.state) && (await reconcilesOf(running.metrics)) >= WORKSPACES.length && (await allReady()),
      );
      await sleep(15_000);
    };
    const switchLines: string[] = [];
    const switchProblems: string[] = [];
    if (switched) {
      for (const step of switched.procedure.steps) {
        const { script, installs } = localScript(step);
        if (/scale deployment\/\$RELEASE --replicas=0/.test(script)) {
          // KAITO's controller is the local process: it stops with its Deployment's scale-down.
          await kaito.ctl.stop();
          log(`${from} stopped (step ${step.id})`);
        }
        if (step.id === 'c') {
          // Before the webhooks go: with KAITO stopped they refuse every write (what step c is for).
          const refused = await refusedWhileStopped(kubectl, mode);
          switchLines.push(`before step c, KAITO stopped, webhooks in place: ${refused}`);
        }
        const r = await runStep(script, docEnv, ROOT);
        log(`step ${step.id} (${step.title}) exit ${r.code}:\n${r.stdout.slice(0, 4000)}${r.stderr}`);
        if (r.code !== 0) switchProblems.push(`step ${step.id} (${step.title}) exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
        else switchLines.push(`step ${step.id}: ${step.title} — done${installs ? ' (kaito-ts started from the chart it renders)' : ''}`);
        if (step.id === 'b') await takeBefore();
        if (installs) {
          const args = deploymentArgs(r.stdout, 'kaito-ts');
          if (!args) throw new Error(`step ${step.id}: helm template of kaito-ts rendered no Deployment kaito-ts`);
          const flags = operatorFlagsOf(args);
          log(`kaito-ts starts with its chart's flags: ${flags.join(' ')}`);
          await startOurs(flags);
        }
      }
      if (!ours) throw new Error('docs/takeover.md: no step installs kaito-ts');
      await sleep(5_000); // what helm uninstall deleted has gone, and kaito-ts saw it
    } else {
      await takeBefore();
      await installCrds(kc, CONTROLLERS['kaito-ts'].crds(mode), 'kaito-ts');
      await startOurs();
    }
    const running = ours!;
    const writes = await writesOf(running.metrics);
    const after = await snapshot(kubectl);
    const sideAfter = await sideState(kubectl);
    const karpenterAfter = karpenter ? await karpenterSnapshot(kubectl) : undefined;
    // The takeover's own writes, before the writes below add theirs.
    const takeoverCounts = { byResource: proxy.byVerbAndResource(), byVerb: proxy.byVerb() };
    const versionWrites = chart
      ? await writesThroughBothVersions(kubectl, mode, NS, { workspace: WORKSPACES[0]!.metadata.name, inferenceSet: SETS[0]?.metadata.name })
      : undefined;
    // Weights on an emptyDir under both controllers, so the new revision updates the StatefulSet in place.
    const rolled = await specChangeAfterTakeover(kubectl, karpenter ? 'phi4-a100' : 'preset-a10', [
      CLI,
      'diff',
      '-n',
      NS,
      '--kubeconfig',
      kubeconfig,
      ...operatorFlags,
      '--rebuild',
    ]);
    await running.ctl.stop();
    await proxy.close();
    await hub?.close();
    const WRITE = /^(create|update|patch|delete|deletecollection) /;
    const writesByResource = Object.entries(takeoverCounts.byResource)
      .filter(([k]) => WRITE.test(k))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} × ${v}`);

    const { problems, notes } = compare(before!, after);
    const setProblems = compareSets(before!, after);
    const k = karpenterBefore && karpenterAfter ? compareKarpenter(karpenterBefore, karpenterAfter) : undefined;
    const checkFindings = checkBefore ? checkBefore.stdout.trim().split('\n').slice(0, -1) : [];
    const unhandled = checkFindings.filter((l) => !HANDLED_BY_SWITCH.test(l));
    const out = [
      `${from} → kaito-ts, ${mode} mode${chart ? ` (KAITO's chart, release ${KAITO_RELEASE}, webhooks served; the switch as docs/takeover.md writes it)` : ''}`,
      `workspaces: ${WORKSPACES.map((w) => w.metadata.name).join(', ')}; pods ${before!.pods.size}; children ${before!.children.size}`,
      ...[...before!.sets].map(
        ([name, s]) =>
          `inferenceset ${name} (created as ${SETS.find((x) => x.metadata.name === name)?.apiVersion ?? '?'}): children ${[...s.members.keys()].join(', ')}`,
      ),
      ...(karpenterBefore && karpenterAfter ? [`before: ${describeKarpenter(karpenterBefore)}`, `after:  ${describeKarpenter(karpenterAfter)}`] : []),
      ...(checkBefore
        ? [
            `kaito-ts check before the switch: exit ${checkBefore.code}, ${checkFindings.length} finding(s)`,
            ...checkFindings.map((l) => `  ${l}`),
            ...(checkBefore.code !== 1
              ? [
                  `FAIL: kaito-ts check exited ${checkBefore.code} before the switch (expected 1: KAITO's CRDs and webhooks)${checkBefore.stderr.trim() ? `: ${checkBefore.stderr.trim()}` : ''}`,
                ]
              : []),
            ...unhandled.map((l) => `FAIL: a finding the switch does not handle: ${l}`),
          ]
        : []),
      `kaito-ts diff before the switch (${from} ${chart ? 'running' : 'stopped'}): exit ${diff.code}; with --rebuild: exit ${rebuilt.code}`,
      ...(hub
        ? [
            `Hugging Face endpoint: ${hubBefore} requests from ${from} (through the huggingface.co proxy), ${hub.hub.requests.length - hubBefore} from kaito-ts diff and kaito-ts`,
          ]
        : []),
      // What the operator would write on its first pass: nothing but status, so the diff must be empty.
      ...(diff.code !== 0 ? [`FAIL: kaito-ts diff exited ${diff.code} before kaito-ts started: it would change a child`] : []),
      ...(switched
        ? ['--- the switch (docs/takeover.md, section 2, each step as written) ---', ...switchLines, ...switchProblems.map((p) => `FAIL: ${p}`)]
        : []),
      `kaito-ts API writes after takeover: ${writes} (counting proxy: ${countWrites(takeoverCounts.byVerb)} writes: ${writesByResource.join(', ') || 'none'})`,
      ...sideNotes(sideBefore!, sideAfter).map((n) => `written (expected: kaito-ts owns status and its ConfigMap copy): ${n}`),
      ...(k
        ? [
            '--- NodePools, NodeClaims, nodes, NodeClass ---',
            ...k.notes.map((n) => `note: ${n}`),
            ...(k.problems.length
              ? k.problems.map((p) => `FAIL: ${p}`)
              : ['PASS: no NodePool rewritten (generation, metadata, spec), no NodeClaim or node replaced, NodeClass untouched']),
            '--- pods and workload children ---',
          ]
        : []),
      ...notes.map((n) => `note: ${n}`),
      ...(problems.length
        ? problems.map((p) => `FAIL: ${p}`)
        : [
            `PASS: no pod restarted or re-created; no Workspace, StatefulSet, Service, ControllerRevision or Job re-created or changed apart from status${chart ? ` (after helm uninstall ${KAITO_RELEASE})` : ''}`,
          ]),
      ...(before!.sets.size
        ? setProblems.length
          ? setProblems.map((p) => `FAIL: ${p}`)
          : [`PASS: InferenceSets ${[...before!.sets.keys()].join(', ')}: no child Workspace created or deleted, spec unchanged`]
        : []),
      ...(versionWrites
        ? versionWrites.problems.length
          ? versionWrites.problems.map((p) => `FAIL: after the switch: ${p}`)
          : [`PASS: writes accepted after the switch through kaito.sh/v1alpha1 and v1beta1: ${versionWrites.passed.join(', ')}`]
        : []),
      `--- a spec change after the takeover (an adapter added to ${rolled.workspace}) ---`,
      rolled.problem ? `FAIL: ${rolled.problem}` : `PASS: ${rolled.summary}`,
      `--- generator differences: kaito-ts diff --rebuild (what kaito-ts would build, compared although the revision matches; nothing of it was written) ---`,
      ...rebuilt.stdout
        .split('\n')
        .filter((l) => / would | would$|^ {4}|would change$/.test(l) || /would change/.test(l))
        .map((l) => l.trimEnd()),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    const failed =
      problems.length ||
      setProblems.length ||
      k?.problems.length ||
      diff.code !== 0 ||
      rolled.problem ||
      switchProblems.length ||
      versionWrites?.problems.length ||
      (checkBefore && (checkBefore.code !== 1 || unhandled.length));
    return failed ? 1 : 0;
  } finally {
    log('stopping the private cluster');
    await sh(process.execPath, [CLI, 'simcluster', 'down'], CLUSTER_ENV);
  }
}

let parsed: TakeoverOptions | 'help';
try {
  parsed = parseTakeoverArgs(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`takeover: ${(err as Error).message}\n${TAKEOVER_USAGE}`);
  process.exit(2);
}
if (parsed === 'help') {
  process.stdout.write(TAKEOVER_USAGE);
  process.exit(0);
}
main(parsed).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`takeover: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
