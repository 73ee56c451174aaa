// workspaceIntent decides as the reconciler does which children it would write (no client, caches only).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject, V1ControllerRevision, V1Service, V1StatefulSet, V1StorageClass } from '@kubernetes/client-node';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { comparable, fieldChanges, markRebuilt } from '../../../src/diff/changes.js';
import { workspaceIntent, type ChildIntent, type DiffCaches } from '../../../src/diff/intent.js';
import { ObjectCache } from '../../../src/runtime/cache.js';
import { A10_NODE_LABELS, byoOperatorConfig, byoWorkspace, gpuNode } from '../builders/fixtures.js';

const config = byoOperatorConfig(0);
const ws = byoWorkspace('phi-3-mini-4k-instruct') as WorkspaceObject;

function caches(objects: KubernetesObject[] = []): DiffCaches {
  const of = <T extends KubernetesObject>(kind: string, more: T[] = []) => ObjectCache.from([...(objects.filter((o) => o.kind === kind) as T[]), ...more]);
  const node = gpuNode('n1', A10_NODE_LABELS);
  return {
    storageClasses: of<V1StorageClass>('StorageClass'),
    nodes: of('Node', [{ ...node, kind: 'Node' }]),
    configMaps: of('ConfigMap'),
    controllerRevisions: of<V1ControllerRevision>('ControllerRevision'),
    statefulSets: of('StatefulSet'),
    services: of('Service'),
  };
}

const summary = (children: ChildIntent[]) =>
  children.map((c) => `${c.type.kind}/${c.name}: ${c.note ? 'note' : c.apply ? (c.live ? 'apply' : 'create') : 'none'}`);

function converged(): KubernetesObject[] {
  const first = workspaceIntent(ws, caches(), config);
  assert.ok(first.ok);
  return first.children.map((c) => c.apply!);
}

const edit = <T extends KubernetesObject>(objects: KubernetesObject[], kind: string, name: string, f: (o: T) => T): KubernetesObject[] =>
  objects.map((o) => (o.kind === kind && o.metadata?.name === name ? f(structuredClone(o) as T) : o));

const cases: { name: string; objects: () => KubernetesObject[]; want: string[] | RegExp }[] = [
  {
    name: 'empty cluster: every child is created',
    objects: () => [],
    want: ['ControllerRevision/ws1-REV: create', 'Service/ws1: create', 'Service/ws1-headless: create', 'StatefulSet/ws1: create'],
  },
  {
    name: 'converged: nothing to write',
    objects: converged,
    want: ['ControllerRevision/ws1-REV: none', 'Service/ws1: none', 'Service/ws1-headless: none', 'StatefulSet/ws1: none'],
  },
  {
    name: 'a Service port edited: that Service is applied',
    objects: () =>
      edit<V1Service>(converged(), 'Service', 'ws1', (s) => ({ ...s, spec: { ...s.spec, ports: s.spec?.ports?.map((p) => ({ ...p, targetPort: 6000 })) } })),
    want: ['ControllerRevision/ws1-REV: none', 'Service/ws1: apply', 'Service/ws1-headless: none', 'StatefulSet/ws1: none'],
  },
  {
    name: 'the StatefulSet scaled to 0: applied back to 1',
    objects: () => edit<V1StatefulSet>(converged(), 'StatefulSet', 'ws1', (s) => ({ ...s, spec: { ...s.spec!, replicas: 0 } })),
    want: ['ControllerRevision/ws1-REV: none', 'Service/ws1: none', 'Service/ws1-headless: none', 'StatefulSet/ws1: apply'],
  },
  {
    name: 'the StatefulSet image edited at the same revision: kept, as the reconciler keeps it',
    objects: () =>
      edit<V1StatefulSet>(converged(), 'StatefulSet', 'ws1', (s) => {
        s.spec!.template.spec!.containers[0]!.image = 'example/custom:1';
        return s;
      }),
    want: ['ControllerRevision/ws1-REV: none', 'Service/ws1: none', 'Service/ws1-headless: none', 'StatefulSet/ws1: none'],
  },
  {
    name: 'a Service of that name not controlled by the workspace: the pass stops there, as the reconciler does',
    objects: () => edit<V1Service>(converged(), 'Service', 'ws1-headless', (s) => ({ ...s, metadata: { ...s.metadata, ownerReferences: [] } })),
    want: /Service ns1\/ws1-headless exists and is not controlled by this workspace/,
  },
  {
    name: 'a StatefulSet of that name not controlled by the workspace: nothing at all',
    objects: () => edit<V1StatefulSet>(converged(), 'StatefulSet', 'ws1', (s) => ({ ...s, metadata: { ...s.metadata, ownerReferences: [] } })),
    want: /StatefulSet ns1\/ws1 exists and is not controlled by this workspace/,
  },
];

