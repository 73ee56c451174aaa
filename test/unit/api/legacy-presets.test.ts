// `--legacy-presets`: the setting, and what each generation makes of a preset name and an instance type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import { DEFAULT_LEGACY_PRESETS, parseLegacyPresets, type KaitoGeneration } from '../../../src/api/legacy-presets.js';
import { inferencePresetOf, resolveWorkspace, type PresetLookup } from '../../../src/api/resolved-workspace.js';
import { droppedInV012, lookupSku, supportedSkus } from '../../../src/catalog/gpu-skus.js';
import { LEGACY_TO_CATALOG } from '../../../src/catalog/model-catalog.js';
import { parseManagerOptions } from '../../../src/manager/options.js';
import { presetWorkspace } from '../builders/fixtures.js';

const flags: [string | undefined, KaitoGeneration | RegExp][] = [
  [undefined, 'v0.12'],
  ['v0.12', 'v0.12'],
  ['v0.8', 'v0.8'],
  [' v0.8 ', 'v0.8'],
  ['v0.8.0', /must be one of v0\.12, v0\.8, got "v0\.8\.0"/],
  ['V0.8', /must be one of/],
  ['', /must be one of/],
];

for (const [value, want] of flags)
  test(`parseLegacyPresets(${JSON.stringify(value)})`, () => {
    if (want instanceof RegExp) assert.throws(() => parseLegacyPresets(value), want);
    else assert.equal(parseLegacyPresets(value), want);
  });

test('the default is v0.12, and kaito-ts run takes the flag', () => {
  assert.equal(DEFAULT_LEGACY_PRESETS, 'v0.12');
  const run = (args: string[]) => {
    const o = parseManagerOptions(args, {});
    assert.notEqual(o, 'help');
    return o === 'help' ? undefined : o.legacyPresets;
  };
  assert.equal(run([]), 'v0.12');
  assert.equal(run(['--legacy-presets=v0.8']), 'v0.8');
  assert.throws(() => run(['--legacy-presets=v1']), /--legacy-presets must be one of/);
});

/** What a name resolves to, compactly: the kind, and for a found preset whose generation and served name. */
function view(l: PresetLookup): string {
  if (l.kind !== 'found') return l.kind;
  return `${l.preset.generated ? `v0.12 ${l.preset.generated.id}` : `v0.8 ${l.preset.name}`} as ${l.preset.vllm.servedModelName}`;
}

const names: [string, Record<KaitoGeneration, string>][] = [
  ['phi-4-mini-instruct', { 'v0.12': 'v0.12 microsoft/phi-4-mini-instruct as phi-4-mini-instruct', 'v0.8': 'v0.8 phi-4-mini-instruct as phi-4-mini-instruct' }],
  ['Phi-4-Mini-Instruct', { 'v0.12': 'v0.12 microsoft/phi-4-mini-instruct as phi-4-mini-instruct', 'v0.8': 'unknown' }],
  [
    'mistral-7b-instruct',
    { 'v0.12': 'v0.12 mistralai/mistral-7b-instruct-v0.3 as mistral-7b-instruct-v0.3', 'v0.8': 'v0.8 mistral-7b-instruct as mistral-7b-instruct' },
  ],
  ['gemma-3-4b-instruct', { 'v0.12': 'v0.12 google/gemma-3-4b-it as gemma-3-4b-it', 'v0.8': 'v0.8 gemma-3-4b-instruct as gemma-3-4b-instruct' }],
  ['falcon-7b', { 'v0.12': 'unknown', 'v0.8': 'v0.8 falcon-7b as falcon-7b' }],
  ['FALCON-40B-INSTRUCT', { 'v0.12': 'unknown', 'v0.8': 'unknown' }],
  ['phi-2', { 'v0.12': 'deprecated', 'v0.8': 'deprecated' }],
  ['PHI-2', { 'v0.12': 'deprecated', 'v0.8': 'deprecated' }],
  ['no-such-model', { 'v0.12': 'unknown', 'v0.8': 'unknown' }],
  ['microsoft/phi-4', { 'v0.12': 'v0.12 microsoft/phi-4 as phi-4', 'v0.8': 'v0.12 microsoft/phi-4 as phi-4' }],
];

