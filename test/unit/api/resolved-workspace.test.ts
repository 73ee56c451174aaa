// The workspace resolved once per pass: what each input gives, as a table, and that validation and the
// builders read the value they are handed instead of looking anything up again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import { firstReadyNode, inferencePresetOf, resolveWorkspace, type ResolveInput, type ResolvedWorkspace } from '../../../src/api/resolved-workspace.js';
import type { Workspace } from '../../../src/api/types.js';
import { validateWorkspace } from '../../../src/api/validation.js';
import { resolveFromFacts } from '../../../src/builders/facts.js';
import { buildWorkspace } from '../../../src/builders/workspace.js';
import { A10_NODE_LABELS, byoFacts, byoWorkspace, facts, gpuNode, H100_NODE_LABELS, presetWorkspace } from '../builders/fixtures.js';

const NAP: ResolveInput = { gates: DEFAULT_FEATURE_GATES, cloud: 'azure' };
const BYO_GATES = { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: true };
const template: Workspace = { ...presetWorkspace('x'), inference: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } };
const tuning: Workspace = { ...presetWorkspace('x'), inference: undefined, tuning: { preset: { name: 'phi-4-mini-instruct' }, method: 'lora' } };

/** A compact view of a resolution: kinds and names, not whole catalog rows. */
function summary(r: ResolvedWorkspace): Record<string, unknown> {
  const lookup = (l: ResolvedWorkspace['inferencePreset']) => (l.kind === 'none' ? 'none' : `${l.kind} ${l.name}`);
  return {
    byo: r.byo,
    runtime: r.runtime.choice,
    inference: lookup(r.inferencePreset),
    tuning: lookup(r.tuningPreset),
    sku: r.sku ? `${r.sku.instanceType}: ${r.sku.gpu ? `${r.sku.gpu.gpuCount}× ${r.sku.gpu.gpuModel}` : 'not in catalog'}` : undefined,
    nodes: r.nodes?.map(
      (n) => `${n.name}${n.ready ? '' : ' (not ready)'}: ${n.gpu.ok ? `${n.gpu.gpuConfig.gpuCount}× ${n.gpu.gpuConfig.gpuModel}` : n.gpu.message}`,
    ),
    firstReady: firstReadyNode(r)?.name,
  };
}

