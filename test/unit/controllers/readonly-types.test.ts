// Read-only by type: a write to cached state is a compile error, not only a TypeError at run time.
// Every `@ts-expect-error` below must stay an error: `npm run build` fails ("Unused '@ts-expect-error'
// directive") the day one of these writes compiles again. The same writes are then run against the
// frozen objects, which throw.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { KubernetesObject, V1StatefulSet } from '@kubernetes/client-node';
import type { ClusterFacts } from '../../../src/builders/facts.js';
import type { WorkspaceCaches, WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { factsOf } from '../../../src/controllers/workspace/gather-facts.js';
import { cachesFromObjects, readSnapshot, type WorkspaceSnapshot } from '../../../src/controllers/workspace/snapshot.js';
import type { CacheReader, ObjectEvent } from '../../../src/runtime/cache.js';
import { mutableCopy } from '../../../src/runtime/readonly.js';
import { A10_NODE_LABELS, byoOperatorConfig, gpuNode, presetWorkspace } from '../builders/fixtures.js';

const config = byoOperatorConfig(0);
const ws = { ...presetWorkspace('phi-3-mini-4k-instruct'), metadata: { name: 'ws', namespace: 'default', uid: 'w-uid' } } as WorkspaceObject;
const sts: V1StatefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'ws', namespace: 'default', labels: { app: 'ws' } },
  spec: { replicas: 1, serviceName: 'ws-headless', selector: {}, template: { spec: { containers: [{ name: 'main' }] } } },
};
const node = { ...gpuNode('n1', A10_NODE_LABELS), kind: 'Node' };

function snapshot(): { snap: WorkspaceSnapshot; caches: WorkspaceCaches } {
  const caches = cachesFromObjects([ws, sts, node]);
  return { snap: readSnapshot(ws, { caches, config, fieldManager: 'kaito-ts', now: new Date(0), provisioningCrdInstalled: () => true }), caches };
}

/** Runs a write that must not compile, and says whether it threw a TypeError (the frozen object refusing it). */
function refused(write: () => void): boolean {
  try {
    write();
    return false;
  } catch (err) {
    return err instanceof TypeError;
  }
}

describe('cached state is read-only by type', () => {
  it('the snapshot: its cached objects and lists', () => {
    const { snap } = snapshot();
    const live = snap.statefulSet!;
    const n = snap.nodes[0]!;
    // @ts-expect-error a cached StatefulSet's spec is readonly
    assert.ok(refused(() => (live.spec!.replicas = 3)));
    // @ts-expect-error a cached Node's labels are readonly
    assert.ok(refused(() => (n.metadata!.labels!.x = 'y')));
    // @ts-expect-error nested lists of a cached object are readonly
    assert.ok(refused(() => (live.spec!.template.spec!.containers[0] = { name: 'sidecar' })));
    // @ts-expect-error a cached object's top-level field is readonly
    assert.ok(refused(() => (n.status = {})));
    // @ts-expect-error the snapshot's lists are readonly (every node: the cache's one frozen array, so it throws too)
    assert.ok(refused(() => (snap.nodes[0] = n)));
    // The workspace is the pass's own copy: it may change (the plan builder keeps its own next state).
    snap.ws.metadata.labels = { own: 'copy' };
    assert.equal(snapshot().snap.ws.metadata.labels, undefined);
  });

  it('the facts the builders read', () => {
    const facts: ClusterFacts = factsOf(snapshot().snap);
    const n = facts.nodes[0]!;
    // @ts-expect-error a fact node's labels are readonly
    assert.ok(refused(() => (n.metadata!.labels!.x = 'y')));
    // @ts-expect-error the facts' lists are readonly (the cache's frozen array: a write throws)
    assert.ok(refused(() => (facts.nodes[0] = n)));
  });

  it('the caches a reconciler or mapper reads: no write methods, read-only objects', () => {
    const { caches } = snapshot();
    const reader: CacheReader<KubernetesObject> = caches.nodes;
    // @ts-expect-error a reader has no upsert: only reflectors and the executor's write-through write
    assert.equal(reader.upsert, reader.upsert);
    // @ts-expect-error nor remove
    assert.equal(reader.remove, reader.remove);
    const got = caches.statefulSets.get('default', 'ws')!;
    // @ts-expect-error what get returns is read-only
    assert.ok(refused(() => (got.metadata!.name = 'other')));
    // @ts-expect-error and so is what list returns
    assert.ok(refused(() => (caches.nodes.list()[0]!.metadata!.labels!.x = 'y')));
  });

  it('a cache event a mapper receives', () => {
    const e: ObjectEvent<V1StatefulSet> = { type: 'add', obj: snapshot().snap.statefulSet! };
    // @ts-expect-error an event's object is the cached one
    assert.ok(refused(() => (e.obj.spec!.replicas = 2)));
  });

  it('mutableCopy is the way to a writable object, and leaves the cache alone', () => {
    const { snap, caches } = snapshot();
    const own = mutableCopy<V1StatefulSet>(snap.statefulSet!);
    own.spec!.replicas = 3;
    assert.equal(caches.statefulSets.get('default', 'ws')?.spec?.replicas, 1);
  });
});

describe('one write-through', () => {
  const root = join(import.meta.dirname, '..', '..', '..', '..');
  const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(root, 'src', f));

  it("only the reflector (the cache's source) and the executor (write-through) upsert into a cache", () => {
    const upserting = sources
      .filter((f) => /\.upsert\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f))
      .sort();
    assert.deepEqual(upserting, ['src/controllers/shared/executor.ts', 'src/runtime/cache.ts', 'src/runtime/reflector.ts']);
  });
});
