import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration, positiveDurationFlag } from '../../../src/runtime/duration.js';

describe('parseDuration', () => {
  const cases: [string, number | RegExp][] = [
    ['1s', 1000],
    ['500ms', 500],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['10h', 36_000_000],
    ['2', 2000],
    ['1.5s', 1500],
    ['1.2s', 1200],
    [' 90s ', 90_000],
    ['0', 0],
    ['soon', /invalid duration/],
    ['-1s', /invalid duration/],
    ['1d', /invalid duration/],
    ['1h30m', /invalid duration/],
    ['', /invalid duration/],
  ];
  for (const [text, want] of cases) {
    it(`"${text}"`, () => (typeof want === 'number' ? assert.equal(parseDuration(text), want) : assert.throws(() => parseDuration(text), want)));
  }
});

describe('positiveDurationFlag', () => {
  const cases: [string | undefined, number | RegExp][] = [
    [undefined, 42],
    ['90s', 90_000],
    ['45m', 2_700_000],
    ['2h', 7_200_000],
    ['1.2s', 1200],
    ['0', /--f must be a positive duration .* got "0"/],
    ['0s', /positive/],
    ['soon', /got "soon"/],
    ['-5m', /positive/],
  ];
  for (const [value, want] of cases) {
    it(`${String(value)}`, () =>
      typeof want === 'number' ? assert.equal(positiveDurationFlag('f', value, 42), want) : assert.throws(() => positiveDurationFlag('f', value, 42), want));
  }
});

describe('formatDuration round-trips through parseDuration', () => {
  for (const [ms, text] of [
    [1000, '1s'],
    [600_000, '10m'],
    [1200, '1200ms'],
    [0, '0s'],
  ] as const) {
    it(`${ms} → ${text}`, () => {
      assert.equal(formatDuration(ms), text);
      assert.equal(parseDuration(text), ms);
    });
  }
});
