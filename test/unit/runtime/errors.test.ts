import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import { fromStatus, isAborted, isConflict, isNotFound, isRefused, KubeApiError, toKubeError, type KubeErrorKind } from '../../../src/runtime/errors.js';

const status = (code: number, reason: string, message = `${reason} happened`, extra: object = {}) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, ...extra });

describe('error classification', () => {
  const table: [string, number, string, KubeErrorKind, boolean][] = [
    ['not found', 404, 'NotFound', 'NotFound', false],
    ['already exists', 409, 'AlreadyExists', 'AlreadyExists', false],
    ['optimistic-lock conflict', 409, 'Conflict', 'Conflict', false],
    ['gone (expired rv)', 410, 'Expired', 'Gone', false],
    ['forbidden', 403, 'Forbidden', 'Forbidden', false],
    ['unauthorized', 401, 'Unauthorized', 'Unauthorized', false],
    ['invalid', 422, 'Invalid', 'Invalid', false],
    ['bad request', 400, 'BadRequest', 'BadRequest', false],
    ['unsupported media type', 415, 'UnsupportedMediaType', 'BadRequest', false],
    ['too many requests', 429, 'TooManyRequests', 'TooManyRequests', true],
    ['server timeout (500)', 500, 'ServerTimeout', 'ServerTimeout', true],
    ['gateway timeout', 504, 'Timeout', 'ServerTimeout', true],
    ['internal error', 500, 'InternalError', 'ServerError', true],
    ['service unavailable', 503, 'ServiceUnavailable', 'ServerError', true],
  ];
  for (const [name, code, reason, kind, retryable] of table) {
    it(`${name}: ${code}/${reason} → ${kind}${retryable ? ' (retryable)' : ''}`, () => {
      const e = fromStatus(code, status(code, reason));
      assert.equal(e.kind, kind);
      assert.equal(e.retryable, retryable);
      assert.equal(e.status, code);
      assert.equal(e.reason, reason);
      assert.equal(e.message, `${reason} happened`);
    });
  }

  it("422 keeps the server's message and field causes", () => {
    const body = status(422, 'Invalid', 'Workspace.kaito.sh "w" is invalid: resource.instanceType: Required value', {
      details: { name: 'w', kind: 'Workspace', causes: [{ reason: 'FieldValueRequired', field: 'resource.instanceType', message: 'Required value' }] },
    });
    const e = toKubeError(new ApiException(422, 'Unprocessable', body, {}));
    assert.equal(e.kind, 'Invalid');
    assert.match(e.message, /resource\.instanceType: Required value/);
    assert.equal(e.details?.causes?.[0]?.field, 'resource.instanceType');
  });

  it('reads ApiException from client-node generated APIs, including Retry-After', () => {
    const e = toKubeError(new ApiException(429, 'x', status(429, 'TooManyRequests'), { 'retry-after': '3' }));
    assert.equal(e.kind, 'TooManyRequests');
    assert.equal(e.retryAfterMs, 3000);
    const d = fromStatus(500, status(500, 'ServerTimeout', 'slow', { details: { retryAfterSeconds: 2 } }));
    assert.equal(d.retryAfterMs, 2000);
  });

  it('classifies watch errors that carry statusCode only', () => {
    assert.equal(toKubeError(Object.assign(new Error('Gone'), { statusCode: 410 })).kind, 'Gone');
  });

  it('classifies transport failures as retryable Network errors', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']) {
      const e = toKubeError(Object.assign(new Error(`connect ${code}`), { code }));
      assert.equal(e.kind, 'Network', code);
      assert.equal(e.retryable, true);
    }
  });

  it('an aborted call (its AbortSignal fired) is Aborted: not retryable, not a refusal', () => {
    const abort = new Error('This operation was aborted');
    abort.name = 'AbortError';
    const byCode = Object.assign(new Error('aborted'), { code: 'ABORT_ERR' });
    for (const err of [abort, byCode]) {
      const e = toKubeError(err);
      assert.equal(e.kind, 'Aborted');
      assert.equal(e.retryable, false);
      assert.ok(isAborted(err));
      assert.ok(!isRefused(err));
    }
    assert.ok(!isAborted(Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' })));
  });

  it('anything else is Unknown and not retryable; non-JSON bodies still give a message', () => {
    const e = toKubeError(new TypeError('x is undefined'));
    assert.equal(e.kind, 'Unknown');
    assert.equal(e.retryable, false);
    assert.equal(fromStatus(502, 'Bad Gateway').message, 'Bad Gateway');
    assert.equal(fromStatus(502, 'Bad Gateway').kind, 'ServerError');
  });

  it('is idempotent and offers predicates', () => {
    const e = new KubeApiError('NotFound', 'nope', 404);
    assert.equal(toKubeError(e), e);
    assert.equal(isNotFound(e), true);
    assert.equal(isConflict(fromStatus(409, status(409, 'Conflict'))), true);
    assert.equal(isConflict(fromStatus(409, status(409, 'AlreadyExists'))), false);
    assert.equal(toKubeError(fromStatus(503, '')).retryable, true);
  });

  it('isRefused: the server refused the object itself (422, 400), nothing else', () => {
    const cases: [number, string, boolean][] = [
      [422, 'Invalid', true],
      [400, 'BadRequest', true],
      [409, 'Conflict', false],
      [404, 'NotFound', false],
      [403, 'Forbidden', false],
      [429, 'TooManyRequests', false],
      [500, 'InternalError', false],
    ];
    for (const [code, reason, want] of cases) assert.equal(isRefused(fromStatus(code, status(code, reason))), want, `${code} ${reason}`);
    // Server-side apply's conversion failures come as 500 (kube-apiserver 1.36), but no retry changes them.
    const typed =
      'failed to create typed patch object (ns/ws; apps/v1, Kind=StatefulSet): .spec.template.spec.containers: duplicate entries for key [name="c"]';
    const convert = 'failed to convert new object (ns/ws; apps/v1, Kind=StatefulSet) to proper version: quantities must match the regular expression';
    assert.equal(isRefused(fromStatus(500, status(500, 'InternalError', typed))), true);
    assert.equal(isRefused(fromStatus(500, status(500, 'InternalError', convert))), true);
    assert.equal(isRefused(fromStatus(500, status(500, 'InternalError', 'etcdserver: request timed out'))), false);
    assert.equal(isRefused(new Error('socket hang up')), false);
  });
});
