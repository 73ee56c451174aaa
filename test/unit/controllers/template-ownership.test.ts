// Who wrote a StatefulSet's pod template (managedFields), and the transfer of its fields to our Apply entry.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { foreignTemplate, takeTemplateOwnership, templateWriterOf } from '../../../src/controllers/shared/template-ownership.js';

const MAIN = 'k:{"name":"ws"}';
const containers = (fields: Record<string, object>) => ({ 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': fields } } } });
/** What KAITO's create leaves: the main container written whole, the claim templates and replicas too. */
const kaito: V1ManagedFieldsEntry = {
  manager: 'manager',
  operation: 'Update',
  apiVersion: 'apps/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:spec': {
      'f:replicas': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': { [MAIN]: { '.': {}, 'f:name': {}, 'f:image': {}, 'f:startupProbe': { 'f:exec': {} } } } },
      },
    },
  },
};
const status: V1ManagedFieldsEntry = { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': {} } };
/** Our apply at the workspace's revision: the same values, co-owned. */
const oursAtRevision: V1ManagedFieldsEntry = {
  manager: 'kaito-ts',
  operation: 'Apply',
  apiVersion: 'apps/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: containers({ [MAIN]: { '.': {}, 'f:name': {}, 'f:image': {} } }),
};
const setImage: V1ManagedFieldsEntry = { manager: 'kubectl-set', operation: 'Update', fieldsV1: containers({ [MAIN]: { 'f:image': {} } }) };
const sidecar: V1ManagedFieldsEntry = { manager: 'user', operation: 'Apply', fieldsV1: containers({ 'k:{"name":"sidecar"}': { '.': {}, 'f:name': {} } }) };

const sts = (managedFields?: V1ManagedFieldsEntry[]) => ({ metadata: { name: 'ws', ...(managedFields ? { managedFields } : {}) } });

describe('foreignTemplate', () => {
  const rows: [string, V1ManagedFieldsEntry[] | undefined, boolean][] = [
    ['written by KAITO (an Update by its manager)', [kaito, status], true],
    ['written by KAITO, then applied by kaito-ts at the same revision (co-owned values)', [kaito, oursAtRevision, status], true],
    ['written by kaito-ts', [oursAtRevision, status], false],
    ['written by kaito-ts, its image set by kubectl since', [oursAtRevision, setImage], false],
    ['written by kaito-ts, a sidecar added by the user', [oursAtRevision, sidecar], false],
    ['no managedFields (a file, an old cache)', undefined, false],
    ['a writer by our name that did not apply (an Update)', [{ ...kaito, manager: 'kaito-ts' }], true],
    ['the status writer only', [status], false],
  ];
  for (const [name, fields, foreign] of rows) {
    it(`${name}: ${foreign ? 'foreign' : 'ours'}`, () => {
      assert.equal(foreignTemplate(sts(fields), 'ws', 'kaito-ts'), foreign);
      // The cache's lean copy tells the same.
      assert.equal(foreignTemplate(sts(fields?.map(templateWriterOf)), 'ws', 'kaito-ts'), foreign, 'lean');
    });
  }
});

describe('templateWriterOf', () => {
  it("keeps who and how, and only the f:name marks of the template's containers", () => {
    assert.deepEqual(templateWriterOf({ ...kaito, time: new Date('2026-01-01') }), {
      manager: 'manager',
      operation: 'Update',
      fieldsV1: containers({ [MAIN]: { 'f:name': {} } }),
    });
    assert.deepEqual(templateWriterOf(status), { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status' });
    assert.deepEqual(templateWriterOf(setImage), { manager: 'kubectl-set', operation: 'Update' });
  });
});

describe('takeTemplateOwnership', () => {
  const take = (entries: V1ManagedFieldsEntry[]) => takeTemplateOwnership(entries, 'ws', 'kaito-ts', 'apps/v1');
  const kaitoTemplate = (kaito.fieldsV1 as { 'f:spec': { 'f:template': object } })['f:spec']['f:template'];
  const rows: [string, V1ManagedFieldsEntry[], V1ManagedFieldsEntry[] | undefined][] = [
    [
      "KAITO's template moves into a new Apply entry of ours; its other spec fields and the status writer stay",
      [kaito, status],
      [
        { ...kaito, fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
        status,
        { manager: 'kaito-ts', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:template': kaitoTemplate } } },
      ],
    ],
    [
      'merged into our Apply entry when there is one (co-owned values after an apply at the revision)',
      [kaito, oursAtRevision, status],
      [
        { ...kaito, fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
        {
          ...oursAtRevision,
          fieldsV1: {
            'f:spec': {
              'f:template': {
                'f:metadata': { 'f:labels': { 'f:app': {} } },
                'f:spec': { 'f:containers': { [MAIN]: { '.': {}, 'f:name': {}, 'f:image': {}, 'f:startupProbe': { 'f:exec': {} } } } },
              },
            },
          },
        },
        status,
      ],
    ],
    [
      'a writer that owned only the template is dropped; a sidecar of another manager stays its own',
      [{ ...kaito, fieldsV1: containers({ [MAIN]: { 'f:name': {} } }) }, sidecar],
      [sidecar, { manager: 'kaito-ts', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: containers({ [MAIN]: { 'f:name': {} } }) }],
    ],
    ['a template kaito-ts wrote: nothing to move', [oursAtRevision, setImage, status], undefined],
  ];
  for (const [name, before, after] of rows) {
    it(name, () => {
      const frozen = structuredClone(before);
      assert.deepEqual(take(before), after);
      assert.deepEqual(before, frozen, 'the input is not changed');
      if (after) assert.equal(foreignTemplate(sts(after), 'ws', 'kaito-ts'), false, 'ours afterwards');
    });
  }
});
