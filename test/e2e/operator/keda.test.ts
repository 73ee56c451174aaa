// Real KEDA (v2.21, its operator and metrics server) in a PRIVATE simcluster scales an InferenceSet
// through its scale subresource: a ScaledObject with a metrics-api trigger reads a queue length from
// an HTTP endpoint the test serves on 127.0.0.1; KEDA's HPA (through KEDA's metrics server behind the
// aggregation layer) scales 1 → 3 → 1, KEDA's operator itself scales 1 → 0 when the trigger goes
// inactive and 0 → 1 when it comes back.
import { requireKedaBuilt, stopPrivateCluster } from '../support/keda-cluster.js';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { kubectl, waitFor } from '../harness.js';
import { applyInferenceSet, waitReplicas } from '../support/inferenceset.js';
import { getOne, pool, selectorFor, world } from '../support/operator.js';

after(stopPrivateCluster);

interface Condition {
  type: string;
  status: string;
  reason?: string;
}
interface ScaledObject {
  status?: { conditions?: Condition[]; hpaName?: string; scaleTargetKind?: string };
}
interface Hpa {
  spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string }; minReplicas?: number; maxReplicas?: number };
  status?: { desiredReplicas?: number };
}

/** The endpoint the trigger polls: `{"queue": <n>}`, n set by the test; counts the polls. */
async function queueEndpoint(): Promise<{ url: string; set(n: number): void; polls(): number; close(): Promise<void> }> {
  let queue = 0;
  let polls = 0;
  const server = createServer((_req, res) => {
    polls++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ queue }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/queue`,
    set: (n) => (queue = n),
    polls: () => polls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** 10 queued requests per replica, 1–3 replicas, 0 when the queue is empty for 5 s; KEDA polls every second. */
function scaledObject(name: string, url: string): Record<string, unknown> {
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', name },
      pollingInterval: 1,
      cooldownPeriod: 5,
      minReplicaCount: 0,
      maxReplicaCount: 3,
      // No stabilization window: the HPA acts on each value at its next sync (3 s on this cluster).
      advanced: {
        horizontalPodAutoscalerConfig: {
          behavior: { scaleUp: { stabilizationWindowSeconds: 0 }, scaleDown: { stabilizationWindowSeconds: 0 } },
        },
      },
      triggers: [{ type: 'metrics-api', metadata: { url, format: 'json', valueLocation: 'queue', targetValue: '10', activationTargetValue: '0' } }],
    },
  };
}

const condition = (so: ScaledObject | undefined, type: string): string | undefined => so?.status?.conditions?.find((c) => c.type === type)?.status;

test('KEDA: a ScaledObject with a metrics-api trigger scales an InferenceSet 1 → 3 → 1 through its HPA, then 1 → 0 → 1 itself', async (t) => {
  requireKedaBuilt();
  const w = await world(t, { pools: [pool('a10', 3)] });
  const queue = await queueEndpoint();
  t.after(() => queue.close());
  const t0 = Date.now();
  const mark = (what: string): void => t.diagnostic(`${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const ns = w.ns;

  await applyInferenceSet(ns, 'chat', 1, selectorFor(w.pools[0]!));
  await waitReplicas(ns, 'chat', 1);
  queue.set(5);
  await kubectl(['apply', '-f', '-'], { namespace: ns, input: JSON.stringify(scaledObject('chat', queue.url)) });

  // KEDA made its HPA on the InferenceSet, and says the trigger is read and active.
  const so = await waitFor(
    'the ScaledObject Ready=True and Active=True',
    async () => {
      const o = await getOne<ScaledObject>(ns, 'scaledobject', 'chat');
      return condition(o, 'Ready') === 'True' && condition(o, 'Active') === 'True' ? o : undefined;
    },
    { timeoutMs: 60_000 },
  );
  mark('ScaledObject Ready and Active');
  assert.equal(so.status?.hpaName, 'keda-hpa-chat');
  assert.equal(so.status?.scaleTargetKind, 'kaito.sh/v1beta1.InferenceSet');
  const hpa = await getOne<Hpa>(ns, 'hpa', 'keda-hpa-chat');
  assert.deepEqual(hpa?.spec?.scaleTargetRef, { apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', name: 'chat' });
  assert.equal(hpa?.spec?.minReplicas, 1);
  assert.equal(hpa?.spec?.maxReplicas, 3);
  assert.ok(queue.polls() > 0, 'KEDA polled the endpoint');

  // 30 queued at 10 per replica: KEDA's metrics server answers the HPA, which writes /scale.
  queue.set(30);
  const up = await waitReplicas(ns, 'chat', 3, 90_000);
  mark('3 Ready children');
  assert.equal(up.spec?.replicas, 3);
  const value = JSON.parse(
    await kubectl([
      'get',
      '--raw',
      `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/s0-metric-api-queue?labelSelector=scaledobject.keda.sh%2Fname%3Dchat`,
    ]),
  ) as { items?: { value?: string }[] };
  assert.equal(value.items?.[0]?.value, '30', 'the external metric, served by KEDA through the aggregation layer');
  assert.equal((await getOne<Hpa>(ns, 'hpa', 'keda-hpa-chat'))?.status?.desiredReplicas, 3);

  // The queue drains to 5: one replica.
  queue.set(5);
  await waitReplicas(ns, 'chat', 1, 90_000);
  mark('back to 1');

  // Empty: not active; after the 5 s cooldown KEDA's operator scales the InferenceSet to 0 itself.
  queue.set(0);
  await waitFor('the ScaledObject Active=False', async () => condition(await getOne<ScaledObject>(ns, 'scaledobject', 'chat'), 'Active') === 'False', {
    timeoutMs: 30_000,
  });
  const zero = await waitReplicas(ns, 'chat', 0, 60_000);
  mark('scaled to 0');
  assert.equal(zero.spec?.replicas, 0);

  // Work again: KEDA activates and scales 0 → 1; the HPA keeps 1 for 5 queued.
  queue.set(5);
  const one = await waitReplicas(ns, 'chat', 1, 60_000);
  mark('back from 0 to 1');
  assert.equal(one.spec?.replicas, 1);
  assert.equal(condition(await getOne<ScaledObject>(ns, 'scaledobject', 'chat'), 'Active'), 'True');
  await kubectl(['delete', 'scaledobject', 'chat'], { namespace: ns });
});
