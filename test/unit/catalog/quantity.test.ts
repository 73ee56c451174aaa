import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GIB, bytesToGiB, formatBinaryQuantity, tryParseQuantity } from '../../../src/catalog/quantity.js';

describe('tryParseQuantity', () => {
  const cases: Array<[string, number]> = [
    ['16', 16],
    ['800Gi', 800 * GIB],
    ['1Ki', 1024],
    ['1Mi', 1024 ** 2],
    ['1.5Ti', 1.5 * 1024 ** 4],
    ['2Pi', 2 * 1024 ** 5],
    ['500M', 500_000_000],
    ['1k', 1000],
    ['3G', 3e9],
    ['1T', 1e12],
    ['2e3', 2000],
    ['2E3', 2000],
    ['1.5e1', 15],
    ['100m', 1], // 0.1 rounds up, like Go Quantity.Value()
    ['1500m', 2],
    ['0.5', 1],
    ['.5Gi', GIB / 2],
    ['7.', 7],
    ['+7', 7],
    ['-1.5', -2], // away from zero
    ['0', 0],
    [' 90Gi ', 90 * GIB],
    // 131.42 × 2^30 = 141111150510.08 → rounded up (Go Value()), not a float artefact
    ['131.42Gi', 141111150511],
    ['14.96Gi', 16063177688],
    ['641.3Gi', 688590631732],
  ];
  for (const [text, bytes] of cases) {
    it(`${JSON.stringify(text)} → ${bytes}`, () => {
      assert.equal(tryParseQuantity(text), bytes);
    });
  }

  it('agrees with exact decimal arithmetic for every 2-decimal Gi value', () => {
    for (let hundredths = 1; hundredths <= 100_000; hundredths += 37) {
      const exact = (BigInt(hundredths) * BigInt(GIB) + 99n) / 100n; // ceil(h × 2^30 / 100)
      const text = `${Math.trunc(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}Gi`;
      assert.equal(tryParseQuantity(text), Number(exact), text);
    }
  });

  for (const bad of ['', 'Gi', '1.2.3', '10GB', '10 Gi', '1e', 'abc', '1Zi', '--1', '9Ei']) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      assert.equal(tryParseQuantity(bad), undefined);
    });
  }
});

describe('formatBinaryQuantity', () => {
  const cases: Array<[number, string]> = [
    [220 * GIB, '220Gi'],
    [1536, '1536'],
    [1024 ** 2, '1Mi'],
    [1.5 * GIB, '1536Mi'],
    [2 * 1024 ** 4, '2Ti'],
    [0, '0'],
  ];
  for (const [bytes, text] of cases) {
    it(`${bytes} → ${text}`, () => {
      assert.equal(formatBinaryQuantity(bytes), text);
      assert.equal(tryParseQuantity(text), bytes);
    });
  }
  it('rejects fractions', () => assert.throws(() => formatBinaryQuantity(0.5)));
});

it('bytesToGiB', () => assert.equal(bytesToGiB(3 * GIB), 3));
