import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statusChanged, type Condition } from '../../../src/runtime/status.js';

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-02T00:00:00Z';
const cond = (type: string, status: Condition['status'], extra: Partial<Condition> = {}): Condition => ({
  type,
  status,
  reason: status === 'True' ? 'Ready' : 'NotReady',
  message: '',
  observedGeneration: 1,
  lastTransitionTime: T1,
  ...extra,
});

describe('statusChanged', () => {
  const current = { observedGeneration: 1, conditions: [cond('ResourceReady', 'True'), cond('InferenceReady', 'False')] };
  const cases: [string, Record<string, unknown> | undefined, boolean][] = [
    ['identical', current, false],
    ['conditions in another order', { observedGeneration: 1, conditions: [cond('InferenceReady', 'False'), cond('ResourceReady', 'True')] }, false],
    [
      'only lastTransitionTime differs, same status',
      { observedGeneration: 1, conditions: [cond('ResourceReady', 'True', { lastTransitionTime: T2 }), cond('InferenceReady', 'False')] },
      false,
    ],
    [
      'lastTransitionTime missing in desired',
      { observedGeneration: 1, conditions: [cond('ResourceReady', 'True', { lastTransitionTime: undefined }), cond('InferenceReady', 'False')] },
      false,
    ],
    ['status flipped', { observedGeneration: 1, conditions: [cond('ResourceReady', 'True'), cond('InferenceReady', 'True', { reason: 'NotReady' })] }, true],
    ['reason changed', { observedGeneration: 1, conditions: [cond('ResourceReady', 'True'), cond('InferenceReady', 'False', { reason: 'Pending' })] }, true],
    [
      'message changed',
      { observedGeneration: 1, conditions: [cond('ResourceReady', 'True'), cond('InferenceReady', 'False', { message: 'pod 0 pending' })] },
      true,
    ],
    [
      'condition observedGeneration changed',
      { observedGeneration: 1, conditions: [cond('ResourceReady', 'True', { observedGeneration: 2 }), cond('InferenceReady', 'False')] },
      true,
    ],
    ['condition added', { observedGeneration: 1, conditions: [...current.conditions, cond('WorkspaceSucceeded', 'False')] }, true],
    ['condition removed', { observedGeneration: 1, conditions: [cond('ResourceReady', 'True')] }, true],
    ['top-level field changed', { ...current, observedGeneration: 2 }, true],
    ['top-level field added', { ...current, targetNodeCount: 1 }, true],
    ['undefined fields do not count', { ...current, workerNodes: undefined }, false],
    ['empty structs and lists count as absent (server-filled loadBalancer: {})', { ...current, loadBalancer: {}, workerNodes: [] }, false],
    ['desired empty, current set', undefined, true],
  ];
  for (const [name, desired, want] of cases) it(name, () => assert.equal(statusChanged(desired, current), want));

  it('no status on either side is no change', () => assert.equal(statusChanged(undefined, undefined), false));
  it('key order of nested objects does not count', () => assert.equal(statusChanged({ inference: { a: 1, b: 2 } }, { inference: { b: 2, a: 1 } }), false));
});
