import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOUD_PROVIDERS, isLenientAzureSku, lookupSku, resolveCloudProvider, supportedSkus, unsupportedSkuMessage } from '../../../src/catalog/gpu-skus.js';
import type { CloudProvider, GpuConfig } from '../../../src/catalog/types.js';

describe('SKU catalogs', () => {
  it('hold 29 Azure, 59 AWS and 10 Arc SKUs without duplicates', () => {
    const sizes = Object.fromEntries(CLOUD_PROVIDERS.map((c) => [c, supportedSkus(c).length]));
    assert.deepEqual(sizes, { azure: 29, aws: 59, arc: 10 });
    for (const cloud of CLOUD_PROVIDERS) assert.equal(new Set(supportedSkus(cloud)).size, supportedSkus(cloud).length);
  });

  it('every row is self-consistent (sku = key, whole per-GPU GiB, positive counts)', () => {
    for (const cloud of CLOUD_PROVIDERS) {
      for (const sku of supportedSkus(cloud)) {
        const c = lookupSku(cloud, sku);
        assert.ok(c, sku);
        assert.equal(c.sku, sku);
        assert.ok(c.gpuCount > 0 && c.gpuMemGiB > 0, sku);
        assert.ok(Number.isInteger(c.gpuMemGiB / c.gpuCount), `${sku} per-GPU memory`);
      }
    }
  });

  const rows: Array<[CloudProvider, GpuConfig]> = [
    ['azure', { sku: 'Standard_NC6s_v3', gpuCount: 1, gpuModel: 'NVIDIA V100', gpuMemGiB: 16, nvmeDiskEnabled: false }],
    ['azure', { sku: 'Standard_NC12s_v3', gpuCount: 2, gpuModel: 'NVIDIA V100', gpuMemGiB: 32, nvmeDiskEnabled: false }],
    ['azure', { sku: 'Standard_NC24ads_A100_v4', gpuCount: 1, gpuModel: 'NVIDIA A100', gpuMemGiB: 80, nvmeDiskEnabled: true }],
    ['azure', { sku: 'Standard_ND96asr_A100_v4', gpuCount: 8, gpuModel: 'NVIDIA A100', gpuMemGiB: 320, nvmeDiskEnabled: false }],
    ['azure', { sku: 'Standard_ND96amsr_A100_v4', gpuCount: 8, gpuModel: 'NVIDIA A100', gpuMemGiB: 640, nvmeDiskEnabled: true }],
    ['azure', { sku: 'Standard_NCC40ads_H100_v5', gpuCount: 1, gpuModel: 'NVIDIA H100', gpuMemGiB: 94, nvmeDiskEnabled: false }],
    ['azure', { sku: 'Standard_ND96isr_H200_v5', gpuCount: 8, gpuModel: 'NVIDIA H200', gpuMemGiB: 1128, nvmeDiskEnabled: true }],
    ['azure', { sku: 'Standard_NV32as_v4', gpuCount: 1, gpuModel: 'AMD Radeon Instinct MI25', gpuMemGiB: 16, nvmeDiskEnabled: false }],
    ['aws', { sku: 'p4d.24xlarge', gpuCount: 8, gpuModel: 'NVIDIA A100', gpuMemGiB: 320, nvmeDiskEnabled: true }],
    ['aws', { sku: 'p3dn.24xlarge', gpuCount: 8, gpuModel: 'NVIDIA V100', gpuMemGiB: 256, nvmeDiskEnabled: false }],
    ['aws', { sku: 'g5g.metal', gpuCount: 2, gpuModel: 'NVIDIA T4', gpuMemGiB: 32, nvmeDiskEnabled: false }],
    ['aws', { sku: 'g5.16xlarge', gpuCount: 1, gpuModel: 'NVIDIA A10G', gpuMemGiB: 24, nvmeDiskEnabled: true }],
    ['aws', { sku: 'gr6.8xlarge', gpuCount: 1, gpuModel: 'NVIDIA L4', gpuMemGiB: 24, nvmeDiskEnabled: true }],
    ['aws', { sku: 'g4dn.metal', gpuCount: 8, gpuModel: 'NVIDIA T4', gpuMemGiB: 128, nvmeDiskEnabled: true }],
    ['aws', { sku: 'trn1n.32xlarge', gpuCount: 16, gpuModel: 'AWS Trainium accelerators', gpuMemGiB: 512, nvmeDiskEnabled: true }],
    ['aws', { sku: 'inf2.48xlarge', gpuCount: 12, gpuModel: 'AWS Inferentia2 accelerators', gpuMemGiB: 384, nvmeDiskEnabled: false }],
    ['arc', { sku: 'Standard_NK12', gpuCount: 2, gpuModel: 'NVIDIA T4', gpuMemGiB: 16, nvmeDiskEnabled: false }],
    ['arc', { sku: 'Standard_NC32_A16', gpuCount: 2, gpuModel: 'NVIDIA A16', gpuMemGiB: 32, nvmeDiskEnabled: false }],
  ];
  for (const [cloud, expected] of rows) {
    it(`${cloud} ${expected.sku}`, () => assert.deepEqual(lookupSku(cloud, expected.sku), expected));
  }

  it('NVMe SKUs are exactly those of spec §6', () => {
    const nvme = (cloud: CloudProvider) => supportedSkus(cloud).filter((s) => lookupSku(cloud, s)?.nvmeDiskEnabled);
    assert.deepEqual(nvme('azure'), [
      'Standard_NC24ads_A100_v4',
      'Standard_NC48ads_A100_v4',
      'Standard_NC96ads_A100_v4',
      'Standard_ND96amsr_A100_v4',
      'Standard_NC40ads_H100_v5',
      'Standard_NC80adis_H100_v5',
      'Standard_ND96isr_H100_v5',
      'Standard_ND96isr_H200_v5',
    ]);
    const awsNvmeFamily = /^(p4d|p4de|p5|p5e|p5en|g6|gr6|g5|g4dn|g4ad|trn1|trn1n)\./;
    for (const sku of supportedSkus('aws')) {
      assert.equal(lookupSku('aws', sku)?.nvmeDiskEnabled, awsNvmeFamily.test(sku), sku);
    }
    assert.deepEqual(nvme('arc'), []);
  });

  it('lookup is exact and per cloud', () => {
    assert.equal(lookupSku('azure', 'standard_nc6s_v3'), undefined);
    assert.equal(lookupSku('aws', 'Standard_NC6s_v3'), undefined);
    assert.equal(lookupSku('azure', 'Standard_NK6'), undefined);
    assert.ok(lookupSku('arc', 'Standard_NK6'));
  });

  it('returns copies: changing a result does not change the catalog', () => {
    const first = lookupSku('azure', 'Standard_NC6s_v3');
    assert.ok(first);
    first.gpuCount = 99;
    assert.equal(lookupSku('azure', 'Standard_NC6s_v3')?.gpuCount, 1);
  });

  it('unsupported SKU message is KAITO’s', () => {
    assert.equal(unsupportedSkuMessage('unknown-instance-type'), "invalid value: Unsupported SKU 'unknown-instance-type' for cloud provider: sku");
  });
});

