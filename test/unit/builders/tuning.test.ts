import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1ConfigMap, V1Container, V1Job } from '@kubernetes/client-node';
import type { TuningSpec, Workspace } from '../../../src/api/types.js';
import { builtinTrainingConfig } from '../../../src/builders/tuning/config.js';
import { buildTuning, type TuningBuildResult } from '../../../src/builders/tuning/build.js';
import { byoFacts, facts, gpuNode, H100_NODE_LABELS } from './fixtures.js';

function tuningWs(tuning: Partial<TuningSpec> & { preset?: TuningSpec['preset'] }, instanceType: string | undefined = 'Standard_NC24ads_A100_v4'): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'ws1', namespace: 'ns1', uid: 'uid-1' },
    resource: { count: 1, ...(instanceType ? { instanceType } : {}), labelSelector: { matchLabels: { apps: 'test', pool: 'gpu' } } },
    tuning: {
      preset: { name: 'phi-3-mini-128k-instruct' },
      method: 'qlora',
      input: { urls: ['https://x/a.parquet?download=true', 'https://x/b.json'] },
      output: { image: 'myacr.azurecr.io/adapter:0.0.1', imagePushSecret: 'push' },
      ...tuning,
    },
  };
}

function job(r: TuningBuildResult): V1Job {
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
  return r.objects.job;
}
const names = (cs: V1Container[] | undefined) => (cs ?? []).map((c) => c.name);
const podOf = (j: V1Job) => j.spec!.template.spec!;
const trainerOf = (j: V1Job) => [...(podOf(j).initContainers ?? []), ...podOf(j).containers].find((c) => c.name === 'ws1')!;

const PVC_IN = { persistentVolumeClaim: { claimName: 'pvc-in' } };
const PVC_OUT = { persistentVolumeClaim: { claimName: 'pvc-out' } };

const SHAPES: {
  name: string;
  tuning: Partial<TuningSpec>;
  init: string[];
  containers: string[];
  volumes: string[];
  trainerMounts: string[];
  pullSecrets?: string[];
}[] = [
  {
    name: 'URL input, image output',
    tuning: {},
    init: ['model-weights-downloader', 'data-downloader', 'ws1'],
    containers: ['pusher'],
    volumes: ['dshm', 'model-weights-volume', 'config-volume', 'results-volume', 'data-volume', 'docker-config'],
    trainerMounts: [
      'dshm:/dev/shm',
      'model-weights-volume:/workspace/weights',
      'config-volume:/mnt/config',
      'results-volume:/mnt/results',
      'data-volume:/mnt/data',
    ],
    pullSecrets: ['push'],
  },
  {
    name: 'image input, volume output',
    tuning: {
      method: 'lora',
      input: { name: 'some-name', image: 'custom/data-loader-image', imagePullSecrets: ['image-pull-secret-name'] },
      output: { volumeSource: PVC_OUT },
    },
    init: ['model-weights-downloader', 'puller'],
    containers: ['ws1'],
    volumes: ['dshm', 'model-weights-volume', 'config-volume', 'results-volume', 'docker-config-some-name-tuning-input', 'data-volume'],
    trainerMounts: [
      'dshm:/dev/shm',
      'model-weights-volume:/workspace/weights',
      'config-volume:/mnt/config',
      'results-volume:/mnt/results',
      'docker-config-some-name-tuning-input:/root/.docker/config.d/some-name-tuning-input',
      'data-volume:/mnt/data',
    ],
  },
  {
    name: 'volume input, volume output',
    tuning: { input: { volumeSource: PVC_IN }, output: { volumeSource: PVC_OUT } },
    init: ['model-weights-downloader'],
    containers: ['ws1'],
    volumes: ['dshm', 'model-weights-volume', 'config-volume', 'results-volume', 'data-volume'],
    trainerMounts: [
      'dshm:/dev/shm',
      'model-weights-volume:/workspace/weights',
      'config-volume:/mnt/config',
      'results-volume:/mnt/results',
      'data-volume:/mnt/data',
    ],
  },
  {
    name: 'image input, image output',
    tuning: { input: { image: 'r.io/data:1' }, output: { image: 'r.io/out:1', imagePushSecret: 'push' } },
    init: ['model-weights-downloader', 'puller', 'ws1'],
    containers: ['pusher'],
    volumes: ['dshm', 'model-weights-volume', 'config-volume', 'results-volume', 'docker-config--tuning-input', 'data-volume', 'docker-config'],
    trainerMounts: [
      'dshm:/dev/shm',
      'model-weights-volume:/workspace/weights',
      'config-volume:/mnt/config',
      'results-volume:/mnt/results',
      'docker-config--tuning-input:/root/.docker/config.d/-tuning-input',
      'data-volume:/mnt/data',
    ],
    pullSecrets: ['push'],
  },
];
for (const s of SHAPES) {
  test(`tuning pod shape: ${s.name}`, () => {
    const j = job(buildTuning(tuningWs(s.tuning), facts()));
    const pod = podOf(j);
    assert.deepEqual(names(pod.initContainers), s.init);
    assert.deepEqual(names(pod.containers), s.containers);
    assert.deepEqual(
      pod.volumes?.map((v) => v.name),
      s.volumes,
    );
    assert.deepEqual(
      trainerOf(j).volumeMounts?.map((m) => `${m.name}:${m.mountPath}`),
      s.trainerMounts,
    );
    assert.deepEqual(
      pod.imagePullSecrets?.map((p) => p.name),
      s.pullSecrets,
    );
    assert.equal(pod.restartPolicy, 'Never');
    assert.equal(pod.shareProcessNamespace, undefined, 'no pause trick: the pusher runs after the trainer');
    assert.ok(!names(pod.containers).includes('pause'));
  });
}