const cases: [string, Workspace, ResolveInput, Record<string, unknown>][] = [
  [
    'NAP preset: the SKU from the catalog, vLLM by default',
    presetWorkspace('phi-4-mini-instruct'),
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'found phi-4-mini-instruct',
      tuning: 'none',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'NAP: an instance type outside the catalog',
    presetWorkspace('phi-4-mini-instruct', 'Standard_NC999_future'),
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'found phi-4-mini-instruct',
      tuning: 'none',
      sku: 'Standard_NC999_future: not in catalog',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'gate vLLM off: transformers',
    presetWorkspace('phi-4-mini-instruct'),
    { ...NAP, gates: { ...DEFAULT_FEATURE_GATES, vLLM: false } },
    {
      byo: false,
      runtime: 'transformers',
      inference: 'found phi-4-mini-instruct',
      tuning: 'none',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'deprecated preset, in any case',
    presetWorkspace('Phi-2'),
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'deprecated Phi-2',
      tuning: 'none',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'unknown preset',
    presetWorkspace('phi-4-mini'),
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'unknown phi-4-mini',
      tuning: 'none',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'template: no preset',
    template,
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'none',
      tuning: 'none',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'tuning: the tuning preset; deprecated names are not special there',
    tuning,
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'none',
      tuning: 'found phi-4-mini-instruct',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'tuning: unknown preset',
    { ...tuning, tuning: { preset: { name: 'phi-2' } } },
    NAP,
    {
      byo: false,
      runtime: 'vllm',
      inference: 'none',
      tuning: 'unknown phi-2',
      sku: 'Standard_NC24ads_A100_v4: 1× NVIDIA A100',
      nodes: undefined,
      firstReady: undefined,
    },
  ],
  [
    'BYO: every matching node with its labels, the first ready one gives the GPU facts',
    byoWorkspace('phi-4-mini-instruct'),
    {
      gates: BYO_GATES,
      cloud: 'azure',
      nodes: [
        { node: gpuNode('a', H100_NODE_LABELS), ready: false },
        { node: gpuNode('b', A10_NODE_LABELS), ready: true },
        { node: gpuNode('c', {}), ready: true },
      ],
    },
    {
      byo: true,
      runtime: 'vllm',
      inference: 'found phi-4-mini-instruct',
      tuning: 'none',
      sku: undefined,
      nodes: ['a (not ready): 2× NVIDIA-H100-NVL', 'b: 1× NVIDIA-A10', 'c: missing required nvidia.com labels on node c'],
      firstReady: 'b',
    },
  ],
  [
    'BYO: nodes not looked up (offline)',
    byoWorkspace('phi-4-mini-instruct'),
    { gates: BYO_GATES, cloud: 'azure' },
    { byo: true, runtime: 'vllm', inference: 'found phi-4-mini-instruct', tuning: 'none', sku: undefined, nodes: undefined, firstReady: undefined },
  ],
];

for (const [name, ws, input, want] of cases) {
  test(`resolveWorkspace: ${name}`, () => assert.deepEqual(summary(resolveWorkspace(ws, input)), want));
}

test('inferencePresetOf: none without a preset, the catalog row when found', () => {
  assert.deepEqual(inferencePresetOf(template), { kind: 'none' });
  const found = inferencePresetOf(presetWorkspace('phi-4-mini-instruct'));
  assert.equal(found.kind === 'found' && found.preset.name, 'phi-4-mini-instruct');
});

test('resolveFromFacts: the matching nodes in name order, a node being deleted is not ready, other nodes are left out', () => {
  const deleting = gpuNode('a', A10_NODE_LABELS);
  deleting.metadata!.deletionTimestamp = new Date(0);
  const other = { metadata: { name: '0-other', labels: A10_NODE_LABELS } };
  const r = resolveFromFacts(
    byoWorkspace('phi-4-mini-instruct'),
    byoFacts({ nodes: [gpuNode('c', A10_NODE_LABELS, false), deleting, other, gpuNode('b', A10_NODE_LABELS)] }),
  );
  assert.deepEqual(
    r.nodes?.map((n) => [n.name, n.ready]),
    [
      ['a', false],
      ['b', true],
      ['c', false],
    ],
  );
  assert.equal(firstReadyNode(r)?.name, 'b');
});

test('validation and the builders read the value they are handed', () => {
  const ws = presetWorkspace('phi-4-mini-instruct');
  const f = facts();
  // A resolution that differs from what the facts would give: the runtime and the GPU facts come from it.
  const handed = resolveWorkspace(ws, { ...NAP, gates: { ...DEFAULT_FEATURE_GATES, vLLM: false } });
  const built = buildWorkspace(ws, f, handed);
  assert.equal(built.decisions.find((d) => d.topic === 'runtime')?.choice, 'transformers');
  assert.equal(buildWorkspace(ws, f).decisions.find((d) => d.topic === 'runtime')?.choice, 'vllm', 'by default resolved from the facts');

  // An instance type the aws catalog lacks: refused by both, unless the handed value knows its GPUs.
  const unknownSku = presetWorkspace('phi-4-mini-instruct', 'p9.huge');
  const aws = facts({ cloudProvider: 'aws' });
  const own = resolveFromFacts(unknownSku, aws);
  const failed = buildWorkspace(unknownSku, aws, own);
  assert.equal(failed.ok ? 'built' : failed.problems[0]?.reason, 'UnsupportedSKU');
  assert.equal(validateWorkspace(unknownSku, { resolved: own, operation: 'create' }).length, 1);
  const known: ResolvedWorkspace = { ...own, sku: { instanceType: 'p9.huge', gpu: resolveWorkspace(ws, NAP).sku!.gpu! } };
  assert.equal(buildWorkspace(unknownSku, aws, known).ok, true);
  assert.deepEqual(validateWorkspace(unknownSku, { resolved: known, operation: 'create' }), []);
});
