import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoMillis, isoSeconds } from '../../../src/runtime/timestamps.js';

test('isoMillis and isoSeconds write what toISOString writes, in milliseconds and whole seconds', () => {
  const times = [
    0,
    Date.UTC(2024, 1, 29, 23, 59, 59, 999), // leap day, last millisecond
    Date.UTC(2026, 11, 5, 8, 3, 7, 45),
    Date.UTC(999, 0, 1, 0, 0, 0, 1), // a year padded to four digits
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    -1, // before the epoch
  ];
  for (const ms of times) {
    const want = new Date(ms).toISOString();
    assert.equal(isoMillis(ms), want, String(ms));
    assert.equal(isoMillis(new Date(ms)), want, String(ms));
    assert.equal(isoSeconds(ms), want.replace(/\.\d{3}Z$/, 'Z'), String(ms));
  }
});