describe('resolveCloudProvider', () => {
  const cases: Array<[string, string | undefined, Record<string, string>, CloudProvider]> = [
    ['flag wins over env', 'aws', { CLOUD_PROVIDER: 'arc' }, 'aws'],
    ['env when no flag', undefined, { CLOUD_PROVIDER: 'arc' }, 'arc'],
    ['empty flag falls through to env', '', { CLOUD_PROVIDER: 'aws' }, 'aws'],
    ['default azure', undefined, {}, 'azure'],
    ['empty env → default', undefined, { CLOUD_PROVIDER: '' }, 'azure'],
  ];
  for (const [name, flag, env, expected] of cases) {
    it(name, () => assert.equal(resolveCloudProvider(flag, env), expected));
  }
  it('unknown flag value names the valid clouds', () => {
    assert.throws(() => resolveCloudProvider('gcp', {}), {
      message: 'unsupported cloud provider "gcp" (from --cloud-provider); valid clouds: azure, aws, arc',
    });
  });
  it('unknown env value names the source', () => {
    assert.throws(() => resolveCloudProvider(undefined, { CLOUD_PROVIDER: 'Azure' }), /from CLOUD_PROVIDER\); valid clouds: azure, aws, arc/);
  });
});

describe('isLenientAzureSku', () => {
  const cases: Array<[CloudProvider, string, boolean]> = [
    ['azure', 'Standard_NC4as_T4_v9', true],
    ['azure', 'Standard_D4s_v5', true],
    ['azure', 'Standard_E4s_v5', false],
    ['azure', 'standard_nc6s_v3', false],
    ['aws', 'Standard_NC6s_v3', false],
    ['arc', 'Standard_NC4_A2', false],
  ];
  for (const [cloud, sku, expected] of cases) {
    it(`${cloud} ${sku} → ${expected}`, () => assert.equal(isLenientAzureSku(cloud, sku), expected));
  }
});
