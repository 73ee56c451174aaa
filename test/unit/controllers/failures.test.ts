// The one failure policy: what is reported, under which reason, and whether it is retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Resources } from '../../../src/runtime/resources.js';
import { TerminalError } from '../../../src/runtime/controller.js';
import { KubeApiError } from '../../../src/runtime/errors.js';
import { CONFLICTS_BEFORE_REPORT, failureOf } from '../../../src/controllers/workspace/failures.js';
import { planErrorPolicy } from '../../../src/controllers/shared/actions.js';
import { ActionFailed } from '../../../src/controllers/shared/actions.js';
import { Reason } from '../../../src/controllers/workspace/reasons.js';
import type { Action } from '../../../src/controllers/shared/actions.js';

const applySts: Action = {
  kind: 'apply',
  type: Resources.statefulSets,
  object: { metadata: { name: 'ws', namespace: 'team' } },
  why: 'the workload',
  refusedReason: Reason.ChildObjectRejected,
};
const applyJob: Action = {
  kind: 'apply',
  type: Resources.jobs,
  object: { metadata: { name: 'ws', namespace: 'team' } },
  why: 'training',
  refusedReason: Reason.InvalidJob,
};
const invalid = new KubeApiError('Invalid', 'StatefulSet.apps "ws" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never"', 422, 'Invalid');
const typed = new KubeApiError(
  'ServerError',
  'failed to create typed patch object (team/ws; apps/v1, Kind=StatefulSet): .spec.template.spec.containers: duplicate entries for key [name="c"]',
  500,
  'InternalError',
);
const bad = new KubeApiError('BadRequest', 'the body of the request was in an unknown format', 400, 'BadRequest');
const conflict = new KubeApiError('Conflict', 'Operation cannot be fulfilled on workspaces.kaito.sh "ws": the object has been modified', 409, 'Conflict');
const throttled = new KubeApiError('TooManyRequests', 'slow down', 429, 'TooManyRequests', 7000);

const cases: { name: string; err: unknown; retries?: number; reason?: string; message?: RegExp; terminal: boolean; notBeforeMs?: number }[] = [
  {
    name: '422 on an apply: ChildObjectRejected, terminal (only a spec change cures it)',
    err: new ActionFailed(applySts, invalid),
    reason: Reason.ChildObjectRejected,
    message: /refused an object of this workspace \(HTTP 422\): StatefulSet\.apps "ws" is invalid: .*restartPolicy/,
    terminal: true,
  },
  {
    name: 'SSA typed conversion (500)',
    err: new ActionFailed(applySts, typed),
    reason: Reason.ChildObjectRejected,
    message: /\(HTTP 500\): failed to create typed patch object .*duplicate entries/,
    terminal: true,
  },
  { name: '400 BadRequest', err: new ActionFailed(applySts, bad), reason: Reason.ChildObjectRejected, message: /\(HTTP 400\): the body/, terminal: true },
  { name: 'a refused Job keeps the tuning reason', err: new ActionFailed(applyJob, invalid), reason: Reason.InvalidJob, terminal: true },
  { name: 'a refusal outside a plan action', err: invalid, reason: Reason.ChildObjectRejected, terminal: true },
  { name: 'a TerminalError passes through', err: new TerminalError('InvalidSpec', 'bad'), reason: 'InvalidSpec', message: /^bad$/, terminal: true },
  { name: 'first 409: a stale cache, plain retry', err: new ActionFailed(applySts, conflict), terminal: false, notBeforeMs: 0 },
  { name: '409 one short of the threshold', err: conflict, retries: CONFLICTS_BEFORE_REPORT - 1, terminal: false },
  {
    name: '409 at the threshold: reported, still retried',
    err: new ActionFailed(applySts, conflict),
    retries: CONFLICTS_BEFORE_REPORT,
    reason: Reason.PersistentConflict,
    message: /409 Conflict 11 times in a row/,
    terminal: false,
  },
  { name: 'other 500: a plain retry', err: new KubeApiError('ServerError', 'etcdserver: request timed out', 500), retries: 40, terminal: false },
  { name: 'throttled: the Retry-After is kept', err: new ActionFailed(applySts, throttled), terminal: false, notBeforeMs: 7000 },
  { name: 'a network error', err: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), terminal: false },
];

for (const c of cases) {
  test(`failure policy: ${c.name}`, () => {
    const f = failureOf(c.err, c.retries ?? 0);
    assert.equal(f?.reason, c.reason);
    if (c.message) assert.match(f?.message ?? '', c.message);
    const verdict = planErrorPolicy(c.err);
    assert.equal(verdict.terminal, c.terminal);
    if (c.notBeforeMs !== undefined && !verdict.terminal) assert.equal(verdict.notBeforeMs, c.notBeforeMs);
  });
}

test('failure policy: a long server message is cut to 500 characters', () => {
  const long = new KubeApiError('Invalid', `x${'y'.repeat(2000)}`, 422, 'Invalid');
  const f = failureOf(new ActionFailed(applySts, long), 0);
  assert.ok(f && f.message.length < 600 && f.message.endsWith('…'));
});
