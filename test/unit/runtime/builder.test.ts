import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1ConfigMap, V1Node, V1StatefulSet } from '@kubernetes/client-node';
import { ControllerBuilder, resource } from '../../../src/runtime/builder.js';
import type { ObjectEvent } from '../../../src/runtime/cache.js';
import { KubeClient } from '../../../src/runtime/client.js';
import type { Controller } from '../../../src/runtime/controller.js';
import type { DeepReadonly } from '../../../src/runtime/readonly.js';
import { resourcePath, Resources } from '../../../src/runtime/resources.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { FakeApiServer } from './fake-apiserver.js';
import { until } from './until.js';

interface Ws extends KubernetesObject {
  spec?: { node?: string };
}

const ws = (name: string, node?: string): Ws => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: '1' },
  spec: { node },
});
const sts = (name: string, owner: { kind: string; apiVersion: string; name: string }, rv = '1'): V1StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: {
    namespace: 'default',
    name,
    uid: `uid-sts-${name}`,
    resourceVersion: rv,
    ownerReferences: [{ ...owner, uid: `uid-${owner.name}`, controller: true }],
  },
});
const node = (name: string, labels: Record<string, string>, rv = '1'): V1Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: `uid-${name}`, labels, resourceVersion: rv },
});

const path = (t: typeof Resources.pods, ns?: string) => resourcePath(t, ns);

