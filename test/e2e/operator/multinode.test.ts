// Multi-node distributed inference on the real control plane: llama-3.3-70b-instruct on three
// 1×A100 nodes. Its weights need a Hugging Face token: a missing Secret is reported by name and the
// workspace converges once the Secret exists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { kubectl } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  getAll,
  getOne,
  nodeNamesOf,
  pool,
  selectorFor,
  waitCondition,
  waitReady,
  warningEvents,
  world,
} from '../support/operator.js';

test('llama-3.3-70b-instruct on 3×A100: missing modelAccessSecret reported by name, then 3 replicas Ready once it exists', async (t) => {
  const w = await world(t, { pools: [pool('a100', 3)] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'llama' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { preset: { name: 'llama-3.3-70b-instruct', presetOptions: { modelAccessSecret: 'hf-token' } } },
  });
  const failing = await waitCondition(w.ns, 'llama', 'InferenceReady', 'False', { reason: 'ModelAccessSecretNotFound' });
  assert.match(conditionOf(failing, 'InferenceReady')?.message ?? '', new RegExp(`Secret ${w.ns}/hf-token`));
  assert.equal(conditionOf(failing, 'WorkspaceSucceeded')?.status, 'False');
  assert.ok((await warningEvents(w.ns, 'llama')).some((e) => e.reason === 'ModelAccessSecretNotFound' && e.note.includes('hf-token')));
  assert.equal(await getOne(w.ns, 'statefulset', 'llama'), undefined, 'nothing is started without the token');

  await kubectl(['create', 'secret', 'generic', 'hf-token', '--from-literal=HF_TOKEN=hf_e2e_not_a_real_token'], { namespace: w.ns });
  const ws = await waitReady(w.ns, 'llama', 90_000);
  assert.equal(ws.status?.targetNodeCount, 3);
  assert.equal(conditionOf(ws, 'WorkspaceSucceeded')?.status, 'True');

  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'llama');
  assert.equal(sts?.spec?.replicas, 3);
  assert.equal(sts?.status?.readyReplicas, 3);
  const main = sts?.spec?.template.spec?.containers[0];
  assert.ok(
    main?.env?.some((e) => e.name === 'HF_TOKEN' && e.valueFrom?.secretKeyRef?.name === 'hf-token'),
    'HF_TOKEN from the Secret',
  );
  const pods = await getAll<V1Pod>(w.ns, 'pods', 'kaito.sh/workspace=llama');
  assert.deepEqual(pods.map((p) => p.metadata?.name).sort(), ['llama-0', 'llama-1', 'llama-2']);
  // One pod per node (each node has one GPU), all on the pool.
  const nodes = pods.map((p) => p.spec?.nodeName ?? '');
  assert.deepEqual([...new Set(nodes)].sort(), nodeNamesOf(w.pools).sort());
  const claims = await getAll<V1PersistentVolumeClaim>(w.ns, 'pvc');
  assert.equal(claims.length, 3);
  // KAITO v0.12.0's catalog disk figure for llama-3.3-70b-instruct (the default --legacy-presets).
  assert.ok(claims.every((c) => c.status?.phase === 'Bound' && c.spec?.resources?.requests?.storage === '211Gi'));
});
