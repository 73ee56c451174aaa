import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Affinity } from '@kubernetes/client-node';
import { nodeAffinityAdmits } from '../../../src/runtime/label-selector.js';

const affinity = (...terms: [string, string, string[]?][][]): V1Affinity => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: terms.map((t) => ({ matchExpressions: t.map(([key, operator, values]) => ({ key, operator, ...(values ? { values } : {}) })) })),
    },
  },
});

test('nodeAffinityAdmits: terms ORed, expressions ANDed, Gt/Lt as integers, no affinity admits all', () => {
  const own = affinity(
    [
      ['pool', 'In', ['gpu']],
      ['kaito.sh/workspace', 'In', ['ws1']],
    ],
    [
      ['pool', 'In', ['gpu']],
      ['karpenter.sh/nodepool', 'DoesNotExist'],
    ],
  );
  assert.equal(nodeAffinityAdmits(own, { pool: 'gpu', 'kaito.sh/workspace': 'ws1', 'karpenter.sh/nodepool': 'kaito' }), true, 'its own claim node');
  assert.equal(nodeAffinityAdmits(own, { pool: 'gpu', 'kaito.sh/workspace': 'ws2', 'karpenter.sh/nodepool': 'kaito' }), false, "a sibling's claim node");
  assert.equal(nodeAffinityAdmits(own, { pool: 'gpu' }), true, 'a node no provisioner made');
  assert.equal(nodeAffinityAdmits(own, undefined), false);
  assert.equal(nodeAffinityAdmits(undefined, { any: 'x' }), true);
  assert.equal(nodeAffinityAdmits({}, undefined), true);
  const gpus = affinity([
    ['gpus', 'Gt', ['2']],
    ['gpus', 'Lt', ['9']],
  ]);
  assert.deepEqual(
    ['1', '3', '8', '9', 'x'].map((n) => nodeAffinityAdmits(gpus, { gpus: n })),
    [false, true, true, false, false],
  );
});
