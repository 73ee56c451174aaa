import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HubModelState } from '../../../src/catalog/model-generator.js';
import { parseModelConfig } from '../../../src/catalog/model-generator.js';
import { estimateNodeCountV012 } from '../../../src/builders/estimator.js';
import { defaultFacts } from '../../../src/builders/facts.js';
import { buildWorkspace, type BuildResult } from '../../../src/builders/workspace.js';
import { resolveWorkspace } from '../../../src/api/resolved-workspace.js';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import type { Workspace } from '../../../src/api/types.js';
import { getPreset } from '../../../src/catalog/presets.js';
import { QWEN3_8B_CONFIG } from '../support/fake-hub.js';

function ws(name: string, instanceType = 'Standard_NC24ads_A100_v4', annotations: Record<string, string> = {}): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'w', namespace: 'default', annotations },
    resource: { count: 1, instanceType, labelSelector: { matchLabels: { apps: 'x' } } },
    inference: { preset: { name, presetOptions: {} } },
  };
}

const ready = (bytes: number, config: string): HubModelState => ({
  state: 'ready',
  facts: { weightBytes: bytes, mistralFormat: false, config: parseModelConfig(config)! },
});

function command(r: BuildResult): string {
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
  return r.objects.statefulSet.spec!.template.spec!.containers[0]!.command![2]!;
}

