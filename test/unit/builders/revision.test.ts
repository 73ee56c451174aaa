import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import type { Workspace } from '../../../src/api/types.js';
import { buildControllerRevision, computeSpecHash, controllerRevisionName, revisionNumberFor, specHashInput } from '../../../src/builders/revision.js';
import { encodeGo } from '../../../src/builders/gojson/encode.js';

// KAITO pkg/utils/test MockWorkspaceWithComputeHash (spec §4.5).
const vector: Workspace = {
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'testWorkspace', namespace: 'kaito', annotations: { ignored: 'x' } },
  resource: { count: 1, instanceType: 'Standard_NC12s_v3', labelSelector: { matchLabels: { 'workspace.kaito.io/name': 'testWorkspace' } } },
  inference: { preset: { name: 'test-model' } },
};

test('hash input and hash match the KAITO test vector', () => {
  assert.equal(
    specHashInput(vector),
    '{"count":1,"instanceType":"Standard_NC12s_v3","labelSelector":{"matchLabels":{"workspace.kaito.io/name":"testWorkspace"}}}\n' +
      '{"preset":{"name":"test-model","presetOptions":{}}}\nnull\n',
  );
  assert.equal(computeSpecHash(vector), '1171dc5d15043c92e684c8f06689eb241763a735181fdd2b59c8bd8fd6eecdd4');
});

test('metadata and status do not influence the hash', () => {
  const other = { ...vector, metadata: { name: 'other', labels: { a: 'b' } }, status: { targetNodeCount: 3 } };
  assert.equal(computeSpecHash(other), computeSpecHash(vector));
});

test('Go encoding rules: struct order, omitempty, nil vs empty, sorted maps, HTML escaping', () => {
  const cases: { name: string; ws: Pick<Workspace, 'resource' | 'inference' | 'tuning'>; want: string }[] = [
    {
      name: 'nil labelSelector is null (no omitempty), empty strings dropped, keys sorted',
      ws: { resource: { instanceType: '', labelSelector: undefined as never, preferredNodes: [] }, inference: { config: 'a<b>&c' } },
      want: '{"labelSelector":null}\n{"config":"a\\u003cb\\u003e\\u0026c"}\nnull\n',
    },
    {
      name: 'struct field order is Go order, not input order; adapters with pointer strength',
      ws: {
        resource: { labelSelector: { matchLabels: { z: '1', a: '2' } }, count: 2 },
        inference: {
          adapters: [{ strength: '0.5', source: { imagePullSecrets: ['s'], image: 'img', name: 'ad' } }],
          preset: { presetOptions: { modelAccessSecret: 'hf' }, name: 'p', accessMode: 'public' },
        },
      },
      want:
        '{"count":2,"labelSelector":{"matchLabels":{"a":"2","z":"1"}}}\n' +
        '{"preset":{"name":"p","accessMode":"public","presetOptions":{"modelAccessSecret":"hf"}},"adapters":[{"source":{"name":"ad","image":"img","imagePullSecrets":["s"]},"strength":"0.5"}]}\nnull\n',
    },
    {
      name: 'template: zero creationTimestamp omitted (apimachinery v0.34 omitzero), containers resources {} and unknown fields dropped',
      ws: {
        resource: { labelSelector: {} },
        inference: {
          template: {
            metadata: { labels: { app: 'x' } },
            spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], bogus: 1 } as never] },
          },
        },
      },
      want:
        '{"labelSelector":{}}\n' +
        '{"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],"resources":{}}]}}}\nnull\n',
    },
    {
      name: 'tuning: input and output have no omitempty',
      ws: { resource: { labelSelector: {} }, tuning: { preset: { name: 'phi-4' }, method: 'lora' } },
      want: '{"labelSelector":{}}\nnull\n{"preset":{"name":"phi-4","presetOptions":{}},"method":"lora","input":null,"output":null}\n',
    },
  ];
  for (const c of cases) assert.equal(specHashInput(c.ws), c.want, c.name);
});

test('Go string escaping of U+2028 and control characters', () => {
  assert.equal(encodeGo('a\u2028b\n\t', 'string'), '"a\\u2028b\\n\\t"');
});

test('ControllerRevision: name, labels, hash annotation, owner, sorted data keys', () => {
  const hash = computeSpecHash(vector);
  const cr = buildControllerRevision({ ...vector, metadata: { ...vector.metadata, uid: 'u1' } }, hash, 4);
  assert.equal(cr.metadata?.name, 'testWorkspace-1171d');
  assert.equal(controllerRevisionName(vector, hash), 'testWorkspace-1171d');
  assert.equal(cr.metadata?.namespace, 'kaito');
  assert.deepEqual(cr.metadata?.labels, { 'workspace.kaito.io/name': 'testWorkspace' });
  assert.deepEqual(cr.metadata?.annotations, { 'workspace.kaito.io/hash': hash });
  assert.equal(cr.metadata?.ownerReferences?.[0]?.uid, 'u1');
  assert.equal(cr.metadata?.ownerReferences?.[0]?.controller, true);
  assert.equal(cr.revision, 4);
  assert.deepEqual(Object.keys(cr.data as object), ['inference', 'resource', 'tuning']);
  assert.equal(JSON.stringify((cr.data as Record<string, unknown>).inference), '{"preset":{"name":"test-model","presetOptions":{}}}');
});

test('revision numbers: first is 1, next is max+1, a known hash reuses its number', () => {
  const rev = (n: number, hash: string): V1ControllerRevision => ({ revision: n, metadata: { annotations: { 'workspace.kaito.io/hash': hash } } });
  const cases: [V1ControllerRevision[], string, number][] = [
    [[], 'h', 1],
    [[rev(1, 'a'), rev(3, 'b')], 'h', 4],
    [[rev(1, 'a'), rev(3, 'b')], 'a', 1],
  ];
  for (const [existing, hash, want] of cases) assert.equal(revisionNumberFor(hash, existing), want);
});
