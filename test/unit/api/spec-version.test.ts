import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { specVersionOf, specWriterOf } from '../../../src/api/spec-version.js';

const ALPHA = 'kaito.sh/v1alpha1';
const BETA = 'kaito.sh/v1beta1';
const entry = (manager: string, apiVersion: string, fields: string[], extra: Partial<V1ManagedFieldsEntry> = {}): V1ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion,
  fieldsType: 'FieldsV1',
  fieldsV1: Object.fromEntries(fields.map((f) => [f, { '.': {} }])),
  ...extra,
});
// What kubectl apply of a v1alpha1 manifest leaves, and what kaito-ts itself writes (metadata, status).
const userAlpha = entry('kubectl-client-side-apply', ALPHA, ['f:metadata', 'f:resource', 'f:inference']);
const ours = entry('kaito-ts', BETA, ['f:metadata'], { operation: 'Apply' });
const ourStatus = entry('kaito-ts', BETA, ['f:status'], { operation: 'Apply', subresource: 'status' });

// [case, apiVersion of the object, its managedFields, expected]
const cases: [string, string, V1ManagedFieldsEntry[] | undefined, string][] = [
  ['a v1alpha1 object (a file, or read through v1alpha1)', ALPHA, undefined, 'v1alpha1'],
  ['a v1beta1 object with no managedFields', BETA, undefined, 'v1beta1'],
  ['read as v1beta1, spec written through v1alpha1; our own v1beta1 writes do not count', BETA, [userAlpha, ours, ourStatus], 'v1alpha1'],
  ['spec written through v1beta1', BETA, [entry('kubectl-client-side-apply', BETA, ['f:resource', 'f:inference']), ours], 'v1beta1'],
  ['spec edited through v1beta1 since', BETA, [userAlpha, entry('kubectl-edit', BETA, ['f:inference'])], 'v1beta1'],
  ['only metadata written through v1alpha1', BETA, [entry('kubectl-annotate', ALPHA, ['f:metadata']), entry('helm', BETA, ['f:tuning'])], 'v1beta1'],
  ['a tuning spec written through v1alpha1', BETA, [entry('helm', ALPHA, ['f:tuning'])], 'v1alpha1'],
  ['no writer owns the spec', BETA, [ours, ourStatus], 'v1beta1'],
];

for (const [name, apiVersion, managedFields, expected] of cases) {
  test(`specVersionOf: ${name}`, () => {
    const ws = { apiVersion, metadata: { name: 'w', ...(managedFields ? { managedFields } : {}) } };
    assert.equal(specVersionOf(ws), expected);
    // The cache keeps only specWriterOf of each entry: the answer must not change.
    const lean = { ...ws, metadata: { ...ws.metadata, ...(managedFields ? { managedFields: managedFields.map(specWriterOf) } : {}) } };
    assert.equal(specVersionOf(lean), expected);
  });
}

test('specWriterOf keeps who, how, the apiVersion and which spec fields, nothing else', () => {
  assert.deepEqual(specWriterOf(userAlpha), {
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    apiVersion: ALPHA,
    fieldsV1: { 'f:resource': {}, 'f:inference': {} },
  });
  assert.deepEqual(specWriterOf(ourStatus), { manager: 'kaito-ts', operation: 'Apply', apiVersion: BETA });
});
