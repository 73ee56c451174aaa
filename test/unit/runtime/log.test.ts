import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchFailureLog, type LogFields } from '../../../src/runtime/log.js';

test('watchFailureLog: a repeated failure of one resource is logged once per quiet period, with the repeats counted', () => {
  const lines: LogFields[] = [];
  let t = 0;
  const report = watchFailureLog({ info: () => {}, error: (f) => void lines.push(f) }, 600_000, () => t);
  const notFound = 'the server could not find the requested resource';
  for (let i = 0; i < 10; i++, t += 50_000) report('inferencesets', notFound); // every 50 s for 500 s
  assert.equal(lines.length, 1);
  report('workspaces', 'connection refused'); // another resource is its own line
  report('inferencesets', 'forbidden'); // a new message of the same resource is logged at once
  assert.deepEqual(
    lines.map((l) => [l.resource, l.error]),
    [
      ['inferencesets', notFound],
      ['workspaces', 'connection refused'],
      ['inferencesets', 'forbidden'],
    ],
  );
  t += 600_000;
  report('inferencesets', 'forbidden');
  report('inferencesets', 'forbidden');
  t += 600_000;
  report('inferencesets', 'forbidden');
  assert.equal(lines.length, 5);
  assert.equal(lines[4]?.repeatsSinceLastLog, 1);
});
