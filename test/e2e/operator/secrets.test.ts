// Model access Secrets and pods that cannot be created, on the real control plane. Secrets are
// watched by metadata only: a late Secret is noticed from its watch event (the time is printed), a
// Secret without HF_TOKEN is named, and a Secret deleted under a serving workspace leaves it True with
// a warning (docs/controller.md "Secrets"). A ResourceQuota of 0 pods makes the StatefulSet controller
// emit FailedCreate: the workspace says so, and recovers once the quota goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kubectl, waitFor } from '../harness.js';
import { applyWorkspace, conditionOf, getWorkspace, pool, selectorFor, waitCondition, waitReady, warningEvents, world } from '../support/operator.js';

const secret = (ns: string, data: Record<string, string>) =>
  kubectl(['apply', '-f', '-'], { namespace: ns, input: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hf' }, stringData: data }) });

test('model access Secret: missing, late, without HF_TOKEN, deleted under a serving workspace', async (t) => {
  const w = await world(t, { pools: [pool('a100', 1)] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'llama' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { preset: { name: 'llama-3.1-8b-instruct', presetOptions: { modelAccessSecret: 'hf' } } },
  });
  const missing = await waitCondition(w.ns, 'llama', 'InferenceReady', 'False', { reason: 'ModelAccessSecretNotFound' });
  assert.match(conditionOf(missing, 'InferenceReady')?.message ?? '', /Secret .*\/hf .* does not exist/);
  await waitFor('Warning event ModelAccessSecretNotFound', async () =>
    (await warningEvents(w.ns, 'llama')).some((e) => e.reason === 'ModelAccessSecretNotFound'),
  );

  // Late, and without the key: noticed from the Secret's watch event.
  const created = Date.now();
  await secret(w.ns, { token: 'not-the-key' });
  await waitCondition(w.ns, 'llama', 'InferenceReady', 'False', { reason: 'ModelAccessSecretKeyMissing' });
  t.diagnostic(`late Secret (no HF_TOKEN) reported ${Date.now() - created} ms after it was created`);
  await waitFor('Warning event ModelAccessSecretKeyMissing', async () =>
    (await warningEvents(w.ns, 'llama')).some((e) => e.reason === 'ModelAccessSecretKeyMissing' && /HF_TOKEN/.test(e.note)),
  );

  const fixed = Date.now();
  await secret(w.ns, { HF_TOKEN: 'hf_e2e' });
  await waitFor('the workspace moves past the Secret', async () =>
    conditionOf(await getWorkspace(w.ns, 'llama'), 'InferenceReady')?.reason?.startsWith('ModelAccessSecret') === false ? true : undefined,
  );
  t.diagnostic(`HF_TOKEN added: workspace moved on ${Date.now() - fixed} ms later`);
  await waitReady(w.ns, 'llama', 120_000);
  const logs = await kubectl(['get', 'workspace', 'llama', '-o', 'json'], { namespace: w.ns });
  assert.doesNotMatch(logs, /hf_e2e|aGZfZTJl/, 'no token in the workspace');

  // Deleted under a serving workspace: pods keep serving, InferenceReady stays True with a warning.
  await kubectl(['delete', 'secret', 'hf'], { namespace: w.ns });
  const warned = await waitFor('warning in the InferenceReady message', async () => {
    const ws = await getWorkspace(w.ns, 'llama');
    const c = conditionOf(ws, 'InferenceReady');
    return c && /warning: Secret .*\/hf .* does not exist; running pods keep serving/.test(c.message) ? c : undefined;
  });
  assert.equal(warned.status, 'True', 'a serving workspace stays True');
  await waitFor(
    'Warning event for the deleted Secret',
    async () => (await warningEvents(w.ns, 'llama')).filter((e) => e.reason === 'ModelAccessSecretNotFound').length > 0,
  );
  const sts = JSON.parse(await kubectl(['get', 'statefulset', 'llama', '-o', 'json'], { namespace: w.ns })) as { status?: { readyReplicas?: number } };
  assert.equal(sts.status?.readyReplicas, 1, 'the StatefulSet still serves');

  // Back: the warning goes.
  await secret(w.ns, { HF_TOKEN: 'hf_e2e' });
  await waitFor('warning gone', async () => {
    const c = conditionOf(await getWorkspace(w.ns, 'llama'), 'InferenceReady');
    return c?.status === 'True' && !/warning/.test(c.message) ? true : undefined;
  });
  assert.equal(
    w.op!.mgr.workspace.caches.secrets.get(w.ns, 'hf')?.metadata?.annotations,
    undefined,
    'the cache keeps no annotation (kubectl last-applied would hold the value)',
  );
  assert.equal((w.op!.mgr.workspace.caches.secrets.get(w.ns, 'hf') as { data?: unknown } | undefined)?.data, undefined, 'the cache holds no data');
});

test('pods the StatefulSet controller cannot create (ResourceQuota of 0 pods): PodCreationFailed with its message and a Warning event; recovers', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  await kubectl(['apply', '-f', '-'], {
    namespace: w.ns,
    input: JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-pods' }, spec: { hard: { pods: '0' } } }),
  });
  await waitFor(
    'quota status',
    async () => (await kubectl(['get', 'resourcequota', 'no-pods', '-o', 'jsonpath={.status.hard.pods}'], { namespace: w.ns })).trim() === '0',
  );
  await applyWorkspace(w.ns, {
    metadata: { name: 'tmpl' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { template: { spec: { containers: [{ name: 'server', image: 'nginx:1.27', resources: { limits: { 'nvidia.com/gpu': 1 } } }] } } },
  });
  const failed = await waitCondition(w.ns, 'tmpl', 'InferenceReady', 'False', { reason: 'PodCreationFailed' });
  assert.match(conditionOf(failed, 'InferenceReady')?.message ?? '', /StatefulSet tmpl cannot create its pods: .*exceeded quota: no-pods/);
  await waitFor('Warning event PodCreationFailed', async () =>
    (await warningEvents(w.ns, 'tmpl')).some((e) => e.reason === 'PodCreationFailed' && /exceeded quota/.test(e.note)),
  );

  await kubectl(['delete', 'resourcequota', 'no-pods'], { namespace: w.ns });
  await waitReady(w.ns, 'tmpl', 120_000);
});
