import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BASE_IMAGE,
  DEPRECATED_PRESETS,
  baseImage,
  closestPresetNames,
  editDistance,
  getPreset,
  isDeprecatedPreset,
  modelWeightsImage,
  presetNames,
  presetRegistry,
} from '../../../src/catalog/presets.js';
import { tryParseQuantity } from '../../../src/catalog/quantity.js';
import { mustPreset } from './fixtures.js';

describe('preset catalog', () => {
  it('registers the 29 presets of spec §8.2 and not phi-2', () => {
    assert.equal(presetNames().length, 29);
    assert.equal(new Set(presetNames()).size, 29);
    assert.equal(getPreset('phi-2'), undefined);
    assert.equal(isDeprecatedPreset('phi-2'), true);
    assert.equal(isDeprecatedPreset('phi-4'), false);
    assert.equal(DEPRECATED_PRESETS['phi-2']?.hfRevision, 'ef382358ec9e382308935a992d908de099b64c23');
  });

  it('every preset has parseable sizes, positive numbers and a 40-hex commit', () => {
    for (const name of presetNames()) {
      const p = mustPreset(name);
      assert.ok((tryParseQuantity(p.totalSafeTensorFileSize) ?? 0) > 0, name);
      assert.ok((tryParseQuantity(p.diskStorageRequirement) ?? 0) > (tryParseQuantity(p.totalSafeTensorFileSize) ?? 0), name);
      assert.ok(p.bytesPerToken > 0 && p.modelTokenLimit > 0, name);
      assert.match(p.hfRevision, /^[0-9a-f]{40}$/, name);
      assert.match(p.hfRepo, /^[\w.-]+\/[\w.-]+$/, name);
      assert.equal(p.vllm.servedModelName, name);
      assert.deepEqual(p.transformers.accelerateParams, { num_processes: '1', num_machines: '1', machine_rank: '0', gpu_ids: 'all' });
      assert.equal(p.transformers.inferenceMainFile, '/workspace/tfs/inference_api.py');
      assert.equal(p.transformers.baseCommand, 'accelerate launch');
      // Ray commands exist exactly for the distributed presets
      assert.equal(p.vllm.rayLeaderBaseCommand !== undefined, p.supportDistributedInference, name);
    }
  });

  it('llama-3.3-70b-instruct row', () => {
    assert.deepEqual(mustPreset('llama-3.3-70b-instruct'), {
      name: 'llama-3.3-70b-instruct',
      family: 'llama3',
      hfRepo: 'meta-llama/Llama-3.3-70B-Instruct',
      hfRevision: '6f6073b423013f6a7d4d9f39144961bfbfbc386b',
      downloadAtRuntime: true,
      downloadAuthRequired: true,
      tag: '0.0.1',
      gpuCountRequirement: 1,
      totalSafeTensorFileSize: '131.42Gi',
      diskStorageRequirement: '220Gi',
      bytesPerToken: 327680,
      modelTokenLimit: 131072,
      supportDistributedInference: true,
      disableTensorParallelism: false,
      supportTuning: false,
      readinessTimeoutSeconds: 1800,
      vllm: {
        baseCommand: 'VLLM_ATTENTION_BACKEND=TRITON_ATTN python3 /workspace/vllm/inference_api.py',
        servedModelName: 'llama-3.3-70b-instruct',
        modelRunParams: {
          dtype: 'float16',
          'chat-template': '/workspace/chat_templates/tool-chat-llama3.1-json.jinja',
          'tool-call-parser': 'llama3_json',
          'enable-auto-tool-choice': '',
        },
        rayLeaderBaseCommand: '/workspace/vllm/multi-node-serving.sh leader',
        rayWorkerBaseCommand: '/workspace/vllm/multi-node-serving.sh worker',
        disallowLoRA: false,
      },
      transformers: {
        baseCommand: 'accelerate launch',
        accelerateParams: { num_processes: '1', num_machines: '1', machine_rank: '0', gpu_ids: 'all' },
        inferenceMainFile: '/workspace/tfs/inference_api.py',
        modelRunParams: {
          torch_dtype: 'bfloat16',
          pipeline: 'text-generation',
          chat_template: '/workspace/chat_templates/llama-3-instruct.jinja',
          allow_remote_files: '',
        },
      },
    });
  });

  const facts: Array<[string, Partial<Record<string, unknown>>]> = [
    ['falcon-7b', { disableTensorParallelism: true, supportTuning: true, downloadAtRuntime: false, tag: '0.2.0', modelTokenLimit: 2048 }],
    ['falcon-40b-instruct', { gpuCountRequirement: 2, bytesPerToken: 1966080, supportTuning: false, diskStorageRequirement: '280Gi' }],
    ['gemma-3-27b-instruct', { readinessTimeoutSeconds: 2700, downloadAtRuntime: true, downloadAuthRequired: false }],
    ['gpt-oss-20b', { tag: '0.0.2', downloadAtRuntime: false, totalSafeTensorFileSize: '12.9Gi' }],
    ['mistral-large-3-675b-instruct', { readinessTimeoutSeconds: 3600, supportDistributedInference: true, totalSafeTensorFileSize: '634.70Gi' }],
    ['ministral-3-3b-instruct', { diskStorageRequirement: '70Gi', modelTokenLimit: 262144, family: 'mistral' }],
    ['deepseek-v3-0324', { supportDistributedInference: true, bytesPerToken: 70272, modelTokenLimit: 163840 }],
    ['phi-4-mini-instruct', { totalSafeTensorFileSize: '7.15Gi', supportTuning: true, family: 'phi4' }],
    ['qwen2.5-coder-32b-instruct', { totalSafeTensorFileSize: '61.03Gi', diskStorageRequirement: '230Gi', bytesPerToken: 262144 }],
  ];
  for (const [name, expected] of facts) {
    it(`${name} facts`, () => {
      const p = mustPreset(name) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(p[key], value, `${name}.${key}`);
    });
  }

  it('tuning presets match §8.4 and distributed presets match §8.2', () => {
    const withFlag = (flag: 'supportTuning' | 'supportDistributedInference') => presetNames().filter((n) => mustPreset(n)[flag]);
    assert.deepEqual(withFlag('supportTuning').sort(), [
      'falcon-40b',
      'falcon-7b',
      'mistral-7b',
      'phi-3-medium-128k-instruct',
      'phi-3-medium-4k-instruct',
      'phi-3-mini-128k-instruct',
      'phi-3-mini-4k-instruct',
      'phi-3.5-mini-instruct',
      'phi-4',
      'phi-4-mini-instruct',
      'qwen2.5-coder-32b-instruct',
      'qwen2.5-coder-7b-instruct',
    ]);
    assert.deepEqual(withFlag('supportDistributedInference').sort(), [
      'deepseek-r1-0528',
      'deepseek-v3-0324',
      'llama-3.1-8b-instruct',
      'llama-3.3-70b-instruct',
      'mistral-large-3-675b-instruct',
    ]);
    assert.deepEqual(
      presetNames().filter((n) => mustPreset(n).vllm.disallowLoRA),
      ['falcon-7b', 'falcon-7b-instruct'],
    );
  });

  it('vLLM params of ministral and phi-4-mini, transformers of phi-3', () => {
    assert.equal(
      Object.entries(mustPreset('ministral-3-8b-instruct').vllm.modelRunParams)
        .map(([k, v]) => (v ? `${k}=${v}` : k))
        .join(' '),
      'dtype=float16 tool-call-parser=mistral tokenizer_mode=mistral config_format=mistral load_format=mistral enable-auto-tool-choice',
    );
    assert.equal(mustPreset('phi-4-mini-instruct').vllm.modelRunParams['tool-call-parser'], 'phi4_mini_json');
    assert.deepEqual(mustPreset('phi-3-mini-4k-instruct').transformers.modelRunParams, {
      torch_dtype: 'auto',
      pipeline: 'text-generation',
      trust_remote_code: '',
    });
    assert.deepEqual(mustPreset('gpt-oss-120b').vllm.modelRunParams, {});
  });

  it('deepseek-v3-0324 is served under its own name (W30 fixed)', () => {
    assert.equal(mustPreset('deepseek-v3-0324').vllm.servedModelName, 'deepseek-v3-0324');
  });

  it('getPreset returns a deep copy', () => {
    const p = mustPreset('phi-4');
    p.vllm.modelRunParams['max-model-len'] = '1';
    p.transformers.accelerateParams['num_processes'] = '8';
    assert.equal(mustPreset('phi-4').vllm.modelRunParams['max-model-len'], undefined);
    assert.equal(mustPreset('phi-4').transformers.accelerateParams['num_processes'], '1');
  });
});