test('the Job: name, labels, revision annotation, controller owner reference, one attempt', () => {
  const r = buildTuning(tuningWs({}), facts());
  const j = job(r);
  assert.equal(j.metadata?.name, 'ws1');
  assert.equal(j.metadata?.namespace, 'ns1');
  assert.deepEqual(j.metadata?.labels, { 'kaito.sh/workspace': 'ws1' });
  assert.deepEqual(j.metadata?.annotations, { 'workspace.kaito.io/revision': String(r.revision) });
  assert.deepEqual(j.metadata?.ownerReferences, [
    { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: 'ws1', uid: 'uid-1', controller: true, blockOwnerDeletion: true },
  ]);
  assert.deepEqual(j.spec?.template.metadata?.labels, { 'kaito.sh/workspace': 'ws1' });
  assert.equal(j.spec?.backoffLimit, 0);
  assert.equal(j.spec?.ttlSecondsAfterFinished, undefined, 'a finished Job stays, so a restart never reruns it');
  const pod = podOf(j);
  assert.deepEqual(pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
    {
      matchExpressions: [
        { key: 'apps', operator: 'In', values: ['test'] },
        { key: 'pool', operator: 'In', values: ['gpu'] },
      ],
    },
  ]);
  assert.deepEqual(
    pod.tolerations?.map((t) => `${t.key}:${t.operator}:${t.value ?? ''}:${t.effect}`),
    ['nvidia.com/gpu:Exists::NoSchedule', 'sku:Equal:gpu:NoSchedule'],
  );
});

test('the trainer: tuning recipe command (not the inference flags, #1943), env, port, GPUs', () => {
  const trainer = trainerOf(job(buildTuning(tuningWs({}), facts())));
  assert.equal(trainer.image, 'mcr.microsoft.com/aks/kaito/kaito-base:0.1.1');
  assert.deepEqual(trainer.command, [
    '/bin/sh',
    '-c',
    'cd /workspace/tfs/ && python3 metrics_server.py & accelerate launch --num_processes=1 --num_machines=1 --machine_rank=0 --gpu_ids=all /workspace/tfs/fine_tuning.py',
  ]);
  assert.deepEqual(trainer.env, [
    { name: 'DEFAULT_TARGET_MODULES', value: 'k_proj,q_proj,v_proj,o_proj,gate_proj,down_proj,up_proj' },
    { name: 'PYTORCH_CUDA_ALLOC_CONF', value: 'expandable_segments:True' },
  ]);
  assert.deepEqual(trainer.ports, [{ containerPort: 5000 }]);
  assert.deepEqual(trainer.resources, { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } });
  const falcon = trainerOf(job(buildTuning(tuningWs({ preset: { name: 'falcon-7b' } }), facts())));
  assert.deepEqual(
    falcon.env?.map((e) => e.name),
    ['PYTORCH_CUDA_ALLOC_CONF'],
    'DEFAULT_TARGET_MODULES only for phi-3*',
  );
});

