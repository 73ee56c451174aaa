// Model weights volume on the real control plane: NVMe claim on NVMe SKUs, emptyDir with a size
// limit on SKUs without NVMe and when the StorageClass is absent. Tests in this file run one after
// another (node:test default), which the StorageClass test relies on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { createStorageClass, deleteStorageClass, bed, NVME_STORAGE_CLASS, recycleReleasedPvs, waitFor } from '../harness.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { applyWorkspace, getAll, getOne, nodeNamesOf, pool, record, selectorFor, type Recorded, waitReady, world } from '../support/operator.js';

const WEIGHTS = 'model-weights-volume';

/** The decision as taken when the StatefulSet was created (later passes report the shape as kept). */
function firstDecision(history: Recorded<WorkspaceObject>[], topic: string) {
  return history.map((e) => e.obj.status?.decisions?.find((d) => d.topic === topic)).find((d) => d !== undefined);
}

function weightsVolume(sts: V1StatefulSet) {
  return sts.spec?.template.spec?.volumes?.find((v) => v.name === WEIGHTS);
}

test('NVMe SKU: claim template, claim Bound on an NVMe node, pod Ready, InferenceReady=True for this generation', async (t) => {
  await recycleReleasedPvs((await bed()).kc);
  const w = await world(t, { pools: [pool('a100', 1)] });
  const p = w.pools[0]!;
  await applyWorkspace(w.ns, {
    metadata: { name: 'phi4' },
    resource: { labelSelector: selectorFor(p) },
    inference: { preset: { name: 'phi-4-mini-instruct' } },
  });
  const ws = await waitReady(w.ns, 'phi4');

  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi4');
  assert.ok(sts, 'StatefulSet phi4 exists');
  const template = sts.spec?.volumeClaimTemplates?.find((c) => c.metadata?.name === WEIGHTS);
  assert.ok(template, 'claim template model-weights-volume');
  assert.equal(template.spec?.storageClassName, NVME_STORAGE_CLASS);
  // KAITO v0.12.0's catalog figure for phi-4-mini-instruct (the default --legacy-presets): weights + 80 GiB.
  assert.equal(template.spec?.resources?.requests?.storage, '87Gi');
  assert.equal(weightsVolume(sts), undefined, 'no pod volume shadows the claim');

  const pvc = await getOne<V1PersistentVolumeClaim>(w.ns, 'pvc', `${WEIGHTS}-phi4-0`);
  assert.equal(pvc?.status?.phase, 'Bound');
  const pod = await getOne<V1Pod>(w.ns, 'pod', 'phi4-0');
  assert.ok(
    pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    'pod phi4-0 Ready',
  );
  assert.ok(pod);
  assert.ok(nodeNamesOf(w.pools).includes(pod.spec?.nodeName ?? ''), `pod on the NVMe pool, got ${pod.spec?.nodeName}`);
  const pv = await getOne<{ spec: { nodeAffinity?: { required?: { nodeSelectorTerms?: { matchExpressions?: { values?: string[] }[] }[] } } } }>(
    '',
    'pv',
    pvc.spec?.volumeName ?? '',
  );
  assert.deepEqual(
    pv?.spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values,
    [pod.spec?.nodeName],
    "the claim is on the pod's node",
  );

  const ready = ws.status?.conditions?.find((c) => c.type === 'InferenceReady');
  assert.equal(ready?.observedGeneration, ws.metadata.generation);
  assert.equal(ws.status?.decisions?.find((d) => d.topic === 'modelWeightsVolume')?.choice, 'nvme');
});

test('SKU without NVMe (A10): emptyDir with sizeLimit = the preset disk requirement, no claim', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  const history = await record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  await applyWorkspace(w.ns, {
    metadata: { name: 'phi3' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
  });
  const ws = await waitReady(w.ns, 'phi3');
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi3');
  assert.ok(sts);
  assert.equal(sts.spec?.volumeClaimTemplates?.length ?? 0, 0, 'no claim templates');
  assert.equal(weightsVolume(sts)?.emptyDir?.sizeLimit, '87Gi', "KAITO v0.12.0's catalog disk figure for phi-3-mini-4k-instruct");
  assert.deepEqual(await getAll(w.ns, 'pvc'), []);
  assert.equal(ws.status?.decisions?.find((d) => d.topic === 'modelWeightsVolume')?.choice, 'emptyDir');
  const first = firstDecision(history, 'modelWeightsVolume');
  assert.equal(first?.choice, 'emptyDir');
  assert.match(first?.reason ?? '', /NVMe SKU/);
});

test('StorageClass absent at creation: emptyDir with sizeLimit; the class coming back later does not disturb the running workspace', async (t) => {
  const w = await world(t, { pools: [pool('a100', 1)] });
  const { kc } = await bed();
  const history = await record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  // The class is shared by every test on the cluster: keep the window without it as short as the
  // operator needs to take its decision (StatefulSet created), and always put it back.
  try {
    await deleteStorageClass(kc);
    await applyWorkspace(w.ns, {
      metadata: { name: 'noclass' },
      resource: { labelSelector: selectorFor(w.pools[0]!) },
      inference: { preset: { name: 'phi-4-mini-instruct' } },
    });
    await waitFor('StatefulSet noclass', () => getOne<V1StatefulSet>(w.ns, 'statefulset', 'noclass'), { timeoutMs: 30_000 });
  } finally {
    await createStorageClass(kc);
  }
  const ws = await waitReady(w.ns, 'noclass');
  assert.equal(ws.status?.decisions?.find((d) => d.topic === 'modelWeightsVolume')?.choice, 'emptyDir');
  // The decision taken at creation (later passes say the shape is kept) names the missing class.
  const first = firstDecision(history, 'modelWeightsVolume');
  assert.equal(first?.choice, 'emptyDir');
  assert.match(first?.reason ?? '', new RegExp(NVME_STORAGE_CLASS));

  const before = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'noclass');
  assert.ok(before);
  assert.equal(before.spec?.volumeClaimTemplates?.length ?? 0, 0);
  assert.equal(weightsVolume(before)?.emptyDir?.sizeLimit, '87Gi');
  // The class is back (and its event reached the operator): the running workspace keeps its shape.
  await new Promise((r) => setTimeout(r, 2000));
  const after = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'noclass');
  assert.equal(after?.metadata?.uid, before.metadata?.uid, 'StatefulSet not recreated');
  assert.equal(after?.metadata?.generation, before.metadata?.generation, 'StatefulSet not changed');
  assert.deepEqual(await getAll(w.ns, 'pvc'), []);
});