describe('images and registry', () => {
  it('base image and weight artifacts with the default registry', () => {
    const registry = presetRegistry({});
    assert.equal(registry, 'mcr.microsoft.com/aks/kaito');
    assert.equal(BASE_IMAGE.tag, '0.1.1');
    assert.equal(baseImage(registry), 'mcr.microsoft.com/aks/kaito/kaito-base:0.1.1');
    assert.equal(modelWeightsImage(mustPreset('falcon-7b'), registry), 'mcr.microsoft.com/aks/kaito/kaito-falcon-7b:0.2.0');
    assert.equal(modelWeightsImage(mustPreset('gpt-oss-20b'), registry), 'mcr.microsoft.com/aks/kaito/kaito-gpt-oss-20b:0.0.2');
  });
  it('PRESET_REGISTRY_NAME overrides; blank means default', () => {
    assert.equal(baseImage(presetRegistry({ PRESET_REGISTRY_NAME: 'test-registry' })), 'test-registry/kaito-base:0.1.1');
    assert.equal(presetRegistry({ PRESET_REGISTRY_NAME: '  ' }), 'mcr.microsoft.com/aks/kaito');
  });
});

describe('closestPresetNames', () => {
  const cases: Array<[string, number | undefined, string[]]> = [
    ['phi-4-mini', undefined, ['phi-4-mini-instruct', 'phi-4', 'falcon-40b']],
    ['falcon-7B', 1, ['falcon-7b']],
    ['llama-3.1-8b', 2, ['llama-3.1-8b-instruct', 'falcon-7b']],
    ['LLAMA-3', 2, ['llama-3.1-8b-instruct', 'llama-3.3-70b-instruct']],
    ['gpt-oss-20b', 2, ['gpt-oss-20b', 'gpt-oss-120b']],
    ['anything', 0, []],
  ];
  for (const [name, n, expected] of cases) {
    it(`${name} → ${expected.join(', ')}`, () => assert.deepEqual(closestPresetNames(name, n), expected));
  }
  it('without a prefix match, returns names sorted by edit distance', () => {
    const names = closestPresetNames('qwen-coder', 5);
    const distances = names.map((n) => editDistance('qwen-coder', n));
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    );
    assert.equal(names.length, 5);
  });
});

describe('editDistance', () => {
  const cases: Array<[string, string, number]> = [
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['Phi-4', 'phi-4', 0],
    ['flaw', 'lawn', 2],
  ];
  for (const [a, b, d] of cases) it(`${a}/${b} → ${d}`, () => assert.equal(editDistance(a, b), d));
});
