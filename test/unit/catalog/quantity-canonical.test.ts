import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalQuantity } from '../../../src/catalog/quantity-canonical.js';

// Every expected value below is what k8s.io/apimachinery v0.34.1 (KAITO v0.8.0's pin) writes:
// json.Unmarshal into resource.Quantity, then json.Marshal, run with `go run` (Go 1.26) over this
// input list. Beyond this table, 5,490 generated inputs (every sign × number × suffix combination
// and random decimals) gave identical output; docs/builders.md has the command.
describe('canonicalQuantity matches Go resource.Quantity JSON round trip', () => {
  const cases: Array<[written: string | number, expected: string | undefined, rule: string]> = [
    ['1000m', '1', 'trailing zeros leave the number: 1'],
    ['0.5Gi', '512Mi', 'fraction of a binary suffix: largest exact power of 1024'],
    ['2048Mi', '2Gi', 'multiple of 1024 moves up a suffix'],
    ['1.5', '1500m', 'fraction: exponent rounded down to a multiple of 3'],
    ['1e3', '1e3', 'canonical as written: cached string kept'],
    ['1000', '1k', '000 suffix is never cached: 1k'],
    ['1E3', '1E3', 'cached: upper-case E kept'],
    ['1.500', '1.500', 'scale -3, no 000 tail: cached as written'],
    ['+5', '+5', 'cached string keeps the sign'],
    ['007', '007', 'cached string keeps leading zeros'],
    ['0', '0', 'literal 0'],
    ['-0', '0', 'zero has no sign'],
    ['00', '0', 'zero'],
    ['1k', '1k', 'cached'],
    ['1024', '1024', 'decimal format never changes to Ki'],
    ['1Ki', '1Ki', 'binary value&7 != 0: cached'],
    ['1024Ki', '1Mi', '1024 & 7 == 0: recomputed as 1Mi'],
    ['8Gi', '8Gi', '8 & 7 == 0: recomputed, same text'],
    ['1536Mi', '1536Mi', '1536 is not a multiple of 1024: stays Mi'],
    ['1.5Gi', '1536Mi', 'binary with a fraction: slow path, exact, 1536Mi'],
    ['100m', '100m', 'cached'],
    ['0.1', '100m', 'leading 0 never cached: 100m'],
    ['0.5', '500m', '500m'],
    ['1.0', '1', 'scale -1: recomputed as 1'],
    ['7607000u', '7607m', '000 tail: recomputed, 7607m'],
    ['-7.000u', '-7u', 'scale -9, 000 tail: -7u'],
    ['0.0000000001', '1n', 'below nano: rounded up to 1n'],
    ['1.0000000001', '1000000001n', 'more than 9 decimals: rounded up at nano'],
    ['3.14159265358979Ei', '3622009729038557687498939606n', 'binary fraction that is not whole: decimal, in n'],
    ['10000Pi', '9223372036854775807', 'binary values cap at 2^63-1'],
    ['8Ei', '9223372036854775807', '2^63 overflows int64: capped'],
    ['1000E', '1', '10^21 has no SI suffix: Go writes the bare mantissa'],
    ['1e21', '1e21', 'DecimalExponent cached'],
    ['1.e0', '1.e0', 'empty fraction accepted and cached'],
    ['1.Gi', '1.Gi', 'binary, no fraction digits: cached'],
    ['.5Gi', '512Mi', '512Mi'],
    ['0.5Ki', '512', 'binary below 1024: decimal 512'],
    ['1023Ki', '1023Ki', 'cached'],
    ['1025Ki', '1025Ki', 'cached'],
    ['12345678901234567890', '12345678901234567890', '20 digits: slow path, exact'],
    ['2e-3', '2e-3', 'cached'],
    ['1500m', '1500m', 'cached'],
    ['2000Mi', '2000Mi', '2000 & 7 == 0 but not a multiple of 1024: 2000Mi'],
    ['250M', '250M', 'cached'],
    [' 2Gi ', '2Gi', 'surrounding spaces trimmed'],
    ['1K', undefined, 'K is not a suffix'],
    ['1e', undefined, 'exponent without digits'],
    ['abc', undefined, 'not a number'],
    ['', undefined, 'empty'],
    ['1Gb', undefined, 'unknown suffix'],
    [1, '1', 'JSON number 1'],
    [0.5, '500m', 'JSON number 0.5'],
    [1000, '1k', 'JSON number 1000: 1k'],
    [1e21, '1e+21', 'JSON number as the API server re-encodes it: 1e+21, cached'],
    [123.456, '123.456', 'JSON number with 3 decimals: cached text'],
  ];
  for (const [written, expected, rule] of cases) {
    it(`${JSON.stringify(written)} → ${expected === undefined ? 'decode error' : expected} (${rule})`, () => {
      assert.equal(canonicalQuantity(written), expected);
    });
  }
});
