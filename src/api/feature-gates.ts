// `--feature-gates` parsing (KAITO pkg/featuregates): a comma list of `key=bool` overriding the
// defaults. Every gate KAITO v0.12.0 knows (and v0.8.0's ensureNodeClass) is accepted by name, so a
// value copied from KAITO's chart parses. A gate kaito-ts does not implement may be given as false
// only: true would be a promise the operator does not keep, so it stops at start, naming the gate.
// Unlike KAITO (whose error reads "invalid feature gate(s) , <k>"), errors name the offending key.

/** KAITO v0.12.0's gates (pkg/featuregates/featuregates.go) and v0.8.0's ensureNodeClass, in that order. */
export const FEATURE_GATE_NAMES = [
  'vLLM',
  'ensureNodeClass',
  'disableNodeAutoProvisioning',
  'gatewayAPIInferenceExtension',
  'enableInferenceSetController',
  'enableMIG',
  'enableAccelerator',
  'enableMultiRoleInferenceController',
  'ModelMirror',
  'ModelStreaming',
  'enableBaseImageAutoUpgrade',
] as const;
export type FeatureGateName = (typeof FEATURE_GATE_NAMES)[number];
export type FeatureGates = Readonly<Record<FeatureGateName, boolean>>;

/** The gates kaito-ts does what KAITO does with; the others may only be false. */
export const IMPLEMENTED_FEATURE_GATES: ReadonlySet<FeatureGateName> = new Set<FeatureGateName>([
  'vLLM',
  'disableNodeAutoProvisioning',
  'enableInferenceSetController',
]);

/** Where the table of gates lives (named in every refusal). */
export const FEATURE_GATES_DOC = 'docs/operations.md#feature-gates';

export const DEFAULT_FEATURE_GATES: FeatureGates = Object.freeze({
  vLLM: true,
  ensureNodeClass: false,
  disableNodeAutoProvisioning: false,
  gatewayAPIInferenceExtension: false,
  // On by default since KAITO v0.11.
  enableInferenceSetController: true,
  enableMIG: false,
  enableAccelerator: false,
  enableMultiRoleInferenceController: false,
  ModelMirror: false,
  ModelStreaming: false,
  enableBaseImageAutoUpgrade: false,
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

export function isFeatureGateName(key: string): key is FeatureGateName {
  return (FEATURE_GATE_NAMES as readonly string[]).includes(key);
}

/** The one line that refuses an unimplemented gate set to true. */
export function unimplementedGateMessage(gate: string): string {
  return `feature gate "${gate}" is not implemented by kaito-ts: it may only be false (${FEATURE_GATES_DOC})`;
}

/**
 * The gates a value sets, as KAITO reads them, without refusing unimplemented ones (what `check`
 * reads from KAITO's own Deployment). Throws FeatureGateError on malformed pairs, unknown keys
 * (case-sensitive, as in KAITO) and non-boolean values.
 */
export function readFeatureGates(flag: string | undefined, base: FeatureGates = DEFAULT_FEATURE_GATES): FeatureGates {
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
    if (!isFeatureGateName(key)) {
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

/** The gates set to true that kaito-ts does not implement, in FEATURE_GATE_NAMES order. */
export function unimplementedGatesOn(gates: FeatureGates): FeatureGateName[] {
  return FEATURE_GATE_NAMES.filter((g) => gates[g] && !IMPLEMENTED_FEATURE_GATES.has(g));
}

/**
 * Parse a `--feature-gates` value on top of `base` (the defaults unless given), as the operator,
 * `diff` and `render` take it: readFeatureGates, then an unimplemented gate set to true is refused.
 */
export function parseFeatureGates(flag: string | undefined, base: FeatureGates = DEFAULT_FEATURE_GATES): FeatureGates {
  const gates = readFeatureGates(flag, base);
  const [refused] = unimplementedGatesOn(gates);
  if (refused) throw new FeatureGateError(unimplementedGateMessage(refused));
  return gates;
}
