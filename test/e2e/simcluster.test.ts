// Proves the test bed itself (issue #3): NVMe claims bind on GPU nodes, the scheduler refuses what
// does not fit, the garbage collector and RBAC work, and `down` leaves no process behind.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { AppsV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import {
  GPU_RESOURCE,
  NVME_LABEL,
  NVME_STORAGE_CLASS,
  POOL_LABEL,
  bed,
  freshNamespace,
  isForbidden,
  isNotFound,
  kubectl,
  recycleReleasedPvs,
  serviceAccountKubeConfig,
  waitFor,
} from './harness.js';
import { createPools, deletePools, pool } from './support/operator.js';
import { isReady } from '../../src/runtime/conditions.js';
import { freePortOffset } from '../../src/simcluster/free-ports.js';

const PAUSE = 'registry.k8s.io/pause:3.10';
const run = promisify(execFile);

describe('simcluster bed', () => {
  it('binds NVMe claims of a 2-replica GPU StatefulSet on A100 nodes and makes its pods Ready', async (t) => {
    const { kc } = await bed();
    await recycleReleasedPvs(kc);
    // Private A100 nodes: other tests (the demo, the operator) hold GPUs on the shared pool meanwhile.
    const a100 = pool('a100', 2);
    await createPools([a100]);
    t.after(() => deletePools([a100]));
    const ns = await freshNamespace(t, 'sts');
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await apps.createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: 'model' },
        spec: {
          replicas: 2,
          serviceName: 'model',
          podManagementPolicy: 'Parallel',
          selector: { matchLabels: { app: 'model' } },
          template: {
            metadata: { labels: { app: 'model' } },
            spec: {
              nodeSelector: { [POOL_LABEL]: a100.name },
              containers: [
                {
                  name: 'main',
                  image: PAUSE,
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

    const pods = await waitFor(
      '2 Ready pods',
      async () => {
        const list = await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=model' });
        return list.items.length === 2 && list.items.every(isReady) ? list.items : undefined;
      },
      { timeoutMs: 90_000 },
    );
    const claims = await waitFor('2 Bound claims', async () => {
      const list = await core.listNamespacedPersistentVolumeClaim({ namespace: ns });
      return list.items.length === 2 && list.items.every((c) => c.status?.phase === 'Bound') ? list.items : undefined;
    });

    const nodes = new Set(pods.map((p) => p.spec?.nodeName));
    assert.equal(nodes.size, 2, 'one GPU per A100 node: the replicas land on two nodes');
    for (const pod of pods) {
      const node = await core.readNode({ name: pod.spec?.nodeName ?? '' });
      assert.equal(node.metadata?.labels?.[POOL_LABEL], a100.name);
      assert.equal(node.metadata?.labels?.['node.kubernetes.io/instance-type'], 'Standard_NC24ads_A100_v4');
      assert.equal(node.metadata?.labels?.[NVME_LABEL], 'true');
      assert.equal(pod.status?.phase, 'Running');
      // The pod's claim is bound to a local PV pinned to the very node the pod runs on.
      const claim = claims.find((c) => c.metadata?.name === `model-weights-volume-${pod.metadata?.name}`);
      assert.ok(claim?.spec?.volumeName, `claim of ${pod.metadata?.name}`);
      const pv = await core.readPersistentVolume({ name: claim.spec.volumeName });
      assert.equal(pv.spec?.storageClassName, NVME_STORAGE_CLASS);
      assert.deepEqual(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, [pod.spec?.nodeName]);
    }
  });

  it('leaves a pod asking for 64 GPUs Pending, with the scheduler saying why', async (t) => {
    const { kc } = await bed();
    const ns = await freshNamespace(t, 'huge');
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'huge' },
        spec: { containers: [{ name: 'main', image: PAUSE, resources: { limits: { [GPU_RESOURCE]: '64' } } }] },
      },
    });
    const condition = await waitFor('PodScheduled=False', async () => {
      const pod = await core.readNamespacedPod({ name: 'huge', namespace: ns });
      return pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    });
    assert.equal(condition.reason, 'Unschedulable');
    assert.match(condition.message ?? '', /Insufficient nvidia\.com\/gpu/);
    const pod = await core.readNamespacedPod({ name: 'huge', namespace: ns });
    assert.equal(pod.status?.phase, 'Pending');
    assert.equal(pod.spec?.nodeName, undefined);
    // The same through the harness's kubectl (the built one, not whatever is on PATH).
    assert.equal(await kubectl(['get', 'pod', 'huge', '-o', 'jsonpath={.status.phase}'], { namespace: ns }), 'Pending');
    assert.match(await kubectl(['version', '-o', 'json']), /"gitVersion": "v1\.36\.3"/);
  });

  it('garbage-collects dependents when their owner is deleted', async (t) => {
    const { kc } = await bed();
    const ns = await freshNamespace(t, 'gc');
    const core = kc.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner' }, data: { a: '1' } } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' }];
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dependent', ownerReferences }, data: { b: '2' } } });
    await core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'dependent-pod', ownerReferences }, spec: { containers: [{ name: 'main', image: PAUSE }] } },
    });
    await waitFor('the dependent pod to run', async () => isReady(await core.readNamespacedPod({ name: 'dependent-pod', namespace: ns })));

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Background' });
    const gone = async (read: () => Promise<unknown>): Promise<boolean> => {
      try {
        await read();
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    };
    await waitFor('the dependent ConfigMap to be collected', () => gone(() => core.readNamespacedConfigMap({ name: 'dependent', namespace: ns })));
    await waitFor('the dependent pod to be collected', () => gone(() => core.readNamespacedPod({ name: 'dependent-pod', namespace: ns })));
  });

  it('refuses a ServiceAccount without RBAC grants (403) and admits it once a Role is bound', async (t) => {
    const { kc } = await bed();
    const ns = await freshNamespace(t, 'rbac');
    const userKc = await serviceAccountKubeConfig(ns, 'nobody');
    const asUser = userKc.makeApiClient(CoreV1Api);
    await assert.rejects(asUser.listNamespacedPod({ namespace: ns }), (err) => isForbidden(err));

    // Positive control: the token authenticates; only authorization was missing.
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: { metadata: { name: 'read-pods' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'read-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-pods' },
        subjects: [{ kind: 'ServiceAccount', name: 'nobody', namespace: ns }],
      },
    });
    await waitFor('the Role to take effect', async () => (await asUser.listNamespacedPod({ namespace: ns })).items);
    await assert.rejects(asUser.listNamespacedSecret({ namespace: ns }), (err) => isForbidden(err));
  });

  it('starts a second cluster from nothing and `down` leaves none of its processes alive', async () => {
    await bed(); // binaries are built
    const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-sim-'));
    const nodesFile = join(dir, 'nodes.yaml');
    writeFileSync(nodesFile, 'pools:\n  - {name: t4, count: 1, instanceType: Standard_NC4as_T4_v3, gpu: {product: Tesla-T4, count: 1, memoryMiB: 16384}}\n');
    const stateDir = join(dir, 'state');
    const env = { ...process.env, KAITO_TS_SIMCLUSTER_DIR: stateDir, KAITO_TS_SIM_PORT_OFFSET: String(await freePortOffset(100, 1000)) };
    const cli = join(process.cwd(), 'bin', 'kaito-ts.js');
    try {
      const upOut = await run(process.execPath, [cli, 'simcluster', 'up', '--nodes-file', nodesFile], { env, timeout: 180_000 });
      assert.equal(upOut.stdout.trim(), join(stateDir, 'admin.kubeconfig'));
      const pidFiles = readdirSync(join(stateDir, 'run'))
        .filter((f) => f.endsWith('.pid'))
        .sort();
      // etcd, apiserver, controller-manager, scheduler, kwok, gpu-provisioner, metrics adapter, and the supervisor of them all
      assert.deepEqual(
        pidFiles,
        ['etcd', 'gpu-provisioner', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok', 'metrics-adapter', 'supervisor'].map(
          (n) => `${n}.pid`,
        ),
      );
      const pids = pidFiles.map((f) => Number(readFileSync(join(stateDir, 'run', f), 'utf8')));
      for (const pid of pids) assert.ok(existsSync(`/proc/${pid}`), `pid ${pid} runs after up`);
      const status = await run(process.execPath, [cli, 'simcluster', 'status'], { env });
      assert.match(status.stdout, /nodes +1\/1 Ready/);
      assert.match(status.stdout, /^supervisor +running pid \d+$/m);

      const downOut = await run(process.execPath, [cli, 'simcluster', 'down'], { env, timeout: 60_000 });
      // The supervisor goes first, so it cannot restart what `down` stops.
      assert.match(downOut.stderr, /^\[simcluster\] supervisor stopped\n/);
      for (const pid of pids) {
        const alive = existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
        assert.ok(!alive, `pid ${pid} is gone after down`);
      }
      assert.ok(!existsSync(stateDir), 'state removed');
    } finally {
      await run(process.execPath, [cli, 'simcluster', 'down'], { env }).catch(() => undefined);
    }
  });
});