for (const [name, want] of names)
  for (const g of ['v0.12', 'v0.8'] as const)
    test(`inferencePresetOf(${name}) under ${g}`, () => assert.equal(view(inferencePresetOf(presetWorkspace(name), undefined, g)), want[g]));

test('every one of v0.12.0’s 25 legacy names resolves to its catalog entry, in any letter case', () => {
  assert.equal(Object.keys(LEGACY_TO_CATALOG).length, 25);
  for (const [short, id] of Object.entries(LEGACY_TO_CATALOG))
    for (const spelled of [short, short.toUpperCase()]) {
      const l = inferencePresetOf(presetWorkspace(spelled));
      assert.equal(l.kind === 'found' && l.preset.generated?.id, id, spelled);
    }
});

const skus: [string, string, KaitoGeneration, boolean][] = [
  ['azure', 'Standard_NC24s_v3', 'v0.8', true],
  ['azure', 'Standard_NC24s_v3', 'v0.12', false],
  ['azure', 'Standard_NC4as_T4_v3', 'v0.12', false],
  ['azure', 'Standard_NV12', 'v0.12', false],
  ['azure', 'Standard_NV36ads_A10_v5', 'v0.12', true],
  ['azure', 'Standard_NG32ads_V620_v1', 'v0.12', true],
  ['aws', 'p3.2xlarge', 'v0.12', false],
  ['aws', 'g4dn.xlarge', 'v0.12', false],
  ['aws', 'g4ad.xlarge', 'v0.12', true],
  ['aws', 'g6.xlarge', 'v0.12', true],
  ['arc', 'Standard_NK6', 'v0.12', false],
  ['arc', 'Standard_NC4_A2', 'v0.12', true],
];

for (const [cloud, sku, g, found] of skus)
  test(`lookupSku(${cloud}, ${sku}) in ${g}'s table: ${found ? 'found' : 'absent'}`, () => {
    assert.equal(lookupSku(cloud as 'azure', sku, g) !== undefined, found);
  });

test("v0.12.0's tables: 14 Azure, 35 AWS, 8 Arc SKUs (v0.8.0: 29, 59, 10)", () => {
  assert.deepEqual(
    (['azure', 'aws', 'arc'] as const).map((c) => [supportedSkus(c, 'v0.12').length, supportedSkus(c).length]),
    [
      [14, 29],
      [35, 59],
      [8, 10],
    ],
  );
  assert.equal(droppedInV012('azure', 'Standard_NC24s_v3'), true);
  assert.equal(droppedInV012('azure', 'Standard_NC24ads_A100_v4'), false);
});

test('resolveWorkspace: the SKU table follows skuTable, legacy names follow legacyNames', () => {
  const ws = presetWorkspace('microsoft/phi-4', 'Standard_NC24s_v3');
  const base = { gates: DEFAULT_FEATURE_GATES, cloud: 'azure' as const };
  assert.equal(resolveWorkspace(ws, base).sku?.gpu, undefined);
  assert.equal(resolveWorkspace(ws, { ...base, legacyNames: 'v0.8' }).sku?.gpu?.gpuModel, 'NVIDIA V100');
  assert.equal(resolveWorkspace(ws, { ...base, legacyNames: 'v0.12', skuTable: 'v0.8' }).sku?.gpu?.gpuModel, 'NVIDIA V100');
  const legacy = resolveWorkspace(presetWorkspace('phi-4'), { ...base, legacyNames: 'v0.8', skuTable: 'v0.12' });
  assert.equal(view(legacy.inferencePreset), 'v0.8 phi-4 as phi-4');
});
