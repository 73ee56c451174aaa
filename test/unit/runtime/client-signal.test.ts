import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { KubeClient, MERGE_PATCH } from '../../../src/runtime/client.js';
import { isAborted, toKubeError } from '../../../src/runtime/errors.js';
import { clientEventSink, EventRecorder } from '../../../src/runtime/events.js';
import { Resources } from '../../../src/runtime/resources.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { cm, FakeApiServer } from './fake-apiserver.js';
import { until } from './until.js';

describe('KubeClient.withSignal (fake API server)', { timeout: 15_000 }, () => {
  let server: FakeApiServer;
  let transport: KubeTransport;
  let client: KubeClient;
  /** Requests the server holds open without answering. */
  let held: http.ServerResponse[];

  beforeEach(async () => {
    server = new FakeApiServer();
    held = [];
    server.handler = (req, res) => {
      if (req.method === 'GET' && req.url?.includes('watch=true')) return false;
      held.push(res);
      return true;
    };
    transport = new KubeTransport(await server.start(), { qps: 1000, burst: 1000 });
    client = new KubeClient(transport);
  });
  afterEach(async () => {
    transport.close();
    await server.stop();
  });

  const rejection = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      return err;
    }
    assert.fail('expected a rejection');
  };

  it('a hanging request is aborted by the signal and rejects as Aborted', async () => {
    const ac = new AbortController();
    const call = rejection(client.withSignal(ac.signal).get(Resources.configMaps, 'default', 'a'));
    await until(() => held.length === 1);
    const t0 = performance.now();
    ac.abort();
    const err = await call;
    assert.ok(performance.now() - t0 < 1_000, 'rejected at once, not at the 30 s timeout');
    assert.equal(toKubeError(err).kind, 'Aborted');
    assert.equal(toKubeError(err).retryable, false);
    assert.ok(isAborted(err));
    assert.deepEqual(server.requests, ['GET /api/v1/namespaces/default/configmaps/a']);
  });

  it('a request whose signal has already fired is never sent, nor counted', async () => {
    const ac = new AbortController();
    ac.abort();
    const bound = client.withSignal(ac.signal);
    const ref = { namespace: 'default', name: 'a' };
    const calls: [string, () => Promise<unknown>][] = [
      ['get', () => bound.get(Resources.configMaps, 'default', 'a')],
      ['list', () => bound.list(Resources.configMaps, { namespace: 'default' })],
      ['create', () => bound.create(Resources.configMaps, cm('a', '1'))],
      ['apply', () => bound.apply(Resources.configMaps, cm('a', '1'))],
      ['applyStatus', () => bound.applyStatus(Resources.workspaces, ref, { conditions: [] })],
      ['mergePatchStatus', () => bound.mergePatchStatus(Resources.workspaces, ref, { conditions: [] })],
      ['patch', () => bound.patch(Resources.configMaps, ref, { data: { k: 'v' } }, MERGE_PATCH)],
      ['delete', () => bound.delete(Resources.configMaps, ref, { uid: 'u' })],
      ['watch', () => bound.watch(Resources.configMaps, {}, () => {}, 1_000, { namespace: 'default' })],
    ];
    for (const [name, call] of calls) assert.ok(isAborted(await rejection(call())), name);
    assert.deepEqual(server.requests, []);
    assert.equal(transport.counter.writes + transport.counter.get('get') + transport.counter.get('list') + transport.counter.get('watch'), 0);
  });

  it('binds writes too, and a bound client of a bound client aborts on either signal', async () => {
    const outer = new AbortController();
    const inner = new AbortController();
    const bound = client.withSignal(outer.signal).withSignal(inner.signal);
    assert.equal(bound.fieldManager, client.fieldManager);
    const call = rejection(bound.apply(Resources.configMaps, cm('a', '1')));
    await until(() => held.length === 1);
    outer.abort();
    assert.ok(isAborted(await call));
    // The unbound client is untouched by either signal.
    assert.equal(client.signal, undefined);
    assert.equal(transport.counter.get('apply'), 1);
  });

  it('an abort after the headers, while the body is still coming, is Aborted too', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":');
      held.push(res);
      return true;
    };
    const ac = new AbortController();
    const call = rejection(client.withSignal(ac.signal).list(Resources.configMaps));
    await until(() => held.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    assert.ok(isAborted(await call));
  });

  it('a per-request timeout ends a hanging call as a retryable Network error', async () => {
    const err = await rejection(client.withSignal(new AbortController().signal, { timeoutMs: 50 }).get(Resources.configMaps, 'default', 'a'));
    const e = toKubeError(err);
    assert.equal(e.kind, 'Network');
    assert.ok(e.retryable);
    assert.match(e.message, /no response within 50 ms/);
  });

  it('a request that is not aborted completes as before', async () => {
    server.handler = undefined;
    server.items = [cm('a', '1')];
    const page = await client.withSignal(new AbortController().signal).list(Resources.configMaps, { namespace: 'default' });
    assert.deepEqual(
      page.items.map((i) => i.metadata?.name),
      ['a'],
    );
  });

  it('EventRecorder.withSignal: an aborted write is not sent, and the next occurrence creates the Event', async () => {
    server.handler = (req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      return true;
    };
    const recorder = new EventRecorder({ sink: clientEventSink(client), reportingInstance: 'test' });
    const ac = new AbortController();
    ac.abort();
    const obj = cm('a', '1');
    await recorder.withSignal(ac.signal).event(obj, 'Normal', 'Tested', 'hello');
    assert.deepEqual(server.requests, []);
    assert.equal(recorder.pendingCount(), 0, 'the aborted series is forgotten');
    await recorder.event(obj, 'Normal', 'Tested', 'hello');
    assert.deepEqual(server.requests, ['POST /apis/events.k8s.io/v1/namespaces/default/events']);
  });
});
