// The executor and the reconciler against a scripted API server: the exact requests a pass sends,
// in order, and what happens when the server refuses one (controller-rs tests its reconciler the same way).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import type { WorkspaceDeps, WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { PlanExecutor } from '../../../src/controllers/shared/executor.js';
import { planErrorPolicy } from '../../../src/controllers/shared/actions.js';
import { ActionFailed } from '../../../src/controllers/shared/actions.js';
import { WorkspaceReconciler } from '../../../src/controllers/workspace/reconciler.js';
import { Reason } from '../../../src/controllers/workspace/reasons.js';
import { cachesFromObjects } from '../../../src/controllers/workspace/snapshot.js';
import { EventRecorder, type EventBody } from '../../../src/runtime/events.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { Resources } from '../../../src/runtime/resources.js';
import type { HttpRequest } from '../../../src/runtime/transport.js';
import { A10_NODE_LABELS, byoOperatorConfig, byoWorkspace, gpuNode } from '../builders/fixtures.js';
import { line, scriptedApiServer } from './scripted-apiserver.js';

const api = scriptedApiServer();
const server = api.server;

const config = byoOperatorConfig();
const NOW = new Date('2026-12-01T12:00:00Z');

function deps(objects: KubernetesObject[]): WorkspaceDeps & { events: EventBody[] } {
  const events: EventBody[] = [];
  const recorder = new EventRecorder({
    sink: {
      create: (e) => {
        events.push(e);
        return Promise.resolve();
      },
      patchSeries: () => Promise.resolve(),
    },
    now: () => NOW.getTime(),
  });
  return {
    client: api.client,
    caches: cachesFromObjects(objects),
    recorder,
    log: silentLogger,
    config,
    now: () => NOW,
    provisioningCrdInstalled: () => undefined,
    events,
  };
}

const ws = (): WorkspaceObject => ({
  ...byoWorkspace('phi-3-mini-4k-instruct'),
  metadata: { name: 'ws1', namespace: 'ns1', uid: 'uid-1', resourceVersion: '7', generation: 1 },
});
const node = { ...gpuNode('n1', A10_NODE_LABELS), kind: 'Node' } as KubernetesObject;
test('a new workspace: the exact requests of its first pass, in order, and nothing on the second', async () => {
  server.seen = [];
  server.script = undefined;
  server.seed('/apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1', ws());
  const d = deps([ws(), node]);
  const reconciler = new WorkspaceReconciler(d);
  const result = await reconciler.reconcile('ns1/ws1');
  assert.ok((result.requeueAfterMs ?? 0) > 0, 'one later look, when the readiness timeout would fire');
  assert.deepEqual(server.seen.map(line), [
    'PATCH /apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1 fieldManager=kaito-ts (merge)',
    'POST /api/v1/namespaces/ns1/configmaps fieldManager=kaito-ts',
    'PATCH /apis/apps/v1/namespaces/ns1/statefulsets/ws1 fieldManager=kaito-ts (apply)',
    `PATCH /apis/apps/v1/namespaces/ns1/controllerrevisions/${(server.seen[3]!.body as KubernetesObject).metadata?.name} fieldManager=kaito-ts (apply)`,
    'PATCH /api/v1/namespaces/ns1/services/ws1-headless fieldManager=kaito-ts (apply)',
    'PATCH /api/v1/namespaces/ns1/services/ws1 fieldManager=kaito-ts (apply)',
    'PATCH /apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1/status fieldManager=kaito-ts (merge)',
  ]);
  const meta = (server.seen[0]!.body as { metadata: Record<string, unknown> }).metadata;
  assert.equal(meta.resourceVersion, '7', 'the metadata patch is conditional');
  assert.deepEqual(meta.finalizers, [WORKSPACE_FINALIZER]);
  assert.deepEqual(Object.keys(meta.annotations as object).sort(), ['workspace.kaito.io/hash', 'workspace.kaito.io/revision']);
  assert.equal(reconciler.lastExecution?.writes, 7);

  // Write-through: the second pass reads what the first wrote and sends nothing.
  server.seen = [];
  await reconciler.reconcile('ns1/ws1');
  assert.deepEqual(server.seen.map(line), []);
});

