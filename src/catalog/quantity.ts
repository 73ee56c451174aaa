// Kubernetes resource quantities ("131.42Gi", "800Gi", "500M", "1.5Ti", "2e3", "100m") as byte counts.
// Exact decimal arithmetic with BigInt, then rounded UP to a whole number like Go's `Quantity.Value()`,
// which is what KAITO calls before its own float maths (e.g. the estimator's `floor(bytes × 1.02)`).

export const GIB = 1024 ** 3;

const BINARY_SUFFIX: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

/** Decimal SI suffixes as powers of ten. */
const DECIMAL_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// sign, digits with optional fraction, then a binary suffix, a decimal suffix or an e/E exponent.
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function ceilDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num % den === 0n ? q : num > 0n ? q + 1n : q;
}

/**
 * Parses a quantity to a whole number of units (bytes for memory/storage), rounding a fractional
 * result up (away from zero for negatives, as Go does). Returns `undefined` when the text is not a quantity
 * or the value is beyond Number's safe integer range.
 */
export function tryParseQuantity(text: string): number | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign = '', num = '', suffix = ''] = m;
  const [intPart = '', fracPart = ''] = num.split('.');
  // value = digits × 10^-fracLen × multiplier
  let numerator = BigInt((intPart || '0') + fracPart);
  let denominator = pow10(fracPart.length);
  const binary = BINARY_SUFFIX[suffix];
  if (binary !== undefined) {
    numerator *= binary;
  } else {
    const exp = suffix.startsWith('e') || suffix.startsWith('E') ? Number(suffix.slice(1)) : DECIMAL_EXPONENT[suffix];
    if (exp === undefined) return undefined;
    if (exp >= 0) numerator *= pow10(exp);
    else denominator *= pow10(-exp);
  }
  const magnitude = ceilDiv(numerator, denominator);
  if (magnitude > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const value = Number(magnitude);
  return sign === '-' && value !== 0 ? -value : value;
}

/** Bytes → GiB as a float (KAITO's `float64(bytes) / (1 << 30)`). */
export function bytesToGiB(bytes: number): number {
  return bytes / GIB;
}

/**
 * Formats a byte count with the largest binary suffix that represents it exactly
 * (`236223201280` → `220Gi`, `1536` → `1536`, `1048576` → `1Mi`); plain digits otherwise.
 */
export function formatBinaryQuantity(bytes: number): string {
  if (!Number.isSafeInteger(bytes)) throw new Error(`cannot format ${bytes} as a quantity: not a safe integer`);
  const big = BigInt(bytes);
  const suffixes = Object.entries(BINARY_SUFFIX).reverse();
  for (const [suffix, unit] of suffixes) {
    if (big !== 0n && big % unit === 0n) return `${big / unit}${suffix}`;
  }
  return String(bytes);
}
