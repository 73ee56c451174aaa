// `kaito-ts diff` and `render` for InferenceSets: the controller's own plan on listed objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { specHash, templateHash, type ChildWorkspace } from '../../../src/controllers/inferenceset/children.js';
import { childFixture, succeededCondition } from '../controllers/inferenceset-fixtures.js';
import { childWorkspaceChanges, parseInferenceSet, planInferenceSetOffline } from '../../../src/diff/inferenceset-intent.js';

const doc = (preset: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'InferenceSet',
  metadata: { name: 'x', namespace: 'ns', annotations },
  spec: { replicas: 2, labelSelector: { matchLabels: { pool: 'a' } }, template: { inference: { preset: { name: preset } } } },
});

function child(name: string, hash?: string): ChildWorkspace {
  return childFixture(name, {
    ...(hash ? { annotations: { 'kaito-ts.io/template-hash': hash } } : {}),
    status: { conditions: [succeededCondition(true, '2026-01-01T00:00:00Z')] },
  });
}

test('parseInferenceSet: the CRD defaults (updateStrategy) applied, a namespace defaulted, bad input named', () => {
  const is = parseInferenceSet({ ...doc('phi-4-mini-instruct'), metadata: { name: 'x' } });
  assert.equal(is.metadata.namespace, 'default');
  assert.deepEqual(is.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } });
  assert.throws(() => parseInferenceSet({ ...doc('p'), apiVersion: 'v1' }), /apiVersion must be one of kaito.sh\/v1beta1, kaito.sh\/v1alpha1/);
  assert.throws(() => parseInferenceSet({ ...doc('p'), spec: { ...doc('p').spec, replicas: -1 } }), /inferenceset x: spec.replicas/);
});

test('diff: a set whose template changed lists the surge child it would create; a settled set lists nothing', () => {
  const before = parseInferenceSet(doc('phi-4-mini-instruct'));
  const adopted = templateHash(before, { byo: true });
  const after = parseInferenceSet(doc('qwen2.5-7b-instruct', { 'kaito-ts.io/adopted-hash': adopted }));
  const revision = (is: typeof after): V1ControllerRevision => ({
    metadata: {
      name: `x-${specHash(is).slice(0, 5)}`,
      namespace: 'ns',
      labels: { 'inferenceset.kaito.io/name': 'x' },
      annotations: { 'inferenceset.kaito.io/hash': specHash(is) },
    },
    revision: 1,
  });
  const rolled = childWorkspaceChanges(
    planInferenceSetOffline(after, { workspaces: [child('x-a'), child('x-b')], controllerRevisions: [revision(after)] }, { byo: true }),
  );
  assert.deepEqual(rolled.lines, ['create Workspace ns/<generated>: surge replica 1 of the new template']);
  const current = templateHash(after, { byo: true });
  const settled = childWorkspaceChanges(
    planInferenceSetOffline(after, { workspaces: [child('x-c', current), child('x-d', current)], controllerRevisions: [revision(after)] }, { byo: true }),
  );
  assert.deepEqual(settled.lines, []);
  // A Workspace of another set or namespace is not a child.
  const other = { ...child('y-a'), metadata: { ...child('y-a').metadata, labels: { 'inferenceset.kaito.sh/created-by': 'y' } } };
  assert.deepEqual(
    childWorkspaceChanges(planInferenceSetOffline(after, { workspaces: [other], controllerRevisions: [revision(after)] }, { byo: true })).lines,
    ['create Workspace ns/<generated>: replica 1 of 2', 'create Workspace ns/<generated>: replica 2 of 2'],
  );
});