describe('ControllerBuilder (fake API server)', { timeout: 15_000 }, () => {
  let server: FakeApiServer;
  let transport: KubeTransport;
  let client: KubeClient;
  let controller: Controller | undefined;
  let reconciled: string[];

  beforeEach(async () => {
    server = new FakeApiServer();
    transport = new KubeTransport(await server.start(), { qps: 1000, burst: 1000 });
    client = new KubeClient(transport);
    reconciled = [];
    controller = undefined;
  });
  afterEach(async () => {
    await controller?.stop(1_000);
    transport.close();
    await server.stop();
  });

  /** The table every test starts from: Workspaces (For), StatefulSets (Owns), Nodes and ConfigMaps (Watches). */
  const table = (namespace?: string) =>
    new ControllerBuilder({ client, ...(namespace ? { namespace } : {}) })
      .for('workspaces', resource<Ws>(Resources.workspaces))
      .owns('statefulSets', resource<V1StatefulSet>(Resources.statefulSets), { labelSelector: 'app', indexLabel: 'app' })
      .watches('nodes', resource<V1Node>(Resources.nodes), {
        // Only label changes; then every workspace that names the node.
        when: (e: ObjectEvent<V1Node>) => e.type !== 'update' || e.old.metadata?.labels?.zone !== e.obj.metadata?.labels?.zone,
        map: (c) => (e) =>
          c.workspaces
            .list()
            .filter((w) => w.spec?.node === e.obj.metadata?.name)
            .map((w) => `default/${w.metadata?.name}`),
      })
      .watches('configMaps', resource<V1ConfigMap>(Resources.configMaps), {
        metadataOnly: true,
        fieldSelector: 'metadata.name=cfg',
        namespace: null,
        map: () => () => ['default/from-config'],
      });

  const reconcile = async (key: string) => void reconciled.push(key);

  it('makes one reflector per row, with its selectors, metadata-only media type and namespace scope', async () => {
    const built = table('default').build({ name: 't', reconcile });
    controller = built.controller;
    assert.equal(built.reflectors.length, 4);
    assert.deepEqual(
      built.reflectors.map((r) => r.name),
      ['workspaces@default', 'statefulsets@default', 'nodes', 'configmaps'],
    );
    assert.deepEqual(Object.keys(built.caches), ['workspaces', 'statefulSets', 'nodes', 'configMaps']);
    assert.equal(built.sources.nodes, built.reflectors[2]);
    await controller.start();
    const list = (p: string) => server.lists.find((u) => u.pathname === p);
    assert.equal(list(path(Resources.workspaces, 'default'))?.searchParams.get('labelSelector'), null);
    assert.equal(list(path(Resources.statefulSets, 'default'))?.searchParams.get('labelSelector'), 'app');
    assert.ok(list(path(Resources.nodes)), 'a cluster-scoped kind is listed cluster-wide');
    // namespace: null → every namespace although the builder has one.
    assert.equal(list(path(Resources.configMaps))?.searchParams.get('fieldSelector'), 'metadata.name=cfg');
    assert.match(server.listAccept.get(path(Resources.configMaps)) ?? '', /as=PartialObjectMetadataList/);
    assert.equal(server.listAccept.get(path(Resources.nodes)), 'application/json');
    assert.equal(built.sources.configMaps.cache.size, 0);
  });

  it('For enqueues itself, Owns the controlling owner of the For kind (group checked), Watches its mapper behind its predicate', async () => {
    server.collections.set(path(Resources.workspaces), [ws('w1', 'n1'), ws('w2', 'n2')]);
    server.collections.set(path(Resources.nodes), [node('n1', { zone: 'a' })]);
    const built = table().build({ name: 't', reconcile });
    controller = built.controller;
    await controller.start();
    await until(() => reconciled.includes('default/w1') && reconciled.includes('default/w2'));
    await until(() => controller!.queue.len === 0 && controller!.metrics.activeWorkers === 0);
    // Typed caches: no cast at the call site.
    const w: DeepReadonly<Ws> | undefined = built.caches.workspaces.get('default', 'w1');
    assert.equal(w?.spec?.node, 'n1');

    const stsPath = path(Resources.statefulSets);
    await until(() => server.emit(stsPath, 'ADDED', sts('s1', { kind: 'Workspace', apiVersion: 'kaito.sh/v1beta1', name: 'w9' })) === 1);
    await until(() => reconciled.includes('default/w9'));
    reconciled.length = 0;
    // Same kind, another group: not ours.
    await until(() => server.emit(stsPath, 'ADDED', sts('s2', { kind: 'Workspace', apiVersion: 'other.io/v1', name: 'w8' })) === 1);
    // A node heartbeat (no zone change) is filtered by the predicate; a zone change maps to w1.
    const nodesPath = path(Resources.nodes);
    await until(() => server.emit(nodesPath, 'MODIFIED', node('n1', { zone: 'a', beat: '2' }, '2')) === 1);
    await until(() => built.caches.nodes.get(undefined, 'n1')?.metadata?.resourceVersion === '2');
    await until(() => built.caches.statefulSets.get('default', 's2') !== undefined);
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(reconciled, []);
    server.emit(nodesPath, 'MODIFIED', node('n1', { zone: 'b' }, '3'));
    await until(() => reconciled.includes('default/w1'));
    assert.deepEqual(reconciled, ['default/w1']);
  });

  it('the builder transform applies to rows without their own; a row transform and index label win', async () => {
    const stamp =
      <T extends KubernetesObject>(tag: string) =>
      (o: T): T => ({ ...o, metadata: { ...o.metadata, annotations: { kept: tag } } });
    server.collections.set(path(Resources.workspaces), [ws('w1')]);
    server.collections.set(path(Resources.statefulSets), [
      {
        ...sts('s1', { kind: 'Workspace', apiVersion: 'kaito.sh/v1beta1', name: 'w1' }),
        metadata: { ...sts('s1', { kind: 'Workspace', apiVersion: 'kaito.sh/v1beta1', name: 'w1' }).metadata, labels: { app: 'w1' } },
      },
    ]);
    const built = new ControllerBuilder({ client, transform: stamp('builder') })
      .for('workspaces', resource<Ws>(Resources.workspaces))
      .owns('statefulSets', resource<V1StatefulSet>(Resources.statefulSets), { transform: stamp<V1StatefulSet>('row'), indexLabel: 'app' })
      .build({ name: 't', reconcile });
    controller = built.controller;
    await controller.start();
    assert.equal(built.caches.workspaces.get('default', 'w1')?.metadata?.annotations?.kept, 'builder');
    assert.equal(built.caches.statefulSets.get('default', 's1')?.metadata?.annotations?.kept, 'row');
    assert.deepEqual(
      built.caches.statefulSets.list({ namespace: 'default', selector: { matchLabels: { app: 'w1' } } }).map((s) => s.metadata?.name),
      ['s1'],
    );
  });

  it('an optional row (required: false) whose kind is not served does not hold start() back, nor readiness', async () => {
    server.missing.add(path(Resources.nodeClaims));
    const built = table()
      .watches('claims', resource(Resources.nodeClaims), { required: false, map: () => () => [] })
      .build({ name: 't', reconcile, cacheSyncTimeoutMs: 2_000 });
    controller = built.controller;
    await controller.start();
    assert.equal(built.required.length, 4);
    assert.ok(!built.required.includes(built.sources.claims));
    assert.equal(built.sources.claims.hasSynced, false);
    await until(() => built.sources.claims.lastError?.kind === 'NotFound');
  });

  it('gated rows exist only when enabled, and their caches are optional', () => {
    const make = (enabled: boolean) =>
      table()
        .gated(enabled, (b) => b.watches('extra', resource<V1Node>(Resources.nodes), { namespace: null, map: () => () => [] }))
        .build({ name: 't', reconcile });
    const off = make(false);
    assert.equal(off.caches.extra, undefined);
    assert.equal(off.sources.extra, undefined);
    assert.equal(off.reflectors.length, 4);
    const on = make(true);
    assert.ok(on.caches.extra);
    assert.equal(on.reflectors.length, 5);
  });

  it('refuses a table that cannot be right: Owns before For, a second For, two rows of one name', () => {
    assert.throws(() => new ControllerBuilder({ client }).owns('s', resource(Resources.statefulSets)), /Owns .* needs For first/);
    assert.throws(() => new ControllerBuilder({ client }).for('a', resource(Resources.workspaces)).for('b', resource(Resources.pods)), /second For/);
    assert.throws(() => new ControllerBuilder({ client }).for('a', resource(Resources.workspaces)).owns('a', resource(Resources.pods)), /two rows named a/);
    assert.throws(
      () => new ControllerBuilder({ client }).watches('n', resource(Resources.nodes), { map: () => () => [] }).for('a', resource(Resources.workspaces)),
      /declared first/,
    );
  });
});
