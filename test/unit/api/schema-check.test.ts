import { test } from 'node:test';
import assert from 'node:assert/strict';
import { workspaceSchema } from '../../../src/api/crd.js';
import { applyDefaults, checkSchema } from '../../../src/api/schema-check.js';

const good = {
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'phi', namespace: 'default', labels: { a: 'b' }, annotations: { 'kaito.sh/runtime': 'vllm' } },
  resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: 'phi' } } },
  inference: {
    preset: { name: 'phi-4-mini-instruct', presetOptions: { modelAccessSecret: 'hf' } },
    template: { metadata: { labels: { x: 'y' } }, spec: { containers: [{ name: 'c', image: 'i', anything: { goes: 1 } }] } },
    adapters: [{ source: { name: 'a1', image: 'r/a:1' }, strength: '0.5' }],
  },
  status: {
    targetNodeCount: 1,
    workerNodes: ['n1'],
    conditions: [
      {
        type: 'InferenceReady',
        status: 'True',
        reason: 'WorkspaceInferenceStatusSuccess',
        message: 'm',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        observedGeneration: 1,
      },
    ],
  },
};

test('a well-formed workspace (with free-form template and ObjectMeta) has no errors', () => {
  assert.deepEqual(checkSchema(good, workspaceSchema()), []);
});

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call --
   mutators poke at arbitrary paths of a test object */
const bad: [string, (ws: any) => void, string, RegExp][] = [
  [
    'unknown top-level field',
    (w) => {
      w.spec = {};
    },
    'spec',
    /not declared/,
  ],
  [
    'unknown nested field',
    (w) => {
      w.resource.gpus = 2;
    },
    'resource.gpus',
    /not declared/,
  ],
  [
    'missing labelSelector',
    (w) => {
      delete w.resource.labelSelector;
    },
    'resource.labelSelector',
    /Required value/,
  ],
  [
    'missing preset name',
    (w) => {
      delete w.inference.preset.name;
    },
    'inference.preset.name',
    /Required value/,
  ],
  [
    'wrong type',
    (w) => {
      w.resource.count = '2';
    },
    'resource.count',
    /must be of type integer/,
  ],
  [
    'count below minimum',
    (w) => {
      w.resource.count = 0;
    },
    'resource.count',
    /greater than or equal to 1/,
  ],
  [
    'enum',
    (w) => {
      w.inference.preset.accessMode = 'secret';
    },
    'inference.preset.accessMode',
    /Unsupported value: "secret"/,
  ],
  [
    'maxItems adapters',
    (w) => {
      w.inference.adapters = Array.from({ length: 11 }, (_, i) => ({ source: { name: `a${i}`, image: 'x' } }));
    },
    'inference.adapters',
    /at most 10 items/,
  ],
  [
    'maxLength',
    (w) => {
      w.inference.adapters[0].strength = '0.'.padEnd(40, '5');
    },
    'inference.adapters[0].strength',
    /Too long/,
  ],
  [
    'label value maxLength via additionalProperties',
    (w) => {
      w.resource.labelSelector.matchLabels.apps = 'x'.repeat(64);
    },
    'resource.labelSelector.matchLabels.apps',
    /Too long/,
  ],
  [
    'pattern',
    (w) => {
      w.status.conditions[0].reason = '1bad';
    },
    'status.conditions[0].reason',
    /should match/,
  ],
  [
    'date-time format',
    (w) => {
      w.status.conditions[0].lastTransitionTime = 'yesterday';
    },
    'status.conditions[0].lastTransitionTime',
    /date-time/,
  ],
  [
    'list-map duplicate key',
    (w) => {
      w.status.conditions.push({ ...w.status.conditions[0] });
    },
    'status.conditions[1]',
    /Duplicate value/,
  ],
  [
    'int32 range',
    (w) => {
      w.status.targetNodeCount = 2 ** 31;
    },
    'status.targetNodeCount',
    /int32/,
  ],
  [
    'array expected',
    (w) => {
      w.inference.adapters = {};
    },
    'inference.adapters',
    /must be of type array/,
  ],
  [
    'v1beta1 field absent from alpha is fine in beta',
    (w) => {
      w.inference.preset.presetOptions.unknown = 1;
    },
    'inference.preset.presetOptions.unknown',
    /not declared/,
  ],
];
for (const [name, mutate, field, message] of bad) {
  test(`rejects: ${name}`, () => {
    const ws = structuredClone(good);
    mutate(ws);
    const errors = checkSchema(ws, workspaceSchema());
    assert.ok(
      errors.some((e) => e.field === field && message.test(e.message)),
      JSON.stringify(errors),
    );
  });
}

test('v1alpha1 has no modelAccessSecret (schema differs by version)', () => {
  const errors = checkSchema({ ...good, apiVersion: 'kaito.sh/v1alpha1', status: undefined }, workspaceSchema('v1alpha1'));
  assert.deepEqual(
    errors.map((e) => e.field),
    ['inference.preset.presetOptions.modelAccessSecret'],
  );
});

test('int-or-string and preserve-unknown schemas', () => {
  const schema = {
    type: 'object' as const,
    properties: { port: { 'x-kubernetes-int-or-string': true }, any: { 'x-kubernetes-preserve-unknown-fields': true } },
  };
  assert.deepEqual(checkSchema({ port: 8080, any: [1, { a: 2 }] }, schema), []);
  assert.deepEqual(checkSchema({ port: 'http' }, schema), []);
  assert.equal(checkSchema({ port: 1.5 }, schema)[0]?.field, 'port');
});

test('applyDefaults fills CRD defaults without touching given values or the input', () => {
  const input = { resource: { labelSelector: {} }, inference: { preset: { name: 'x' } }, tuning: { preset: { name: 'y', accessMode: 'private' } } };
  const out = applyDefaults(input, workspaceSchema());
  assert.deepEqual(out.resource, { labelSelector: {}, count: 1 });
  assert.deepEqual(out.inference.preset, { name: 'x', accessMode: 'public' });
  assert.equal(out.tuning.preset.accessMode, 'private');
  assert.deepEqual(input.resource, { labelSelector: {} });
  const alpha = applyDefaults(input, workspaceSchema('v1alpha1'));
  assert.equal((alpha.resource as { instanceType?: string }).instanceType, 'Standard_NC24ads_A100_v4');
});
