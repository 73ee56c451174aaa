import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { catalogEntry, catalogIds, isHuggingFaceId, LEGACY_TO_CATALOG, V012_REFUSED } from '../../../src/catalog/model-catalog.js';
import { formatGiB, modelFromCatalog, modelFromHub, parseModelConfig, weightFilesOf, type GeneratedModel } from '../../../src/catalog/model-generator.js';
import { getPreset, presetFromModel } from '../../../src/catalog/presets.js';
import { QWEN3_8B_CONFIG } from '../support/fake-hub.js';

const GIB = 2 ** 30;

function mustModel(r: ReturnType<typeof modelFromCatalog>): GeneratedModel {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.model;
}

function catalogModel(id: string): GeneratedModel {
  const entry = catalogEntry(id);
  assert.ok(entry, id);
  return mustModel(modelFromCatalog(entry));
}

describe('KAITO v0.12 model catalog', () => {
  it('holds the 60 entries of model_catalog.yaml, unique ignoring case', () => {
    assert.equal(catalogIds().length, 60);
    assert.equal(new Set(catalogIds().map((id) => id.toLowerCase())).size, 60);
  });

  it('finds entries in any case, as v0.12 lowercases names', () => {
    assert.equal(catalogEntry('Qwen/Qwen3.5-9B')?.name, 'Qwen/Qwen3.5-9B');
    assert.equal(catalogEntry('qwen/qwen3.5-9b')?.name, 'Qwen/Qwen3.5-9B');
    assert.equal(catalogEntry('Qwen/Qwen3-8B'), undefined, 'Qwen3-8B itself is not in the catalog (its AWQ build is)');
  });

  it('maps each of the 25 legacy names to a catalog entry, and every legacy name is a kaito-ts preset', () => {
    const legacy = Object.entries(LEGACY_TO_CATALOG);
    assert.equal(legacy.length, 25);
    for (const [short, id] of legacy) {
      assert.ok(catalogEntry(id), `${short} → ${id}`);
      assert.ok(getPreset(short), short);
    }
    for (const name of Object.keys(V012_REFUSED)) assert.equal(LEGACY_TO_CATALOG[name], undefined, name);
  });

  it('sizes every entry: sizes parse, disk = size + 80Gi, a positive KV cache per token, a vLLM architecture', () => {
    for (const id of catalogIds()) {
      const m = catalogModel(id);
      const size = Number.parseFloat(m.modelFileSize);
      assert.equal(m.diskStorageRequirement, `${Math.trunc(size + 80)}Gi`, id);
      assert.ok(m.bytesPerToken > 0, `${id}: ${m.bytesPerToken}`);
      assert.ok(m.modelTokenLimit > 0, id);
      assert.ok(m.readinessTimeoutSeconds >= 1800 && m.readinessTimeoutSeconds <= 10800, id);
    }
  });

  it('derives what v0.12 derives for phi-4-mini and DeepSeek-V3-0324', () => {
    const phi = catalogModel('microsoft/Phi-4-mini-instruct');
    assert.deepEqual(
      { name: phi.name, id: phi.id, disk: phi.diskStorageRequirement, bpt: phi.bytesPerToken, attn: phi.attnType, limit: phi.modelTokenLimit },
      { name: 'phi-4-mini-instruct', id: 'microsoft/phi-4-mini-instruct', disk: '87Gi', bpt: 131072, attn: 'GQA', limit: 131072 },
    );
    assert.deepEqual(Object.fromEntries(phi.runParams), {
      load_format: 'auto',
      config_format: 'auto',
      tokenizer_mode: 'auto',
      'trust-remote-code': '',
      dtype: 'bfloat16',
      'chat-template': '/workspace/chat_templates/tool-chat-phi4-mini.jinja',
    });
    const ds = catalogModel('deepseek-ai/DeepSeek-V3-0324');
    assert.equal(ds.attnType, 'MLA');
    assert.equal(ds.bytesPerToken, 70272);
    assert.equal(ds.diskStorageRequirement, '721Gi');
    assert.deepEqual(Object.fromEntries(ds.runParams), {
      load_format: 'auto',
      config_format: 'auto',
      tokenizer_mode: 'deepseek_v32',
      'trust-remote-code': '',
      dtype: 'auto', // the catalog records its fp8 quantisation
      'tool-call-parser': 'deepseek_v3',
      'enable-auto-tool-choice': '',
      'chat-template': '/workspace/chat_templates/tool-chat-deepseekv3.jinja',
      'reasoning-parser': 'deepseek_v3',
    });
  });

  it('keeps Mistral formats, quantised dtype and the prefix flags', () => {
    const ministral = Object.fromEntries(catalogModel('mistralai/Ministral-3-8B-Instruct-2512').runParams);
    assert.equal(ministral['load_format'], 'mistral');
    assert.equal(ministral['tokenizer_mode'], 'mistral');
    assert.equal(ministral['reasoning-parser'], undefined, 'a non-reasoning model');
    assert.equal(ministral['tool-call-parser'], undefined, '"ministral" matches neither the mistral prefix nor an architecture');
    assert.equal(Object.fromEntries(catalogModel('Qwen/Qwen3-8B-AWQ').runParams)['dtype'], 'auto');
    const qwen35 = Object.fromEntries(catalogModel('Qwen/Qwen3.5-9B').runParams);
    assert.equal(qwen35['gdn-prefill-backend'], 'triton');
    assert.equal(qwen35['tool-call-parser'], 'qwen3_coder', 'the longest prefix wins');
    assert.equal(Object.fromEntries(catalogModel('deepseek-ai/DeepSeek-V4-Pro').runParams)['kv-cache-dtype'], 'fp8');
    assert.equal(Object.fromEntries(catalogModel('MiniMaxAI/MiniMax-M2.7').runParams)['enable-expert-parallel'], '');
  });

  it('the startup window grows 18 s per GiB from 15 minutes, within 30 and 180 minutes', () => {
    assert.equal(catalogModel('microsoft/Phi-4-mini-instruct').readinessTimeoutSeconds, 1800);
    const llama70 = catalogModel('meta-llama/Llama-3.3-70B-Instruct');
    assert.ok(Math.abs(llama70.readinessTimeoutSeconds - (900 + 131.42 * 18)) < 0.001, String(llama70.readinessTimeoutSeconds));
    assert.equal(catalogModel('deepseek-ai/DeepSeek-V3-0324').readinessTimeoutSeconds, 10800);
  });

  it('a catalog model becomes a preset rendered as v0.12 (generated set, no commit pin, vLLM only)', () => {
    const p = presetFromModel(catalogModel('Qwen/Qwen3.5-9B'));
    assert.equal(p.name, 'qwen3.5-9b');
    assert.equal(p.hfRepo, 'qwen/qwen3.5-9b');
    assert.equal(p.hfRevision, '');
    assert.equal(p.downloadAtRuntime, true);
    assert.equal(p.supportDistributedInference, true);
    assert.equal(p.transformers.baseCommand, '');
    assert.equal(p.generated?.source, 'catalog');
  });
});

