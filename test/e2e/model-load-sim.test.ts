// The model-load simulation in a PRIVATE simcluster: a workspace pod's first load is cold (its NVMe
// claim holds no weights yet), a restart on the same claim is warm; the availability watch on the
// Service's EndpointSlices sees the endpoint, then exactly one gap of about the warm delay while the
// pod restarts. A workspace pod on emptyDir loads cold; a pod without the workspace label is Ready at
// once, as on every cluster.
import { COLD_MS, LOAD_KIND_ANNOTATION, READY_AT_ANNOTATION, WARM_MS, WEIGHTS_LOADED_ANNOTATION, stopPrivateCluster } from './support/model-load-cluster.js';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AppsV1Api, CoreV1Api, type V1PersistentVolumeClaim, type V1Pod } from '@kubernetes/client-node';
import { isReady } from '../../src/runtime/conditions.js';
import { GPU_RESOURCE, NVME_STORAGE_CLASS, POOL_LABEL, bed, freshNamespace, kubectl, waitFor } from './harness.js';
import { watchAvailability } from './support/availability.js';
import { getOne } from './support/operator.js';

after(stopPrivateCluster);

const PAUSE = 'registry.k8s.io/pause:3.10';
const WORKSPACE_LABEL = 'kaito.sh/workspace';
/** Scheduling, the watch events, the endpoint controller and kwok on a busy 2-core host. */
const SLACK_MS = 15_000;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** Polls until pod `name` (another one than `notUid`) is Ready; returns it and when it was seen Ready. */
async function readyPod(ns: string, name: string, timeoutMs: number, notUid?: string): Promise<{ pod: V1Pod; atMs: number }> {
  return waitFor(
    `pod ${name}${notUid ? ' (recreated)' : ''} Ready`,
    async () => {
      const pod = await getOne<V1Pod>(ns, 'pod', name);
      return pod !== undefined && pod.metadata?.uid !== notUid && isReady(pod) && { pod, atMs: Date.now() };
    },
    { timeoutMs, intervalMs: 200 },
  );
}

