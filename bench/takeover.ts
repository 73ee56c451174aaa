// The takeover run (docs/takeover.md): KAITO v0.8.0's controller brings preset and template
// workspaces to InferenceReady on a private local cluster, is stopped, `kaito-ts diff` runs, kaito-ts's
// CRD is applied and kaito-ts starts. Then: was any pod restarted, and was any StatefulSet, Service or
// ControllerRevision re-created or changed apart from status? Needs KAITO's binary (docs/benchmarks.md),
// so it is a script, not part of `npm test`: `npm run build && node dist/bench/takeover.js`.
// The cluster is its own (state dir ~/.cache/kaito-ts/takeover-simcluster, ports +3000): KAITO
// watches every namespace and must not touch the shared cluster. It is stopped at the end.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { GROUP, PLURAL, VERSION } from '../src/api/types.js';
import { comparable, fieldChanges, formatChange } from '../src/diff/changes.js';
import { freePort, startController, type RunningController } from './child.js';
import { ensureReleaseNamespace, installCrds } from './cluster.js';
import { CONTROLLERS, missingPrerequisite, type ControllerId } from './controllers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'kaito-ts.js');
const CACHE = process.env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts');
const CLUSTER_ENV = { ...process.env, KAITO_TS_SIMCLUSTER_DIR: join(CACHE, 'takeover-simcluster'), KAITO_TS_SIM_PORT_OFFSET: '3000' };
const RELEASE_NAMESPACE = 'kaito-workspace';
const NS = 'takeover';
const POOL = 'kaito.sh/sim-pool';

const NODES = {
  pools: [
    { name: 'a10', count: 2, instanceType: 'Standard_NV36ads_A10_v5', gpu: { product: 'NVIDIA-A10', count: 1, memoryMiB: 24576 }, cpu: '36', memory: '440Gi' },
    {
      name: 'a100',
      count: 1,
      instanceType: 'Standard_NC24ads_A100_v4',
      gpu: { product: 'NVIDIA-A100-80GB-PCIe', count: 1, memoryMiB: 81920 },
      cpu: '24',
      memory: '220Gi',
      nvme: { volumes: 2, size: '1000Gi' },
    },
  ],
};

