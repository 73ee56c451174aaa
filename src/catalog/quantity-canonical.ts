// What Go's k8s.io/apimachinery (v0.34) `resource.Quantity` writes when a quantity it decoded is
// encoded again (ParseQuantity, then MarshalJSON): KAITO hashes templates in that form. Reproduced
// rules, checked against apimachinery v0.34.1 quantity.go / amount.go / suffix.go:
//  * a string Go considers canonical is kept exactly as written (its parse cache `s`), even "+5",
//    "007", "1E3" or "1.500"; otherwise the value is re-serialised;
//  * decimal values: trailing zeros move into an exponent that is a multiple of 3 (1000 → 1k,
//    1.5 → 1500m); SI suffix for that exponent, or e<N> for values written with an exponent;
//  * binary values (Ki…Ei) at least 1024 that are whole numbers use the largest power of 1024
//    (2048Mi → 2Gi, 0.5Gi → 512Mi), else decimal;
//  * more than 9 decimal places round up (away from zero) to nano; binary values cap at 2^63-1.

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

interface Parsed {
  /** value = unscaled × 10^-scale */
  unscaled: bigint;
  scale: number;
  format: Format;
  /** Go's cached string, written back as is. */
  cached?: string;
}

const DECIMAL_SUFFIX: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_OF_DECIMAL_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]));
const SUFFIX_OF_BINARY_EXPONENT = new Map(Object.entries(BINARY_SUFFIX).map(([s, e]) => [e, s]));
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const NANO = -9;
const MAX_INT64_FACTORS = 18;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Go's parseQuantityString: sign, numerator (leading zeros stripped), denominator, suffix. */
function splitQuantity(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } | undefined {
  let pos = 0;
  let positive = true;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  while (str[pos] === '0') pos++;
  if (pos >= str.length) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  if (pos >= str.length) return { positive, value: str, num: str.slice(numStart), denom: '', suffix: '' };
  const num = str.slice(numStart, pos) || '0';
  let denom = '';
  if (str[pos] === '.') {
    const denomStart = ++pos;
    while (isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= str.length) return { positive, value: str, num, denom, suffix: '' };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos < str.length && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) return undefined;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  if (suffix in DECIMAL_SUFFIX) return { base: 10, exponent: DECIMAL_SUFFIX[suffix]!, format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIX) return { base: 2, exponent: BINARY_SUFFIX[suffix]!, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const parsed = BigInt(suffix.slice(1));
    if (parsed > MAX_INT64 || parsed < MIN_INT64) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** Go's ParseQuantity; undefined where Go returns an error. */
function parse(str: string): Parsed | undefined {
  if (str === '') return undefined;
  if (str === '0') return { unscaled: 0n, scale: 0, format: 'DecimalSI', cached: str };
  const parts = splitQuantity(str);
  if (!parts) return undefined;
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix) return undefined;
  const { positive, num, denom } = parts;
  const { base, exponent } = suffix;
  let format = suffix.format;

  // The int64 fast path: the only one that keeps the written string.
  let scale = 0;
  let precision: number;
  let mantissa = 1n;
  if (base === 10) {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  } else if (denom.length === 0) {
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const product = BigInt(shifted) * mantissa;
      if (product <= MAX_INT64) {
        const unscaled = positive ? product : -product;
        const canonical =
          format === 'BinarySI' ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { unscaled, scale: -scale, format, ...(canonical ? { cached: str } : {}) };
      }
    }
  }

  // The arbitrary-precision path (inf.Dec).
  const digits = parts.value.replace(/^[+-]/, '');
  if (!/\d/.test(digits)) return undefined;
  const [intPart = '', fracPart = ''] = digits.split('.');
  let magnitude = BigInt((intPart || '0') + fracPart);
  let decScale = fracPart.length;
  if (base === 10) decScale -= exponent;
  else magnitude <<= BigInt(exponent);
  if (magnitude !== 0n && decScale > -NANO) {
    const unit = 10n ** BigInt(decScale + NANO);
    magnitude = (magnitude + unit - 1n) / unit; // round up to nano
    decScale = -NANO;
  }
  if (format === 'BinarySI' && compare(magnitude, decScale, MAX_INT64) > 0) {
    magnitude = MAX_INT64;
    decScale = 0;
  }
  if (format === 'BinarySI' && magnitude !== 0n && compare(magnitude, decScale, 1n) < 0) format = 'DecimalSI';
  return { unscaled: positive ? magnitude : -magnitude, scale: decScale, format };
}

/** Sign of (unscaled × 10^-scale) − n. */
function compare(unscaled: bigint, scale: number, n: bigint): number {
  const [a, b] = scale >= 0 ? [unscaled, n * 10n ** BigInt(scale)] : [unscaled * 10n ** BigInt(-scale), n];
  return a === b ? 0 : a > b ? 1 : -1;
}

function removeFactors(value: bigint, factor: bigint): { value: bigint; times: number } {
  let times = 0;
  while (value !== 0n && value % factor === 0n) {
    value /= factor;
    times++;
  }
  return { value, times };
}

/** Go's CanonicalizeBytes: number and suffix. */
function canonicalize(q: Parsed): string {
  if (q.unscaled === 0n) return '0';
  let format = q.format;
  let whole: bigint | undefined;
  if (format === 'BinarySI') {
    if (compare(q.unscaled, q.scale, -1024n) > 0 && compare(q.unscaled, q.scale, 1024n) < 0) format = 'DecimalSI';
    else if (q.scale > 0) {
      const unit = 10n ** BigInt(q.scale);
      if (q.unscaled % unit === 0n) whole = q.unscaled / unit;
      else format = 'DecimalSI'; // not a whole number: shown as decimal, without losing precision
    } else whole = q.unscaled * 10n ** BigInt(-q.scale);
  }
  if (format === 'BinarySI' && whole !== undefined) {
    const { value, times } = removeFactors(whole, 1024n);
    return `${value}${SUFFIX_OF_BINARY_EXPONENT.get(times * 10) ?? ''}`;
  }
  const tens = removeFactors(q.unscaled, 10n);
  let value = tens.value;
  let exponent = -q.scale + tens.times;
  while (exponent % 3 !== 0) {
    value *= 10n;
    exponent--;
  }
  const suffix = format === 'DecimalExponent' ? (exponent === 0 ? '' : `e${exponent}`) : (SUFFIX_OF_DECIMAL_EXPONENT.get(exponent) ?? '');
  return `${value}${suffix}`;
}

/**
 * The string Go writes for a quantity decoded from `written` (a JSON string or number), or undefined
 * when Go would refuse to decode it.
 */
export function canonicalQuantity(written: string | number): string | undefined {
  const parsed = parse(String(written).trim());
  if (!parsed) return undefined;
  return parsed.cached ?? canonicalize(parsed);
}