describe('model-load simulation (private cluster)', () => {
  it('cold first load, warm restart on the same claim, one gap of about the warm delay', async (t) => {
    const { kc } = await bed();
    const ns = await freshNamespace(t, 'mload');
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const watch = await watchAvailability(kc, ns, 'model');
    t.after(() => watch.stop());

    const labels = { app: 'model', [WORKSPACE_LABEL]: 'model' };
    await core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'model' }, spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 5000 }] } },
    });
    const t0 = Date.now();
    await apps.createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: 'model' },
        spec: {
          replicas: 1,
          serviceName: 'model',
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              nodeSelector: { [POOL_LABEL]: 'a100' },
              containers: [
                {
                  name: 'main',
                  image: PAUSE,
                  ports: [{ containerPort: 5000 }],
                  resources: { limits: { [GPU_RESOURCE]: '1' }, requests: { [GPU_RESOURCE]: '1' } },
                  volumeMounts: [{ name: 'model-weights-volume', mountPath: '/workspace/weights' }],
                },
              ],
            },
          },
          volumeClaimTemplates: [
            {
              metadata: { name: 'model-weights-volume' },
              spec: { accessModes: ['ReadWriteOnce'], storageClassName: NVME_STORAGE_CLASS, resources: { requests: { storage: '800Gi' } } },
            },
          ],
        },
      },
    });
    // Beside it, a workspace pod without a claim: its weights are never on a disk it keeps.
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'scratch', labels: { [WORKSPACE_LABEL]: 'scratch' } },
        spec: {
          nodeSelector: { [POOL_LABEL]: 'a10' },
          containers: [{ name: 'main', image: PAUSE, volumeMounts: [{ name: 'w', mountPath: '/w' }] }],
          volumes: [{ name: 'w', emptyDir: { sizeLimit: '80Gi' } }],
        },
      },
    });

    // Cold.
    const first = await readyPod(ns, 'model-0', COLD_MS + 60_000);
    const coldMs = first.atMs - t0;
    t.diagnostic(`cold: model-0 Ready ${seconds(coldMs)} after the StatefulSet was created (COLD_MS ${seconds(COLD_MS)})`);
    assert.equal(first.pod.metadata?.annotations?.[LOAD_KIND_ANNOTATION], 'cold');
    assert.ok(first.pod.metadata?.annotations?.[READY_AT_ANNOTATION]);
    assert.ok(coldMs >= COLD_MS, `not Ready before the cold delay: ${seconds(coldMs)}`);
    assert.ok(coldMs <= COLD_MS + SLACK_MS, `Ready within ${seconds(COLD_MS + SLACK_MS)}: ${seconds(coldMs)}`);
    await waitFor('the availability watch to see model-0 ready', () => watch.readyPods().includes('model-0'), { timeoutMs: 30_000 });
    const served = watch.timeline().find((s) => s.pods.includes('model-0'));
    const readyAt1 = Date.parse(first.pod.metadata?.annotations?.[READY_AT_ANNOTATION] ?? '');
    assert.ok(served && served.atMs >= readyAt1 && served.atMs - t0 >= COLD_MS, 'no ready endpoint before the cold load ended');
    t.diagnostic(`cold: endpoint ready ${seconds(served.atMs - t0)} after the StatefulSet was created, ${served.atMs - readyAt1} ms after its ready-at`);
    const claimName = 'model-weights-volume-model-0';
    const claim = await waitFor(
      'the claim marked as holding loaded weights',
      async () => {
        const c = await getOne<V1PersistentVolumeClaim>(ns, 'pvc', claimName);
        return c?.metadata?.annotations?.[WEIGHTS_LOADED_ANNOTATION] !== undefined && c;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(claim.status?.phase, 'Bound');

    const scratch = await readyPod(ns, 'scratch', COLD_MS + 60_000);
    t.diagnostic(`emptyDir: scratch Ready ${seconds(scratch.atMs - t0)} after creation`);
    assert.equal(scratch.pod.metadata?.annotations?.[LOAD_KIND_ANNOTATION], 'cold');
    assert.ok(scratch.atMs - t0 >= COLD_MS, `the emptyDir pod loads cold: ${seconds(scratch.atMs - t0)}`);

    // Warm: the StatefulSet makes model-0 again, on the same claim, so on the same node.
    const t1 = Date.now();
    await kubectl(['delete', 'pod', 'model-0', '--wait=false'], { namespace: ns });
    const second = await readyPod(ns, 'model-0', WARM_MS + 60_000, first.pod.metadata?.uid);
    const warmMs = second.atMs - t1;
    t.diagnostic(`warm: model-0 Ready again ${seconds(warmMs)} after the delete (WARM_MS ${seconds(WARM_MS)})`);
    assert.equal(second.pod.metadata?.annotations?.[LOAD_KIND_ANNOTATION], 'warm');
    assert.equal(second.pod.spec?.nodeName, first.pod.spec?.nodeName);
    assert.equal(second.pod.spec?.volumes?.find((v) => v.name === 'model-weights-volume')?.persistentVolumeClaim?.claimName, claimName);
    assert.equal((await getOne<V1PersistentVolumeClaim>(ns, 'pvc', claimName))?.metadata?.uid, claim.metadata?.uid);
    assert.ok(warmMs >= WARM_MS, `not Ready before the warm delay: ${seconds(warmMs)}`);
    assert.ok(warmMs <= WARM_MS + SLACK_MS && warmMs < COLD_MS, `Ready within ${seconds(WARM_MS + SLACK_MS)}: ${seconds(warmMs)}`);

    await waitFor('the availability watch to see model-0 ready again', () => watch.gaps().length > 0 && watch.gaps().every((g) => g.toMs !== undefined), {
      timeoutMs: 30_000,
    });
    const gaps = watch.gaps();
    t.diagnostic(`gaps: ${gaps.map((g) => `${seconds(g.ms)} from ${seconds(g.fromMs - t1)} after the delete`).join(', ')}`);
    t.diagnostic(
      `timeline: ${watch
        .timeline()
        .map((s) => `${seconds(s.atMs - t0)} [${s.pods.join(',')}]`)
        .join(' ')}`,
    );
    assert.equal(gaps.length, 1, 'exactly one interval without a ready endpoint');
    const [gap] = gaps;
    const readyAt2 = Date.parse(second.pod.metadata?.annotations?.[READY_AT_ANNOTATION] ?? '');
    assert.ok(gap?.toMs !== undefined && gap.fromMs >= t1, 'the gap starts with the delete');
    t.diagnostic(`warm: endpoint ready again ${gap.toMs - readyAt2} ms after its ready-at`);
    // It cannot end before the new pod's ready-at; its start is the endpoint's not-ready event, which may
    // reach the watch a little after the new pod was annotated, hence the second's tolerance below.
    assert.ok(gap.toMs >= readyAt2, 'the endpoint is back only once the warm load ended');
    assert.ok(gap.ms >= WARM_MS - 1_000 && gap.ms <= WARM_MS + SLACK_MS, `the gap lasts about the warm delay: ${seconds(gap.ms)}`);
    assert.deepEqual(watch.readyPods(), ['model-0']);
  });

  it('a pod without the workspace label is Ready at once, as without the simulation', async (t) => {
    const { kc } = await bed();
    const ns = await freshNamespace(t, 'mload');
    const t0 = Date.now();
    await kc.makeApiClient(CoreV1Api).createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'plain', labels: { app: 'plain' } },
        spec: { nodeSelector: { [POOL_LABEL]: 'a10' }, containers: [{ name: 'main', image: PAUSE }] },
      },
    });
    const ready = await readyPod(ns, 'plain', WARM_MS);
    t.diagnostic(`plain pod Ready ${seconds(ready.atMs - t0)} after creation`);
    assert.equal(ready.pod.metadata?.annotations?.[READY_AT_ANNOTATION], undefined);
    assert.ok(ready.atMs - t0 < WARM_MS, `Ready at once: ${seconds(ready.atMs - t0)}`);
  });
});
