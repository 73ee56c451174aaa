// Hugging Face ids outside KAITO v0.12's catalog, end to end: the operator reads the model's file list
// and config.json from a stand-in hub (no network here), sizes it, and serves it; a second workspace of
// the same id costs no request (the metadata cache); a missing model is named in status.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { startFakeHub, QWEN3_8B, type FakeHub } from '../../unit/support/fake-hub.js';
import { waitFor } from '../harness.js';
import { applyWorkspace, conditionOf, getOne, getWorkspace, pool, selectorFor, waitReady, world } from '../support/operator.js';

const ID = 'acme/Qwen3-8B-copy';
let hub: FakeHub;
before(async () => {
  hub = await startFakeHub({ [ID]: QWEN3_8B });
});
after(() => hub.close());

test('a Hugging Face id outside the catalog: sized from the hub, served, its metadata read once for two workspaces; a missing one named', async (t) => {
  const w = await world(t, { pools: [pool('a100', 2)], operatorArgs: ['--feature-gates', 'disableNodeAutoProvisioning=true', '--hf-endpoint', hub.url] });
  const ws = (name: string, id: string) => ({ metadata: { name }, resource: { labelSelector: selectorFor(w.pools[0]!) }, inference: { preset: { name: id } } });
  await applyWorkspace(w.ns, ws('qwen-a', ID));
  const ready = await waitReady(w.ns, 'qwen-a', 90_000);
  assert.equal(ready.status?.targetNodeCount, 1);
  const sts = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'qwen-a');
  const args = [...(sts?.spec?.template.spec?.containers[0]?.command ?? []), ...(sts?.spec?.template.spec?.containers[0]?.args ?? [])].join(' ');
  assert.match(args, /--model=acme\/qwen3-8b-copy/, args);
  const reads = hub.requests.filter((r) => r.includes('qwen3-8b-copy') || r.includes('Qwen3-8B-copy')).length;
  assert.ok(reads > 0, 'the hub was read');

  await applyWorkspace(w.ns, ws('qwen-b', ID));
  await waitReady(w.ns, 'qwen-b', 90_000);
  assert.equal(hub.requests.filter((r) => r.includes('qwen3-8b-copy') || r.includes('Qwen3-8B-copy')).length, reads, 'no request for the second workspace');

  await applyWorkspace(w.ns, ws('missing', 'acme/does-not-exist'));
  const failing = await waitFor(
    'HuggingFaceModelNotFound in status',
    async () => {
      const got = await getWorkspace(w.ns, 'missing');
      return got?.status?.conditions?.some((c) => c.reason === 'HuggingFaceModelNotFound') && got;
    },
    { timeoutMs: 30_000 },
  );
  const cond = failing.status?.conditions?.find((c) => c.reason === 'HuggingFaceModelNotFound');
  assert.match(cond?.message ?? '', /acme\/does-not-exist/);
  assert.equal(conditionOf(failing, 'InferenceReady')?.status, 'False');
  assert.equal(await getOne(w.ns, 'statefulset', 'missing'), undefined, 'nothing started');
});
