import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gpuConfigFromNodeLabels, mibToRoundedGiB, type NodeGpuResult } from '../../../src/catalog/node-gpu.js';
import type { CloudProvider } from '../../../src/catalog/types.js';

const node = (labels: Record<string, string>, name = 'gpu-node-1') => ({ metadata: { name, labels } });
const gfd = (product: string, count: string, memoryMiB: string) => ({
  'nvidia.com/gpu.product': product,
  'nvidia.com/gpu.count': count,
  'nvidia.com/gpu.memory': memoryMiB,
});

describe('gpuConfigFromNodeLabels', () => {
  it('KAITO test node: 2 × 24512 MiB → node total 48 GiB (W10 fix; KAITO says 24)', () => {
    assert.deepEqual(gpuConfigFromNodeLabels(node(gfd('NVIDIA-A10-24Q', '2', '24512')), 'azure'), {
      ok: true,
      gpuConfig: { sku: 'unknown', gpuCount: 2, gpuModel: 'NVIDIA-A10-24Q', gpuMemGiB: 48, nvmeDiskEnabled: false },
    });
  });

  it('single GPU: total equals the per-GPU value', () => {
    const r = gpuConfigFromNodeLabels(node(gfd('Tesla-T4', '1', '15360')), 'azure');
    assert.ok(r.ok);
    assert.equal(r.gpuConfig.gpuMemGiB, 15);
  });

  it('8 × H100 80 GiB BYO node is 640 GiB like the catalog row', () => {
    const r = gpuConfigFromNodeLabels(node(gfd('NVIDIA-H100-80GB-HBM3', '8', '81559')), 'azure');
    assert.ok(r.ok);
    assert.equal(r.gpuConfig.gpuMemGiB, 8 * 80);
  });

  describe('NVMe by instance type (kaito-ts extension)', () => {
    const cases: Array<[string, CloudProvider, string | undefined, { sku: string; nvmeDiskEnabled: boolean }]> = [
      ['Azure NVMe SKU', 'azure', 'Standard_NC24ads_A100_v4', { sku: 'Standard_NC24ads_A100_v4', nvmeDiskEnabled: true }],
      ['AWS NVMe SKU', 'aws', 'g5.xlarge', { sku: 'g5.xlarge', nvmeDiskEnabled: true }],
      ['catalog SKU without NVMe', 'azure', 'Standard_NC6s_v3', { sku: 'unknown', nvmeDiskEnabled: false }],
      ['NVMe SKU of another cloud', 'aws', 'Standard_NC24ads_A100_v4', { sku: 'unknown', nvmeDiskEnabled: false }],
      ['unknown instance type', 'azure', 'Standard_NC99_future', { sku: 'unknown', nvmeDiskEnabled: false }],
      ['no instance-type label', 'azure', undefined, { sku: 'unknown', nvmeDiskEnabled: false }],
    ];
    for (const [name, cloud, instanceType, expected] of cases) {
      it(name, () => {
        const labels: Record<string, string> = gfd('NVIDIA-A100', '1', '81920');
        if (instanceType !== undefined) labels['node.kubernetes.io/instance-type'] = instanceType;
        const r = gpuConfigFromNodeLabels(node(labels), cloud);
        assert.ok(r.ok);
        assert.deepEqual({ sku: r.gpuConfig.sku, nvmeDiskEnabled: r.gpuConfig.nvmeDiskEnabled }, expected);
        // GPU facts still come from the labels, never from the catalog row
        assert.deepEqual([r.gpuConfig.gpuCount, r.gpuConfig.gpuMemGiB, r.gpuConfig.gpuModel], [1, 80, 'NVIDIA-A100']);
      });
    }
  });

  describe('errors carry KAITO’s texts', () => {
    const base = gfd('NVIDIA-A10', '1', '24576');
    const without = (key: string) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== key));
    const cases: Array<[string, Record<string, string>, string]> = [
      ['no labels at all', {}, 'missing required nvidia.com labels on node gpu-node-1'],
      ['no product', without('nvidia.com/gpu.product'), 'missing required nvidia.com labels on node gpu-node-1'],
      ['no count', without('nvidia.com/gpu.count'), 'missing required nvidia.com labels on node gpu-node-1'],
      ['no memory', without('nvidia.com/gpu.memory'), 'missing required nvidia.com labels on node gpu-node-1'],
      ['count not a number', { ...base, 'nvidia.com/gpu.count': 'two' }, 'invalid nvidia.com/gpu.count value on node gpu-node-1: two'],
      ['count a fraction', { ...base, 'nvidia.com/gpu.count': '1.5' }, 'invalid nvidia.com/gpu.count value on node gpu-node-1: 1.5'],
      ['count zero', { ...base, 'nvidia.com/gpu.count': '0' }, 'invalid nvidia.com/gpu.count value on node gpu-node-1: 0'],
      ['count negative', { ...base, 'nvidia.com/gpu.count': '-2' }, 'invalid nvidia.com/gpu.count value on node gpu-node-1: -2'],
      ['count empty', { ...base, 'nvidia.com/gpu.count': '' }, 'invalid nvidia.com/gpu.count value on node gpu-node-1: '],
      ['memory with unit', { ...base, 'nvidia.com/gpu.memory': '24Gi' }, 'invalid nvidia.com/gpu.memory value on node gpu-node-1: 24Gi'],
      ['memory zero', { ...base, 'nvidia.com/gpu.memory': '0' }, 'invalid nvidia.com/gpu.memory value on node gpu-node-1: 0'],
    ];
    for (const [name, labels, message] of cases) {
      it(name, () => {
        const expected: NodeGpuResult = { ok: false, message };
        assert.deepEqual(gpuConfigFromNodeLabels(node(labels), 'azure'), expected);
      });
    }
    it('a node without metadata reports the missing labels', () => {
      assert.deepEqual(gpuConfigFromNodeLabels({}, 'azure'), { ok: false, message: 'missing required nvidia.com labels on node ' });
    });
  });
});

describe('mibToRoundedGiB (KAITO int(MiB/1024 + 0.5))', () => {
  const cases: Array<[number, number]> = [
    [24512, 24],
    [15360, 15],
    [16383, 16],
    [1535, 1],
    [1536, 2],
    [81559, 80],
  ];
  for (const [mib, gib] of cases) it(`${mib} MiB → ${gib} GiB`, () => assert.equal(mibToRoundedGiB(mib), gib));
});
