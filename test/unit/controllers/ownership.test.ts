import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { notOwnedMessage, ownedBy, ownedOnly, writtenBy } from '../../../src/controllers/workspace/ownership.js';

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
  assert.deepEqual(
    ownedOnly(
      cases.map((c) => c[1]),
      ws,
    ).map((o) => o.metadata?.name),
    ['a'],
  );
  const noUid = { ...ws, metadata: { ...ws.metadata, uid: undefined } } as unknown as WorkspaceObject;
  assert.equal(ownedBy(obj('f', [{ ...owner('Workspace', ''), uid: '' }]), noUid), false, 'an empty UID never matches');
});

test('writtenBy: our field manager among the writers (the cache keeps only manager names)', () => {
  const cm = (managers: string[]): KubernetesObject => ({
    metadata: { name: 'inference-params-template', managedFields: managers.map((manager) => ({ manager, operation: 'Update' })) },
  });
  assert.equal(writtenBy(cm(['kaito-ts']), 'kaito-ts'), true);
  assert.equal(writtenBy(cm(['kubectl-create', 'kaito-ts']), 'kaito-ts'), true);
  assert.equal(writtenBy(cm(['kubectl-client-side-apply']), 'kaito-ts'), false, 'a look-alike with our label');
  assert.equal(writtenBy({ metadata: { name: 'x' } }, 'kaito-ts'), false);
});

test('notOwnedMessage names the kind and the object', () => {
  assert.equal(
    notOwnedMessage('Service', obj('ws-headless')),
    'Service team/ws-headless exists and is not controlled by this workspace; kaito-ts leaves it untouched',
  );
});