test('a StatefulSet the server refuses: ChildObjectRejected on the status and a Warning event, terminal', async () => {
  server.seen = [];
  server.script = (r) =>
    r.path.endsWith('/statefulsets/ws1')
      ? {
          status: 422,
          body: {
            kind: 'Status',
            code: 422,
            reason: 'Invalid',
            message: 'StatefulSet.apps "ws1" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never"',
          },
        }
      : undefined;
  server.seed('/apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1', ws());
  const d = deps([ws(), node]);
  const err = await new WorkspaceReconciler(d).reconcile('ns1/ws1').then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ActionFailed);
  assert.deepEqual(planErrorPolicy(err), { terminal: true });
  const status = server.seen
    .filter((r) => r.path.endsWith('/status'))
    .map((r) => (r.body as { status: { conditions: { type: string; reason: string; message: string }[] } }).status);
  assert.equal(status.length, 1, 'one status write, the report');
  const inference = status[0]!.conditions.find((c) => c.type === 'InferenceReady');
  assert.equal(inference?.reason, Reason.ChildObjectRejected);
  assert.match(inference?.message ?? '', /HTTP 422.*restartPolicy/);
  assert.ok(d.events.some((e) => e.type === 'Warning' && e.reason === Reason.ChildObjectRejected));
  assert.ok(!server.seen.some((r) => r.path.includes('/services/')), 'nothing after the refused action');
});