const GPU_CASES: { name: string; ws: Workspace; facts: ReturnType<typeof facts>; gpus?: number; problem?: RegExp }[] = [
  { name: 'NAP: from the SKU catalog (A100: 1)', ws: tuningWs({}), facts: facts(), gpus: 1 },
  { name: 'NAP: from the SKU catalog (H100: 2)', ws: tuningWs({}, 'Standard_NC80adis_H100_v5'), facts: facts(), gpus: 2 },
  { name: 'NAP: unknown SKU', ws: tuningWs({}, 'Standard_Nope'), facts: facts(), problem: /Unsupported SKU|Standard_Nope/ },
  {
    name: 'BYO: from the labels of the matching node (KAITO: always fails, W4)',
    ws: tuningWs({}, undefined),
    facts: byoFacts({ nodes: [gpuNode('n1', H100_NODE_LABELS)] }),
    gpus: 2,
  },
  {
    name: 'BYO: no ready matching node',
    ws: tuningWs({}, undefined),
    facts: byoFacts({ nodes: [gpuNode('n1', H100_NODE_LABELS, false)] }),
    problem: /no ready nodes/,
  },
];
for (const c of GPU_CASES) {
  test(`GPU count: ${c.name}`, () => {
    const r = buildTuning(c.ws, c.facts);
    if (c.problem) {
      assert.ok(!r.ok);
      assert.match(r.problems[0]?.message ?? '', c.problem);
      return;
    }
    const trainer = trainerOf(job(r));
    assert.equal(trainer.resources?.limits?.['nvidia.com/gpu'], String(c.gpus));
    assert.match(trainer.command?.[2] ?? '', new RegExp(`--num_processes=${c.gpus} `));
  });
}

const PRESET_CASES: [spec: Partial<TuningSpec>, reason?: string][] = [
  [{ preset: { name: 'mistral-7b-instruct' } }, 'PresetNotTunable'],
  [{ preset: { name: 'llama-3.1-8b-instruct' } }, 'PresetNotTunable'],
  [{ preset: { name: 'phi-5' } }, 'UnknownPreset'],
  [{ method: 'full' }, 'InvalidMethod'],
  [{ method: 'QLoRA' }], // KAITO's controller cannot build this (W8); lower-cased here
  [{ preset: { name: 'qwen2.5-coder-32b-instruct' } }],
];
for (const [spec, reason] of PRESET_CASES) {
  test(`preset/method ${JSON.stringify(spec)}: ${reason ?? 'builds'}`, () => {
    const r = buildTuning(tuningWs(spec), facts());
    assert.equal(r.ok ? undefined : r.problems[0]?.reason, reason);
  });
}

const cmap = (name: string, namespace: string, text: string): V1ConfigMap => ({ metadata: { name, namespace }, data: { 'training_config.yaml': text } });
const RELATIVE = 'training_config:\n  QuantizationConfig:\n    load_in_4bit: true\n  TrainingArguments:\n    output_dir: "output"\n';

test('config: the default template is copied (unowned) from the release namespace, or built in', () => {
  const fromRelease = buildTuning(tuningWs({}), facts({ configMaps: [cmap('qlora-params-template', 'kaito-workspace', builtinTrainingConfig('qlora'))] }));
  assert.ok(fromRelease.ok);
  assert.equal(fromRelease.objects.configMap?.metadata?.name, 'qlora-params-template');
  assert.equal(fromRelease.objects.configMap?.metadata?.namespace, 'ns1');
  assert.equal(fromRelease.objects.configMap?.metadata?.ownerReferences, undefined, 'shared by the namespace, as in KAITO');
  const builtIn = buildTuning(tuningWs({}), facts());
  assert.ok(builtIn.ok);
  assert.equal(builtIn.objects.configMap?.data?.['training_config.yaml'], builtinTrainingConfig('qlora'));
  const present = buildTuning(tuningWs({}), facts({ configMaps: [cmap('qlora-params-template', 'ns1', builtinTrainingConfig('qlora'))] }));
  assert.ok(present.ok);
  assert.equal(present.objects.configMap, undefined);
  assert.equal(podOf(present.objects.job).volumes?.find((v) => v.name === 'config-volume')?.configMap?.name, 'qlora-params-template');
});

test('config: a relative output_dir is resolved under /mnt and the trainer reads an owned copy saying so (W6)', () => {
  const r = buildTuning(tuningWs({ config: 'mine' }), facts({ configMaps: [cmap('mine', 'ns1', RELATIVE)] }));
  assert.ok(r.ok);
  const copy = r.objects.trainingConfig;
  assert.equal(copy?.metadata?.name, 'ws1-training-config');
  assert.equal(copy?.metadata?.ownerReferences?.[0]?.uid, 'uid-1');
  assert.match(copy?.data?.['training_config.yaml'] ?? '', /output_dir: "?\/mnt\/output"?/);
  const pod = podOf(r.objects.job);
  assert.equal(pod.volumes?.find((v) => v.name === 'config-volume')?.configMap?.name, 'ws1-training-config');
  assert.deepEqual(pod.containers[0]?.volumeMounts?.find((m) => m.name === 'results-volume')?.mountPath, '/mnt/output');
  assert.match(pod.containers[0]?.args?.[0] ?? '', /VOL_DIR='\/mnt\/output'/, 'the pusher reads where the trainer wrote');
});

