// Catalog lookups for tests that must not silently get `undefined`.
import assert from 'node:assert/strict';
import { lookupSku } from '../../../src/catalog/gpu-skus.js';
import { getPreset } from '../../../src/catalog/presets.js';
import type { CloudProvider, GpuConfig, Preset } from '../../../src/catalog/types.js';

export function mustPreset(name: string): Preset {
  const preset = getPreset(name);
  assert.ok(preset, `preset ${name} is in the catalog`);
  return preset;
}

export function mustSku(instanceType: string, cloud: CloudProvider = 'azure'): GpuConfig {
  const config = lookupSku(cloud, instanceType);
  assert.ok(config, `${cloud} SKU ${instanceType} is in the catalog`);
  return config;
}
