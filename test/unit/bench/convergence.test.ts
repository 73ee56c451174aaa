import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Workspace } from '../../../src/api/types.js';
import { ConvergenceTracker, isInferenceReady } from '../../../bench/convergence.js';

function ws(name: string, ready?: 'True' | 'False'): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name },
    resource: { labelSelector: {} },
    ...(ready ? { status: { conditions: [{ type: 'InferenceReady', status: ready, reason: 'r', message: '', lastTransitionTime: '' }] } } : {}),
  };
}

describe('isInferenceReady', () => {
  it('needs InferenceReady=True', () => {
    assert.equal(isInferenceReady(ws('a', 'True')), true);
    assert.equal(isInferenceReady(ws('a', 'False')), false);
    assert.equal(isInferenceReady(ws('a')), false);
  });
});

describe('ConvergenceTracker', () => {
  it('reports the time of the last first-seen event, ignoring repeats and strangers', async () => {
    const t = new ConvergenceTracker(new Set(['a', 'b']));
    t.onStatefulSet({ metadata: { name: 'a' } }, 1);
    t.onStatefulSet({ metadata: { name: 'a' } }, 5); // a replayed ADDED event must not move the time
    t.onStatefulSet({ metadata: { name: 'other' } }, 2);
    assert.equal(t.allStatefulSetsAt(), undefined);
    t.onStatefulSet({ metadata: { name: 'b' } }, 3);
    assert.equal(t.allStatefulSetsAt(), 3);

    let done = false;
    const waiting = t.whenAllReady().then(() => {
      done = true;
    });
    t.onWorkspace(ws('a', 'True'), 4);
    t.onWorkspace(ws('b', 'False'), 5);
    await Promise.resolve();
    assert.equal(done, false);
    assert.deepEqual(t.progress(), { statefulSets: 2, ready: 1, total: 2 });
    t.onWorkspace(ws('b', 'True'), 7);
    t.onWorkspace(ws('a', 'True'), 9);
    await waiting;
    assert.equal(done, true);
    assert.equal(t.allReadyAt(), 7);
    await t.whenAllReady(); // resolves at once afterwards
  });
});
