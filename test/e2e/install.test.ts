// The chart on the real local control plane: it renders and passes server-side dry-run; two
// `kaito-ts run --leader-elect` processes authenticate with the chart's ServiceAccount token (RBAC
// enforced by the API server, no admin certificate), exactly one holds the Lease, a workspace
// converges, the standby takes over after a SIGKILL (time printed) and keeps reconciling, SIGTERM drains
// and releases the Lease with exit 0; probes and metrics answer; no secret value is ever logged.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { bed, kubectl, serviceAccountKubeConfig, uniqueName, waitFor } from './harness.js';
import { applyWorkspace, CLI_PATH, conditionOf, createPools, deletePools, installCrd, killHard, pool, selectorFor, waitReady } from './support/operator.js';

/** Failover rounds (kill the leader, a fresh standby takes over); 1 in CI. */
const FAILOVER_ROUNDS = Math.max(1, Number(process.env.KAITO_TS_FAILOVER_ROUNDS ?? 1));

const ROOT = join(import.meta.dirname, '..', '..', '..');
const CHART = join(ROOT, 'charts', 'kaito-ts');

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    );
  });
}

/** helm from its Go module (cached after the first build), linked into the simcluster bin folder. */
async function helm(): Promise<string> {
  return (await run(join(ROOT, 'simcluster', 'build-helm.sh'), [])).trim();
}

interface Operator {
  child: ChildProcess;
  lines: () => Record<string, unknown>[];
  raw: () => string;
  started: () => { identity?: string; healthUrl?: string; metricsUrl?: string } | undefined;
}

