// No GPU node left behind (issue 37 item 4), under node auto-provisioning: the simulated
// gpu-provisioner makes a node for every NodeClaim, so a NodeClaim that outlives its workspace is a
// node billed for ever. (1) A seeded storm of InferenceSet /scale writes and standalone workspaces
// created and deleted while the operator is SIGKILLed, NodeClaims and Workspaces watched throughout.
// (2) A NodeClaim labelled for a workspace that is gone, made while the operator is down, is deleted
// after the operator starts, with an event.
//
// Replay a storm: KAITO_TS_STORM_SEED=<seed> (printed by every run); KAITO_TS_STORM_STEPS and
// KAITO_TS_STORM_KILLS make it longer (the CI default is the small variant, docs/e2e.md).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { LABEL_INFERENCESET_CREATED_BY } from '../../../src/api/labels.js';
import { kubectl, uniqueName, waitFor } from '../harness.js';
import { applyInferenceSet, members } from '../support/inferenceset.js';
import { prng } from '../support/prng.js';
import { applyWorkspace, getAll, killHard, listWorkspaces, NAP_ARGS, record, sleep, spawnOperator, world, type Recorded } from '../support/operator.js';

const A10 = 'Standard_NV36ads_A10_v5';
const GONE_DEADLINE_MS = 60_000;

const claimsOfNamespace = (ns: string) => getAll<NodeClaim>('', 'nodeclaims', `kaito.sh/workspacenamespace=${ns}`);

/** NodeClaims of `ns` whose workspace does not exist (deleting ones included: their node is still there). */
async function claimsOfGoneWorkspaces(ns: string): Promise<string[]> {
  const live = new Set((await listWorkspaces(ns)).map((ws) => ws.metadata.name));
  return (await claimsOfNamespace(ns))
    .filter((c) => !live.has(c.metadata.labels['kaito.sh/workspace']))
    .map((c) => `${c.metadata.name} (workspace ${c.metadata.labels['kaito.sh/workspace']}${c.metadata.deletionTimestamp ? ', deleting' : ''})`);
}

/** The most live (not deleting) children of `set` seen at any moment of the recorded watch. */
function peakLiveChildren(events: Recorded<WorkspaceObject>[], set: string): number {
  const live = new Map<string, boolean>();
  let peak = 0;
  for (const e of events) {
    if (e.obj.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] !== set) continue;
    if (e.type === 'DELETED' || e.obj.metadata.deletionTimestamp) live.delete(e.obj.metadata.uid ?? '');
    else live.set(e.obj.metadata.uid ?? '', true);
    peak = Math.max(peak, live.size);
  }
  return peak;
}

function napWorkspace(name: string, selector: Record<string, string>) {
  return {
    metadata: { name },
    resource: { instanceType: A10, labelSelector: { matchLabels: selector } },
    inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
  };
}

