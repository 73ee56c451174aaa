// Zero-downtime updates on the real control plane, with model loads that take time (a private
// cluster with the simcluster's model-load simulation: cold on a fresh weights claim, warm on one that
// held loaded weights) and a watch on the main Service's EndpointSlices as the availability oracle.
import { COLD_MS, WARM_MS, stopPrivateCluster } from '../support/model-load-cluster.js';
import assert from 'node:assert/strict';
import { after, describe, it, type TestContext } from 'node:test';
import type { V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { CONDITION_UPDATING, LABEL_SURGE } from '../../../src/api/labels.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { UpdateReason } from '../../../src/controllers/workspace/update-plan.js';
import { bed, waitFor } from '../harness.js';
import { watchAvailability, type AvailabilityWatch } from '../support/availability.js';
import {
  applyWorkspace,
  conditionOf,
  getAll,
  getOne,
  getWorkspace,
  killHard,
  NAP_ARGS,
  pool,
  record,
  selectorFor,
  spawnOperator,
  waitCondition,
  waitReady,
  world,
  type Recorded,
} from '../support/operator.js';

after(stopPrivateCluster);

const PRESET = 'phi-4-mini-instruct';
const ADAPTER = { source: { name: 'support-bot', image: 'example.com/adapters/support-bot:1' } };
/** Scheduling, watches, the endpoints controller and kwok on a busy 2-core host. */
const SLACK_MS = 60_000;
const UPDATE_TIMEOUT_MS = COLD_MS + WARM_MS + SLACK_MS;

/** The Updating reasons the watch recorded, once it has seen `last` too (a GET may see it before the watch event arrives). */
async function recordedSteps(history: Recorded<WorkspaceObject>[], name: string, last: string): Promise<{ reason: string; at: number }[]> {
  return waitFor(`the watch saw Updating ${last}`, () => {
    const steps = updatingSteps(history, name);
    return steps.some((s) => s.reason === last) && steps;
  });
}

/** The Updating reasons in the order the workspace went through them (repeats folded). */
function updatingSteps(history: Recorded<WorkspaceObject>[], name: string): { reason: string; at: number }[] {
  const steps: { reason: string; at: number }[] = [];
  for (const e of history) {
    if (e.obj.metadata.name !== name) continue;
    const reason = conditionOf(e.obj, CONDITION_UPDATING)?.reason;
    if (reason && steps.at(-1)?.reason !== reason) steps.push({ reason, at: e.at });
  }
  return steps;
}

async function servingWorkspace(
  t: TestContext,
  ns: string,
  spec: Record<string, unknown>,
): Promise<{ avail: AvailabilityWatch; history: Recorded<WorkspaceObject>[] }> {
  await applyWorkspace(ns, spec);
  await waitReady(ns, 'phi4', COLD_MS + SLACK_MS);
  const avail = await watchAvailability((await bed()).kc, ns, 'phi4');
  t.after(() => avail.stop());
  await waitFor('the main Service routes to phi4-0', async () => avail.readyPods().join() === 'phi4-0', { timeoutMs: 30_000 });
  const history = await record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${ns}/workspaces`);
  return { avail, history };
}

const surgeSets = async (ns: string) => (await getAll<V1StatefulSet>(ns, 'statefulset')).filter((s) => s.metadata?.labels?.[LABEL_SURGE]);

describe('zero-downtime updates (private cluster with model loads)', () => {
  it('BYO with a spare node: adding an adapter never leaves the Service without a serving pod', async (t) => {
    const w = await world(t, { pools: [pool('a100', 2)] });
    const spec = { metadata: { name: 'phi4' }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { preset: { name: PRESET } } };
    const { avail, history } = await servingWorkspace(t, w.ns, spec);
    const started = Date.now();
    await applyWorkspace(w.ns, { ...spec, inference: { ...spec.inference, adapters: [ADAPTER] } });
    const done = await waitCondition(w.ns, 'phi4', CONDITION_UPDATING, 'False', { reason: UpdateReason.CutoverComplete, timeoutMs: UPDATE_TIMEOUT_MS });
    const total = Date.now() - started;

    assert.deepEqual(avail.gaps(), [], `no instant without a serving endpoint; timeline ${JSON.stringify(avail.timeline())}`);
    const steps = (await recordedSteps(history, 'phi4', UpdateReason.CutoverComplete)).map((s) => s.reason);
    for (const want of [
      UpdateReason.SurgeStarting,
      UpdateReason.SurgeReady,
      UpdateReason.ServingFromSurge,
      UpdateReason.PrimaryReady,
      UpdateReason.CutoverComplete,
    ])
      assert.ok(steps.includes(want), `Updating went through ${want}: ${steps.join(' → ')}`);
    const servedBy = [...new Set(avail.timeline().flatMap((s) => s.pods))];
    assert.ok(
      servedBy.some((p) => /^phi4-s[0-9a-f]{5}-0$/.test(p)),
      `the surge pod served in between: ${servedBy.join(', ')}`,
    );
    assert.deepEqual(avail.readyPods(), ['phi4-0'], 'the canonical pod serves afterwards');
    const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi4');
    assert.ok(JSON.stringify(sts?.spec?.template).includes(ADAPTER.source.image), 'the primary runs the new template');
    assert.equal(conditionOf(done, 'InferenceReady')?.status, 'True');
    assert.equal(done.status?.state, 'Ready');
    assert.deepEqual(await surgeSets(w.ns), [], 'the surge StatefulSet is gone');
    await waitFor(
      'the surge weights claim is gone',
      async () => (await getAll(w.ns, 'pvc')).every((c) => !/-phi4-s[0-9a-f]{5}-0$/.test(c.metadata?.name ?? '')),
      {
        timeoutMs: 30_000,
      },
    );
    t.diagnostic(`update: ${(total / 1000).toFixed(1)}s in total (cold ${COLD_MS / 1000}s, warm ${WARM_MS / 1000}s); steps ${steps.join(' → ')}`);
  });

  it('BYO without a spare node: the surge gives way, the restart is announced first and the gap is a warm start', async (t) => {
    const w = await world(t, { pools: [pool('a100', 1)] });
    const spec = { metadata: { name: 'phi4' }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { preset: { name: PRESET } } };
    const { avail, history } = await servingWorkspace(t, w.ns, spec);
    await applyWorkspace(w.ns, { ...spec, inference: { ...spec.inference, adapters: [ADAPTER] } });
    await waitCondition(w.ns, 'phi4', CONDITION_UPDATING, 'False', { reason: UpdateReason.CutoverComplete, timeoutMs: UPDATE_TIMEOUT_MS });

    const gaps = avail.gaps();
    assert.equal(gaps.length, 1, `one gap: ${JSON.stringify(gaps)}`);
    const gap = gaps[0]!;
    assert.ok(gap.ms <= WARM_MS + 5_000, `the gap (${gap.ms} ms) is at most a warm start (${WARM_MS} ms) plus 5 s`);
    const steps = await recordedSteps(history, 'phi4', UpdateReason.CutoverComplete);
    const announced = steps.find((s) => s.reason === UpdateReason.FellBackToRecreate || s.reason === UpdateReason.PullingImages);
    assert.ok(announced, `the restart was announced: ${steps.map((s) => s.reason).join(' → ')}`);
    assert.ok(announced.at < gap.fromMs, 'announced before the gap began');
    const message = history.map((e) => conditionOf(e.obj, CONDITION_UPDATING)).find((c) => c?.reason === UpdateReason.PullingImages)?.message ?? '';
    assert.match(message, /inference stops for/, 'the condition states the expected gap');
    t.diagnostic(
      `one gap of ${(gap.ms / 1000).toFixed(1)}s (warm ${WARM_MS / 1000}s), announced ${((gap.fromMs - announced.at) / 1000).toFixed(1)}s before it began`,
    );
    await waitFor('the pre-pull Job is gone', async () => (await getAll(w.ns, 'job')).length === 0, { timeoutMs: 30_000 });
    assert.deepEqual(await surgeSets(w.ns), []);
  });

  it('the operator SIGKILLed at each step of the surge resumes from the objects: no gap, nothing leaked', async (t) => {
    const w = await world(t, { pools: [pool('a100', 2)], operator: false });
    let op = await spawnOperator(w.ns);
    t.after(() => killHard(op.child));
    const spec = { metadata: { name: 'phi4' }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { preset: { name: PRESET } } };
    const { avail } = await servingWorkspace(t, w.ns, spec);
    await applyWorkspace(w.ns, { ...spec, inference: { ...spec.inference, adapters: [ADAPTER] } });
    const order: string[] = [
      UpdateReason.SurgeStarting,
      UpdateReason.SurgeReady,
      UpdateReason.ServingFromSurge,
      UpdateReason.PrimaryReady,
      UpdateReason.CutoverComplete,
    ];
    const killedAt: string[] = [];
    const seen: string[] = [];
    for (const step of order.slice(0, -1)) {
      const reached = await waitFor(
        `Updating reaches ${step}`,
        async () => {
          const reason = conditionOf(await getWorkspace(w.ns, 'phi4'), CONDITION_UPDATING)?.reason ?? '';
          if (seen.at(-1) !== reason) seen.push(reason);
          return order.indexOf(reason) >= order.indexOf(step) && reason;
        },
        { timeoutMs: UPDATE_TIMEOUT_MS, intervalMs: 100 },
      );
      if (reached === UpdateReason.CutoverComplete) break;
      await killHard(op.child);
      killedAt.push(reached);
      op = await spawnOperator(w.ns);
    }
    await waitCondition(w.ns, 'phi4', CONDITION_UPDATING, 'False', { reason: UpdateReason.CutoverComplete, timeoutMs: UPDATE_TIMEOUT_MS });
    assert.ok(killedAt.length >= 3, `killed at ${killedAt.join(', ')}; Updating reasons seen: ${seen.join(' → ')}`);
    assert.deepEqual(avail.gaps(), [], `no gap; timeline ${JSON.stringify(avail.timeline())}`);
    assert.deepEqual(await surgeSets(w.ns), [], 'no surge StatefulSet left');
    await waitFor('no surge claim left', async () => (await getAll(w.ns, 'pvc')).every((c) => !/-phi4-s[0-9a-f]{5}-0$/.test(c.metadata?.name ?? '')), {
      timeoutMs: 30_000,
    });
    const svc = await getOne<V1Service>(w.ns, 'service', 'phi4');
    assert.equal(svc?.spec?.selector?.['statefulset.kubernetes.io/pod-name'], 'phi4-0', 'the Service selects the canonical pod');
    t.diagnostic(`killed at ${killedAt.join(', ')}`);
  });

  it('node auto-provisioning: the surge gets its own NodeClaim, serves, and the claim goes with it', async (t) => {
    const w = await world(t, { operatorArgs: NAP_ARGS });
    const spec = {
      metadata: { name: 'phi4' },
      resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: `upd-${w.ns}` } } },
      inference: { preset: { name: PRESET } },
    };
    const { avail } = await servingWorkspace(t, w.ns, spec);
    const claims = async () => (await getAll(w.ns, 'nodeclaims.karpenter.sh', `kaito.sh/workspacenamespace=${w.ns}`)).map((c) => c.metadata ?? {});
    assert.equal((await claims()).length, 1);
    await applyWorkspace(w.ns, { ...spec, inference: { ...spec.inference, adapters: [ADAPTER] } });
    await waitFor('a surge NodeClaim', async () => (await claims()).some((c) => c.labels?.[LABEL_SURGE]), { timeoutMs: 30_000 });
    await waitCondition(w.ns, 'phi4', CONDITION_UPDATING, 'False', { reason: UpdateReason.CutoverComplete, timeoutMs: UPDATE_TIMEOUT_MS + 60_000 });
    assert.deepEqual(avail.gaps(), [], `no gap; timeline ${JSON.stringify(avail.timeline())}`);
    await waitFor('the surge NodeClaim is gone', async () => (await claims()).every((c) => !c.labels?.[LABEL_SURGE]), { timeoutMs: 60_000 });
    assert.equal((await claims()).length, 1, "the workspace's own claim stays");
  });
});
