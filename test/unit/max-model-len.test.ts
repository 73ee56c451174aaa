import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Preset } from '../../src/catalog/types.js';
import {
  DEFAULT_MAX_MODEL_LEN,
  chooseMaxModelLen,
  computeMaxModelLen,
  parseExplicitMaxModelLen,
  type MaxModelLenGpu,
} from '../../src/builders/max-model-len.js';
import { mustPreset, mustSku } from './catalog/fixtures.js';

const gpu = (gpuMemGiB: number, gpuCount: number): MaxModelLenGpu => ({ gpuMemGiB, gpuCount });

describe('computeMaxModelLen (spec §5.5 vectors)', () => {
  const cases: Array<[string, Preset | undefined, MaxModelLenGpu | undefined, number, number]> = [
    ['deepseek-r1-distill-llama-8b on 24 GiB × 1', mustPreset('deepseek-r1-distill-llama-8b'), gpu(24, 1), 1, 21248],
    ['deepseek-r1-distill-qwen-14b on 48 GiB / 2 GPUs', mustPreset('deepseek-r1-distill-qwen-14b'), gpu(48, 2), 1, 41728],
    ['deepseek-r1-distill-qwen-14b on 80 GiB × 1 (clamped)', mustPreset('deepseek-r1-distill-qwen-14b'), gpu(80, 1), 1, 131072],
    ['llama-3.3-70b-instruct on 80 GiB × 1, 3 nodes (W11)', mustPreset('llama-3.3-70b-instruct'), gpu(80, 1), 3, 22016],
    ['falcon-7b on 24 GiB × 1 (clamped to 2048)', mustPreset('falcon-7b'), gpu(24, 1), 1, 2048],
    ['phi-4-mini-instruct on Standard_NC24ads_A100_v4', mustPreset('phi-4-mini-instruct'), mustSku('Standard_NC24ads_A100_v4'), 1, 131072],
    ['nil preset', undefined, gpu(80, 1), 1, 0],
    ['nil GPU', mustPreset('phi-4'), undefined, 1, 0],
    ['bytes per token 0', { ...mustPreset('phi-4'), bytesPerToken: 0 }, gpu(80, 1), 1, 0],
    ['token limit 0', { ...mustPreset('phi-4'), modelTokenLimit: 0 }, gpu(80, 1), 1, 0],
    ['zero nodes', mustPreset('phi-4'), gpu(80, 1), 0, 0],
    ['zero GPU memory', mustPreset('phi-4'), gpu(0, 1), 1, 0],
    ['zero GPUs', mustPreset('phi-4'), gpu(80, 0), 1, 0],
    ['unparseable size', { ...mustPreset('phi-4'), totalSafeTensorFileSize: 'big' }, gpu(80, 1), 1, 0],
    ['weights do not fit: no room left', mustPreset('qwen2.5-coder-32b-instruct'), mustSku('Standard_NC6s_v3'), 1, 0],
  ];
  for (const [name, p, g, nodes, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(computeMaxModelLen(p, g, nodes), expected));
  }

  it('results are multiples of 256 within the token limit for every preset on every fitting SKU', () => {
    for (const skuName of ['Standard_NC6s_v3', 'Standard_NV36ads_A10_v5', 'Standard_NC48ads_A100_v4', 'Standard_ND96isr_H100_v5']) {
      for (const name of ['phi-4', 'gemma-3-27b-instruct', 'mistral-7b', 'falcon-40b']) {
        const v = computeMaxModelLen(mustPreset(name), mustSku(skuName), 1);
        assert.equal(v % 256, 0, `${name}@${skuName}`);
        assert.ok(v >= 0 && v <= mustPreset(name).modelTokenLimit, `${name}@${skuName}`);
      }
    }
  });
});