test('config: a missing or unusable user ConfigMap is a problem, not a Job', () => {
  const missing = buildTuning(tuningWs({ config: 'nope' }), facts());
  assert.ok(!missing.ok);
  assert.equal(missing.problems[0]?.message, 'user specified ConfigMap nope not found in namespace ns1');
  const lora = buildTuning(tuningWs({ config: 'mine' }), facts({ configMaps: [cmap('mine', 'ns1', builtinTrainingConfig('lora'))] }));
  assert.ok(!lora.ok);
  assert.match(lora.problems[0]?.message ?? '', /For method 'qlora'/);
});

test('input helpers: downloader env and script, puller secrets projected as KAITO does', () => {
  const urls = job(buildTuning(tuningWs({}), facts()));
  const dl = podOf(urls).initContainers?.find((c) => c.name === 'data-downloader');
  assert.equal(dl?.image, 'curlimages/curl');
  assert.deepEqual(dl?.env, [
    { name: 'DATA_URLS', value: 'https://x/a.parquet?download=true https://x/b.json' },
    { name: 'DATA_VOLUME_PATH', value: '/mnt/data' },
  ]);
  assert.match(dl?.command?.[2] ?? '', /curl -sSL -w "%\{http_code\}" -o "\$DATA_VOLUME_PATH\/\$file" "\$url"/);
  assert.deepEqual(dl?.volumeMounts, [{ name: 'data-volume', mountPath: '/mnt/data' }]);

  const img = job(
    buildTuning(tuningWs({ input: { name: 'some-name', image: 'custom/data-loader-image', imagePullSecrets: ['image-pull-secret-name'] } }), facts()),
  );
  const pod = podOf(img);
  const puller = pod.initContainers?.find((c) => c.name === 'puller');
  assert.equal(puller?.image, 'mcr.microsoft.com/aks/skopeo:1.14.4-6');
  assert.deepEqual(puller?.command, ['/bin/sh', '-c']);
  assert.match(puller?.args?.[0] ?? '', /IMG_REF='docker\.io\/custom\/data-loader-image:latest'/);
  assert.deepEqual(puller?.volumeMounts, [
    { name: 'docker-config-some-name-tuning-input', mountPath: '/root/.docker/config.d/some-name-tuning-input' },
    { name: 'data-volume', mountPath: '/mnt/data' },
  ]);
  assert.deepEqual(
    pod.volumes?.find((v) => v.name === 'docker-config-some-name-tuning-input'),
    {
      name: 'docker-config-some-name-tuning-input',
      projected: { sources: [{ secret: { name: 'image-pull-secret-name', items: [{ key: '.dockerconfigjson', path: 'image-pull-secret-name.json' }] } }] },
    },
  );
  assert.deepEqual(
    pod.volumes?.find((v) => v.name === 'data-volume'),
    { name: 'data-volume', emptyDir: {} },
  );
});

test('output helpers: the pusher fails loudly and pushes only the adapter (W5)', () => {
  const pod = podOf(job(buildTuning(tuningWs({}), facts())));
  const pusher = pod.containers[0]!;
  assert.equal(pusher.image, 'ghcr.io/oras-project/oras:v1.2.2');
  assert.deepEqual(pusher.volumeMounts, [
    { name: 'docker-config', mountPath: '/root/.docker' },
    { name: 'results-volume', mountPath: '/mnt/results' },
  ]);
  const script = pusher.args?.[0] ?? '';
  assert.match(script, /^set -eu\n/);
  assert.doesNotMatch(script, /\|\| true/);
  assert.match(script, /IMG_REF='myacr\.azurecr\.io\/adapter:0\.0\.1'/);
  assert.match(script, /"sh\.kaito\.model\.name":"phi-3-mini-128k-instruct"/);
  assert.deepEqual(
    pod.volumes?.find((v) => v.name === 'docker-config'),
    {
      name: 'docker-config',
      projected: { sources: [{ secret: { name: 'push', items: [{ key: '.dockerconfigjson', path: 'config.json' }] } }] },
    },
  );
});

test('volume sources are used verbatim', () => {
  const pod = podOf(job(buildTuning(tuningWs({ input: { volumeSource: PVC_IN }, output: { volumeSource: PVC_OUT } }), facts())));
  assert.deepEqual(
    pod.volumes?.find((v) => v.name === 'data-volume'),
    { name: 'data-volume', ...PVC_IN },
  );
  assert.deepEqual(
    pod.volumes?.find((v) => v.name === 'results-volume'),
    { name: 'results-volume', ...PVC_OUT },
  );
});

test('pure: same input, same output', () => {
  assert.deepEqual(buildTuning(tuningWs({}), facts()), buildTuning(tuningWs({}), facts()));
});
