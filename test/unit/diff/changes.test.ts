import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparable, fieldChanges, formatChange, markRebuilt, type FieldChange } from '../../../src/diff/changes.js';

const cases: { name: string; before: unknown; after: unknown; want: FieldChange[] }[] = [
  { name: 'equal objects', before: { a: 1, b: { c: 'x' } }, after: { b: { c: 'x' }, a: 1 }, want: [] },
  { name: 'nested scalar', before: { spec: { replicas: 0 } }, after: { spec: { replicas: 1 } }, want: [{ path: 'spec.replicas', before: 0, after: 1 }] },
  { name: 'added field', before: { metadata: {} }, after: { metadata: { labels: { a: 'b' } } }, want: [{ path: 'metadata.labels', after: { a: 'b' } }] },
  { name: 'removed field', before: { spec: { x: 1, y: 2 } }, after: { spec: { x: 1 } }, want: [{ path: 'spec.y', before: 2 }] },
  {
    name: 'named list entries matched by name, not position',
    before: {
      ports: [
        { name: 'ray', port: 6379 },
        { name: 'http', port: 80, targetPort: 6000 },
      ],
    },
    after: {
      ports: [
        { name: 'http', port: 80, targetPort: 5000 },
        { name: 'ray', port: 6379 },
      ],
    },
    want: [{ path: 'ports[name=http].targetPort', before: 6000, after: 5000 }],
  },
  {
    name: 'named entry added',
    before: { c: [{ name: 'a' }] },
    after: { c: [{ name: 'a' }, { name: 'b', image: 'i' }] },
    want: [{ path: 'c[name=b]', after: { name: 'b', image: 'i' } }],
  },
  {
    name: 'unnamed list of the same length: by index',
    before: { args: ['a', 'b'] },
    after: { args: ['a', 'c'] },
    want: [{ path: 'args[1]', before: 'b', after: 'c' }],
  },
  {
    name: 'unnamed list of another length: whole list',
    before: { args: ['a'] },
    after: { args: ['a', 'b'] },
    want: [{ path: 'args', before: ['a'], after: ['a', 'b'] }],
  },
  { name: 'type change', before: { p: '8080' }, after: { p: 8080 }, want: [{ path: 'p', before: '8080', after: 8080 }] },
];

for (const c of cases) {
  test(`fieldChanges: ${c.name}`, () => {
    assert.deepEqual(fieldChanges(c.before, c.after), c.want);
  });
}

test('comparable drops status and server bookkeeping, keeps the rest of metadata', () => {
  const live = {
    apiVersion: 'v1',
    kind: 'Service',
    status: { loadBalancer: {} },
    metadata: { name: 'a', namespace: 'n', uid: 'u', labels: { x: 'y' }, managedFields: [{}], resourceVersion: '5', generation: 2, creationTimestamp: 't' },
    spec: { ports: [] },
  };
  assert.deepEqual(comparable(live), {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'a', namespace: 'n', uid: 'u', labels: { x: 'y' } },
    spec: { ports: [] },
  });
  // A dry-run that only bumps bookkeeping is no change.
  assert.deepEqual(fieldChanges(comparable(live), comparable({ ...live, metadata: { ...live.metadata, resourceVersion: '6', generation: 3 } })), []);
});

const formats: { change: FieldChange; want: string }[] = [
  { change: { path: 'spec.replicas', before: 0, after: 1 }, want: '~ spec.replicas: 0 → 1' },
  { change: { path: 'metadata.labels', after: { a: 'b' } }, want: '+ metadata.labels: {"a":"b"}' },
  { change: { path: 'spec.y', before: 'old' }, want: '- spec.y: "old"' },
  { change: { path: 'x', before: 'a'.repeat(200), after: 1 }, want: `~ x: "${'a'.repeat(118)}… → 1` },
];
for (const f of formats) {
  test(`formatChange: ${f.want.slice(0, 30)}`, () => assert.equal(formatChange(f.change), f.want));
}

test('markRebuilt: written where the reconciler writes that field, inside or around it; else kept by adoption or the selective update', () => {
  const changes: FieldChange[] = [
    { path: 'spec.replicas', before: 0, after: 1 },
    { path: 'spec.template.spec.containers[name=main].image', before: 'a', after: 'b' },
    { path: 'spec.template.spec.volumes[name=w].emptyDir', after: {} },
    { path: 'spec.template.spec.initContainers', after: [] },
  ];
  const written: FieldChange[] = [
    { path: 'spec.replicas', before: 0, after: 1 },
    { path: 'spec.template.spec.volumes', before: [], after: [{}] },
    { path: 'spec.template.spec.initContainers[name=x].image', after: 'y' },
  ];
  const marks = (adopted: boolean) => markRebuilt(changes, written, adopted).map((m) => m.mark);
  assert.deepEqual(marks(true), ['would be written', 'kept (adopted)', 'would be written', 'would be written']);
  assert.deepEqual(marks(false), ['would be written', 'kept (selective update)', 'would be written', 'would be written']);
  assert.deepEqual(
    markRebuilt(changes.slice(0, 2), [], true).map((m) => m.mark),
    ['kept (adopted)', 'kept (adopted)'],
  );
});