test('executor: already-exists on a create and gone on a delete are done, not failures', async () => {
  server.seen = [];
  server.script = (r) =>
    r.method === 'POST'
      ? { status: 409, body: { kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'exists' } }
      : r.method === 'DELETE'
        ? { status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound', message: 'gone' } }
        : undefined;
  const d = deps([ws()]);
  const record = await new PlanExecutor({ ...d, owner: Resources.workspaces }).execute(ws(), {
    actions: [
      { kind: 'create', type: Resources.configMaps, object: { metadata: { name: 'c', namespace: 'ns1' } }, why: 'test' },
      { kind: 'delete', type: Resources.statefulSets, ref: { namespace: 'ns1', name: 's' }, uid: 'u1', why: 'test' },
    ],
  });
  assert.equal(record.writes, 2);
  const del = server.seen.find((r) => r.method === 'DELETE')!;
  assert.deepEqual((del.body as { preconditions: unknown }).preconditions, { uid: 'u1' }, 'the delete carries the UID precondition');
});

test('executor: a create whose object another pass already wrote through is skipped without a request', async () => {
  server.seen = [];
  server.script = undefined;
  const d = deps([ws(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inference-params-template', namespace: 'ns1' } }]);
  const record = await new PlanExecutor({ ...d, owner: Resources.workspaces }).execute(ws(), {
    actions: [
      { kind: 'create', type: Resources.configMaps, object: { metadata: { name: 'inference-params-template', namespace: 'ns1' } }, why: 'test' },
      { kind: 'create', type: Resources.configMaps, object: { metadata: { name: 'other', namespace: 'ns1' } }, why: 'test' },
    ],
  });
  assert.equal(record.writes, 1);
  assert.deepEqual(
    server.seen.map((r) => `${r.method} ${r.path}`),
    ['POST /api/v1/namespaces/ns1/configmaps'],
  );
});

test('executor: two passes creating the same shared copy at once send one create; the second waits for its answer', async () => {
  server.seen = [];
  server.script = undefined;
  const d = deps([ws()]);
  const executor = new PlanExecutor({ ...d, owner: Resources.workspaces });
  const copy = (): KubernetesObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inference-params-template', namespace: 'ns1' } });
  const plan = () => ({ actions: [{ kind: 'create' as const, type: Resources.configMaps, object: copy(), why: 'test' }] });
  const [a, b] = await Promise.all([executor.execute(ws(), plan()), executor.execute(ws(), plan())]);
  assert.equal(a.writes + b.writes, 1);
  assert.deepEqual(
    server.seen.map((r) => `${r.method} ${r.path}`),
    ['POST /api/v1/namespaces/ns1/configmaps'],
  );
});

test('executor: a failed NodeClaim create says so in a Warning event and stops the pass with ActionFailed', async () => {
  server.seen = [];
  server.script = () => ({ status: 500, body: { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd timeout' } });
  const d = deps([ws()]);
  const claim = { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'wsabc' } };
  const run = new PlanExecutor({ ...d, owner: Resources.workspaces }).execute(ws(), {
    actions: [
      {
        kind: 'create',
        type: Resources.nodeClaims,
        object: claim,
        why: 'test',
        failed: { type: 'Warning', reason: 'NodeClaimCreationFailed', message: 'NodeClaim wsabc' },
      },
      { kind: 'event', note: { type: 'Normal', reason: 'Never', message: 'not reached' } },
    ],
  });
  await assert.rejects(run, (e: unknown) => e instanceof ActionFailed && e.action.kind === 'create');
  assert.deepEqual(
    d.events.map((e) => e.reason),
    ['NodeClaimCreationFailed'],
  );
  assert.match(d.events[0]!.note ?? '', /NodeClaim wsabc: .*etcd timeout/);
  assert.equal(planErrorPolicy(await run.catch((e: unknown) => e)).terminal, false, 'a server error is retried');
});

/** Reconciles a new ws1 with `ctx`, and returns each request it sent as `label` writes it (plus the marks `ctx` hooks add). */
async function requestsOfFirstPass(
  label: (req: HttpRequest) => string,
  ctx: (mark: (line: string) => void) => Parameters<WorkspaceReconciler['reconcile']>[1],
): Promise<string[]> {
  server.seen = [];
  server.script = undefined;
  server.seed('/apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1', ws());
  const transport = api.client.transport;
  const original = transport.request.bind(transport);
  const lines: string[] = [];
  transport.request = (req) => {
    lines.push(`${req.method} ${req.path.replace(/controllerrevisions\/.*/, 'controllerrevisions/<name>')}${label(req)}`);
    return original(req);
  };
  try {
    await new WorkspaceReconciler(deps([ws(), node])).reconcile(
      'ns1/ws1',
      ctx((line) => lines.push(line)),
    );
  } finally {
    transport.request = original;
  }
  return lines;
}

test("what follows the model-load write yields the QPS budget and the worker: revision, Services and status deferrable (until the pass's urgent signal), the writes up to the StatefulSet not", async () => {
  const urgent = new AbortController();
  const deferral = (req: HttpRequest) => (req.priority === 'deferred' ? (req.urgent === urgent.signal ? ' deferrable until urgent' : ' deferrable') : '');
  const marks = await requestsOfFirstPass(deferral, (mark) => ({
    release: () => {
      mark('release');
      return true;
    },
    urgent: urgent.signal,
  }));
  assert.deepEqual(marks, [
    'PATCH /apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1',
    'POST /api/v1/namespaces/ns1/configmaps',
    'PATCH /apis/apps/v1/namespaces/ns1/statefulsets/ws1',
    'release',
    'PATCH /apis/apps/v1/namespaces/ns1/controllerrevisions/<name> deferrable until urgent',
    'PATCH /api/v1/namespaces/ns1/services/ws1-headless deferrable until urgent',
    'PATCH /api/v1/namespaces/ns1/services/ws1 deferrable until urgent',
    'PATCH /apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1/status deferrable until urgent',
  ]);
});

test('a pass from the fast lane sends its writes in the high line of the QPS budget; what it defers stays deferred', async () => {
  const lines = await requestsOfFirstPass(
    (req) => ` ${req.priority ?? 'normal'}`,
    () => ({ fast: true }),
  );
  assert.deepEqual(lines, [
    'PATCH /apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1 high',
    'POST /api/v1/namespaces/ns1/configmaps high',
    'PATCH /apis/apps/v1/namespaces/ns1/statefulsets/ws1 high',
    'PATCH /apis/apps/v1/namespaces/ns1/controllerrevisions/<name> deferred',
    'PATCH /api/v1/namespaces/ns1/services/ws1-headless deferred',
    'PATCH /api/v1/namespaces/ns1/services/ws1 deferred',
    'PATCH /apis/kaito.sh/v1beta1/namespaces/ns1/workspaces/ws1/status deferred',
  ]);
});

test("executor: taking a template's ownership reads the object, then one JSON patch of managedFields guarded by its resourceVersion", async () => {
  const path = '/apis/apps/v1/namespaces/ns1/statefulsets/ws1';
  const main = { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"ws1"}': { '.': {}, 'f:name': {}, 'f:image': {} } } } } } };
  const kaitoMade = (manager: string, operation: string) => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'ws1', namespace: 'ns1', resourceVersion: '41', managedFields: [{ manager, operation, fieldsV1: main }] },
  });
  const take = { kind: 'takeFieldOwnership' as const, type: Resources.statefulSets, ref: { namespace: 'ns1', name: 'ws1' }, container: 'ws1', why: 'test' };
  const rows: [string, KubernetesObject, string[], unknown][] = [
    [
      'written by another manager: its template moves to our Apply entry',
      kaitoMade('manager', 'Update'),
      [`GET ${path}`, `PATCH ${path} fieldManager=kaito-ts (json-patch)`],
      [
        { op: 'replace', path: '/metadata/resourceVersion', value: '41' },
        {
          op: 'replace',
          path: '/metadata/managedFields',
          value: [{ manager: 'kaito-ts', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: main }],
        },
      ],
    ],
    ['written by kaito-ts: only read', kaitoMade('kaito-ts', 'Apply'), [`GET ${path}`], undefined],
  ];
  for (const [name, live, requests, patch] of rows) {
    server.seen = [];
    server.script = (r) =>
      r.method === 'GET' ? { status: 200, body: live } : { status: 200, body: { ...live, metadata: { ...live.metadata, resourceVersion: '42' } } };
    const d = deps([ws()]);
    const record = await new PlanExecutor({ ...d, owner: Resources.workspaces }).execute(ws(), { actions: [take] });
    assert.deepEqual(server.seen.map(line), requests, name);
    assert.deepEqual(server.seen.find((r) => r.method === 'PATCH')?.body, patch, name);
    assert.equal(record.writes, patch ? 1 : 0, name);
  }
  // A write since the read is a 409: the pass is retried, never taken as a refusal of the object.
  server.script = (r) =>
    r.method === 'GET'
      ? { status: 200, body: kaitoMade('manager', 'Update') }
      : { status: 409, body: { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' } };
  const failed = await new PlanExecutor({ ...deps([ws()]), owner: Resources.workspaces }).execute(ws(), { actions: [take] }).catch((e: unknown) => e);
  assert.ok(failed instanceof ActionFailed);
  assert.deepEqual(planErrorPolicy(failed), { terminal: false, notBeforeMs: 0 });
  server.script = undefined;
});

test('executor: creates the server names (generateName) go out together; the first failure stops the pass with ActionFailed', async () => {
  let inFlight = 0;
  let most = 0;
  const sent: string[] = [];
  const client = {
    withSignal: () => client,
    deferred: () => client,
    create: async (_type: unknown, obj: KubernetesObject) => {
      inFlight++;
      most = Math.max(most, inFlight);
      sent.push(obj.metadata?.generateName ?? '');
      const n = sent.length;
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      if (obj.metadata?.labels?.fail) throw Object.assign(new Error('etcd timeout'), { code: 500 });
      return { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata?.generateName ?? ''}${n}`, namespace: 'ns1' } };
    },
  };
  const d = deps([ws()]);
  const executor = new PlanExecutor({ ...d, client: client as unknown as typeof d.client, owner: Resources.workspaces });
  const child = (labels: Record<string, string> = {}) => ({
    kind: 'create' as const,
    type: Resources.workspaces,
    object: { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { generateName: 'set-', namespace: 'ns1', labels } },
    why: 'a replica',
  });
  const record = await executor.execute(ws(), { actions: [child(), child(), child()] });
  assert.equal(record.writes, 3);
  assert.equal(most, 3, 'all three in flight at once');
  assert.equal(d.caches.workspaces.list({ namespace: 'ns1' }).filter((w) => w.metadata?.name?.startsWith('set-')).length, 3, 'each written through');

  most = 0;
  const failing = child({ fail: 'yes' });
  await assert.rejects(executor.execute(ws(), { actions: [child(), failing, child()] }), (e: unknown) => e instanceof ActionFailed && e.action === failing);
  assert.equal(most, 3);
});
