import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1LabelSelector } from '@kubernetes/client-node';
import { deepFreeze, ObjectCache } from '../../../src/runtime/cache.js';
import { matchesSelector } from '../../../src/runtime/label-selector.js';

function obj(ns: string | undefined, name: string, rv: string, extra: Partial<NonNullable<KubernetesObject['metadata']>> = {}): KubernetesObject {
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { namespace: ns, name, resourceVersion: rv, uid: `uid-${name}`, ...extra } };
}
const owned = (ns: string, name: string, ownerUid: string, ownerName: string, controller = true) =>
  obj(ns, name, '1', { ownerReferences: [{ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: ownerName, uid: ownerUid, controller }] });

describe('ObjectCache', () => {
  it('gets by namespace/name and cluster-scoped name', () => {
    const c = new ObjectCache();
    c.upsert(obj('a', 'x', '1'));
    c.upsert(obj(undefined, 'node-1', '1'));
    assert.equal(c.get('a', 'x')?.metadata?.name, 'x');
    assert.equal(c.get(undefined, 'node-1')?.metadata?.name, 'node-1');
    assert.equal(c.get('b', 'x'), undefined);
    assert.equal(c.getByKey('a/x')?.metadata?.uid, 'uid-x');
  });

  it('emits add, update (with the old object), nothing for the same resourceVersion, delete', () => {
    const c = new ObjectCache();
    assert.equal(c.upsert(obj('a', 'x', '1'))?.type, 'add');
    assert.equal(c.upsert(obj('a', 'x', '1')), undefined);
    const u = c.upsert(obj('a', 'x', '2'));
    assert.equal(u?.type, 'update');
    assert.equal(u?.type === 'update' ? u.old.metadata?.resourceVersion : '', '1');
    assert.equal(c.remove(obj('a', 'x', '3'))?.type, 'delete');
    assert.equal(c.remove(obj('a', 'x', '3')), undefined, 'second delete is a no-op');
    assert.equal(c.size, 0);
  });

  it('keeps only who wrote an object of its managedFields', () => {
    const c = new ObjectCache();
    c.upsert(
      obj('a', 'x', '1', {
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} }, time: new Date(0) }],
      }),
    );
    assert.deepEqual(c.get('a', 'x')?.metadata?.managedFields, [{ manager: 'kubectl', operation: 'Apply' }]);
    c.upsert(obj('a', 'y', '1'));
    assert.equal(c.get('a', 'y')?.metadata?.managedFields, undefined);
  });

  it('lists by namespace and label selector', () => {
    const c = new ObjectCache();
    c.upsert(obj('a', 'x', '1', { labels: { app: 'llm', tier: 'gpu' } }));
    c.upsert(obj('a', 'y', '1', { labels: { app: 'web' } }));
    c.upsert(obj('b', 'z', '1', { labels: { app: 'llm' } }));
    const names = (ns?: string, selector?: V1LabelSelector) =>
      c
        .list({ namespace: ns, selector })
        .map((o) => o.metadata?.name)
        .sort();
    assert.deepEqual(names(), ['x', 'y', 'z']);
    assert.deepEqual(names('a'), ['x', 'y']);
    assert.deepEqual(names(undefined, { matchLabels: { app: 'llm' } }), ['x', 'z']);
    assert.deepEqual(names('a', { matchLabels: { app: 'llm' } }), ['x']);
    assert.deepEqual(names(undefined, { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }), ['x']);
  });

  it('an indexed label gives the same lists as a scan, and follows label changes and deletes', () => {
    const plain = new ObjectCache();
    const indexed = new ObjectCache({ indexLabel: 'ws' });
    const both = (o: KubernetesObject) => [plain, indexed].map((c) => c.upsert(structuredClone(o)));
    both(obj('a', 'p1', '1', { labels: { ws: 'w1' } }));
    both(obj('a', 'p2', '1', { labels: { ws: 'w1', role: 'x' } }));
    both(obj('a', 'p3', '1', { labels: { ws: 'w2' } }));
    both(obj('b', 'p4', '1', { labels: { ws: 'w1' } }));
    both(obj('a', 'p5', '1'));
    const queries: { namespace?: string; selector?: V1LabelSelector }[] = [
      {},
      { namespace: 'a' },
      { namespace: 'b' },
      { namespace: 'none' },
      { namespace: 'a', selector: { matchLabels: { ws: 'w1' } } },
      { namespace: 'a', selector: { matchLabels: { ws: 'w1', role: 'x' } } },
      { namespace: 'a', selector: { matchLabels: { ws: 'missing' } } },
      { selector: { matchLabels: { ws: 'w1' } } },
      { namespace: 'a', selector: { matchExpressions: [{ key: 'ws', operator: 'DoesNotExist' }] } },
    ];
    const names = (c: ObjectCache<KubernetesObject>, q: (typeof queries)[number]) =>
      c
        .list(q)
        .map((o) => o.metadata?.name)
        .sort();
    const check = (step: string) => {
      for (const q of queries) assert.deepEqual(names(indexed, q), names(plain, q), `${step}: ${JSON.stringify(q)}`);
    };
    check('after adds');
    assert.deepEqual(names(indexed, queries[4]!), ['p1', 'p2']);
    both(obj('a', 'p1', '2', { labels: { ws: 'w2' } })); // relabelled
    both(obj('a', 'p5', '2', { labels: { ws: 'w1' } })); // newly labelled
    [plain, indexed].forEach((c) => c.remove(obj('a', 'p2', '3')));
    check('after relabel and delete');
    assert.deepEqual(names(indexed, queries[4]!), ['p5']);
  });

  it('indexes by controller-owner UID and follows owner changes and deletes', () => {
    const c = new ObjectCache();
    c.upsert(owned('a', 's1', 'w-uid', 'w'));
    c.upsert(owned('a', 's2', 'w-uid', 'w'));
    c.upsert(owned('a', 's3', 'other', 'v'));
    c.upsert(owned('a', 's4', 'w-uid', 'w', false)); // not the controller
    assert.deepEqual(
      c
        .listByOwnerUid('w-uid')
        .map((o) => o.metadata?.name)
        .sort(),
      ['s1', 's2'],
    );
    assert.deepEqual(
      c
        .listByOwner('Workspace', 'a', 'w')
        .map((o) => o.metadata?.name)
        .sort(),
      ['s1', 's2'],
    );
    assert.deepEqual(c.listByOwner('Workspace', 'b', 'w'), []);
    // s2 re-owned by another workspace
    c.upsert({ ...owned('a', 's2', 'other', 'v'), metadata: { ...owned('a', 's2', 'other', 'v').metadata, resourceVersion: '2' } });
    assert.deepEqual(
      c.listByOwnerUid('w-uid').map((o) => o.metadata?.name),
      ['s1'],
    );
    c.remove(owned('a', 's1', 'w-uid', 'w'));
    assert.deepEqual(c.listByOwnerUid('w-uid'), []);
    assert.deepEqual(
      c
        .listByOwnerUid('other')
        .map((o) => o.metadata?.name)
        .sort(),
      ['s2', 's3'],
    );
  });

  it('replace() diffs a relist into add/update/delete events', () => {
    const c = new ObjectCache();
    c.upsert(obj('a', 'keep', '1'));
    c.upsert(obj('a', 'change', '1'));
    c.upsert(obj('a', 'gone', '1'));
    const events = c.replace([obj('a', 'keep', '1'), obj('a', 'change', '2'), obj('a', 'new', '1')]);
    assert.deepEqual(events.map((e) => `${e.type}:${e.obj.metadata?.name}`).sort(), ['add:new', 'delete:gone', 'update:change']);
    assert.deepEqual(c.keys().sort(), ['a/change', 'a/keep', 'a/new']);
  });
});