for (const c of cases) {
  test(`workspaceIntent: ${c.name}`, () => {
    const got = workspaceIntent(ws, caches(c.objects()), config);
    if (c.want instanceof RegExp) {
      assert.equal(got.ok, false);
      assert.match(got.ok ? '' : got.message, c.want);
      return;
    }
    assert.ok(got.ok, got.ok ? '' : got.message);
    assert.deepEqual(
      summary(got.children).map((s) => s.replace(/^ControllerRevision\/ws1-[0-9a-f]+/, 'ControllerRevision/ws1-REV')),
      c.want,
    );
  });
}

test('workspaceIntent: the replica repair carries replicas 1, the rest of the selective update', () => {
  const got = workspaceIntent(ws, caches(edit<V1StatefulSet>(converged(), 'StatefulSet', 'ws1', (s) => ({ ...s, spec: { ...s.spec!, replicas: 0 } }))), config);
  assert.ok(got.ok);
  assert.equal((got.children.find((c) => c.type.kind === 'StatefulSet')?.apply as V1StatefulSet).spec?.replicas, 1);
});

test('workspaceIntent: a tuning workspace is not compared', () => {
  const tuning = { ...ws, inference: undefined, tuning: { preset: { name: 'phi-3-mini-4k-instruct' }, method: 'qlora' } } as unknown as WorkspaceObject;
  const got = workspaceIntent(tuning, caches(), config);
  assert.deepEqual(got, { ok: false, message: 'tuning workspace: its Job is not compared' });
});

test('workspaceIntent with rebuild: the StatefulSet kaito-ts would build, beside the live one although its revision matches', () => {
  const objects = converged();
  const live = objects.find((o) => o.kind === 'StatefulSet');
  const plain = workspaceIntent(ws, caches(objects), config);
  const rebuilt = workspaceIntent(ws, caches(objects), config, new Date(), true);
  assert.ok(plain.ok && rebuilt.ok);
  assert.equal(plain.children.find((c) => c.type.kind === 'StatefulSet')?.apply, undefined, 'the reconciler leaves it');
  const sts = rebuilt.children.find((c) => c.type.kind === 'StatefulSet');
  assert.ok(sts?.apply, 'the rebuilt one is there to compare');
  assert.equal(sts.live, live, 'against the live object');
  assert.deepEqual((sts.apply as V1StatefulSet).spec?.template, (live as V1StatefulSet).spec?.template);
});

/** The rebuilt StatefulSet's differences from the live one, each marked as diff --rebuild marks it. */
function rebuiltMarks(objects: KubernetesObject[]): { adopted: boolean; marks: Record<string, string> } {
  const got = workspaceIntent(ws, caches(objects), config, new Date(), true);
  assert.ok(got.ok);
  const sts = got.children.find((c) => c.type.kind === 'StatefulSet');
  assert.ok(sts?.live && sts.apply && sts.rebuild);
  const live = comparable(sts.live);
  const changes = fieldChanges(live, comparable(sts.apply)).filter((c) => 'after' in c);
  const written = sts.rebuild.written ? fieldChanges(live, comparable(sts.rebuild.written)).filter((c) => 'after' in c) : [];
  return { adopted: sts.rebuild.adopted, marks: Object.fromEntries(markRebuilt(changes, written, sts.rebuild.adopted).map((m) => [m.change.path, m.mark])) };
}

test('workspaceIntent with rebuild: at its revision the live template is kept (adopted); only what the reconciler writes is marked written', () => {
  const objects = edit<V1StatefulSet>(converged(), 'StatefulSet', 'ws1', (s) => {
    s.spec!.template.spec!.containers[0]!.image = 'example/custom:1';
    return { ...s, spec: { ...s.spec!, replicas: 0 } };
  });
  const { adopted, marks } = rebuiltMarks(objects);
  assert.equal(adopted, true);
  assert.deepEqual(marks, { 'spec.replicas': 'would be written', 'spec.template.spec.containers[name=ws1].image': 'kept (adopted)' });
  // Converged: the reconciler writes nothing, and the rebuilt StatefulSet is the live one.
  const converges = rebuiltMarks(converged());
  assert.deepEqual(converges, { adopted: true, marks: {} });
});

test('workspaceIntent with rebuild: at another revision the reconciler writes the new revision; the parts the selective update keeps are marked so', () => {
  const objects = edit<V1StatefulSet>(converged(), 'StatefulSet', 'ws1', (s) => {
    s.spec!.template.spec!.containers[0]!.image = 'example/custom:1';
    s.spec!.template.spec!.containers[0]!.volumeMounts = [];
    s.metadata!.annotations = { ...s.metadata!.annotations, 'workspace.kaito.io/revision': '7' };
    return s;
  });
  const { adopted, marks } = rebuiltMarks(objects);
  assert.equal(adopted, false);
  assert.equal(marks['spec.template.spec.containers[name=ws1].image'], 'kept (selective update)');
  assert.equal(marks['metadata.annotations.workspace.kaito.io/revision'], 'would be written');
  // The main container's volume mounts are one of the four parts a new revision writes.
  const mounts = Object.entries(marks).filter(([path]) => path.startsWith('spec.template.spec.containers[name=ws1].volumeMounts'));
  assert.ok(mounts.length > 0 && mounts.every(([, mark]) => mark === 'would be written'), JSON.stringify(marks));
});