describe('Hugging Face ids and hub metadata', () => {
  it('an id is a/b with both parts non-empty', () => {
    for (const [name, want] of [
      ['Qwen/Qwen3-8B', true],
      ['a/b/c', true],
      ['/x', false],
      ['x/', false],
      ['phi-4', false],
    ] as const)
      assert.equal(isHuggingFaceId(name), want, name);
  });

  it('formats GiB with two decimals, ties to even as Go does', () => {
    assert.equal(formatGiB(0.125 * GIB), '0.12Gi');
    assert.equal(formatGiB(0.375 * GIB), '0.38Gi');
    assert.equal(formatGiB(16_384_000_000), '15.26Gi');
    assert.equal(formatGiB(0), '0.00Gi');
  });

  it('picks the weight files v0.12 counts', () => {
    const files = [
      { path: 'model-00001.safetensors', size: 10 },
      { path: 'model.safetensors.index.json', size: 1 },
      { path: 'pytorch_model.bin', size: 100 },
      { path: 'README.md', size: 5 },
    ];
    assert.deepEqual(weightFilesOf(files), { bytes: 11, count: 2, mistralFormat: false });
    assert.deepEqual(weightFilesOf([{ path: 'pytorch_model.bin', size: 7 }]), { bytes: 7, count: 1, mistralFormat: false });
    assert.deepEqual(weightFilesOf([...files, { path: 'consolidated.safetensors', size: 3 }]), { bytes: 3, count: 1, mistralFormat: true });
    assert.deepEqual(weightFilesOf([{ path: 'README.md', size: 5 }]), { bytes: 0, count: 0, mistralFormat: false });
  });

  it('reads config.json with NaN/Infinity and a nested text_config, keeping only the keys it sizes from', () => {
    const config = parseModelConfig(
      '{"architectures":["Gemma3ForConditionalGeneration"],"rope_scaling":NaN,"x":-Infinity,"text_config":{"hidden_size":2560,"num_attention_heads":8}}',
    );
    assert.deepEqual(config, { hidden_size: 2560, num_attention_heads: 8, architectures: ['Gemma3ForConditionalGeneration'] });
    assert.equal(parseModelConfig('[1,2]'), undefined);
    assert.equal(parseModelConfig('{"a":'), undefined);
  });

  it('sizes Qwen/Qwen3-8B as v0.12 does (its generator test: 15.26Gi, 147456 bytes per token, 95Gi, GQA)', () => {
    const config = parseModelConfig(QWEN3_8B_CONFIG)!;
    const m = mustModel(modelFromHub('Qwen/Qwen3-8B', { weightBytes: 16_384_000_000, mistralFormat: false, config }));
    assert.deepEqual(
      [m.id, m.name, m.source, m.modelFileSize, m.bytesPerToken, m.diskStorageRequirement, m.attnType, m.modelTokenLimit],
      ['qwen/qwen3-8b', 'qwen3-8b', 'huggingface', '15.26Gi', 147456, '95Gi', 'GQA', 40960],
    );
    const flags = Object.fromEntries(m.runParams);
    assert.equal(flags['tool-call-parser'], 'hermes');
    assert.equal(flags['reasoning-parser'], 'qwen3');
  });

  it('falls back as v0.12 does: 2048 tokens, MQA for multi_query, Unknown without heads; refuses an architecture vLLM lacks', () => {
    const falcon = mustModel(
      modelFromHub('tiiuae/falcon-7b-instruct', {
        weightBytes: 14_431_000_000,
        mistralFormat: false,
        config: { architectures: ['FalconForCausalLM'], hidden_size: 4544, num_hidden_layers: 32, num_attention_heads: 71, multi_query: true },
      }),
    );
    assert.deepEqual([falcon.attnType, falcon.bytesPerToken, falcon.modelTokenLimit], ['MQA', 8192, 2048]);
    const bare = mustModel(modelFromHub('x/y', { weightBytes: GIB, mistralFormat: false, config: {} }));
    assert.deepEqual([bare.attnType, bare.bytesPerToken, bare.architectures], ['Unknown', 0, []]);
    const refused = modelFromHub('x/Odd', { weightBytes: GIB, mistralFormat: false, config: { architectures: ['NoSuchForCausalLM'] } });
    assert.deepEqual(refused, { ok: false, message: 'unsupported model architecture for x/odd: NoSuchForCausalLM' });
  });
});