describe('ObjectCache reads are read-only', () => {
  const pod = () => ({
    metadata: {
      namespace: 'ns',
      name: 'p',
      uid: 'u1',
      resourceVersion: '1',
      labels: { a: '1' },
      managedFields: [{ manager: 'm', operation: 'Apply', fieldsV1: {} }],
    },
    spec: { containers: [{ name: 'c', env: [{ name: 'X', value: '1' }] }] },
  });
  type Pod = ReturnType<typeof pod> & { status?: unknown; metadata: { labels: Record<string, string> } };
  const writes: [string, (o: Pod) => void][] = [
    ['a top-level field', (o) => void (o.status = { phase: 'Running' })],
    ['a label', (o) => void (o.metadata.labels.b = '2')],
    ['a nested list element', (o) => void (o.spec.containers[0]!.env[0]!.value = '2')],
    ['a push onto a list', (o) => void o.spec.containers.push({ name: 'd', env: [] })],
    ['a delete', (o) => void delete (o.metadata.labels as Partial<Record<string, string>>).a],
  ];
  for (const [what, write] of writes) {
    it(`writing ${what} of a cached object throws and changes nothing`, () => {
      const c = new ObjectCache<KubernetesObject>();
      c.upsert(pod());
      const before = structuredClone(c.get('ns', 'p'));
      assert.throws(() => write(c.get('ns', 'p') as unknown as Pod), TypeError);
      assert.throws(() => write(c.list()[0] as unknown as Pod), TypeError);
      assert.deepEqual(c.get('ns', 'p'), before);
    });
  }

  it("a structuredClone is the reader's own, mutable copy", () => {
    const c = new ObjectCache<KubernetesObject>();
    c.upsert(pod());
    const own = structuredClone(c.get('ns', 'p')) as unknown as Pod;
    own.metadata.labels.b = '2';
    assert.equal(c.get('ns', 'p')?.metadata?.labels?.b, undefined);
  });

  it('a relist and a delete of frozen objects still work', () => {
    const c = new ObjectCache<KubernetesObject>();
    c.upsert(pod());
    assert.deepEqual(
      c.replace([]).map((e) => e.type),
      ['delete'],
    );
    c.upsert(pod());
    assert.equal(c.remove({ metadata: { namespace: 'ns', name: 'p' } })?.type, 'delete');
    assert.equal(c.size, 0);
  });

  it('deepFreeze leaves primitives alone and freezes every level', () => {
    assert.equal(deepFreeze(3), 3);
    assert.equal(deepFreeze(null), null);
    const o = deepFreeze({ a: { b: [{ c: 1 }] } });
    assert.ok(Object.isFrozen(o) && Object.isFrozen(o.a) && Object.isFrozen(o.a.b) && Object.isFrozen(o.a.b[0]));
  });
});