describe('parseExplicitMaxModelLen', () => {
  const cases: Array<[string, string, number | undefined]> = [
    ['plain', 'vllm:\n  max-model-len: 4096\n', 4096],
    ['after other keys', 'max_probe_steps: 6\nvllm:\n  cpu-offload-gb: 0\n  swap-space: 4\n  max-model-len: 8192', 8192],
    ['default template (commented)', 'vllm:\n  cpu-offload-gb: 0\n  # max-model-len: 4096\n  swap-space: 4\n', undefined],
    ['outside the vllm section', 'max-model-len: 4096\nvllm:\n  swap-space: 4\n', undefined],
    ['after the section ended', 'vllm:\n  swap-space: 4\nother:\n  max-model-len: 4096\n', undefined],
    ['blank and comment lines do not end the section', 'vllm:\n\n# note\n  max-model-len: 1024\n', 1024],
    ['nested vllm section', 'inference:\n  vllm:\n    max-model-len: 512\n', 512],
    ['nested section ends at its parent indent', 'inference:\n  vllm:\n    x: 1\n  max-model-len: 512\n', undefined],
    ['zero', 'vllm:\n  max-model-len: 0\n', undefined],
    ['negative', 'vllm:\n  max-model-len: -5\n', undefined],
    ['trailing comment (not an integer)', 'vllm:\n  max-model-len: 4096 # note\n', undefined],
    ['quoted (not an integer)', 'vllm:\n  max-model-len: "4096"\n', undefined],
    ['empty value', 'vllm:\n  max-model-len:\n', undefined],
    ['first occurrence decides', 'vllm:\n  max-model-len: abc\n  max-model-len: 100\n', undefined],
    ['CRLF line ends', 'vllm:\r\n    max-model-len: 2000\r\n', 2000],
    ['a tab counts as one column (tabs are not YAML indentation)', 'vllm:\n\tmax-model-len: 2000\n', undefined],
    ['no vllm section', 'max_probe_steps: 6\n', undefined],
    ['empty', '', undefined],
  ];
  for (const [name, content, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(parseExplicitMaxModelLen(content), expected));
  }
});

describe('chooseMaxModelLen (the --max-model-len flag)', () => {
  const template = 'max_probe_steps: 6\nkv_cache_cpu_memory_utilization: 0.5\nvllm:\n  cpu-offload-gb: 0\n  swap-space: 4\n';
  const a100 = mustSku('Standard_NC24ads_A100_v4');
  const cases: Array<[string, Parameters<typeof chooseMaxModelLen>[0], number]> = [
    [
      'vLLM + default template → computed',
      { runtime: 'vllm', inferenceConfigYaml: template, preset: mustPreset('llama-3.1-8b-instruct'), gpuConfig: a100, numNodes: 1 },
      131072,
    ],
    [
      'vLLM + 3 nodes → computed with node count',
      { runtime: 'vllm', inferenceConfigYaml: template, preset: mustPreset('llama-3.3-70b-instruct'), gpuConfig: a100, numNodes: 3 },
      22016,
    ],
    [
      'vLLM + empty ConfigMap data → 2048 (KAITO unit tests)',
      { runtime: 'vllm', inferenceConfigYaml: '', preset: mustPreset('phi-4'), gpuConfig: a100, numNodes: 1 },
      DEFAULT_MAX_MODEL_LEN,
    ],
    ['vLLM + missing key → 2048', { runtime: 'vllm', preset: mustPreset('phi-4'), gpuConfig: a100, numNodes: 1 }, DEFAULT_MAX_MODEL_LEN],
    [
      'transformers → 2048',
      { runtime: 'transformers', inferenceConfigYaml: template, preset: mustPreset('phi-4'), gpuConfig: a100, numNodes: 1 },
      DEFAULT_MAX_MODEL_LEN,
    ],
    [
      'explicit value wins (W13)',
      { runtime: 'vllm', inferenceConfigYaml: `${template}  max-model-len: 4096\n`, preset: mustPreset('phi-4'), gpuConfig: a100, numNodes: 1 },
      4096,
    ],
    [
      'not computable (test model without BytesPerToken) → 0, flag omitted',
      { runtime: 'vllm', inferenceConfigYaml: template, preset: { ...mustPreset('phi-4'), bytesPerToken: 0 }, gpuConfig: a100, numNodes: 1 },
      0,
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name} → ${expected}`, () => {
      const choice = chooseMaxModelLen(input);
      assert.equal(choice.value, expected);
      assert.ok(choice.reason.length > 0);
    });
  }
});