describe('presets named by Hugging Face id', () => {
  it('resolves a legacy name, a catalog id, a hub id (resolving, failed, ready) and an unknown name', () => {
    const gates = DEFAULT_FEATURE_GATES;
    const kind = (name: string, hub?: Map<string, HubModelState>) =>
      resolveWorkspace(ws(name), { gates, cloud: 'azure', ...(hub ? { hubModels: hub } : {}) }).inferencePreset;
    assert.equal(kind('phi-4-mini-instruct').kind, 'found');
    const generatedId = (l: ReturnType<typeof kind>) => (l as { preset: { generated?: { id: string } } }).preset.generated?.id;
    assert.equal(generatedId(kind('phi-4-mini-instruct')), 'microsoft/phi-4-mini-instruct', 'legacy: as KAITO v0.12.0 maps it (the default)');
    const v08 = resolveWorkspace(ws('phi-4-mini-instruct'), { gates, cloud: 'azure', legacyNames: 'v0.8' }).inferencePreset;
    assert.equal(generatedId(v08), undefined, 'legacy with --legacy-presets=v0.8: as KAITO v0.8.0');
    assert.equal((kind('MICROSOFT/Phi-4-mini-instruct') as { preset: { generated?: { source: string } } }).preset.generated?.source, 'catalog');
    assert.equal(kind('Qwen/Qwen3-8B').kind, 'resolving');
    const failed = kind(
      'Qwen/Qwen3-8B',
      new Map([['qwen/qwen3-8b', { state: 'failed', reason: 'HuggingFaceModelNotFound', message: 'gone', retryInMs: 30_000 }]]),
    );
    assert.deepEqual(failed, { kind: 'hubFailed', name: 'Qwen/Qwen3-8B', reason: 'HuggingFaceModelNotFound', message: 'gone', retryInMs: 30_000 });
    assert.equal(kind('Qwen/Qwen3-8B', new Map([['qwen/qwen3-8b', ready(16_384_000_000, QWEN3_8B_CONFIG)]])).kind, 'found');
    const odd = kind('x/y', new Map([['x/y', ready(2 ** 30, '{"architectures":["NoSuch"]}')]]));
    assert.equal(odd.kind === 'hubFailed' ? odd.reason : odd.kind, 'HuggingFaceModelUnsupported');
    assert.equal(kind('qwen3-8b').kind, 'unknown');
  });

  it('renders a hub model as KAITO v0.12 does: base 0.5.0, --model=<id>, download dir, auto context, parsers, no config mount', () => {
    const facts = defaultFacts({ hubModels: new Map([['qwen/qwen3-8b', ready(16_384_000_000, QWEN3_8B_CONFIG)]]) });
    const r = buildWorkspace(ws('Qwen/Qwen3-8B'), facts);
    const cmd = command(r);
    assert.equal(
      cmd,
      'python3 /workspace/vllm/inference_api.py --served-model-name=qwen3-8b --max-model-len=auto --gpu-memory-utilization=0.84 ' +
        `--kv-events-config='{"enable_kv_cache_events":true}' --compilation-config.pass_config.fuse_allreduce_rms=False --model=qwen/qwen3-8b ` +
        '--download-dir=/workspace/weights --tensor-parallel-size=1 --load_format=auto --config_format=auto --tokenizer_mode=auto --trust-remote-code ' +
        '--dtype=bfloat16 --tool-call-parser=hermes --enable-auto-tool-choice --reasoning-parser=qwen3',
    );
    assert.ok(r.ok);
    const pod = r.objects.statefulSet.spec!.template.spec!;
    const c = pod.containers[0]!;
    assert.equal(c.image, 'mcr.microsoft.com/aks/kaito/kaito-base:0.5.0');
    assert.deepEqual(c.ports, [
      { name: 'http', containerPort: 5000 },
      { name: 'kv-events', containerPort: 5557 },
    ]);
    assert.deepEqual(c.livenessProbe, { httpGet: { path: '/health', port: 5000 }, periodSeconds: 10, failureThreshold: 3 });
    assert.equal(c.startupProbe?.failureThreshold, 180, '30 minutes: 15 + 15.26 GiB × 18 s is under the floor');
    assert.deepEqual(
      pod.volumes?.map((v) => v.name),
      ['dshm', 'model-weights-volume'],
    );
    assert.equal(r.objects.configMap, undefined, 'no default config copy (KAITO v0.11+)');
    assert.deepEqual(pod.volumes?.[1]?.emptyDir, { sizeLimit: '95Gi' });
    assert.equal(pod.initContainers, undefined);
    const model = r.decisions.find((d) => d.topic === 'model');
    assert.match(model?.reason ?? '', /^Hugging Face metadata of qwen\/qwen3-8b: 15.26Gi weights \(disk 95Gi\), 147456 KV bytes per token \(GQA\)/);
  });

  it('data parallel when the weights take under half a GPU; tensor + pipeline parallel across nodes; the A10 headroom', () => {
    const facts = defaultFacts();
    const dp = command(buildWorkspace(ws('microsoft/Phi-4-mini-instruct', 'Standard_NC96ads_A100_v4'), facts));
    assert.match(dp, /--kaito-kv-cache-cpu-memory-utilization=0 --data-parallel-size=4 --tensor-parallel-size=1 /);
    const big = buildWorkspace(ws('meta-llama/Llama-3.3-70B-Instruct', 'Standard_NC24ads_A100_v4'), facts);
    assert.ok(big.ok);
    assert.equal(big.targetNodeCount, 3);
    assert.match(command(big), /--tensor-parallel-size=1 --pipeline-parallel-size=3 --distributed-executor-backend=ray/);
    assert.match(command(buildWorkspace(ws('microsoft/Phi-4-mini-instruct', 'Standard_NV36ads_A10_v5'), facts)), /--gpu-memory-utilization=0.82 /);
  });

  it("the startup probe is KAITO v0.12's with the benchmark off, whatever kaito.sh/disable-benchmark says (no benchmark_entrypoint.py)", () => {
    const facts = defaultFacts();
    const probe = (id: string, annotations: Record<string, string> = {}) => {
      const r = buildWorkspace(ws(id, 'Standard_NC24ads_A100_v4', annotations), facts);
      assert.ok(r.ok);
      return r.objects.statefulSet.spec!.template.spec!.containers[0]!.startupProbe;
    };
    const off = { 'kaito.sh/disable-benchmark': 'true' };
    assert.deepEqual(probe('microsoft/Phi-4-mini-instruct'), { httpGet: { path: '/health', port: 5000 }, periodSeconds: 10, failureThreshold: 180 });
    assert.deepEqual(probe('microsoft/Phi-4-mini-instruct'), probe('microsoft/Phi-4-mini-instruct', off));
    // Multi-node: the readiness exec check over the leader, timeout 1 s, on every pod.
    const multi = probe('meta-llama/Llama-3.3-70B-Instruct');
    assert.deepEqual(multi, probe('meta-llama/Llama-3.3-70B-Instruct', off));
    assert.equal(multi?.timeoutSeconds, 1);
    assert.match(multi?.exec?.command?.[2] ?? '', /^python3 \/workspace\/vllm\/multi-node-health-check\.py readiness /);
    assert.ok(!JSON.stringify(multi).includes('benchmark_entrypoint'));
  });

  it('KAITO v0.12 estimator: weight-scaled overhead and its error text', () => {
    const llama = getPreset('llama-3.3-70b-instruct')!;
    const est = estimateNodeCountV012({ preset: llama, gpuConfig: { sku: 'x', gpuCount: 1, gpuMemGiB: 80 }, maxModelLen: 2048 });
    assert.deepEqual(est.ok && est.nodes, 3);
    const tiny = estimateNodeCountV012({ preset: llama, gpuConfig: { sku: 'x', gpuCount: 1, gpuMemGiB: 2 }, maxModelLen: 2048 });
    assert.match(
      tiny.ok ? '' : tiny.message,
      /^GPU memory 2147483648 bytes is too small, needs at least 2\.9 GB overhead \(base: 2\.3GB \+ KV Cache: 0\.6 GB\)$/,
    );
  });

  it('legacy names under --legacy-presets=v0.8 render as KAITO v0.8.0 and the explanation names their v0.12 fate; transformers is refused for ids outside the v0.12 transformers table', () => {
    const legacy = buildWorkspace(ws('phi-4-mini-instruct'), defaultFacts({ legacyNames: 'v0.8' }));
    assert.match(legacy.decisions.find((d) => d.topic === 'model')?.reason ?? '', /KAITO v0.12 maps it to catalog entry microsoft\/Phi-4-mini-instruct/);
    assert.match(command(legacy), /kaito-base|inference_api.py --served-model-name=phi-4-mini-instruct --max-model-len=/);
    const falcon = buildWorkspace(ws('falcon-7b'), defaultFacts({ legacyNames: 'v0.8' }));
    assert.match(falcon.decisions.find((d) => d.topic === 'model')?.reason ?? '', /refuses it: Unsupported inference preset name falcon-7b/);
    const tf = buildWorkspace(ws('microsoft/Phi-4-mini-instruct', 'Standard_NC24ads_A100_v4', { 'kaito.sh/runtime': 'transformers' }), defaultFacts());
    assert.equal(tf.ok ? '' : tf.problems[0]?.message, 'model phi-4-mini-instruct does not support inference with Huggingface Transformers runtime');
  });
});

