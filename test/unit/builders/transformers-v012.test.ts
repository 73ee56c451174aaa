// The transformers runtime for models named by Hugging Face id, as KAITO v0.12.0 renders it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transformersCommand } from '../../../src/builders/command.js';
import { buildWorkspace, type BuildResult } from '../../../src/builders/workspace.js';
import { catalogEntry } from '../../../src/catalog/model-catalog.js';
import { modelFromCatalog, modelFromHub, parseModelConfig } from '../../../src/catalog/model-generator.js';
import { getPreset, presetFromModel, transformersModelNamesV012, transformersParamsV012 } from '../../../src/catalog/presets.js';
import type { Preset } from '../../../src/catalog/types.js';
import type { Workspace } from '../../../src/api/types.js';
import { facts, presetWorkspace } from './fixtures.js';

const TF = { 'kaito.sh/runtime': 'transformers' };
const ACCELERATE = 'accelerate launch --num_processes=1 --num_machines=1 --machine_rank=0 --gpu_ids=all /workspace/tfs/inference_api.py';

function catalogPreset(id: string): Preset {
  const entry = catalogEntry(id);
  assert.ok(entry, id);
  const r = modelFromCatalog(entry);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return presetFromModel(r.model);
}

function tfWorkspace(id: string, o: { instanceType?: string; secret?: string; annotations?: Record<string, string>; count?: number } = {}): Workspace {
  const ws = presetWorkspace(id, o.instanceType);
  ws.metadata.annotations = { ...TF, ...o.annotations };
  if (o.count) ws.resource.count = o.count;
  if (o.secret) ws.inference = { preset: { name: id, presetOptions: { modelAccessSecret: o.secret } } };
  return ws;
}

function ok(r: BuildResult): Extract<BuildResult, { ok: true }> {
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
  return r;
}

describe("KAITO v0.12's transformers table", () => {
  const PHI = { torch_dtype: 'auto', pipeline: 'text-generation', trust_remote_code: '' };
  const cases: [name: string, runParams: Record<string, string> | undefined][] = [
    ['phi-4', PHI],
    ['phi-3.5-mini-instruct', PHI],
    [
      'mistral-7b-instruct-v0.3',
      { torch_dtype: 'bfloat16', pipeline: 'text-generation', chat_template: '/workspace/chat_templates/mistral-instruct.jinja', allow_remote_files: '' },
    ],
    ['gemma-3-4b-it', { torch_dtype: 'auto', pipeline: 'text-generation', allow_remote_files: '' }],
    ['qwen2.5-coder-7b-instruct', { torch_dtype: 'bfloat16', pipeline: 'text-generation' }],
    [
      'llama-3.3-70b-instruct',
      { torch_dtype: 'bfloat16', pipeline: 'text-generation', chat_template: '/workspace/chat_templates/llama-3-instruct.jinja', allow_remote_files: '' },
    ],
    ['gpt-oss-120b', { torch_dtype: 'auto', pipeline: 'text-generation', allow_remote_files: '' }],
    ['deepseek-r1-distill-qwen-14b', { torch_dtype: 'bfloat16', pipeline: 'text-generation' }],
    ['deepseek-v3-0324', { torch_dtype: 'bfloat16', pipeline: 'text-generation', allow_remote_files: '' }],
    // Commented out in v0.12 (they need transformers 5), or never in it.
    ['phi-4-mini-instruct', undefined],
    ['ministral-3-8b-instruct-2512', undefined],
    ['mistral-large-3-675b-instruct-2512', undefined],
    ['qwen3-8b-awq', undefined],
    ['constructor', undefined],
  ];
  for (const [name, runParams] of cases) {
    it(`${name} → ${runParams ? 'accelerate launch' : 'none'}`, () => {
      const tf = transformersParamsV012(name);
      if (!runParams) return assert.deepEqual(tf, { baseCommand: '', accelerateParams: {}, inferenceMainFile: '', modelRunParams: {} });
      assert.deepEqual(tf, {
        baseCommand: 'accelerate launch',
        accelerateParams: { num_processes: '1', num_machines: '1', machine_rank: '0', gpu_ids: 'all' },
        inferenceMainFile: '/workspace/tfs/inference_api.py',
        modelRunParams: runParams,
      });
    });
  }

  it('holds the 21 rows of v0.12.0, and each call returns a fresh copy', () => {
    assert.equal(transformersModelNamesV012().length, 21);
    transformersParamsV012('phi-4').modelRunParams['x'] = '1';
    assert.equal(transformersParamsV012('phi-4').modelRunParams['x'], undefined);
  });

  it('is keyed by the model name: a hub id whose last part is in the table gets its row', () => {
    const config = parseModelConfig('{"architectures":["Phi3ForCausalLM"],"hidden_size":5120,"num_hidden_layers":40,"num_attention_heads":40}')!;
    const hub = modelFromHub('someone/Phi-4', { weightBytes: 2 ** 34, mistralFormat: false, config });
    assert.ok(hub.ok);
    assert.equal(presetFromModel(hub.model).transformers.modelRunParams['trust_remote_code'], '');
  });
});

