import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { CHILD_OBJECT_REJECTED, CONFLICTS_BEFORE_REPORT, PERSISTENT_CONFLICT, persistentConflict, reportable } from '../../../src/controllers/workspace/failures.js';
import { TerminalError } from '../../../src/runtime/controller.js';
import { notOwnedMessage, ownedBy, ownedOnly, writtenBy } from '../../../src/controllers/workspace/ownership.js';
import { KubeApiError } from '../../../src/runtime/errors.js';

const ws = { metadata: { name: 'ws', namespace: 'team', uid: 'uid-ws' }, resource: { labelSelector: {} } } as unknown as WorkspaceObject;
const owner = (kind: string, uid: string, controller = true) => ({ apiVersion: 'kaito.sh/v1beta1', kind, name: 'ws', uid, controller });
const obj = (name: string, ownerReferences?: ReturnType<typeof owner>[]): KubernetesObject => ({
  metadata: { name, namespace: 'team', labels: { 'workspace.kaito.io/name': 'ws' }, ...(ownerReferences ? { ownerReferences } : {}) },
});

test('ownedBy: only a controller reference of kind Workspace with the workspace UID', () => {
  const cases: [string, KubernetesObject, boolean][] = [
    ['controlled by this workspace', obj('a', [owner('Workspace', 'uid-ws')]), true],
    ['no owner, same labels (look-alike)', obj('b'), false],
    ['controlled by a workspace of the same name, other UID (deleted and re-created)', obj('c', [owner('Workspace', 'uid-old')]), false],
    ['owner reference without controller: true', obj('d', [owner('Workspace', 'uid-ws', false)]), false],
    ['controlled by another kind with our UID', obj('e', [owner('ConfigMap', 'uid-ws')]), false],
  ];
  for (const [name, o, want] of cases) assert.equal(ownedBy(o, ws), want, name);
  assert.deepEqual(ownedOnly(cases.map((c) => c[1]), ws).map((o) => o.metadata?.name), ['a']);
  const noUid = { ...ws, metadata: { ...ws.metadata, uid: undefined } } as unknown as WorkspaceObject;
  assert.equal(ownedBy(obj('f', [{ ...owner('Workspace', ''), uid: '' }]), noUid), false, 'an empty UID never matches');
});

test('writtenBy: our field manager among the writers (the cache keeps only manager names)', () => {
  const cm = (managers: string[]): KubernetesObject => ({ metadata: { name: 'inference-params-template', managedFields: managers.map((manager) => ({ manager, operation: 'Update' })) } });
  assert.equal(writtenBy(cm(['kaito-ts']), 'kaito-ts'), true);
  assert.equal(writtenBy(cm(['kubectl-create', 'kaito-ts']), 'kaito-ts'), true);
  assert.equal(writtenBy(cm(['kubectl-client-side-apply']), 'kaito-ts'), false, 'a look-alike with our label');
  assert.equal(writtenBy({ metadata: { name: 'x' } }, 'kaito-ts'), false);
});

test('notOwnedMessage names the kind and the object', () => {
  assert.equal(notOwnedMessage('Service', obj('ws-headless')), 'Service team/ws-headless exists and is not controlled by this workspace; kaito-ts leaves it untouched');
});

test('reportable: refusals become ChildObjectRejected with the server message and backoff; other errors are not reported', () => {
  const invalid = new KubeApiError('Invalid', 'StatefulSet.apps "ws" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never"', 422, 'Invalid');
  const typed = new KubeApiError('ServerError', 'failed to create typed patch object (team/ws; apps/v1, Kind=StatefulSet): .spec.template.spec.containers: duplicate entries for key [name="c"]', 500, 'InternalError');
  const bad = new KubeApiError('BadRequest', 'the body of the request was in an unknown format', 400, 'BadRequest');
  const cases: { name: string; err: unknown; reason?: string; backoff?: boolean; message?: RegExp }[] = [
    { name: '422 Invalid', err: invalid, reason: CHILD_OBJECT_REJECTED, backoff: true, message: /refused an object of this workspace \(HTTP 422\): StatefulSet\.apps "ws" is invalid: .*restartPolicy/ },
    { name: 'SSA typed conversion (500)', err: typed, reason: CHILD_OBJECT_REJECTED, backoff: true, message: /\(HTTP 500\): failed to create typed patch object .*duplicate entries/ },
    { name: '400 BadRequest', err: bad, reason: CHILD_OBJECT_REJECTED, backoff: true, message: /\(HTTP 400\): the body/ },
    { name: 'a TerminalError passes through', err: new TerminalError('InvalidSpec', 'bad'), reason: 'InvalidSpec', backoff: false, message: /^bad$/ },
    { name: '409 Conflict: a plain retry', err: new KubeApiError('Conflict', 'the object has been modified', 409) },
    { name: 'other 500: a plain retry', err: new KubeApiError('ServerError', 'etcdserver: request timed out', 500) },
    { name: 'a network error', err: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) },
  ];
  for (const c of cases) {
    const r = reportable(c.err);
    if (!c.reason) {
      assert.equal(r, undefined, c.name);
      continue;
    }
    assert.equal(r?.reason, c.reason, c.name);
    assert.equal(r?.backoff, c.backoff, c.name);
    assert.match(r?.message ?? '', c.message!, c.name);
  }
});

test('persistentConflict: a 409 is reported once it has come back CONFLICTS_BEFORE_REPORT times; other errors never', () => {
  const conflict = new KubeApiError('Conflict', 'Operation cannot be fulfilled on workspaces.kaito.sh "ws": the object has been modified', 409, 'Conflict');
  const cases: [string, unknown, number, boolean][] = [
    ['first 409: a stale cache, plain retry', conflict, 0, false],
    ['one short of the threshold', conflict, CONFLICTS_BEFORE_REPORT - 1, false],
    ['at the threshold', conflict, CONFLICTS_BEFORE_REPORT, true],
    ['long after', conflict, 40, true],
    ['not a conflict', new KubeApiError('ServerError', 'etcdserver: request timed out', 500), 40, false],
  ];
  for (const [name, err, failures, want] of cases) {
    const r = persistentConflict(err, failures);
    assert.equal(!!r, want, name);
    if (r) {
      assert.equal(r.reason, PERSISTENT_CONFLICT, name);
      assert.equal(r.backoff, false, name);
      assert.match(r.message, new RegExp(`409 Conflict ${failures + 1} times in a row: Operation cannot be fulfilled`), name);
    }
  }
});
