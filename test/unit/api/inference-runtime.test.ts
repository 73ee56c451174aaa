import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION_RUNTIME } from '../../../src/api/labels.js';
import { runtimeDecision } from '../../../src/api/inference-runtime.js';

const ws = (value?: string) => {
  const annotations: Record<string, string> = value === undefined ? {} : { [ANNOTATION_RUNTIME]: value };
  return { metadata: { name: 'w', annotations } };
};

const cases: [string | undefined, boolean, string, RegExp][] = [
  [undefined, true, 'vllm', /default/],
  ['vllm', true, 'vllm', /=vllm/],
  ['transformers', true, 'transformers', /=transformers/],
  ['Transformers', true, 'vllm', /not "vllm" or "transformers"/],
  ['tgi', true, 'vllm', /using vllm/],
  [undefined, false, 'transformers', /gate vLLM is disabled/],
  ['vllm', false, 'transformers', /gate vLLM is disabled/],
];
for (const [annotation, gate, want, reason] of cases) {
  test(`annotation ${String(annotation)} with vLLM=${gate} → ${want}`, () => {
    const d = runtimeDecision(ws(annotation), { vLLM: gate });
    assert.equal(d.choice, want);
    assert.equal(d.topic, 'runtime');
    assert.match(d.reason, reason);
  });
}