function spawnOperator(t: TestContext, kubeconfig: string, ns: string): Operator {
  const child = spawn(
    process.execPath,
    [
      CLI_PATH,
      'run',
      '--kubeconfig',
      kubeconfig,
      '--leader-elect',
      '--leader-election-namespace',
      ns,
      '--namespace',
      ns,
      '--release-namespace',
      ns,
      '--feature-gates',
      'disableNodeAutoProvisioning=true',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      '--log-level',
      'debug',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => void (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => void (out += d.toString()));
  t.after(() => killHard(child));
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, raw: () => out, lines, started: () => lines().find((l) => l.msg === 'kaito-ts operator started') };
}

async function leaseHolder(ns: string): Promise<string | undefined> {
  const out = await kubectl(['get', 'lease', 'kaito-ts-leader', '-o', 'jsonpath={.spec.holderIdentity}'], { namespace: ns }).catch(() => undefined);
  return out === undefined ? undefined : out.trim();
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

const metric = (body: string, line: string): number | undefined => {
  const hit = body.split('\n').find((l) => l.startsWith(`${line} `));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
};

test(
  'helm chart: dry-run install, two replicas under the chart ServiceAccount, lease failover, metrics, probes, no secret in logs',
  { timeout: 360_000 + 30_000 * FAILOVER_ROUNDS },
  async (t) => {
    const b = await bed();
    const helmBin = await helm();
    await installCrd();
    const ns = uniqueName('install');
    const release = uniqueName('kt');
    await kubectl(['create', 'namespace', ns]);
    const tmp = mkdtempSync(join(tmpdir(), 'kaito-ts-install-'));
    const p = pool('a100', 2);
    t.after(async () => {
      if (process.env.KAITO_TS_KEEP_NAMESPACES) return;
      await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
      await kubectl(['delete', 'clusterrole,clusterrolebinding', '-l', `app.kubernetes.io/instance=${release}`, '--ignore-not-found']);
      await deletePools([p]);
      rmSync(tmp, { recursive: true, force: true });
    });

    // 1. The chart renders (with the optional StorageClass too) and the API server accepts every object.
    const rendered = await run(helmBin, ['template', release, CHART, '--namespace', ns, '--include-crds', '--set', 'nvmeStorageClass.create=true'], {
      ...process.env,
      KUBECONFIG: b.kubeconfigPath,
    });
    const docs = parseAllDocuments(rendered)
      .map((d) => d.toJS() as { kind: string; metadata: { name: string } })
      .filter(Boolean);
    const kinds = docs.map((d) => d.kind).sort();
    assert.deepEqual(kinds, [
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'StorageClass',
    ]);
    // The bed already has its own kaito-local-nvme-disk (different provisioner, immutable): dry-run ours under another name.
    const input = docs.map((d) => JSON.stringify(d.kind === 'StorageClass' ? { ...d, metadata: { ...d.metadata, name: `${release}-nvme` } } : d)).join('\n');
    const dryRun = await kubectl(['apply', '--dry-run=server', '--server-side', '--force-conflicts', '--field-manager=kaito-ts-e2e', '-f', '-'], { input });
    assert.equal(dryRun.split('\n').filter((l) => l.includes('(server dry run)')).length, docs.length, dryRun);
    assert.match(dryRun, /deployment\.apps\/\S+ serverside-applied \(server dry run\)/);
    const plain = await run(helmBin, ['template', release, CHART, '--namespace', ns]);
    assert.ok(!plain.includes('kind: StorageClass'), 'no StorageClass unless asked for');
    const deployment = docs.find((d) => d.kind === 'Deployment') as unknown as {
      spec: {
        replicas: number;
        template: { spec: { terminationGracePeriodSeconds: number; containers: { args: string[]; securityContext: Record<string, unknown> }[] } };
      };
    };
    assert.equal(deployment.spec.replicas, 2);
    assert.ok(deployment.spec.template.spec.terminationGracePeriodSeconds >= 45);
    assert.ok(deployment.spec.template.spec.containers[0]?.args.includes('--leader-elect'));
    assert.deepEqual(deployment.spec.template.spec.containers[0]?.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });

    // 2. Install the identity and RBAC for real (the image is not run here: the operator runs as local processes).
    const rbacOnly = docs.filter((d) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(d.kind));
    await kubectl(['apply', '-f', '-'], { input: rbacOnly.map((d) => JSON.stringify(d)).join('\n') });
    const sa = docs.find((d) => d.kind === 'ServiceAccount')!.metadata.name;
    const kubeconfig = join(tmp, 'sa.kubeconfig');
    writeFileSync(kubeconfig, (await serviceAccountKubeConfig(ns, sa)).exportConfig());
    // The token really is subject to RBAC: it may not write Secrets or touch another namespace's leases.
    const canI = (...args: string[]) =>
      new Promise<string>((resolve) => {
        execFile(
          join(b.binDir, 'kubectl'),
          ['auth', 'can-i', ...args, `--as=system:serviceaccount:${ns}:${sa}`],
          { env: { ...process.env, KUBECONFIG: b.kubeconfigPath } },
          (_e, stdout) => resolve(stdout.trim()),
        );
      });
    // Secrets: get (the HF_TOKEN key check) and list/watch (the metadata-only watch; RBAC cannot say
    // "metadata only", the operator asks for PartialObjectMetadata), never a write.
    assert.equal(await canI('get', 'secrets', '-n', ns), 'yes');
    assert.equal(await canI('create', 'secrets', '-n', ns), 'no');
    assert.equal(await canI('delete', 'secrets', '-n', ns), 'no');
    assert.equal(await canI('patch', 'leases/kaito-ts-leader', '-n', ns), 'yes');
    assert.equal(await canI('patch', 'leases/other', '-n', ns), 'no');
    assert.equal(await canI('create', 'leases', '-n', 'default'), 'no');
    assert.equal(await canI('update', 'statefulsets', '-n', ns), 'no');

    await createPools([p]);
    const token = `hf_${randomBytes(18).toString('hex')}`;
    await kubectl(['create', 'secret', 'generic', 'hf-token', `--from-literal=HF_TOKEN=${token}`], { namespace: ns });

    // 3. Two replicas; exactly one leads.
    const ops = [spawnOperator(t, kubeconfig, ns), spawnOperator(t, kubeconfig, ns)];
    const diagnose = () => ops.map((o, i) => `--- operator ${i}:\n${o.raw().slice(-2500)}`).join('\n');
    try {
      await waitFor('both operators started', () => ops.every((o) => o.started()), { timeoutMs: 30_000 });
      const ids = ops.map((o) => o.started()!.identity!);
      const holder = await waitFor(
        'a lease holder',
        async () => {
          const h = await leaseHolder(ns);
          return h && ids.includes(h) ? h : undefined;
        },
        { timeoutMs: 30_000 },
      );
      const leader = ops[ids.indexOf(holder)]!;
      const standby = ops[1 - ids.indexOf(holder)]!;

      // 4. A workspace with a gated model converges under the ServiceAccount's permissions.
      await applyWorkspace(ns, {
        metadata: { name: 'llama' },
        resource: { labelSelector: selectorFor(p) },
        inference: { preset: { name: 'llama-3.1-8b-instruct', presetOptions: { modelAccessSecret: 'hf-token' } } },
      });
      const ws = await waitReady(ns, 'llama', 90_000);
      assert.equal(conditionOf(ws, 'WorkspaceSucceeded')?.status, 'True');
      assert.ok(
        leader.lines().some((l) => l.msg === 'reconciled' && l.key === `${ns}/llama` && typeof l.reconcileID === 'string'),
        'a per-pass line with a reconcileID',
      );
      assert.ok(!standby.lines().some((l) => l.msg === 'reconciled'), 'the standby does not reconcile');

      // 5. Probes (both ready; readiness does not depend on the lease) and metrics.
      for (const o of ops) {
        const s = o.started()!;
        assert.equal((await get(`${s.healthUrl}/healthz`)).status, 200);
        assert.equal(
          await waitFor('readyz 200', async () => ((await get(`${s.healthUrl}/readyz`)).status === 200 ? true : undefined), { timeoutMs: 20_000 }),
          true,
        );
      }
      const lm = (await get(`${leader.started()!.metricsUrl}/metrics`)).body;
      assert.ok(
        (metric(lm, 'controller_runtime_reconcile_total{controller="workspace",result="success"}') ?? 0) +
          (metric(lm, 'controller_runtime_reconcile_total{controller="workspace",result="requeue_after"}') ?? 0) >
          0,
      );
      assert.equal(metric(lm, 'leader_election_master_status{name="kaito-ts-leader"}'), 1);
      assert.equal(metric(lm, 'kaito_workspace_count{phase="succeeded"}'), 1);
      for (const name of [
        'workqueue_depth',
        'workqueue_adds_total',
        'workqueue_queue_duration_seconds_bucket',
        'workqueue_work_duration_seconds_bucket',
        'controller_runtime_reconcile_time_seconds_bucket',
        'controller_runtime_active_workers',
        'rest_client_requests_total',
      ]) {
        assert.ok(lm.includes(`\n${name}{`), `metric ${name}`);
      }
      const sm = (await get(`${standby.started()!.metricsUrl}/metrics`)).body;
      assert.equal(metric(sm, 'leader_election_master_status{name="kaito-ts-leader"}'), 0);
      assert.equal(metric(sm, 'kaito_workspace_count{phase="succeeded"}'), 1, 'cache-based: the standby counts too');

      // 6. SIGKILL the leader: the standby takes over and keeps reconciling. The takeover time is
      // printed, not asserted (it depends on where in the renew cycle the kill lands).
      // KAITO_TS_FAILOVER_ROUNDS=N repeats kill → takeover N times, a fresh standby each round.
      const takeovers: number[] = [];
      let current = leader;
      let next = standby;
      for (let round = 0; round < FAILOVER_ROUNDS; round++) {
        if (round > 0) {
          next = spawnOperator(t, kubeconfig, ns);
          ops.push(next);
          await waitFor('the new standby watches the lease', () => (next.lines().some((l) => l.msg === 'waiting for the leader lease') ? true : undefined), {
            timeoutMs: 30_000,
          });
        }
        await sleep(Math.random() * 1_500); // land the kill anywhere in the 1.2 s renew cycle
        const killedAt = Date.now();
        await killHard(current.child);
        const nextId = next.started()!.identity!;
        await waitFor('the standby holds the lease', async () => ((await leaseHolder(ns)) === nextId ? true : undefined), {
          timeoutMs: 60_000,
          intervalMs: 250,
        });
        const acquired = next.lines().find((l) => l.msg === 'acquired leader lease');
        assert.ok(acquired, 'the new leader logs the acquisition');
        takeovers.push(Date.parse(String(acquired.time)) - killedAt);
        current = next;
      }
      const seconds = takeovers.map((ms) => (ms / 1000).toFixed(1));
      t.diagnostic(
        `takeover after SIGKILL of the leader (lease 9 s, renew 6 s, retry 1.2 s), ${FAILOVER_ROUNDS} round(s): ${seconds.join(', ')} s; worst ${(Math.max(...takeovers) / 1000).toFixed(1)} s`,
      );
      const standbyNow = current;
      await applyWorkspace(ns, {
        metadata: { name: 'phi' },
        resource: { labelSelector: selectorFor(p) },
        inference: { preset: { name: 'phi-4-mini-instruct' } },
      });
      await waitReady(ns, 'phi', 90_000);
      assert.ok(standbyNow.lines().some((l) => l.msg === 'reconciled' && l.key === `${ns}/phi`));

      // 7. SIGTERM: drain, release the lease, exit 0.
      const exited = once(standbyNow.child, 'exit');
      standbyNow.child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, diagnose());
      assert.equal(await leaseHolder(ns), '', 'the lease is handed back on a graceful stop');
      assert.ok(standbyNow.lines().some((l) => l.msg === 'released leader lease'));

      // 8. No secret value anywhere in either log (the token was read by both the operator's Secret check and the pods' env).
      for (const o of ops) {
        assert.ok(!o.raw().includes(token), 'the HF token value appears in a log');
        assert.ok(!o.raw().includes(Buffer.from(token).toString('base64')), 'the base64 HF token appears in a log');
        assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./.test(o.raw()), 'a ServiceAccount token appears in a log');
      }
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${diagnose()}`);
    }
  },
);
