// planWorkspace: one snapshot of the caches → the actions, the status and when to look again.
// Pure: no client, no clock (the snapshot carries `now`); tested with tables
// (test/unit/controllers/plan-*.test.ts). The executor (executor.ts) carries it out.
import type { Plan } from '../shared/actions.js';
import { planDeletion } from './deletion.js';
import { PlanBuilder } from './plan-builder.js';
import { planInference } from './plan-inference.js';
import { planTuning } from './plan-tuning.js';
import { Reason } from './reasons.js';
import type { WorkspaceSnapshot } from './snapshot.js';

export function planWorkspace(snap: WorkspaceSnapshot): Plan {
  try {
    if (snap.ws.metadata.deletionTimestamp) return planDeletion(snap);
    return snap.ws.tuning ? planTuning(snap) : planInference(snap);
  } catch (err) {
    // A spec shape no rule caught made a builder throw: said once in a condition and an event, and
    // not retried (only a spec change can cure it, and that change is an event).
    return planFailure(snap, { reason: Reason.PlanFailed, message: `kaito-ts cannot plan this workspace: ${(err as Error)?.message ?? String(err)}` });
  }
}

/** The plan that reports `failure` (finalizer, condition, Warning event) and writes nothing else. */
export function planFailure(snap: WorkspaceSnapshot, failure: { reason: string; message: string }, opts: { metadata?: boolean } = {}): Plan {
  try {
    return new PlanBuilder(snap).fail(failure.reason, failure.message, opts);
  } catch {
    // Even the status could not be computed: the event still says why.
    return { actions: [{ kind: 'event', note: { type: 'Warning', ...failure } }], failure };
  }
}
