// kaito-ts's InferenceSet revision hash against KAITO v0.12.0's own ComputeInferenceSetHash (its code,
// built into the render harness): equal hashes mean a set KAITO made is adopted without a new
// ControllerRevision. The specs are given as the API server returns a custom resource (keys sorted),
// which Go re-encodes in struct order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferenceSetSpecHash } from '../../src/builders/inferenceset-revision.js';
import type { InferenceSet } from '../../src/api/inferenceset-types.js';
import { runKaitoRender } from './support/kaito-render.js';

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
        )
      : v;

const selector = { matchLabels: { 'kaito.sh/sim-pool': 'a10-set' } };
const SPECS: Record<string, InferenceSet['spec']> = {
  'preset, 2 replicas': { replicas: 2, labelSelector: selector, template: { inference: { preset: { name: 'phi-3-mini-4k-instruct' } } } },
  'no replicas field': { labelSelector: selector, template: { inference: { preset: { name: 'phi-3-mini-4k-instruct' } } } },
  'zero replicas': { replicas: 0, labelSelector: selector, template: { inference: { preset: { name: 'phi-3-mini-4k-instruct' } } } },
  'instanceType, nodeCountLimit, template labels and annotations': {
    replicas: 3,
    nodeCountLimit: 4,
    labelSelector: { matchLabels: { apps: 'phi' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['b', 'a'] }] },
    template: {
      metadata: { labels: { team: 'ml' }, annotations: { 'kaito.sh/enablelb': 'False', 'a&b': '<x>' } },
      resource: { instanceType: 'Standard_NC24ads_A100_v4' },
      inference: {
        preset: { name: 'microsoft/Phi-4-mini-instruct', presetOptions: { modelAccessSecret: 'hf-token' } },
        config: 'my-config',
        adapters: [{ source: { name: 'lora', image: 'registry.example/lora:1' }, strength: '0.5' }],
      },
    },
  },
  'updateStrategy and autoUpgrade': {
    replicas: 2,
    labelSelector: selector,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    autoUpgrade: { enabled: true, strategy: 'Surge', maintenanceWindow: { schedule: '0 2 * * *' } },
    template: { inference: { preset: { name: 'phi-3-mini-4k-instruct' } } },
  },
  'a template with a pod spec': {
    replicas: 1,
    labelSelector: selector,
    template: {
      inference: {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'server', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { 'nvidia.com/gpu': '1', cpu: '1000m' } } },
            ],
          },
        },
      },
    },
  },
};

test("InferenceSet revision hash: kaito-ts's equals KAITO v0.12.0's ComputeInferenceSetHash for every spec", () => {
  const names = Object.keys(SPECS);
  const sets = names.map((name, i) => ({ apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', metadata: { name: `s${i}` }, spec: sortKeys(SPECS[name]) }));
  const { hashes } = runKaitoRender(['inferenceset-hash'], sets) as { hashes: string[] };
  assert.equal(hashes.length, names.length);
  for (const [i, name] of names.entries()) assert.equal(inferenceSetSpecHash(sets[i]!.spec as InferenceSet['spec']), hashes[i], name);
});
