import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { hasToken, modelAccessSecretOf, ModelSecrets, SecretReason } from '../../../src/controllers/workspace/model-secret.js';
import { ObjectCache } from '../../../src/runtime/cache.js';
import { inferencePresetOf } from '../../../src/api/resolved-workspace.js';
import type { KaitoGeneration } from '../../../src/api/legacy-presets.js';
import type { KubeClient } from '../../../src/runtime/client.js';
import { KubeApiError } from '../../../src/runtime/errors.js';

const ws = (preset: string, secret?: string) =>
  ({
    metadata: { name: 'ws', namespace: 'team' },
    resource: {},
    inference: { preset: { name: preset, ...(secret ? { presetOptions: { modelAccessSecret: secret } } : {}) } },
  }) as unknown as WorkspaceObject;

test('modelAccessSecretOf: only presets that download at runtime need the Secret', () => {
  const cases: [string, WorkspaceObject, KaitoGeneration, string | undefined][] = [
    ['runtime download with a Secret', ws('llama-3.1-8b-instruct', 'hf'), 'v0.8', 'hf'],
    ['runtime download without a Secret (the builders refuse it)', ws('llama-3.1-8b-instruct'), 'v0.8', undefined],
    ['v0.8.0: weights in the image, the Secret is unused', ws('phi-3-mini-4k-instruct', 'hf'), 'v0.8', undefined],
    ['v0.12.0: the catalog entry downloads from the hub, the Secret is read', ws('phi-3-mini-4k-instruct', 'hf'), 'v0.12', 'hf'],
    ['unknown preset', ws('no-such-model', 'hf'), 'v0.12', undefined],
  ];
  for (const [name, w, g, want] of cases) assert.equal(modelAccessSecretOf(w, inferencePresetOf(w, undefined, g)), want, name);
  assert.equal(modelAccessSecretOf(ws('phi-3-mini-4k-instruct', 'hf')), 'hf', 'the default is v0.12');
});

test('hasToken: a non-empty HF_TOKEN entry', () => {
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['key present', { HF_TOKEN: 'aGZfeHh4' }, true],
    ['key empty', { HF_TOKEN: '' }, false],
    ['other keys only', { token: 'aGZfeHh4' }, false],
    ['lower-case key is another key', { hf_token: 'aGZfeHh4' }, false],
    ['no data', undefined, false],
  ];
  for (const [name, data, want] of cases) assert.equal(hasToken({ data }), want, name);
});

/** A client whose GET returns the Secret `store` holds now, counting calls. */
function fakeClient(store: { data?: Record<string, string> } | undefined) {
  const calls = { get: 0 };
  const client = {
    get: async () => {
      calls.get++;
      if (!store) throw new KubeApiError('NotFound', 'secrets "hf" not found', 404);
      return { metadata: { name: 'hf', namespace: 'team' }, data: store.data };
    },
  } as unknown as KubeClient;
  return { client, calls };
}

const meta = (rv: string): KubernetesObject => ({
  apiVersion: 'meta.k8s.io/v1',
  kind: 'Secret',
  metadata: { name: 'hf', namespace: 'team', uid: 'u1', resourceVersion: rv },
});

test('ModelSecrets: missing, key missing, present; one GET per Secret version, none for workspaces without a Secret', async () => {
  const cache = new ObjectCache<KubernetesObject>();
  const store: { data?: Record<string, string> } = { data: { other: 'eA==' } };
  const { client, calls } = fakeClient(store);
  const secrets = new ModelSecrets(client, cache);
  const llama = ws('llama-3.1-8b-instruct', 'hf');

  const phi3 = ws('phi-3-mini-4k-instruct', 'hf');
  assert.equal(await secrets.problem(phi3, inferencePresetOf(phi3, undefined, 'v0.8')), undefined);
  assert.equal((await secrets.problem(llama))?.reason, SecretReason.NotFound, 'not in the metadata cache');
  assert.equal(calls.get, 0, 'a Secret the watch has not seen is not fetched');

  cache.upsert(meta('1'));
  const missing = await secrets.problem(llama);
  assert.equal(missing?.reason, SecretReason.KeyMissing);
  assert.match(missing?.message ?? '', /Secret team\/hf .* has no non-empty HF_TOKEN key/);
  assert.doesNotMatch(missing?.message ?? '', /eA==/, 'no value in the message');
  await secrets.problem(llama);
  assert.equal(calls.get, 1, 'same version: the verdict is reused');

  store.data = { HF_TOKEN: 'aGZfeHh4' };
  cache.upsert(meta('2'));
  assert.equal(await secrets.problem(llama), undefined, 'the new version has the key');
  assert.equal(calls.get, 2);

  cache.remove(meta('2'));
  assert.equal((await secrets.problem(llama))?.reason, SecretReason.NotFound, 'deleted');
  assert.equal(calls.get, 2);
});
