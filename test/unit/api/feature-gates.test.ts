import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FEATURE_GATES, DEFAULT_FEATURE_GATES_FLAG, FeatureGateError, parseFeatureGates } from '../../../src/api/feature-gates.js';

test('defaults: vLLM on, NAP on (disableNodeAutoProvisioning off), the rest off', () => {
  assert.deepEqual(parseFeatureGates(undefined), DEFAULT_FEATURE_GATES);
  assert.deepEqual(parseFeatureGates(DEFAULT_FEATURE_GATES_FLAG), DEFAULT_FEATURE_GATES);
  assert.equal(DEFAULT_FEATURE_GATES.vLLM, true);
  assert.equal(DEFAULT_FEATURE_GATES.disableNodeAutoProvisioning, false);
});

const good: [string, Partial<Record<keyof typeof DEFAULT_FEATURE_GATES, boolean>>][] = [
  ['', {}],
  ['  ', {}],
  ['vLLM=false', { vLLM: false }],
  ['disableNodeAutoProvisioning=true', { disableNodeAutoProvisioning: true }],
  [' vLLM = F , disableNodeAutoProvisioning = 1 ', { vLLM: false, disableNodeAutoProvisioning: true }],
  [
    'ensureNodeClass=TRUE,gatewayAPIInferenceExtension=t,enableInferenceSetController=True',
    {
      ensureNodeClass: true,
      gatewayAPIInferenceExtension: true,
      enableInferenceSetController: true,
    },
  ],
  ['vLLM=false,vLLM=true', { vLLM: true }],
  ['vLLM=false,', { vLLM: false }],
];
for (const [flag, overrides] of good) {
  test(`parses ${JSON.stringify(flag)}`, () => {
    assert.deepEqual(parseFeatureGates(flag), { ...DEFAULT_FEATURE_GATES, ...overrides });
  });
}

const bad: [string, RegExp][] = [
  [
    'foo=true',
    /unknown feature gate "foo"; valid gates: vLLM, ensureNodeClass, disableNodeAutoProvisioning, gatewayAPIInferenceExtension, enableInferenceSetController/,
  ],
  ['vllm=true', /unknown feature gate "vllm" \(did you mean "vLLM"\?\)/],
  ['vLLM=yes', /feature gate "vLLM" has value "yes", expected true or false/],
  ['vLLM=', /feature gate "vLLM" has value "", expected true or false/],
  ['vLLM', /feature gate "vLLM" is not of the form key=true\|false/],
];
for (const [flag, message] of bad) {
  test(`rejects ${JSON.stringify(flag)}`, () => {
    assert.throws(
      () => parseFeatureGates(flag),
      (err: unknown) => err instanceof FeatureGateError && message.test(err.message),
    );
  });
}

test('parsed gates are frozen', () => {
  assert.equal(Object.isFrozen(parseFeatureGates('vLLM=false')), true);
});