describe('the CUDA toolkit for models that compile kernels with nvcc (KAITO v0.12)', () => {
  const pod = (name: string) => {
    const r = buildWorkspace(ws(name, 'Standard_ND96isr_H100_v5'), defaultFacts());
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
    return r.objects.statefulSet.spec!.template.spec!;
  };
  it('Mistral-Small-4 (FlashInfer JIT by name): provisioner first, read-only hostPath before dshm, CUDA_HOME', () => {
    const p = pod('mistralai/Mistral-Small-4-119B-2603');
    assert.deepEqual(p.initContainers?.[0], {
      name: 'cuda-toolkit-provisioner',
      image: p.containers[0]!.image,
      command: ['/bin/sh', '-c', 'flock "$1" /workspace/cuda-provision.sh "$1"', 'sh', '/opt/kaito/cuda/129'],
      volumeMounts: [{ name: 'cuda-toolkit-hostpath', mountPath: '/opt/kaito/cuda/129' }],
    });
    assert.deepEqual(
      p.volumes?.find((v) => v.name === 'cuda-toolkit-hostpath'),
      { name: 'cuda-toolkit-hostpath', hostPath: { path: '/opt/kaito/cuda/129', type: 'DirectoryOrCreate' } },
    );
    const mounts = p.containers[0]!.volumeMounts!.map((m) => m.name);
    assert.ok(mounts.indexOf('cuda-toolkit-hostpath') === mounts.indexOf('dshm') - 1, mounts.join(','));
    assert.deepEqual(
      p.containers[0]!.env?.find((e) => e.name === 'CUDA_HOME'),
      { name: 'CUDA_HOME', value: '/opt/kaito/cuda/129' },
    );
  });
  it('its NVFP4 variant and an ordinary catalog model get none of it', () => {
    for (const name of ['mistralai/Mistral-Small-4-119B-2603-NVFP4', 'microsoft/Phi-4-mini-instruct']) {
      const p = pod(name);
      assert.equal(p.initContainers?.some((c) => c.name === 'cuda-toolkit-provisioner') ?? false, false, name);
      assert.equal(
        p.volumes?.some((v) => v.name === 'cuda-toolkit-hostpath'),
        false,
        name,
      );
      assert.equal(p.containers[0]!.env?.some((e) => e.name === 'CUDA_HOME') ?? false, false, name);
    }
  });
});

