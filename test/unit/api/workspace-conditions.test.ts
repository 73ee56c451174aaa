import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition, formatConditionTime, setCondition } from '../../../src/api/workspace-conditions.js';
import { ConditionReason, ConditionType } from '../../../src/api/labels.js';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00.999Z');
const ready = { type: ConditionType.InferenceReady, status: 'True', reason: ConditionReason.InferenceStatusSuccess, message: 'ok' } as const;

test('formatConditionTime drops the fraction (metav1.Time precision)', () => {
  assert.equal(formatConditionTime(t0), '2026-01-01T00:00:00Z');
});

test('adding a condition stamps lastTransitionTime and observedGeneration', () => {
  const r = setCondition(undefined, { ...ready, observedGeneration: 3 }, t0);
  assert.equal(r.changed, true);
  assert.deepEqual(r.conditions, [{ ...ready, observedGeneration: 3, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
});

test('same status keeps lastTransitionTime but takes new reason/message/generation', () => {
  const first = setCondition([], { ...ready, observedGeneration: 1 }, t0).conditions;
  const r = setCondition(first, { ...ready, message: 'still ok', observedGeneration: 2 }, t1);
  assert.equal(r.changed, true);
  assert.equal(r.conditions[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  assert.equal(r.conditions[0]?.message, 'still ok');
  assert.equal(r.conditions[0]?.observedGeneration, 2);
});

test('status change moves lastTransitionTime', () => {
  const first = setCondition([], ready, t0).conditions;
  const r = setCondition(first, { ...ready, status: 'False', reason: ConditionReason.InferenceStatusFailed }, t1);
  assert.equal(r.conditions[0]?.lastTransitionTime, '2026-01-01T00:05:00Z');
  assert.equal(r.conditions[0]?.status, 'False');
});

test('identical write reports no change and does not mutate the input', () => {
  const first = setCondition([], { ...ready, observedGeneration: 1 }, t0).conditions;
  const snapshot = structuredClone(first);
  const r = setCondition(first, { ...ready, observedGeneration: 1 }, t1);
  assert.equal(r.changed, false);
  assert.deepEqual(r.conditions, snapshot);
  assert.deepEqual(first, snapshot);
  assert.notEqual(r.conditions, first);
});

test('other conditions keep their place; find', () => {
  let list = setCondition([], ready, t0).conditions;
  list = setCondition(list, { type: ConditionType.ResourceReady, status: 'False', reason: 'NodeNotReady', message: 'x' }, t0).conditions;
  list = setCondition(list, { ...ready, status: 'False', reason: 'r' }, t1).conditions;
  assert.deepEqual(
    list.map((c) => c.type),
    [ConditionType.InferenceReady, ConditionType.ResourceReady],
  );
  assert.equal(findCondition(list, ConditionType.InferenceReady)?.status, 'False');
  assert.equal(findCondition(list, ConditionType.ResourceReady)?.reason, 'NodeNotReady');
  assert.equal(findCondition(list, 'Nope'), undefined);
});