describe('the transformers command line of a Hugging Face id', () => {
  const cases: [id: string, command: string][] = [
    [
      'Qwen/Qwen2.5-Coder-7B-Instruct',
      `${ACCELERATE} --torch_dtype=bfloat16 --pipeline=text-generation --served_model_name=qwen2.5-coder-7b-instruct ` +
        '--pretrained_model_name_or_path=qwen/qwen2.5-coder-7b-instruct --allow_remote_files',
    ],
    [
      'microsoft/phi-4',
      `${ACCELERATE} --torch_dtype=auto --pipeline=text-generation --trust_remote_code --served_model_name=phi-4 ` +
        '--pretrained_model_name_or_path=microsoft/phi-4 --allow_remote_files',
    ],
    [
      'meta-llama/Llama-3.1-8B-Instruct',
      `${ACCELERATE} --torch_dtype=bfloat16 --pipeline=text-generation --chat_template=/workspace/chat_templates/llama-3-instruct.jinja ` +
        '--allow_remote_files --served_model_name=llama-3.1-8b-instruct --pretrained_model_name_or_path=meta-llama/llama-3.1-8b-instruct',
    ],
  ];
  for (const [id, command] of cases) it(id, () => assert.equal(transformersCommand(catalogPreset(id)), command));

  it('legacy names keep v0.8.0: no served name, the pinned revision, allow_remote_files only from the profile', () => {
    const legacy = getPreset('gemma-3-4b-instruct')!;
    assert.equal(
      transformersCommand(legacy),
      `${ACCELERATE} --torch_dtype=auto --pipeline=text-generation --allow_remote_files ` +
        '--pretrained_model_name_or_path=google/gemma-3-4b-it --revision=093f9f388b31de276ce2de164bdc2081324b9767',
    );
    assert.equal(
      transformersCommand(getPreset('qwen2.5-coder-7b-instruct')!),
      `${ACCELERATE} --torch_dtype=bfloat16 --pipeline=text-generation`,
      'weights from the OCI artifact',
    );
  });
});

describe('the transformers pod of a Hugging Face id (KAITO v0.12)', () => {
  it('base 0.5.0, port http only, no vLLM env, v0.12 probes, the weights volume; no KV-cache events on the Service', () => {
    const r = ok(buildWorkspace(tfWorkspace('Qwen/Qwen2.5-Coder-7B-Instruct', { instanceType: 'Standard_NC80adis_H100_v5' }), facts()));
    const pod = r.objects.statefulSet.spec!.template.spec!;
    const c = pod.containers[0]!;
    assert.equal(c.image, 'mcr.microsoft.com/aks/kaito/kaito-base:0.5.0');
    assert.match(c.command![2]!, /^accelerate launch /);
    assert.deepEqual(c.ports, [{ name: 'http', containerPort: 5000 }]);
    assert.equal(c.env, undefined);
    assert.deepEqual(c.resources, { requests: { 'nvidia.com/gpu': '2' }, limits: { 'nvidia.com/gpu': '2' } });
    assert.deepEqual(c.livenessProbe, { httpGet: { path: '/health', port: 5000 }, periodSeconds: 10, failureThreshold: 3 });
    assert.deepEqual(c.startupProbe, { httpGet: { path: '/health', port: 5000 }, periodSeconds: 10, failureThreshold: 180 });
    assert.deepEqual(
      c.volumeMounts?.map((m) => m.name),
      ['model-weights-volume', 'dshm'],
    );
    assert.equal(r.objects.statefulSet.spec?.volumeClaimTemplates?.[0]?.metadata?.name, 'model-weights-volume');
    assert.ok(!r.objects.mainService.spec?.ports?.some((p) => p.name === 'kv-events'));
    assert.equal(
      r.decisions.find((d) => d.topic === 'maxModelLen'),
      undefined,
      'no context length: the transformers server takes none',
    );
  });

  it('a token Secret: HF_TOKEN, optional', () => {
    const r = ok(buildWorkspace(tfWorkspace('meta-llama/Llama-3.1-8B-Instruct', { secret: 'hf-token' }), facts()));
    assert.deepEqual(r.objects.statefulSet.spec!.template.spec!.containers[0]!.env, [
      { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-token', key: 'HF_TOKEN', optional: true } } },
    ]);
  });

  it('node-image weights: the hostPath and KAITO_PROCESSOR, the command still names the hub repo', () => {
    const r = ok(
      buildWorkspace(
        tfWorkspace('google/gemma-3-27b-it', { instanceType: 'Standard_NC80adis_H100_v5', annotations: { 'kaito.sh/use-local-weights': 'true' } }),
        facts(),
      ),
    );
    const pod = r.objects.statefulSet.spec!.template.spec!;
    const c = pod.containers[0]!;
    assert.match(c.command![2]!, / --served_model_name=gemma-3-27b-it --pretrained_model_name_or_path=google\/gemma-3-27b-it$/);
    assert.deepEqual(
      c.env?.map((e) => e.name),
      ['KAITO_PROCESSOR'],
    );
    assert.ok(pod.volumes?.some((v) => v.name === 'model-weights-hostpath'));
    assert.equal(r.objects.statefulSet.spec?.volumeClaimTemplates, undefined);
  });

  it('count 2: two independent replicas, no Ray', () => {
    const r = ok(buildWorkspace(tfWorkspace('microsoft/phi-4', { count: 2 }), facts()));
    assert.equal(r.targetNodeCount, 2);
    const c = r.objects.statefulSet.spec!.template.spec!.containers[0]!;
    assert.ok(!c.command![2]!.includes('multi-node'));
    assert.ok(c.readinessProbe?.httpGet);
  });

  const refused: [id: string, message: string][] = [
    ['microsoft/Phi-4-mini-instruct', 'model phi-4-mini-instruct does not support inference with Huggingface Transformers runtime'],
    ['Qwen/Qwen3-8B-AWQ', 'model qwen3-8b-awq does not support inference with Huggingface Transformers runtime'],
  ];
  for (const [id, message] of refused) {
    it(`refused outside the table: ${id}`, () => {
      const r = buildWorkspace(tfWorkspace(id), facts());
      assert.deepEqual(r.ok ? [] : r.problems.map((p) => [p.reason, p.message]), [['UnsupportedRuntime', message]]);
    });
  }
});