describe('kaito.sh/use-local-weights (KAITO v0.12): weights from the node image', () => {
  const build = (name: string, value: string, legacyNames: 'v0.8' | 'v0.12' = 'v0.12') =>
    buildWorkspace(ws(name, 'Standard_NC24ads_A100_v4', { 'kaito.sh/use-local-weights': value }), defaultFacts({ legacyNames }));
  it('a catalog id reads /opt/kaito/models/<id as one segment> read-only: no download, no weights volume or claim', () => {
    const r = build('mistralai/Ministral-3-8B-Instruct-2512', 'true');
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
    const dir = '/opt/kaito/models/mistralai-ministral-3-8b-instruct-2512';
    const cmd = command(r);
    assert.match(cmd, new RegExp(` --model=${dir} --load-format=runai_streamer`));
    assert.doesNotMatch(cmd, /--download-dir|--load_format/, 'no download, and no load_format=mistral against --load-format');
    const pod = r.objects.statefulSet.spec!.template.spec!;
    assert.deepEqual(
      pod.volumes?.find((v) => v.name === 'model-weights-hostpath'),
      { name: 'model-weights-hostpath', hostPath: { path: dir, type: 'Directory' } },
    );
    assert.equal(
      pod.volumes?.some((v) => v.name === 'model-weights-volume'),
      false,
    );
    assert.equal(r.objects.statefulSet.spec!.volumeClaimTemplates, undefined, 'no NVMe claim on an NVMe SKU');
    const main = pod.containers[0]!;
    assert.deepEqual(
      main.volumeMounts?.map((m) => m.name),
      ['model-weights-hostpath', 'dshm'],
    );
    assert.equal(main.volumeMounts?.[0]?.readOnly, true);
    assert.deepEqual(
      main.env?.find((e) => e.name === 'KAITO_PROCESSOR'),
      { name: 'KAITO_PROCESSOR', value: dir },
    );
  });
  it('a legacy name under v0.12 reads /opt/kaito/models/<name as written>, as KAITO v0.12.0 does', () => {
    const r = build('Phi-4-Mini-Instruct', 'true');
    assert.match(command(r), / --model=\/opt\/kaito\/models\/phi-4-mini-instruct --load-format=runai_streamer/);
  });
  it('"false" and legacy names under --legacy-presets=v0.8 keep the usual weights; any other value is refused with KAITO\'s words', () => {
    assert.match(command(build('microsoft/Phi-4-mini-instruct', 'false')), /--download-dir=\/workspace\/weights/);
    const legacy = build('phi-4-mini-instruct', 'true', 'v0.8');
    assert.ok(legacy.ok);
    assert.equal(
      legacy.objects.statefulSet.spec!.template.spec!.volumes?.some((v) => v.name === 'model-weights-hostpath'),
      false,
    );
  });
});
