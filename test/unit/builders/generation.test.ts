// The KAITO generation of a live workload, read from its objects; what a workspace keeps of it; the
// served model names a generation move carries over. Tables on objects the builders render.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_HASH, ANNOTATION_REVISION } from '../../../src/api/labels.js';
import type { KaitoGeneration } from '../../../src/api/legacy-presets.js';
import type { Workspace } from '../../../src/api/types.js';
import {
  carriedServedNames,
  generationLines,
  keptGeneration,
  liveServedModelNames,
  servedModelNames,
  servedNamesAcrossGenerations,
  workloadGeneration,
} from '../../../src/builders/generation.js';
import { computeSpecHash } from '../../../src/builders/revision.js';
import { buildWorkspace } from '../../../src/builders/workspace.js';
import { facts, presetWorkspace } from './fixtures.js';

function built(
  preset: string,
  generation: KaitoGeneration,
  o: { instanceType?: string; annotations?: Record<string, string>; secret?: string } = {},
): V1StatefulSet {
  const ws = presetWorkspace(preset, o.instanceType);
  if (o.annotations) ws.metadata.annotations = o.annotations;
  if (o.secret) ws.inference!.preset!.presetOptions = { modelAccessSecret: o.secret };
  const r = buildWorkspace(ws, facts({ legacyNames: generation }));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  return r.objects.statefulSet;
}

/** A copy with the pod template changed by `edit`. */
function edited(sts: V1StatefulSet, edit: (pod: NonNullable<V1StatefulSet['spec']>['template']['spec'] & object) => void): V1StatefulSet {
  const copy = structuredClone(sts);
  edit(copy.spec!.template.spec!);
  return copy;
}

const v08 = built('phi-4-mini-instruct', 'v0.8');
const v012 = built('phi-4-mini-instruct', 'v0.12');

const recognition: [string, V1StatefulSet | undefined, KaitoGeneration | undefined][] = [
  ['no StatefulSet', undefined, undefined],
  ['v0.8.0 rendering (kaito-base:0.1.1, weights downloader)', v08, 'v0.8'],
  ['v0.12.0 rendering (kaito-base:0.5.0, ports http and kv-events)', v012, 'v0.12'],
  [
    'v0.8.0, weights downloaded at start (llama-3.1-8b-instruct: no downloader)',
    built('llama-3.1-8b-instruct', 'v0.8', { instanceType: 'Standard_NC80adis_H100_v5', secret: 'hf' }),
    'v0.8',
  ],
  ['v0.8.0, transformers runtime', built('qwen2.5-coder-7b-instruct', 'v0.8', { annotations: { 'kaito.sh/runtime': 'transformers' } }), 'v0.8'],
  [
    'v0.12.0, transformers runtime (no kv-events port)',
    built('qwen2.5-coder-7b-instruct', 'v0.12', { annotations: { 'kaito.sh/runtime': 'transformers' } }),
    'v0.12',
  ],
  ['a catalog id (always v0.12.0)', built('microsoft/Phi-4-mini-instruct', 'v0.8'), 'v0.12'],
  ['v0.8.0 from a private registry (the tag decides)', edited(v08, (p) => (p.containers[0]!.image = 'myacr.azurecr.io/kaito/kaito-base:0.1.1')), 'v0.8'],
  [
    'an unknown base tag with the weights downloader: v0.8.0',
    edited(v08, (p) => (p.containers[0]!.image = 'mcr.microsoft.com/aks/kaito/kaito-base:0.0.9')),
    'v0.8',
  ],
  [
    'an unknown base tag with a port named http: v0.12.0',
    edited(v012, (p) => (p.containers[0]!.image = 'mcr.microsoft.com/aks/kaito/kaito-base:0.6.0')),
    'v0.12',
  ],
  ['a template (nginx with a port named http): not recognised', edited(v012, (p) => (p.containers[0]!.image = 'nginx:1.27')), undefined],
  ['no containers', edited(v012, (p) => (p.containers = [])), undefined],
];

