// `--feature-gates` parsing (KAITO pkg/featuregates): a comma list of `key=bool` overriding the
// defaults. Unlike KAITO (whose error reads "invalid feature gate(s) , <k>"), errors here name the
// offending key and list the valid ones.

export const FEATURE_GATE_NAMES = [
  'vLLM',
  'ensureNodeClass',
  'disableNodeAutoProvisioning',
  'gatewayAPIInferenceExtension',
  'enableInferenceSetController',
] as const;
export type FeatureGateName = (typeof FEATURE_GATE_NAMES)[number];
export type FeatureGates = Readonly<Record<FeatureGateName, boolean>>;

export const DEFAULT_FEATURE_GATES: FeatureGates = Object.freeze({
  vLLM: true,
  ensureNodeClass: false,
  disableNodeAutoProvisioning: false,
  gatewayAPIInferenceExtension: false,
  // On by default since KAITO v0.11.
  enableInferenceSetController: true,
});

/** The flag's documented default string. */
export const DEFAULT_FEATURE_GATES_FLAG = 'vLLM=true,disableNodeAutoProvisioning=false';

export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

// Go's strconv.ParseBool vocabulary, which the original flag accepts.
const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function isGateName(key: string): key is FeatureGateName {
  return (FEATURE_GATE_NAMES as readonly string[]).includes(key);
}

/**
 * Parse a `--feature-gates` value on top of `base` (the defaults unless given).
 * Empty or whitespace-only input leaves `base` unchanged. Throws FeatureGateError on
 * malformed pairs, unknown keys (case-sensitive, as in KAITO) and non-boolean values.
 */
export function parseFeatureGates(flag: string | undefined, base: FeatureGates = DEFAULT_FEATURE_GATES): FeatureGates {
  const gates: Record<FeatureGateName, boolean> = { ...base };
  if (flag === undefined || flag.trim() === '') return Object.freeze(gates);
  const valid = FEATURE_GATE_NAMES.join(', ');
  for (const rawPair of flag.split(',')) {
    const pair = rawPair.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) throw new FeatureGateError(`feature gate "${pair}" is not of the form key=true|false`);
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!isGateName(key)) {
      const sameLetters = FEATURE_GATE_NAMES.find((n) => n.toLowerCase() === key.toLowerCase());
      const hint = sameLetters ? ` (did you mean "${sameLetters}"?)` : '';
      throw new FeatureGateError(`unknown feature gate "${key}"${hint}; valid gates: ${valid}`);
    }
    if (TRUE_WORDS.has(value)) gates[key] = true;
    else if (FALSE_WORDS.has(value)) gates[key] = false;
    else throw new FeatureGateError(`feature gate "${key}" has value "${value}", expected true or false`);
  }
  return Object.freeze(gates);
}