describe('label selectors', () => {
  const labels = { app: 'llm', 'kubernetes.io/os': 'linux', gpu: 'a100' };
  const cases: [string, V1LabelSelector | undefined, boolean][] = [
    ['undefined selects nothing', undefined, false],
    ['empty selects everything', {}, true],
    ['matchLabels hit', { matchLabels: { app: 'llm' } }, true],
    ['matchLabels miss', { matchLabels: { app: 'web' } }, false],
    ['matchLabels missing key', { matchLabels: { zone: 'a' } }, false],
    ['In hit', { matchExpressions: [{ key: 'gpu', operator: 'In', values: ['a100', 'h100'] }] }, true],
    ['In miss', { matchExpressions: [{ key: 'gpu', operator: 'In', values: ['t4'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn hit', { matchExpressions: [{ key: 'gpu', operator: 'NotIn', values: ['t4'] }] }, true],
    ['NotIn on a missing key matches', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['NotIn miss', { matchExpressions: [{ key: 'gpu', operator: 'NotIn', values: ['a100'] }] }, false],
    ['Exists', { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, false],
    ['labels AND expressions', { matchLabels: { app: 'llm' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
  ];
  for (const [name, selector, want] of cases) {
    it(name, () => assert.equal(matchesSelector(selector, labels), want));
  }

  it('unknown operators are an error, not a silent match', () => {
    assert.throws(() => matchesSelector({ matchExpressions: [{ key: 'a', operator: 'Gt' }] }, labels), /unknown label selector operator Gt/);
  });
});

describe('ObjectCache list() of everything', () => {
  it('is one frozen array shared until the cache changes, then a new one', () => {
    const cache = new ObjectCache<KubernetesObject>();
    cache.upsert({ metadata: { name: 'a', uid: '1', resourceVersion: '1' } });
    const first = cache.list();
    assert.equal(cache.list(), first);
    assert.ok(Object.isFrozen(first));
    // The same object again (no newer resourceVersion) changes nothing: the same array.
    cache.upsert({ metadata: { name: 'a', uid: '1', resourceVersion: '1' } });
    assert.equal(cache.list(), first);
    cache.upsert({ metadata: { name: 'b', uid: '2', resourceVersion: '2' } });
    const second = cache.list();
    assert.notEqual(second, first);
    assert.deepEqual(
      second.map((o) => o.metadata?.name),
      ['a', 'b'],
    );
    cache.remove({ metadata: { name: 'a', uid: '1' } });
    assert.deepEqual(
      cache.list().map((o) => o.metadata?.name),
      ['b'],
    );
    assert.deepEqual(first.length, 1);
  });
});
