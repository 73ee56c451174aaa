import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gpuConfigFromNodeLabels } from '../../src/catalog/node-gpu.js';
import { estimateNodeCount, targetNodeCount, type EstimatorInput, type EstimatorPreset, type NodeEstimate } from '../../src/builders/estimator.js';
import { mustPreset, mustSku } from './catalog/fixtures.js';

// KAITO's test models (pkg/utils/test/test_model.go): no BytesPerToken.
const testModel = (over: Partial<EstimatorPreset>): EstimatorPreset => ({
  name: 'test-distributed-model',
  totalSafeTensorFileSize: '64Gi',
  bytesPerToken: 0,
  disableTensorParallelism: false,
  supportDistributedInference: true,
  ...over,
});

const nodesOf = (r: NodeEstimate) => (r.ok ? r.nodes : r.message);

describe('estimateNodeCount — worked examples of spec §4.6', () => {
  const cases: Array<[string, EstimatorInput, number]> = [
    [
      'llama-3.3-70b-instruct on Standard_NC24ads_A100_v4',
      { preset: mustPreset('llama-3.3-70b-instruct'), gpuConfig: mustSku('Standard_NC24ads_A100_v4'), count: 1, maxModelLen: 2048 },
      3,
    ],
    [
      'phi-4-mini-instruct on Standard_NC24ads_A100_v4',
      { preset: mustPreset('phi-4-mini-instruct'), gpuConfig: mustSku('Standard_NC24ads_A100_v4'), count: 1, maxModelLen: 2048 },
      1,
    ],
    [
      'llama-3.1-8b-instruct on Standard_NC6s_v3',
      { preset: mustPreset('llama-3.1-8b-instruct'), gpuConfig: mustSku('Standard_NC6s_v3'), count: 1, maxModelLen: 2048 },
      2,
    ],
    ['64Gi test model on Standard_NC12s_v3, count 2', { preset: testModel({}), gpuConfig: mustSku('Standard_NC12s_v3'), count: 2, maxModelLen: 2048 }, 3],
    ['64Gi test model, count 4 is ignored', { preset: testModel({}), gpuConfig: mustSku('Standard_NC12s_v3'), count: 4, maxModelLen: 2048 }, 3],
    [
      'count 3 lowered to 1 when one GPU suffices',
      { preset: mustPreset('phi-4-mini-instruct'), gpuConfig: mustSku('Standard_NC24ads_A100_v4'), count: 3, maxModelLen: 2048 },
      1,
    ],
    [
      'deepseek-r1-0528 on Standard_ND96isr_H200_v5',
      { preset: mustPreset('deepseek-r1-0528'), gpuConfig: mustSku('Standard_ND96isr_H200_v5'), count: 1, maxModelLen: 2048 },
      1,
    ],
    [
      'deepseek-r1-0528 on Standard_ND96isr_H100_v5',
      { preset: mustPreset('deepseek-r1-0528'), gpuConfig: mustSku('Standard_ND96isr_H100_v5'), count: 1, maxModelLen: 2048 },
      2,
    ],
    [
      'a longer context needs more GPUs',
      { preset: mustPreset('llama-3.3-70b-instruct'), gpuConfig: mustSku('Standard_NC24ads_A100_v4'), count: 1, maxModelLen: 131072 },
      6,
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name} → ${expected}`, () => {
      const r = estimateNodeCount(input);
      assert.equal(nodesOf(r), expected);
      assert.ok(r.ok && r.reason.includes(input.preset?.name ?? ''));
    });
  }
});

describe('estimateNodeCount — fallbacks to count', () => {
  const cases: Array<[string, EstimatorInput, number]> = [
    ['no preset (template), count 2', { count: 2, maxModelLen: 2048 }, 2],
    ['no preset, no count → 1', { maxModelLen: 2048 }, 1],
    ['empty preset name', { preset: testModel({ name: '' }), gpuConfig: mustSku('Standard_NC6s_v3'), count: 5, maxModelLen: 2048 }, 5],
    ['no GPU facts', { preset: mustPreset('phi-4'), count: 2, maxModelLen: 2048 }, 2],
    ['GPU memory 0', { preset: mustPreset('phi-4'), gpuConfig: { sku: 'x', gpuCount: 1, gpuMemGiB: 0 }, count: 2, maxModelLen: 2048 }, 2],
    ['GPU count 0', { preset: mustPreset('phi-4'), gpuConfig: { sku: 'x', gpuCount: 0, gpuMemGiB: 16 }, maxModelLen: 2048 }, 1],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(nodesOf(estimateNodeCount(input)), expected));
  }
});

describe('estimateNodeCount — every error branch, KAITO texts', () => {
  // 16 GiB GPU: perGPU 17179869184, usable trunc(× 0.84) = 14431090114; base overhead 2.3 GiB = 2469606195.2
  const v100 = mustSku('Standard_NC6s_v3');
  const cases: Array<[string, EstimatorInput, string]> = [
    [
      'TP disabled, weights + overhead exceed one GPU (falcon-7b on Standard_NV6)',
      { preset: mustPreset('falcon-7b'), gpuConfig: mustSku('Standard_NV6'), count: 1, maxModelLen: 2048 },
      'GPU memory 8589934592 bytes is too small for model, needs 17206095328 bytes (model: 14719711917 + overhead: 2486383411)',
    ],
    [
      'KV cache + base overhead exceed usable memory',
      { preset: mustPreset('llama-3.1-8b-instruct'), gpuConfig: v100, count: 1, maxModelLen: 131072 },
      'GPU memory 17179869184 bytes is too small, needs at least 18.3 GB overhead (base: 2.3GB + Advanced KV Cache: 16.0 GB)',
    ],
    [
      // weights exactly fill the room left by the truncated overhead, but not by the float overhead → 2 GPUs
      'TP disabled and more than one node',
      {
        preset: testModel({
          name: 'test-no-tensor-parallel-model',
          totalSafeTensorFileSize: '11710496768',
          bytesPerToken: 8192,
          disableTensorParallelism: true,
          supportDistributedInference: false,
        }),
        gpuConfig: v100,
        count: 1,
        maxModelLen: 2048,
      },
      'models with disabled tensor parallelism cannot be distributed across more than 1 GPU node, calculated nodes: 2',
    ],
    [
      'not distributed-capable and more than one node (deepseek-r1-distill-qwen-14b on Standard_NC6s_v3)',
      { preset: mustPreset('deepseek-r1-distill-qwen-14b'), gpuConfig: v100, count: 1, maxModelLen: 2048 },
      'models with disabled support distributed inference cannot be distributed across more than 1 GPU node, please use a node with larger GPU memory, calculated nodes: 3',
    ],
    [
      'unparseable model size (a bad catalog edit; KAITO would panic)',
      { preset: testModel({ totalSafeTensorFileSize: 'lots' }), gpuConfig: v100, maxModelLen: 2048 },
      'invalid totalSafeTensorFileSize "lots" of preset test-distributed-model',
    ],
  ];
  for (const [name, input, message] of cases) {
    it(name, () => assert.deepEqual(estimateNodeCount(input), { ok: false, message }));
  }
});

describe('W10 fix changes BYO estimates on multi-GPU nodes', () => {
  it('4 × L4 24 GiB BYO node: llama-3.3-70b-instruct needs 2 nodes (KAITO, reading 24 GiB as the node total: 13)', () => {
    const byo = gpuConfigFromNodeLabels(
      { metadata: { name: 'n1', labels: { 'nvidia.com/gpu.product': 'NVIDIA-L4', 'nvidia.com/gpu.count': '4', 'nvidia.com/gpu.memory': '24576' } } },
      'azure',
    );
    assert.ok(byo.ok);
    assert.equal(byo.gpuConfig.gpuMemGiB, 96);
    const input = { preset: mustPreset('llama-3.3-70b-instruct'), count: 1, maxModelLen: 2048 };
    assert.equal(nodesOf(estimateNodeCount({ ...input, gpuConfig: byo.gpuConfig })), 2);
    assert.equal(nodesOf(estimateNodeCount({ ...input, gpuConfig: { ...byo.gpuConfig, gpuMemGiB: 24 } })), 13);
  });
});

describe('targetNodeCount (UpdateWorkspaceTargetNodeCount rules)', () => {
  const three: NodeEstimate = { ok: true, nodes: 3, reason: 'estimated' };
  const failing: NodeEstimate = { ok: false, message: 'no ready nodes found, unable to determine GPU configuration' };
  const base = { hasTuning: false, hasInference: true, runtime: 'vllm' as const, count: 2 };
  const cases: Array<[string, Parameters<typeof targetNodeCount>[0], number | string, boolean]> = [
    ['already set is kept (the estimate is consulted only for the reason)', { ...base, current: 2, estimate: () => three }, 2, true],
    ['already set and the estimator fails: still kept', { ...base, current: 2, estimate: () => failing }, 2, true],
    ['tuning → 1', { ...base, hasTuning: true, hasInference: false, estimate: () => three }, 1, false],
    ['no inference → 1', { ...base, hasInference: false, estimate: () => three }, 1, false],
    ['vLLM → estimator', { ...base, current: 0, estimate: () => three }, 3, true],
    ['vLLM estimator below 1 → 1', { ...base, estimate: () => ({ ok: true, nodes: 0, reason: 'count 0' }) }, 1, true],
    ['transformers → count', { ...base, runtime: 'transformers', estimate: () => three }, 2, false],
    ['transformers without count → 1', { ...base, runtime: 'transformers', count: undefined, estimate: () => three }, 1, false],
    [
      'estimator error is wrapped',
      { ...base, estimate: () => failing },
      'failed to calculate target node count: no ready nodes found, unable to determine GPU configuration',
      true,
    ],
  ];
  for (const [name, input, expected, estimatorCalled] of cases) {
    it(name, () => {
      let calls = 0;
      const r = targetNodeCount({ ...input, estimate: () => (calls++, input.estimate()) });
      assert.equal(nodesOf(r), expected);
      assert.equal(calls, estimatorCalled ? 1 : 0);
    });
  }
  it('template workspace on vLLM: estimator without preset gives count', () => {
    const r = targetNodeCount({ ...base, count: 4, estimate: () => estimateNodeCount({ count: 4, maxModelLen: 2048 }) });
    assert.equal(nodesOf(r), 4);
  });
});

describe('targetNodeCount reasons once set', () => {
  it('keeps the estimator reason when a fresh estimate agrees, says so when it differs', () => {
    const agree = targetNodeCount({
      hasTuning: false,
      hasInference: true,
      runtime: 'vllm',
      current: 3,
      estimate: () => ({ ok: true, nodes: 3, reason: 'needs 3 GPUs' }),
    });
    assert.deepEqual(agree, { ok: true, nodes: 3, reason: 'needs 3 GPUs' });
    const differ = targetNodeCount({
      hasTuning: false,
      hasInference: true,
      runtime: 'vllm',
      current: 2,
      estimate: () => ({ ok: true, nodes: 3, reason: 'needs 3 GPUs' }),
    });
    assert.ok(differ.ok && differ.nodes === 2 && /kept \(set once\); a fresh estimate gives 3/.test(differ.reason));
  });
});
