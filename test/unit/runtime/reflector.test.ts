import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeClient } from '../../../src/runtime/client.js';
import type { ObjectEvent } from '../../../src/runtime/cache.js';
import { JitteredBackoff, Slots, sleep } from '../../../src/runtime/rate-limit.js';
import { Reflector } from '../../../src/runtime/reflector.js';
import { Resources } from '../../../src/runtime/resources.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { cm, FakeApiServer, send } from './fake-apiserver.js';
import { until } from './until.js';

describe('Reflector (fake API server)', { timeout: 15_000 }, () => {
  let server: FakeApiServer;
  let transport: KubeTransport;
  let reflector: Reflector<KubernetesObject>;
  let events: string[];

  beforeEach(async () => {
    server = new FakeApiServer();
    transport = new KubeTransport(await server.start(), { qps: 1000, burst: 1000 });
    events = [];
  });
  afterEach(async () => {
    await reflector?.stop();
    transport.close();
    await server.stop();
  });

  function start(extra: Partial<ConstructorParameters<typeof Reflector>[0]> = {}) {
    reflector = new Reflector<KubernetesObject>({
      client: new KubeClient(transport),
      type: Resources.configMaps,
      backoff: new JitteredBackoff({ initialMs: 10, maxMs: 40, jitter: 0 }),
      ...extra,
    });
    reflector.on((e: ObjectEvent<KubernetesObject>) => events.push(`${e.type}:${e.obj.metadata?.name}@${e.obj.metadata?.resourceVersion}`));
    return reflector.start();
  }

  it('lists, syncs, then watches from the list version with bookmarks and a 5–10 min timeout', async () => {
    server.items = [cm('a', '90'), cm('b', '95')];
    server.watchScripts.push((res) => {
      send(res, 'ADDED', cm('c', '101'));
      send(res, 'MODIFIED', cm('a', '102', { k: 'v' }));
      send(res, 'DELETED', cm('b', '103'));
    });
    start();
    await reflector.synced;
    assert.deepEqual(reflector.cache.keys().sort(), ['default/a', 'default/b']);
    await until(() => events.length === 5);
    assert.deepEqual(events, ['add:a@90', 'add:b@95', 'add:c@101', 'update:a@102', 'delete:b@103']);
    assert.equal(reflector.lastResourceVersion, '103');
    const q = server.watchQueries[0]!;
    assert.equal(q.get('resourceVersion'), '100');
    assert.equal(q.get('allowWatchBookmarks'), 'true');
    const timeout = Number(q.get('timeoutSeconds'));
    assert.ok(timeout >= 300 && timeout <= 600, `timeoutSeconds ${timeout}`);
    assert.equal(reflector.cache.get('default', 'a')?.metadata?.resourceVersion, '102');
    assert.equal(reflector.cache.get('default', 'a')?.kind, 'ConfigMap', 'list items get their kind back');
    assert.equal(transport.counter.get('list'), 1);
  });

  it('after a clean close re-watches from the last bookmark without relisting', async () => {
    server.watchScripts.push((res) => {
      send(res, 'ADDED', cm('x', '101'));
      send(res, 'BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '250' } });
      res.end();
    });
    start();
    await until(() => server.watchQueries.length === 2);
    assert.equal(server.watchQueries[1]!.get('resourceVersion'), '250');
    assert.equal(reflector.stats.lists, 1);
    assert.deepEqual(events, ['add:x@101'], 'a bookmark is not an object event');
  });

  it('relists on 410 Gone in the stream and emits deletes for objects missed meanwhile', async () => {
    server.items = [cm('a', '90'), cm('b', '91')];
    server.watchScripts.push((res) => {
      send(res, 'ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (100)' });
    });
    start();
    await reflector.synced;
    server.items = [cm('a', '90'), cm('c', '120')];
    server.resourceVersion = '130';
    await until(() => server.watchQueries.length === 2);
    assert.equal(reflector.stats.expired, 1);
    assert.equal(reflector.stats.lists, 2);
    assert.equal(server.watchQueries[1]!.get('resourceVersion'), '130');
    assert.deepEqual(events, ['add:a@90', 'add:b@91', 'delete:b@91', 'add:c@120']);
  });

  it('backs off and keeps trying when the list fails (e.g. RBAC or a missing CRD), never gives up', async () => {
    server.listFailures.push(403, 500, 500);
    const errors: string[] = [];
    start({ onError: (e) => errors.push(e.kind) });
    assert.equal(await reflector.waitForSync(5), false);
    await reflector.synced;
    assert.deepEqual(errors, ['Forbidden', 'ServerError', 'ServerError']);
    assert.equal(server.listQueries.length, 4);
  });

  it('paginates the list', async () => {
    server.items = ['a', 'b', 'c', 'd', 'e'].map((n, i) => cm(n, String(i + 1)));
    start({ pageSize: 2 });
    await reflector.synced;
    assert.equal(reflector.cache.size, 5);
    assert.deepEqual(
      server.listQueries.map((q) => q.get('continue')),
      [null, '2', '4'],
    );
  });

  it('asks for pages of 100 by default', async () => {
    start();
    await reflector.synced;
    assert.equal(server.listQueries[0]!.get('limit'), '100');
  });

  it('reflectors sharing list slots list one after another, never two pages in flight, and all sync', async () => {
    const items = ['a', 'b', 'c', 'd', 'e'].map((n, i) => cm(n, String(i + 1)));
    let inFlight = 0;
    let most = 0;
    let served = 0;
    const continues: (string | null)[] = [];
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') === 'true') return false;
      continues.push(url.searchParams.get('continue'));
      inFlight++;
      most = Math.max(most, inFlight);
      const from = Number(url.searchParams.get('continue') ?? 0);
      setTimeout(() => {
        inFlight--;
        served++;
        const more = from + 2 < items.length ? String(from + 2) : undefined;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '100', continue: more }, items: items.slice(from, from + 2) }),
        );
      }, 10);
      return true;
    };
    const slots = new Slots(1);
    const client = new KubeClient(transport);
    const others = [Resources.configMaps, Resources.services, Resources.pods].map((type) =>
      new Reflector<KubernetesObject>({ client, type, pageSize: 2, listSlots: slots }).start(),
    );
    try {
      await Promise.all(others.map((r) => r.synced));
      assert.equal(served, 9, 'three lists of three pages');
      assert.equal(most, 1, 'one page in flight at a time');
      assert.deepEqual(continues, [null, '2', '4', null, '2', '4', null, '2', '4'], 'each list runs to its last page before the next starts');
      for (const r of others) assert.equal(r.cache.size, 5);
    } finally {
      await Promise.all(others.map((r) => r.stop()));
    }
  });

  it('a reflector stopped while it waits for a list slot ends without listing', async () => {
    const slots = new Slots(1);
    let release!: () => void;
    const held = slots.run(() => new Promise<void>((r) => (release = r)));
    start({ listSlots: slots });
    await sleep(20);
    await reflector.stop();
    release();
    await held;
    assert.equal(server.listQueries.length, 0);
    assert.equal(slots.inUse, 0);
  });

  it('a forced watch restart resumes from the last version', async () => {
    server.watchScripts.push((res) => send(res, 'ADDED', cm('x', '105')));
    start();
    await until(() => events.length === 1);
    reflector.restartWatch();
    await until(() => server.watchQueries.length === 2);
    assert.equal(server.watchQueries[1]!.get('resourceVersion'), '105');
    assert.equal(reflector.stats.lists, 1);
  });

  it('a watch that closes at once with no events does not spin', async () => {
    for (let i = 0; i < 100; i++) server.watchScripts.push((res) => res.end());
    start({ backoff: new JitteredBackoff({ initialMs: 50, maxMs: 50, jitter: 0 }) });
    await reflector.synced;
    await sleep(220);
    const n = server.watchQueries.length;
    assert.ok(n >= 2 && n <= 6, `${n} watches in 220 ms with a 50 ms backoff`);
  });
});