for (const [name, sts, want] of recognition) test(`workloadGeneration: ${name}`, () => assert.equal(workloadGeneration(sts), want));

/** A workspace as the operator annotates it at `revision`, and its StatefulSet at `stsRevision`. */
function atRevision(preset: string, revision: string, stsRevision: string, live: V1StatefulSet, staleHash = false): [Workspace, V1StatefulSet] {
  const ws = presetWorkspace(preset);
  ws.metadata.annotations = { [ANNOTATION_REVISION]: revision, [ANNOTATION_HASH]: staleHash ? 'f'.repeat(64) : computeSpecHash(ws) };
  return [ws, { ...live, metadata: { ...live.metadata, annotations: { ...live.metadata?.annotations, [ANNOTATION_REVISION]: stsRevision } } }];
}

const kept: [string, [Workspace, V1StatefulSet | undefined], KaitoGeneration, ReturnType<typeof keptGeneration>][] = [
  ['a new workspace gets the setting (v0.12)', [presetWorkspace('phi-4-mini-instruct'), undefined], 'v0.12', { legacyNames: 'v0.12', skuTable: 'v0.12' }],
  ['a new workspace gets the setting (v0.8)', [presetWorkspace('phi-4-mini-instruct'), undefined], 'v0.8', { legacyNames: 'v0.8', skuTable: 'v0.8' }],
  [
    'a v0.8.0 workload at its spec keeps v0.8.0 under v0.12 (every SKU row)',
    atRevision('phi-4-mini-instruct', '1', '1', v08),
    'v0.12',
    { legacyNames: 'v0.8', skuTable: 'v0.8', kept: 'v0.8' },
  ],
  [
    'a v0.12.0 workload at its spec keeps v0.12.0 under v0.8',
    atRevision('phi-4-mini-instruct', '2', '2', v012),
    'v0.8',
    { legacyNames: 'v0.12', skuTable: 'v0.8', kept: 'v0.12' },
  ],
  [
    'the spec changed (hash annotation stale): the setting',
    atRevision('phi-4-mini-instruct', '1', '1', v08, true),
    'v0.12',
    { legacyNames: 'v0.12', skuTable: 'v0.12' },
  ],
  ['a revision not rolled out yet: the setting', atRevision('phi-4-mini-instruct', '2', '1', v08), 'v0.12', { legacyNames: 'v0.12', skuTable: 'v0.12' }],
  [
    'a template workload at its spec: the setting for names, every SKU row',
    atRevision(
      'phi-4-mini-instruct',
      '1',
      '1',
      edited(v08, (p) => ((p.containers[0]!.image = 'nginx'), (p.initContainers = []))),
    ),
    'v0.12',
    { legacyNames: 'v0.12', skuTable: 'v0.8' },
  ],
];

for (const [name, [ws, live], setting, want] of kept) test(`keptGeneration: ${name}`, () => assert.deepEqual(keptGeneration(ws, live, setting), want));

const commands: [string, string, string[]][] = [
  [
    'v0.8.0: one name after =',
    'python3 /workspace/vllm/inference_api.py --served-model-name=phi-4-mini-instruct --max-model-len=2048',
    ['phi-4-mini-instruct'],
  ],
  [
    'carried: several names, space-separated',
    'python3 x.py --served-model-name mistral-7b-instruct-v0.3 mistral-7b-instruct --max-model-len=auto',
    ['mistral-7b-instruct-v0.3', 'mistral-7b-instruct'],
  ],
  ['at the end of a shell command', 'python3 x.py --tensor-parallel-size=1 --served-model-name a b; echo done', ['a', 'b']],
  ['transformers spelling', 'accelerate launch inference_api.py --served_model_name=phi-4', ['phi-4']],
  ['no flag: vLLM serves the model path', 'python3 x.py --model=/workspace/weights', []],
  ['empty', '', []],
];