test('NAP storm: /scale writes and workspaces created and deleted while the operator is SIGKILLed; no NodeClaim of a gone workspace, no extra child', async (t) => {
  const seed = Number(process.env.KAITO_TS_STORM_SEED ?? randomBytes(4).readUInt32BE());
  const steps = Number(process.env.KAITO_TS_STORM_STEPS ?? 60);
  const kills = Number(process.env.KAITO_TS_STORM_KILLS ?? 3);
  const maxReplicas = 3;
  t.diagnostic(`seed ${seed} (replay: KAITO_TS_STORM_SEED=${seed} KAITO_TS_STORM_STEPS=${steps} KAITO_TS_STORM_KILLS=${kills})`);
  console.error(`nap storm seed ${seed}`);
  const rand = prng(seed);
  const pick = (n: number) => Math.floor(rand() * n);

  const w = await world(t, { operatorArgs: NAP_ARGS, operator: false });
  const selector = { apps: uniqueName('storm') };
  const seen = await record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  const claimEvents = await record<NodeClaim>(t, '/apis/karpenter.sh/v1/nodeclaims');
  await applyInferenceSet(w.ns, 'x', 1, { matchLabels: selector }, { instanceType: A10 });
  let op = await spawnOperator(w.ns, NAP_ARGS);
  t.after(() => killHard(op.child));

  const writes: number[] = [1];
  const standalone = new Set<string>();
  let made = 0;
  const killAt = new Set(Array.from({ length: kills }, (_, i) => Math.floor(((i + 1) * steps) / (kills + 1))));
  const t0 = Date.now();
  for (let i = 0; i < steps; i++) {
    const r = rand();
    if (r < 0.7) {
      const n = pick(maxReplicas + 1);
      writes.push(n);
      await kubectl(['scale', 'inferenceset/x', `--replicas=${n}`], { namespace: w.ns });
    } else if (r < 0.85 || standalone.size === 0) {
      const name = `s${made++}`;
      standalone.add(name);
      await applyWorkspace(w.ns, napWorkspace(name, selector));
    } else {
      const name = [...standalone][pick(standalone.size)]!;
      standalone.delete(name);
      await kubectl(['delete', 'workspace', name, '--wait=false'], { namespace: w.ns });
    }
    await sleep(pick(300));
    if (killAt.has(i)) {
      await killHard(op.child);
      assert.equal(op.child.signalCode, 'SIGKILL');
      op = await spawnOperator(w.ns, NAP_ARGS);
    }
  }
  const stormS = Math.round((Date.now() - t0) / 100) / 10;
  const final = writes.at(-1)!;
  const stormEnd = Date.now();

  // The right children: `final` live children of x, the standalone workspaces still asked for.
  await waitFor(
    `x: ${final} live children; standalone ${[...standalone].join(',') || 'none'}`,
    async () => {
      const kids = (await members(w.ns, 'x')).filter((ws) => !ws.metadata.deletionTimestamp);
      const names = new Set((await listWorkspaces(w.ns)).filter((ws) => !ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY]).map((ws) => ws.metadata.name));
      return kids.length === final && [...standalone].every((s) => names.has(s)) && names.size === standalone.size;
    },
    { timeoutMs: GONE_DEADLINE_MS },
  );
  // No NodeClaim of a gone workspace 60 s after the storm.
  let gone: string[] = [];
  await waitFor(
    'no NodeClaim of a gone workspace',
    async () => {
      gone = await claimsOfGoneWorkspaces(w.ns);
      return gone.length === 0;
    },
    { timeoutMs: Math.max(1_000, stormEnd + GONE_DEADLINE_MS - Date.now()), intervalMs: 1_000 },
  ).catch(() =>
    assert.fail(`NodeClaims of gone workspaces ${GONE_DEADLINE_MS / 1000}s after the storm (seed ${seed}): ${gone.join(', ')}\n${op.output().slice(-3000)}`),
  );
  const cleanS = Math.round((Date.now() - stormEnd) / 100) / 10;

  // Never a second child for one replica: at no moment more live children than the most ever asked for.
  const peak = peakLiveChildren(seen, 'x');
  assert.ok(peak <= Math.max(...writes), `${peak} live children of x at once; at most ${Math.max(...writes)} were ever asked for (seed ${seed})`);
  const created = new Set(
    seen.filter((e) => e.type === 'ADDED' && e.obj.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] === 'x').map((e) => e.obj.metadata.uid),
  );
  const rises = writes.reduce((sum, n, i) => sum + Math.max(0, n - (i ? writes[i - 1]! : 0)), 0);
  assert.ok(created.size <= rises, `${created.size} children created for ${rises} upward replicas (seed ${seed})`);

  // The InferenceSet goes: every node of its children goes too.
  await kubectl(['delete', 'inferenceset', 'x', '--wait=false'], { namespace: w.ns });
  for (const s of standalone) await kubectl(['delete', 'workspace', s, '--wait=false'], { namespace: w.ns });
  const t1 = Date.now();
  await waitFor('no NodeClaim of the namespace left', async () => (await claimsOfNamespace(w.ns)).length === 0, {
    timeoutMs: GONE_DEADLINE_MS,
    intervalMs: 1_000,
  }).catch(async () => assert.fail(`left after deleting everything (seed ${seed}): ${(await claimsOfGoneWorkspaces(w.ns)).join(', ')}`));
  const mine = claimEvents.filter((e) => e.type === 'ADDED' && e.obj.metadata.labels?.['kaito.sh/workspacenamespace'] === w.ns).length;
  t.diagnostic(
    `seed ${seed}: ${steps} steps (${writes.length - 1} /scale writes, ${made} workspaces made) in ${stormS}s with ${kills} SIGKILLs; final ${final}; right children and no NodeClaim of a gone workspace ${cleanS}s after the storm; peak live children ${peak}; ${created.size} children for ${rises} rises; ${mine} NodeClaims created, all gone ${Math.round((Date.now() - t1) / 100) / 10}s after deleting everything`,
  );
});

test('a NodeClaim left by a workspace deleted while the operator was down is deleted after start, with an event', async (t) => {
  const w = await world(t, { operatorArgs: NAP_ARGS, operator: false });
  const name = `ws${randomBytes(5).toString('hex').slice(0, 9)}`;
  const claim = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': 'kaito', 'kaito.sh/workspace': 'ghost', 'kaito.sh/workspacenamespace': w.ns, apps: uniqueName('ghost') },
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    },
    spec: {
      nodeClassRef: { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' },
      taints: [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }],
      requirements: [
        { key: 'karpenter.sh/nodepool', operator: 'In', values: ['kaito'] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [A10] },
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
        { key: 'karpenter.azure.com/sku-name', operator: 'In', values: [A10] },
      ],
      resources: { requests: { storage: '1024Gi' } },
    },
  };
  await kubectl(['create', '-f', '-'], { input: JSON.stringify(claim) });
  t.after(() => kubectl(['delete', 'nodeclaim', name, '--ignore-not-found', '--wait=false']).catch(() => undefined));
  // The provisioner makes its node: a GPU node billed for a workspace that does not exist.
  await waitFor(
    `a node for NodeClaim ${name}`,
    async () => !!(await getAll<NodeClaim>('', 'nodeclaims')).find((c) => c.metadata.name === name)?.status?.nodeName,
    {
      timeoutMs: 60_000,
    },
  );
  const op = await spawnOperator(w.ns, NAP_ARGS);
  t.after(() => killHard(op.child));
  const t0 = Date.now();
  await waitFor(`NodeClaim ${name} gone`, async () => !(await getAll<NodeClaim>('', 'nodeclaims')).some((c) => c.metadata.name === name), {
    timeoutMs: 60_000,
  });
  const goneS = Math.round((Date.now() - t0) / 100) / 10;
  const events = await getAll<{ reason?: string; note?: string; regarding?: { kind?: string; name?: string } }>('default', 'events.events.k8s.io');
  const event = events.find((e) => e.regarding?.kind === 'NodeClaim' && e.regarding.name === name);
  assert.equal(event?.reason, 'OrphanNodeClaimDeleted', `an event regarding the claim in default: ${JSON.stringify(event)}`);
  assert.match(event?.note ?? '', new RegExp(`labelled for workspace ${w.ns}/ghost, which no longer exists`));
  assert.match(op.output(), /deleted nodes left by a workspace that no longer exists/);
  t.diagnostic(`orphan NodeClaim ${name} deleted ${goneS}s after the operator started; event: ${event?.note}`);
});
