import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_FEATURE_GATES,
  DEFAULT_FEATURE_GATES_FLAG,
  FEATURE_GATE_NAMES,
  FeatureGateError,
  IMPLEMENTED_FEATURE_GATES,
  parseFeatureGates,
  readFeatureGates,
  unimplementedGatesOn,
} from '../../../src/api/feature-gates.js';

/** KAITO v0.12.0's chart default (charts/kaito/workspace/values.yaml), as its Deployment template joins it. */
const KAITO_V0_12_CHART_GATES =
  'vLLM=true,disableNodeAutoProvisioning=false,gatewayAPIInferenceExtension=false,enableInferenceSetController=true,enableMIG=false,enableAccelerator=false,enableMultiRoleInferenceController=false,ModelMirror=false,ModelStreaming=false,enableBaseImageAutoUpgrade=false';

test('defaults: vLLM on, NAP on (disableNodeAutoProvisioning off), the InferenceSet controller on, the rest off', () => {
  assert.deepEqual(parseFeatureGates(undefined), DEFAULT_FEATURE_GATES);
  assert.deepEqual(parseFeatureGates(DEFAULT_FEATURE_GATES_FLAG), DEFAULT_FEATURE_GATES);
  assert.deepEqual(
    FEATURE_GATE_NAMES.filter((g) => DEFAULT_FEATURE_GATES[g]),
    ['vLLM', 'enableInferenceSetController'],
  );
});

test("KAITO v0.12.0's chart default parses to the defaults (every gate of it known by name)", () => {
  assert.deepEqual(parseFeatureGates(KAITO_V0_12_CHART_GATES), DEFAULT_FEATURE_GATES);
});

test('implemented: vLLM, disableNodeAutoProvisioning, enableInferenceSetController; nothing else', () => {
  assert.deepEqual(
    FEATURE_GATE_NAMES.filter((g) => IMPLEMENTED_FEATURE_GATES.has(g)),
    ['vLLM', 'disableNodeAutoProvisioning', 'enableInferenceSetController'],
  );
});

const good: [string, Partial<Record<keyof typeof DEFAULT_FEATURE_GATES, boolean>>][] = [
  ['', {}],
  ['  ', {}],
  ['vLLM=false', { vLLM: false }],
  ['disableNodeAutoProvisioning=true', { disableNodeAutoProvisioning: true }],
  [' vLLM = F , disableNodeAutoProvisioning = 1 ', { vLLM: false, disableNodeAutoProvisioning: true }],
  ['enableInferenceSetController=False', { enableInferenceSetController: false }],
  ['ensureNodeClass=false,gatewayAPIInferenceExtension=f,enableInferenceSetController=True', { enableInferenceSetController: true }],
  ['enableMIG=false,enableAccelerator=0,ModelMirror=F,ModelStreaming=FALSE,enableBaseImageAutoUpgrade=false,enableMultiRoleInferenceController=false', {}],
  ['vLLM=false,vLLM=true', { vLLM: true }],
  ['vLLM=false,', { vLLM: false }],
  // The last value wins, as in KAITO: a gate switched on then off is off.
  ['enableMIG=true,enableMIG=false', {}],
];
for (const [flag, overrides] of good) {
  test(`parses ${JSON.stringify(flag)}`, () => {
    assert.deepEqual(parseFeatureGates(flag), { ...DEFAULT_FEATURE_GATES, ...overrides });
  });
}

const unimplemented = FEATURE_GATE_NAMES.filter((g) => !IMPLEMENTED_FEATURE_GATES.has(g));
const bad: [string, RegExp][] = [
  [
    'foo=true',
    /unknown feature gate "foo"; valid gates: vLLM, ensureNodeClass, disableNodeAutoProvisioning, gatewayAPIInferenceExtension, enableInferenceSetController, enableMIG, enableAccelerator, enableMultiRoleInferenceController, ModelMirror, ModelStreaming, enableBaseImageAutoUpgrade$/,
  ],
  ['vllm=true', /unknown feature gate "vllm" \(did you mean "vLLM"\?\)/],
  ['modelMirror=false', /unknown feature gate "modelMirror" \(did you mean "ModelMirror"\?\)/],
  ['vLLM=yes', /feature gate "vLLM" has value "yes", expected true or false/],
  ['vLLM=', /feature gate "vLLM" has value "", expected true or false/],
  ['vLLM', /feature gate "vLLM" is not of the form key=true\|false/],
  // Every gate kaito-ts does not implement, set to true: one line naming it and the docs section.
  ...unimplemented.map((g): [string, RegExp] => [
    `vLLM=true,${g}=true`,
    new RegExp(`^feature gate "${g}" is not implemented by kaito-ts: it may only be false \\(docs/operations\\.md#feature-gates\\)$`),
  ]),
  [`${KAITO_V0_12_CHART_GATES},gatewayAPIInferenceExtension=true`, /^feature gate "gatewayAPIInferenceExtension" is not implemented/],
];
for (const [flag, message] of bad) {
  test(`rejects ${JSON.stringify(flag)}`, () => {
    assert.throws(
      () => parseFeatureGates(flag),
      (err: unknown) => err instanceof FeatureGateError && message.test(err.message) && !err.message.includes('\n'),
    );
  });
}

test('readFeatureGates reads what KAITO runs with, unimplemented gates included; unimplementedGatesOn lists them in order', () => {
  const gates = readFeatureGates('ModelStreaming=true,enableMIG=true,ModelMirror=true,vLLM=true');
  assert.deepEqual(unimplementedGatesOn(gates), ['enableMIG', 'ModelMirror', 'ModelStreaming']);
  assert.deepEqual(unimplementedGatesOn(readFeatureGates(KAITO_V0_12_CHART_GATES)), []);
  assert.throws(() => readFeatureGates('nope=true'), FeatureGateError);
});

test('parsed gates are frozen', () => {
  assert.equal(Object.isFrozen(parseFeatureGates('vLLM=false')), true);
});