for (const [name, command, want] of commands) test(`servedModelNames: ${name}`, () => assert.deepEqual(servedModelNames(command), want));

test('liveServedModelNames reads the main container command of a rendered StatefulSet', () => {
  assert.deepEqual(liveServedModelNames(built('mistral-7b-instruct', 'v0.8')), ['mistral-7b-instruct']);
  assert.deepEqual(liveServedModelNames(built('mistral-7b-instruct', 'v0.12')), ['mistral-7b-instruct-v0.3']);
  assert.deepEqual(liveServedModelNames(undefined), []);
});

test('servedNamesAcrossGenerations: the v0.8.0 preset name and the v0.12.0 catalog name', () => {
  const ws = (name: string) => ({ inference: { preset: { name } } });
  assert.deepEqual(servedNamesAcrossGenerations(ws('mistral-7b-instruct')), ['mistral-7b-instruct', 'mistral-7b-instruct-v0.3']);
  assert.deepEqual(servedNamesAcrossGenerations(ws('Mistral-7B-Instruct')), ['mistral-7b-instruct-v0.3']); // v0.8.0 knows exact names only
  assert.deepEqual(servedNamesAcrossGenerations(ws('falcon-7b')), ['falcon-7b']); // v0.12.0 refuses it
  assert.deepEqual(servedNamesAcrossGenerations(ws('microsoft/phi-4')), ['phi-4', 'phi-4']);
});

const carried: [string, string[], string, string[], string[]][] = [
  [
    'v0.8.0 → v0.12.0: the old name stays',
    ['mistral-7b-instruct'],
    'mistral-7b-instruct-v0.3',
    ['mistral-7b-instruct', 'mistral-7b-instruct-v0.3'],
    ['mistral-7b-instruct'],
  ],
  [
    'a later revision keeps carrying it',
    ['mistral-7b-instruct-v0.3', 'mistral-7b-instruct'],
    'mistral-7b-instruct-v0.3',
    ['mistral-7b-instruct', 'mistral-7b-instruct-v0.3'],
    ['mistral-7b-instruct'],
  ],
  ['the same name in both generations: nothing to carry', ['phi-4-mini-instruct'], 'phi-4-mini-instruct', ['phi-4-mini-instruct', 'phi-4-mini-instruct'], []],
  ['another model (the preset changed): not carried', ['phi-4'], 'mistral-7b-instruct-v0.3', ['mistral-7b-instruct', 'mistral-7b-instruct-v0.3'], []],
  ['duplicates once', ['a', 'a'], 'b', ['a', 'b'], ['a']],
];

for (const [name, live, primary, known, want] of carried)
  test(`carriedServedNames: ${name}`, () => assert.deepEqual(carriedServedNames(live, primary, known), want));

test('generationLines: named for legacy names only', () => {
  const [ws, live] = atRevision('phi-4-mini-instruct', '1', '1', v08);
  assert.deepEqual(generationLines(ws, live, 'v0.12'), [
    'generation: has KAITO v0.8.0 (live StatefulSet); keeps KAITO v0.8.0 until its spec changes, then KAITO v0.12.0 (--legacy-presets=v0.12)',
  ]);
  assert.deepEqual(generationLines(presetWorkspace('phi-4-mini-instruct'), undefined, 'v0.8'), [
    'generation: has none yet (no StatefulSet); gets KAITO v0.8.0 (--legacy-presets=v0.8)',
  ]);
  const [changed, old] = atRevision('phi-4-mini-instruct', '1', '1', v08, true);
  assert.deepEqual(generationLines(changed, old, 'v0.12'), [
    'generation: has KAITO v0.8.0 (live StatefulSet); the next revision gets KAITO v0.12.0 (--legacy-presets=v0.12)',
  ]);
  assert.deepEqual(generationLines(presetWorkspace('microsoft/phi-4'), undefined, 'v0.8'), []);
});