/** KAITO v0.8.0 YAML, bring-your-own nodes (no instanceType with disableNodeAutoProvisioning=true). */
const WORKSPACES = [
  {
    metadata: { name: 'preset-a10' },
    resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a10' } } },
    inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
  },
  {
    metadata: { name: 'preset-a100' },
    resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a100' } } },
    inference: { preset: { name: 'phi-4-mini-instruct' } },
  },
  {
    metadata: { name: 'template-nginx' },
    resource: { count: 1, labelSelector: { matchLabels: { [POOL]: 'a10' } } },
    inference: {
      template: {
        metadata: { labels: { app: 'template-nginx' } },
        spec: { containers: [{ name: 'server', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { 'nvidia.com/gpu': 1 } } }] },
      },
    },
  },
].map((w) => ({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Workspace', ...w, metadata: { ...w.metadata, namespace: NS } }));

function sh(cmd: string, args: string[], env = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
  });
}

async function must(cmd: string, args: string[], env = process.env): Promise<string> {
  const r = await sh(cmd, args, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

const log = (line: string): void => void process.stderr.write(`[takeover] ${line}\n`);

interface Snapshot {
  pods: Map<string, { uid: string; restarts: number; started: string }>;
  children: Map<string, { uid: string; rv: string; body: unknown; managers: string[] }>;
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
  for (const kind of ['statefulsets', 'services', 'controllerrevisions']) {
    for (const o of await items(kind)) {
      children.set(`${kind}/${o.metadata?.name}`, {
        uid: o.metadata?.uid ?? '',
        rv: o.metadata?.resourceVersion ?? '',
        body: comparable(o),
        managers: (o.metadata?.managedFields ?? []).map((m) => `${m.manager}:${m.operation}${m.subresource ? `/${m.subresource}` : ''}`).sort(),
      });
    }
  }
  return { pods, children };
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
  return { problems, notes };
}

async function waitUntil(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(1000);
  }
}

async function start(id: ControllerId, kubeconfig: string, dir: string): Promise<{ ctl: RunningController; metrics: string }> {
  const [probe, metrics] = [await freePort(), await freePort()];
  const launch = CONTROLLERS[id].launch({
    kubeconfig,
    qps: 30,
    burst: 50,
    releaseNamespace: RELEASE_NAMESPACE,
    projectRoot: ROOT,
    nap: false,
    metricsAddress: `127.0.0.1:${metrics}`,
    probeAddress: `127.0.0.1:${probe}`,
  });
  const logFile = join(dir, `${id}.log`);
  log(`starting ${id} (log ${logFile})`);
  return { ctl: await startController(launch, logFile, `http://127.0.0.1:${probe}/readyz`), metrics: `http://127.0.0.1:${metrics}/metrics` };
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

async function main(): Promise<number> {
  for (const id of ['kaito-v0.8.0', 'kaito-ts'] as const) {
    const missing = missingPrerequisite(id, ROOT);
    if (missing) throw new Error(missing);
  }
  const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-takeover-'));
  const nodesFile = join(dir, 'nodes.yaml');
  writeFileSync(nodesFile, stringify(NODES));
  log(`private cluster in ${CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR}`);
  mkdirSync(CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR, { recursive: true });
  await must(process.execPath, [CLI, 'simcluster', 'up', '--nodes-file', nodesFile], CLUSTER_ENV);
  try {
    const kubeconfig = join(CLUSTER_ENV.KAITO_TS_SIMCLUSTER_DIR, 'admin.kubeconfig');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const kubectlBin = (await must(process.execPath, [CLI, 'simcluster', 'env'], CLUSTER_ENV)).match(/PATH='([^']+)'/)?.[1] ?? '';
    const kubectl = (args: string[]) => must(join(kubectlBin, 'kubectl'), ['--kubeconfig', kubeconfig, ...args]);
    await installCrds(kc, CONTROLLERS['kaito-v0.8.0'].crds());
    await ensureReleaseNamespace(kc, RELEASE_NAMESPACE);
    await kubectl(['create', 'namespace', NS]).catch(() => '');
    const api = kc.makeApiClient(CustomObjectsApi);
    for (const body of WORKSPACES)
      await api.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: NS, body }).catch(() => undefined);
    const workspaces = async () =>
      (
        (await api.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: NS })) as {
          items: { metadata: { name: string }; status?: { state?: string; conditions?: { type: string; status: string }[] } }[];
        }
      ).items;
    const allReady = async () => (await workspaces()).every((w) => w.status?.conditions?.some((c) => c.type === 'InferenceReady' && c.status === 'True'));

    const kaito = await start('kaito-v0.8.0', kubeconfig, dir);
    await waitUntil('KAITO: every workspace InferenceReady', 300_000, allReady);
    await sleep(10_000); // let KAITO settle (its last status writes)
    await kaito.ctl.stop();
    log('KAITO stopped');
    const before = await snapshot(kubectl);

    const diff = await sh(process.execPath, [CLI, 'diff', '-n', NS, '--kubeconfig', kubeconfig, '--feature-gates', 'disableNodeAutoProvisioning=true']);
    log(`kaito-ts diff (exit ${diff.code}):\n${diff.stdout}${diff.stderr}`);

    await installCrds(kc, CONTROLLERS['kaito-ts'].crds());
    const ours = await start('kaito-ts', kubeconfig, dir);
    // kaito-ts writes status.state (KAITO v0.9's field), which KAITO v0.8.0 never sets: reconciled.
    await waitUntil(
      'kaito-ts: every workspace reconciled (status.state) and InferenceReady',
      120_000,
      async () => (await workspaces()).every((w) => !!w.status?.state) && (await allReady()),
    );
    await sleep(15_000);
    const writes = await writesOf(ours.metrics);
    const after = await snapshot(kubectl);
    await ours.ctl.stop();

    const { problems, notes } = compare(before, after);
    const out = [
      `workspaces: ${WORKSPACES.map((w) => w.metadata.name).join(', ')}; pods ${before.pods.size}; children ${before.children.size}`,
      `kaito-ts diff after KAITO stopped: exit ${diff.code}`,
      `kaito-ts API writes after takeover: ${writes}`,
      ...notes.map((n) => `note: ${n}`),
      ...(problems.length
        ? problems.map((p) => `FAIL: ${p}`)
        : ['PASS: no pod restarted or re-created; no StatefulSet, Service or ControllerRevision re-created or changed apart from status']),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    return problems.length ? 1 : 0;
  } finally {
    log('stopping the private cluster');
    await sh(process.execPath, [CLI, 'simcluster', 'down'], CLUSTER_ENV);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`takeover: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
