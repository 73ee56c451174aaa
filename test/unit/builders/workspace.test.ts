import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Container, V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../../../src/api/types.js';
import type { ClusterFacts } from '../../../src/builders/facts.js';
import type { NodePinning } from '../../../src/builders/scheduling.js';
import { buildWorkspace, objectList, type BuildResult } from '../../../src/builders/workspace.js';
import { A10_NODE_LABELS, byoFacts, byoWorkspace, facts, gpuNode, H100_NODE_LABELS, presetWorkspace } from './fixtures.js';

function ok(result: BuildResult) {
  assert.ok(result.ok, `expected success, got ${JSON.stringify(result.ok ? [] : result.problems)}`);
  return result;
}
function sts(result: BuildResult): V1StatefulSet {
  return ok(result).objects.statefulSet;
}
function main(s: V1StatefulSet): V1Container {
  const c = s.spec?.template.spec?.containers[0];
  assert.ok(c);
  return c;
}
function command(s: V1StatefulSet): string {
  return main(s).command?.[2] ?? '';
}
function flagSet(cmd: string): string[] {
  return cmd
    .split(' ')
    .filter((w) => w.startsWith('--'))
    .sort();
}
function decision(result: BuildResult, topic: string) {
  return result.decisions.find((d) => d.topic === topic);
}

test('model weights volume: NVMe claim or size-limited emptyDir', () => {
  const cases: { name: string; ws: Workspace; facts: ClusterFacts; kind: 'nvme' | 'emptyDir'; size: string }[] = [
    { name: 'NVMe SKU + StorageClass', ws: presetWorkspace('phi-4-mini-instruct'), facts: facts(), kind: 'nvme', size: '70Gi' },
    {
      name: 'NVMe SKU, no StorageClass',
      ws: presetWorkspace('phi-4-mini-instruct'),
      facts: facts({ storageClassNames: ['other'] }),
      kind: 'emptyDir',
      size: '70Gi',
    },
    { name: 'non-NVMe SKU', ws: presetWorkspace('phi-3-mini-4k-instruct', 'Standard_NV36ads_A10_v5'), facts: facts(), kind: 'emptyDir', size: '80Gi' },
    { name: 'AWS NVMe SKU', ws: presetWorkspace('phi-4-mini-instruct', 'g6.xlarge'), facts: facts({ cloudProvider: 'aws' }), kind: 'nvme', size: '70Gi' },
    {
      name: 'BYO node with NVMe instance type',
      ws: byoWorkspace('qwen2.5-coder-7b-instruct'),
      facts: byoFacts({ nodes: [gpuNode('n1', H100_NODE_LABELS)] }),
      kind: 'nvme',
      size: '110Gi',
    },
    {
      name: 'BYO node, instance type without NVMe',
      ws: byoWorkspace('phi-4-mini-instruct'),
      facts: byoFacts({ nodes: [gpuNode('n1', A10_NODE_LABELS)] }),
      kind: 'emptyDir',
      size: '70Gi',
    },
    {
      name: 'BYO node without instance-type label',
      ws: byoWorkspace('phi-4-mini-instruct'),
      facts: byoFacts({ nodes: [gpuNode('n1', { ...H100_NODE_LABELS, 'node.kubernetes.io/instance-type': undefined as never })] }),
      kind: 'emptyDir',
      size: '70Gi',
    },
    {
      name: 'override keeps an existing emptyDir StatefulSet',
      ws: presetWorkspace('phi-4-mini-instruct'),
      facts: facts({ volumeKindOverride: 'emptyDir' }),
      kind: 'emptyDir',
      size: '70Gi',
    },
    {
      name: 'override keeps an existing NVMe StatefulSet',
      ws: presetWorkspace('phi-4-mini-instruct'),
      facts: facts({ storageClassNames: [], volumeKindOverride: 'nvme' }),
      kind: 'nvme',
      size: '70Gi',
    },
  ];
  for (const c of cases) {
    const result = buildWorkspace(c.ws, c.facts);
    const s = sts(result);
    const weights = s.spec?.template.spec?.volumes?.find((v) => v.name === 'model-weights-volume');
    const claims = s.spec?.volumeClaimTemplates ?? [];
    assert.equal(decision(result, 'modelWeightsVolume')?.choice, c.kind, c.name);
    if (c.kind === 'nvme') {
      assert.equal(weights, undefined, c.name);
      assert.deepEqual(
        claims,
        [
          {
            metadata: { name: 'model-weights-volume', labels: { 'kaito.sh/workspace': 'ws1' } },
            spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'kaito-local-nvme-disk', resources: { requests: { storage: c.size } } },
          },
        ],
        c.name,
      );
    } else {
      assert.deepEqual(claims, [], c.name);
      assert.deepEqual(weights, { name: 'model-weights-volume', emptyDir: { sizeLimit: c.size } }, c.name);
    }
    // Either way the main container and the downloader mount it at /workspace/weights.
    assert.ok(
      main(s).volumeMounts?.some((m) => m.name === 'model-weights-volume' && m.mountPath === '/workspace/weights'),
      c.name,
    );
  }
});

test('StatefulSet shape (spec §5.2, §5.14)', () => {
  const result = ok(buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts()));
  const s = result.objects.statefulSet;
  assert.equal(s.metadata?.name, 'ws1');
  assert.equal(s.metadata?.namespace, 'ns1');
  assert.deepEqual(s.metadata?.annotations, { 'workspace.kaito.io/revision': '1' });
  assert.deepEqual(s.metadata?.ownerReferences, [
    { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: 'ws1', uid: 'uid-1', controller: true, blockOwnerDeletion: true },
  ]);
  assert.equal(s.spec?.replicas, 1);
  assert.equal(s.spec?.podManagementPolicy, 'Parallel');
  assert.deepEqual(s.spec?.persistentVolumeClaimRetentionPolicy, { whenScaled: 'Retain', whenDeleted: 'Delete' });
  assert.equal(s.spec?.serviceName, 'ws1-headless');
  assert.deepEqual(s.spec?.selector.matchLabels, { 'kaito.sh/workspace': 'ws1' });
  assert.deepEqual(s.spec?.template.metadata?.labels, { 'kaito.sh/workspace': 'ws1' });
  const pod = s.spec?.template.spec;
  assert.deepEqual(pod?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
    {
      matchExpressions: [
        { key: 'apps', operator: 'In', values: ['test'] },
        { key: 'pool', operator: 'In', values: ['gpu'] },
      ],
    },
  ]);
  assert.deepEqual(pod?.tolerations, [
    { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'sku', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
  ]);
  const c = main(s);
  assert.equal(c.name, 'ws1');
  assert.equal(c.image, 'mcr.microsoft.com/aks/kaito/kaito-base:0.1.1');
  assert.deepEqual(c.resources, { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } });
  assert.deepEqual(c.ports, [{ containerPort: 5000 }]);
  assert.deepEqual(c.livenessProbe, { httpGet: { path: '/health', port: 5000 }, initialDelaySeconds: 600, periodSeconds: 10 });
  assert.deepEqual(c.readinessProbe, { httpGet: { path: '/health', port: 5000 }, initialDelaySeconds: 30, periodSeconds: 10 });
  assert.deepEqual(
    c.volumeMounts?.map((m) => `${m.name}:${m.mountPath}`),
    ['config-volume:/mnt/config', 'model-weights-volume:/workspace/weights', 'dshm:/dev/shm'],
  );
  assert.deepEqual(pod?.volumes?.slice(0, 2), [
    { name: 'config-volume', configMap: { name: 'inference-params-template' } },
    { name: 'dshm', emptyDir: { medium: 'Memory' } },
  ]);
  assert.equal(
    command(s),
    'python3 /workspace/vllm/inference_api.py --served-model-name=phi-4-mini-instruct --max-model-len=131072 --gpu-memory-utilization=0.84 ' +
      '--tensor-parallel-size=1 --kaito-config-file=/mnt/config/inference_config.yaml --dtype=float16 ' +
      '--chat-template=/workspace/chat_templates/tool-chat-phi4-mini.jinja --tool-call-parser=phi4_mini_json --enable-auto-tool-choice',
  );
  assert.deepEqual(main(s).command?.slice(0, 2), ['/bin/sh', '-c']);
});

test('weights source: OCI artifact puller vs runtime download with HF token', () => {
  const oci = sts(buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts({ presetRegistry: 'test-registry' })));
  assert.deepEqual(oci.spec?.template.spec?.initContainers, [
    {
      name: 'model-weights-downloader',
      image: 'mcr.microsoft.com/oss/v2/oras-project/oras:v1.2.3',
      command: [
        '/bin/sh',
        '-c',
        [
          'set -e',
          'if [ "$(cat /workspace/weights/.kaito-ts-weights 2>/dev/null)" = "test-registry/kaito-phi-4-mini-instruct:0.2.0" ]; then echo "model weights test-registry/kaito-phi-4-mini-instruct:0.2.0 already on the volume"; exit 0; fi',
          'rm -f /workspace/weights/.kaito-ts-weights',
          'oras pull test-registry/kaito-phi-4-mini-instruct:0.2.0 -o /workspace/weights',
          'echo "test-registry/kaito-phi-4-mini-instruct:0.2.0" > /workspace/weights/.kaito-ts-weights',
        ].join('\n'),
      ],
      volumeMounts: [{ name: 'model-weights-volume', mountPath: '/workspace/weights' }],
    },
  ]);
  assert.equal(main(oci).image, 'test-registry/kaito-base:0.1.1');
  assert.equal(main(oci).env, undefined);
  assert.ok(!command(oci).includes('--model='));

  const ws = presetWorkspace('llama-3.1-8b-instruct');
  ws.inference = { preset: { name: 'llama-3.1-8b-instruct', presetOptions: { modelAccessSecret: 'hf-secret' } } };
  const result = buildWorkspace(ws, facts({ secretNames: [] }));
  const hf = sts(result);
  assert.equal(hf.spec?.template.spec?.initContainers, undefined);
  assert.deepEqual(main(hf).env, [{ name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-secret', key: 'HF_TOKEN' } } }]);
  // Spec §8.3 example (1 node on NC24ads_A100_v4) plus kaito-ts's --revision (W29).
  const expected =
    'VLLM_ATTENTION_BACKEND=TRITON_ATTN python3 /workspace/vllm/inference_api.py --served-model-name=llama-3.1-8b-instruct --max-model-len=131072 ' +
    '--gpu-memory-utilization=0.84 --tensor-parallel-size=1 --model=meta-llama/Llama-3.1-8B-Instruct --code-revision=0e9e39f249a16976918f6564b8830bc894c89659 ' +
    '--download-dir=/workspace/weights --kaito-config-file=/mnt/config/inference_config.yaml --dtype=float16 ' +
    '--chat-template=/workspace/chat_templates/tool-chat-llama3.1-json.jinja --tool-call-parser=llama3_json --enable-auto-tool-choice';
  assert.deepEqual(flagSet(command(hf)), [...flagSet(expected), '--revision=0e9e39f249a16976918f6564b8830bc894c89659'].sort());
  assert.ok(command(hf).startsWith('VLLM_ATTENTION_BACKEND=TRITON_ATTN python3 /workspace/vllm/inference_api.py --'));
  assert.equal(decision(result, 'weightsSource')?.choice, 'huggingface');
  assert.match(decision(result, 'weightsSource')?.reason ?? '', /Secret hf-secret not found/);
});

test('transformers commands match the spec examples (§5.4, §8.3)', () => {
  const cases: [string, string][] = [
    [
      'phi-4-mini-instruct',
      'accelerate launch --num_processes=1 --num_machines=1 --machine_rank=0 --gpu_ids=all /workspace/tfs/inference_api.py --torch_dtype=auto --pipeline=text-generation --trust_remote_code',
    ],
    [
      'gemma-3-4b-instruct',
      'accelerate launch --num_processes=1 --num_machines=1 --machine_rank=0 --gpu_ids=all /workspace/tfs/inference_api.py --torch_dtype=auto --pipeline=text-generation --allow_remote_files --pretrained_model_name_or_path=google/gemma-3-4b-it --revision=093f9f388b31de276ce2de164bdc2081324b9767',
    ],
  ];
  for (const [preset, want] of cases) {
    const ws = presetWorkspace(preset, 'Standard_NC24ads_A100_v4', {
      metadata: { name: 'ws1', namespace: 'ns1', annotations: { 'kaito.sh/runtime': 'transformers' } },
    });
    const result = buildWorkspace(ws, facts());
    assert.equal(command(sts(result)), want, preset);
    assert.equal(decision(result, 'runtime')?.choice, 'transformers');
    assert.equal(decision(result, 'maxModelLen'), undefined);
  }
});

test('vLLM flags per preset: TP disabled, LoRA, max-model-len (§9.1)', () => {
  const falcon = sts(
    buildWorkspace(
      presetWorkspace('falcon-7b', 'Standard_NV36ads_A10_v5', {
        inference: { preset: { name: 'falcon-7b' }, adapters: [{ source: { name: 'a1', image: 'x/y:1' } }] },
      }),
      facts(),
    ),
  );
  assert.ok(!command(falcon).includes('--tensor-parallel-size'));
  assert.ok(!command(falcon).includes('--enable-lora'), 'falcon disallows LoRA under vLLM');
  assert.match(command(falcon), / --max-model-len=2048 /);

  const h100 = sts(buildWorkspace(presetWorkspace('qwen2.5-coder-7b-instruct', 'Standard_NC80adis_H100_v5'), facts()));
  assert.match(command(h100), / --tensor-parallel-size=2 /);
  assert.deepEqual(main(h100).resources?.limits, { 'nvidia.com/gpu': '2' });
});

test('adapters: pullers, volumes, pull secrets, strength env, --enable-lora (§5.8, §9.4)', () => {
  const ws = presetWorkspace('phi-4-mini-instruct', 'Standard_NC24ads_A100_v4', {
    metadata: { name: 'ws1', namespace: 'ns1', annotations: { 'kaito.sh/runtime': 'transformers' } },
    inference: {
      preset: { name: 'phi-4-mini-instruct' },
      adapters: [
        { source: { name: 'adapterA', image: 'fake.kaito.com/kaito-image:0.0.1', imagePullSecrets: ['fake-secret', 'other'] }, strength: '0.5' },
        { source: { name: 'adapterB', image: 'alpine' } },
        { source: { name: 'adapterC', image: 'fake.kaito.com/c:1', imagePullSecrets: ['fake-secret'] } },
      ],
    },
  });
  const s = sts(buildWorkspace(ws, facts()));
  const pod = s.spec?.template.spec;
  assert.deepEqual(
    pod?.initContainers?.map((c) => c.name),
    ['model-weights-downloader', 'puller-adapterA', 'puller-adapterB', 'puller-adapterC'],
  );
  const pullerA = pod?.initContainers?.[1];
  assert.equal(pullerA?.image, 'mcr.microsoft.com/aks/skopeo:1.14.4-6');
  assert.deepEqual(pullerA?.command, ['/bin/sh', '-c']);
  assert.match(pullerA?.args?.[0] ?? '', /^image='fake\.kaito\.com\/kaito-image:0\.0\.1'$/m);
  assert.match(pullerA?.args?.[0] ?? '', /^target='\/mnt\/adapter\/adapterA'$/m);
  assert.deepEqual(pullerA?.volumeMounts, [
    { name: 'adapter-volume', mountPath: '/mnt/adapter' },
    { name: 'docker-config-adapterA-inference-adapter', mountPath: '/root/.docker/config.d/adapterA-inference-adapter' },
  ]);
  assert.match(pod?.initContainers?.[2]?.args?.[0] ?? '', /^image='docker\.io\/library\/alpine:latest'$/m);
  assert.deepEqual(pod?.imagePullSecrets, [{ name: 'fake-secret' }, { name: 'other' }]);
  assert.deepEqual(
    pod?.volumes?.map((v) => v.name),
    ['config-volume', 'dshm', 'adapter-volume', 'docker-config-adapterA-inference-adapter', 'docker-config-adapterC-inference-adapter'],
  );
  assert.deepEqual(pod?.volumes?.[3]?.projected?.sources, [
    { secret: { name: 'fake-secret', items: [{ key: '.dockerconfigjson', path: 'fake-secret.json' }] } },
    { secret: { name: 'other', items: [{ key: '.dockerconfigjson', path: 'other.json' }] } },
  ]);
  assert.deepEqual(main(s).env, [{ name: 'adapterA', value: '0.5' }]);
  assert.ok(main(s).volumeMounts?.some((m) => m.name === 'adapter-volume' && m.mountPath === '/mnt/adapter'));

  const vllm = sts(
    buildWorkspace(
      { ...ws, metadata: { name: 'ws1', namespace: 'ns1' }, inference: { ...ws.inference, adapters: [{ source: { name: 'a', image: 'r.io/a:1' } }] } },
      facts(),
    ),
  );
  assert.match(command(vllm), / --enable-lora /);
});

test('multi-node vLLM: 3 replicas, Ray leader/worker command, POD_INDEX, exec probes (§5.4, §5.6)', () => {
  const ws = presetWorkspace('llama-3.3-70b-instruct');
  ws.inference = { preset: { name: 'llama-3.3-70b-instruct', presetOptions: { modelAccessSecret: 'hf' } } };
  const result = ok(buildWorkspace(ws, facts()));
  const s = result.objects.statefulSet;
  assert.equal(result.targetNodeCount, 3);
  assert.equal(s.spec?.replicas, 3);
  const leader = 'ws1-0.ws1-headless.ns1.svc.cluster.local';
  const cmd = command(s);
  const m = /^if \[ "\$\{POD_INDEX\}" = "0" \]; then (.*); (VLLM_ATTENTION_BACKEND.*); else (.*); fi$/.exec(cmd);
  assert.ok(m, cmd);
  assert.equal(m[1], '/workspace/vllm/multi-node-serving.sh leader --ray_cluster_size=3 --ray_port=6379');
  assert.equal(m[3], `/workspace/vllm/multi-node-serving.sh worker --ray_address=${leader} --ray_port=6379`);
  assert.ok(m[2]?.includes(' --pipeline-parallel-size=3 '));
  assert.ok(m[2]?.includes(' --distributed-executor-backend=ray '));
  assert.ok(m[2]?.includes(' --max-model-len=22016 '), 'spec §5.5 vector: 3 nodes → 22016');
  assert.deepEqual(
    main(s).env?.map((e) => e.name),
    ['HF_TOKEN', 'POD_INDEX'],
  );
  assert.deepEqual(main(s).env?.[1]?.valueFrom, { fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" } });
  assert.deepEqual(main(s).livenessProbe, {
    exec: { command: ['/bin/sh', '-c', `python3 /workspace/vllm/multi-node-health-check.py liveness --leader-address=${leader} --ray-port=6379`] },
    initialDelaySeconds: 60,
    periodSeconds: 10,
    timeoutSeconds: 5,
    failureThreshold: 1,
    terminationGracePeriodSeconds: 1,
  });
  assert.deepEqual(main(s).readinessProbe, {
    exec: { command: ['/bin/sh', '-c', `python3 /workspace/vllm/multi-node-health-check.py readiness --leader-address=${leader} --vllm-port=5000`] },
    periodSeconds: 10,
    timeoutSeconds: 1,
    failureThreshold: 1,
  });
  // KAITO v0.10: the readiness check as the startup probe, over the preset's 30 min.
  assert.deepEqual(main(s).startupProbe, { ...main(s).readinessProbe, failureThreshold: 180 });
  assert.equal(decision(result, 'distributed')?.choice, 'ray');

  // Set-once status value wins over the estimator; transformers with count 2 gives independent replicas.
  const pinned = ok(buildWorkspace(ws, facts({ targetNodeCount: 4 })));
  assert.equal(pinned.objects.statefulSet.spec?.replicas, 4);
  const tf = ok(
    buildWorkspace(
      { ...ws, metadata: { ...ws.metadata, annotations: { 'kaito.sh/runtime': 'transformers' } }, resource: { ...ws.resource, count: 2 } },
      facts(),
    ),
  );
  assert.equal(tf.objects.statefulSet.spec?.replicas, 2);
  assert.ok(!command(tf.objects.statefulSet).startsWith('if '));
  assert.equal(decision(tf, 'distributed')?.choice, 'replicas');
});

test('services: pod-0 main Service (ClusterIP or LoadBalancer) and headless Service (§4.8)', () => {
  const cases: [Record<string, string> | undefined, string][] = [
    [undefined, 'ClusterIP'],
    [{ 'kaito.sh/enablelb': 'True' }, 'LoadBalancer'],
    [{ 'kaito.sh/enablelb': 'true' }, 'ClusterIP'],
  ];
  for (const [annotations, type] of cases) {
    const ws = presetWorkspace('phi-4-mini-instruct');
    ws.metadata.annotations = annotations;
    const { mainService, headlessService } = ok(buildWorkspace(ws, facts())).objects;
    assert.equal(mainService.spec?.type, type);
    assert.equal(mainService.metadata?.name, 'ws1');
    assert.deepEqual(mainService.spec?.selector, { 'kaito.sh/workspace': 'ws1', 'statefulset.kubernetes.io/pod-name': 'ws1-0' });
    assert.deepEqual(
      mainService.spec?.ports?.map((p) => [p.name, p.port, p.targetPort]),
      [
        ['http', 80, 5000],
        ['ray', 6379, 6379],
        ['dashboard', 8265, 8265],
      ],
    );
    assert.equal(mainService.spec?.publishNotReadyAddresses, true);
    assert.equal(headlessService.metadata?.name, 'ws1-headless');
    assert.equal(headlessService.spec?.clusterIP, 'None');
    assert.deepEqual(headlessService.spec?.selector, { 'kaito.sh/workspace': 'ws1' });
    assert.equal(headlessService.spec?.publishNotReadyAddresses, true);
    assert.equal(headlessService.metadata?.ownerReferences?.[0]?.uid, 'uid-1');
  }
});

test("services: KAITO v0.12's kv-events port on the main Service of catalog and Hugging Face ids, ClusterIP only", () => {
  const template: Workspace = {
    ...presetWorkspace('x'),
    inference: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  const lb = { 'kaito.sh/enablelb': 'True' };
  const cases: [string, Workspace, string[]][] = [
    ['catalog id, ClusterIP', presetWorkspace('microsoft/Phi-4-mini-instruct'), ['http', 'ray', 'dashboard', 'kv-events']],
    [
      'catalog id, LoadBalancer',
      { ...presetWorkspace('microsoft/Phi-4-mini-instruct'), metadata: { ...presetWorkspace('x').metadata, annotations: lb } },
      ['http', 'ray', 'dashboard'],
    ],
    [
      'catalog id, transformers runtime (no KV-cache events)',
      {
        ...presetWorkspace('Qwen/Qwen2.5-Coder-7B-Instruct'),
        metadata: { ...presetWorkspace('x').metadata, annotations: { 'kaito.sh/runtime': 'transformers' } },
      },
      ['http', 'ray', 'dashboard'],
    ],
    ['legacy name (KAITO v0.8.0)', presetWorkspace('phi-4-mini-instruct'), ['http', 'ray', 'dashboard']],
    ['template (KAITO v0.8.0)', template, ['http', 'ray', 'dashboard']],
  ];
  for (const [name, ws, ports] of cases) {
    const svc = ok(buildWorkspace(ws, facts())).objects.mainService;
    assert.deepEqual(
      svc.spec?.ports?.map((p) => p.name),
      ports,
      name,
    );
    if (ports.includes('kv-events')) assert.deepEqual(svc.spec?.ports?.at(-1), { name: 'kv-events', protocol: 'TCP', port: 5557, targetPort: 5557 }, name);
  }
});

test("tolerations: KAITO v0.12's Azure spot toleration for catalog and Hugging Face ids on Azure only", () => {
  const gpu = ['nvidia.com/gpu:Exists::NoSchedule', 'sku:Equal:gpu:NoSchedule'];
  const spot = 'kubernetes.azure.com/scalesetpriority:Equal:spot:NoSchedule';
  const cases: [string, Workspace, ClusterFacts['cloudProvider'], string[]][] = [
    ['catalog id, azure', presetWorkspace('microsoft/Phi-4-mini-instruct'), 'azure', [...gpu, spot]],
    ['catalog id, aws', presetWorkspace('microsoft/Phi-4-mini-instruct', 'g6.xlarge'), 'aws', gpu],
    ['catalog id, arc (KAITO checks CLOUD_PROVIDER=azure only)', byoWorkspace('microsoft/Phi-4-mini-instruct'), 'arc', gpu],
    ['legacy name, azure (KAITO v0.8.0)', presetWorkspace('phi-4-mini-instruct'), 'azure', gpu],
  ];
  for (const [name, ws, cloud, want] of cases) {
    const byo = !ws.resource.instanceType;
    const f = byo ? byoFacts({ cloudProvider: cloud, nodes: [gpuNode('n1', A10_NODE_LABELS)] }) : facts({ cloudProvider: cloud });
    const pod = ok(buildWorkspace(ws, f)).objects.statefulSet.spec?.template.spec;
    assert.deepEqual(
      pod?.tolerations?.map((t) => `${t.key}:${t.operator}:${t.value ?? ''}:${t.effect}`),
      want,
      name,
    );
  }
});

test("pinning to the provisioner's nodes: every workspace in Karpenter mode, catalog and Hugging Face ids only with gpu-provisioner", () => {
  const own = [{ key: 'kaito.sh/workspace', operator: 'In', values: ['ws1'] }];
  const karpenter: NodePinning = { own, unclaimedWithout: ['karpenter.sh/nodepool'] };
  const claims: NodePinning = { ...karpenter, v012Only: true };
  const template: Workspace = { ...presetWorkspace('x'), inference: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
  const cases: [string, Workspace, NodePinning, number][] = [
    ['catalog id, gpu-provisioner', presetWorkspace('microsoft/Phi-4-mini-instruct'), claims, 2],
    ['legacy name, gpu-provisioner (KAITO v0.8.0)', presetWorkspace('phi-4-mini-instruct'), claims, 1],
    ['template, gpu-provisioner (KAITO v0.8.0)', template, claims, 1],
    ['legacy name, Karpenter', presetWorkspace('phi-4-mini-instruct'), karpenter, 2],
    ['template, Karpenter', template, karpenter, 2],
  ];
  for (const [name, ws, pin, terms] of cases) {
    const pod = ok(buildWorkspace(ws, facts({ podNodePinning: pin }))).objects.statefulSet.spec?.template.spec;
    const got = pod?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    assert.equal(got?.length, terms, name);
    assert.equal(
      got?.[0]?.matchExpressions?.some((e) => e.key === 'kaito.sh/workspace'),
      terms === 2,
      name,
    );
  }
});

test('template workspace: user pod template as a StatefulSet (§5.13)', () => {
  const ws: Workspace = {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'custom', namespace: 'ns1', uid: 'u', labels: { 'inferenceset.kaito.sh/created-by': 'iset' } },
    resource: { count: 2, instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: 'custom' } } },
    inference: {
      template: {
        metadata: { labels: { app: 'mine' } },
        spec: {
          containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1000m' } }, bogus: true } as never],
          affinity: { podAntiAffinity: {} },
          tolerations: [{ key: 'mine', operator: 'Exists' }],
        },
      },
    },
  };
  const result = ok(buildWorkspace(ws, facts()));
  const s = result.objects.statefulSet;
  assert.equal(s.spec?.replicas, 2);
  assert.equal(s.spec?.serviceName, undefined);
  assert.equal(s.spec?.podManagementPolicy, undefined);
  // Unlike KAITO, the revision annotation: a converged template workspace is not re-applied.
  assert.deepEqual(s.metadata?.annotations, { 'workspace.kaito.io/revision': String(result.revision) });
  assert.deepEqual(result.droppedFields, ['spec.containers[0].bogus']);
  assert.match(result.decisions.find((d) => d.topic === 'templateFields')?.reason ?? '', /dropped: spec\.containers\[0\]\.bogus$/);
  assert.deepEqual(s.spec?.selector.matchLabels, { 'kaito.sh/workspace': 'custom', 'inferenceset.kaito.sh/created-by': 'iset' });
  assert.deepEqual(s.spec?.template.metadata?.labels, { app: 'mine', 'kaito.sh/workspace': 'custom', 'inferenceset.kaito.sh/created-by': 'iset' });
  assert.deepEqual(s.spec?.template.spec?.affinity, {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'apps', operator: 'In', values: ['custom'] }] }] },
    },
  });
  assert.deepEqual(
    s.spec?.template.spec?.tolerations?.map((t) => t.key),
    ['mine', 'nvidia.com/gpu', 'sku'],
  );
  // Go's decoding drops the unknown field (server-side apply would refuse it) and canonicalises quantities.
  assert.deepEqual(s.spec?.template.spec?.containers, [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1' } } }]);
  assert.equal(result.objects.configMap, undefined);
  assert.equal(result.objects.mainService.metadata?.name, 'custom');
  // The user's object is not mutated.
  assert.deepEqual(ws.inference?.template?.metadata?.labels, { app: 'mine' });
});

test('inference ConfigMap: user, existing default, copy from release namespace, built-in', () => {
  const template = {
    metadata: { name: 'inference-params-template', namespace: 'kaito-workspace', labels: { l: '1' }, uid: 'x', resourceVersion: '9' },
    data: { 'inference_config.yaml': 'vllm:\n  max-model-len: 4096\n' },
  };
  const copied = ok(buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts({ configMaps: [template] })));
  assert.deepEqual(copied.objects.configMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'inference-params-template',
      namespace: 'ns1',
      labels: { l: '1' },
      annotations: { 'kaito-ts/copied-from': 'default, copied from namespace kaito-workspace' },
    },
    data: template.data,
  });
  // Once the copy exists, the decision still says where it came from (a stable status).
  const again = ok(buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts({ configMaps: [template, copied.objects.configMap] })));
  assert.equal(decision(again, 'inferenceConfig')?.reason, decision(copied, 'inferenceConfig')?.reason);
  // Explicit max-model-len in the config is used for the flag (W13).
  assert.match(command(copied.objects.statefulSet), / --max-model-len=4096 /);

  const local = ok(
    buildWorkspace(
      presetWorkspace('phi-4-mini-instruct'),
      facts({ configMaps: [{ ...template, metadata: { name: 'inference-params-template', namespace: 'ns1' } }] }),
    ),
  );
  assert.equal(local.objects.configMap, undefined);

  const builtin = ok(buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts()));
  assert.match(builtin.objects.configMap?.data?.['inference_config.yaml'] ?? '', /swap-space: 4/);

  const user = presetWorkspace('phi-4-mini-instruct');
  user.inference = { ...user.inference, config: 'mine' };
  const missing = buildWorkspace(user, facts());
  assert.ok(!missing.ok);
  assert.deepEqual(missing.problems, [
    { field: 'inference.config', reason: 'ConfigMapNotFound', message: 'user specified ConfigMap mine not found in namespace ns1' },
  ]);
  const present = ok(
    buildWorkspace(user, facts({ configMaps: [{ metadata: { name: 'mine', namespace: 'ns1' }, data: { 'inference_config.yaml': 'vllm: {}\n' } }] })),
  );
  assert.equal(present.objects.statefulSet.spec?.template.spec?.volumes?.[0]?.configMap?.name, 'mine');
  assert.equal(present.objects.configMap, undefined);
});

test('problems instead of objects', () => {
  const falconSmall = presetWorkspace('falcon-7b', 'Standard_NC6s_v3');
  const cases: { name: string; ws: Workspace; facts: ClusterFacts; field: string; message: RegExp }[] = [
    {
      name: 'unknown preset',
      ws: presetWorkspace('phi-4-mini'),
      facts: facts(),
      field: 'inference.preset.name',
      message: /Unsupported inference preset name phi-4-mini; closest names: phi-4-mini-instruct, phi-4, /,
    },
    { name: 'deprecated preset', ws: presetWorkspace('phi-2'), facts: facts(), field: 'inference.preset.name', message: /Model phi-2 is deprecated/ },
    {
      name: 'unknown SKU',
      ws: presetWorkspace('phi-4', 'Standard_X1'),
      facts: facts(),
      field: 'resource.instanceType',
      message: /Unsupported SKU 'Standard_X1'/,
    },
    {
      name: 'SKU of another cloud',
      ws: presetWorkspace('phi-4', 'Standard_NC24ads_A100_v4'),
      facts: facts({ cloudProvider: 'aws' }),
      field: 'resource.instanceType',
      message: /cloud aws/,
    },
    {
      name: 'BYO without ready nodes',
      ws: byoWorkspace('phi-4'),
      facts: byoFacts({ nodes: [gpuNode('n1', A10_NODE_LABELS, false)] }),
      field: 'resource.labelSelector',
      message: /no ready nodes/,
    },
    {
      name: 'BYO node without GPU labels',
      ws: byoWorkspace('phi-4'),
      facts: byoFacts({ nodes: [gpuNode('n1', {})] }),
      field: 'resource.labelSelector',
      message: /missing required nvidia.com labels on node n1/,
    },
    {
      name: 'too little GPU memory (TP disabled)',
      ws: falconSmall,
      facts: facts(),
      field: 'resource',
      message: /failed to calculate target node count: GPU memory \d+ bytes is too small for model/,
    },
    {
      name: 'auth preset without secret',
      ws: presetWorkspace('llama-3.1-8b-instruct'),
      facts: facts(),
      field: 'inference.preset.presetOptions.modelAccessSecret',
      message: /requires authentication/,
    },
    {
      name: 'tuning',
      ws: { ...presetWorkspace('phi-4'), inference: undefined, tuning: { preset: { name: 'phi-4' } } },
      facts: facts(),
      field: 'tuning',
      message: /tuning workspaces are built by buildTuning/,
    },
  ];
  for (const c of cases) {
    const result = buildWorkspace(c.ws, c.facts);
    assert.ok(!result.ok, c.name);
    assert.equal(result.problems[0]?.field, c.field, c.name);
    assert.match(result.problems[0]?.message ?? '', c.message, c.name);
    assert.match(result.revisionHash, /^[0-9a-f]{64}$/);
  }
});

test('revision: from the workspace annotations when they describe this spec, else from existing revisions', () => {
  const ws = presetWorkspace('phi-4-mini-instruct');
  const first = ok(buildWorkspace(ws, facts()));
  assert.equal(first.revision, 1);
  assert.equal(first.objects.controllerRevision.metadata?.name, `ws1-${first.revisionHash.slice(0, 5)}`);
  const annotated = { ...ws, metadata: { ...ws.metadata, annotations: { 'workspace.kaito.io/revision': '7', 'workspace.kaito.io/hash': first.revisionHash } } };
  assert.equal(ok(buildWorkspace(annotated, facts())).objects.statefulSet.metadata?.annotations?.['workspace.kaito.io/revision'], '7');
  const stale = { ...ws, metadata: { ...ws.metadata, annotations: { 'workspace.kaito.io/revision': '7', 'workspace.kaito.io/hash': 'old' } } };
  const existing = [{ revision: 7, metadata: { annotations: { 'workspace.kaito.io/hash': 'old' } } }];
  assert.equal(ok(buildWorkspace(stale, facts({ controllerRevisions: existing }))).revision, 8);
});

test('deterministic output and no owner reference without a uid', () => {
  const ws = presetWorkspace('llama-3.3-70b-instruct');
  ws.inference = { preset: { name: 'llama-3.3-70b-instruct', presetOptions: { modelAccessSecret: 'hf' } } };
  ws.resource.labelSelector = { matchLabels: { z: '1', a: '2', m: '3' } };
  const a = JSON.stringify(objectList(ok(buildWorkspace(ws, facts())).objects));
  const b = JSON.stringify(objectList(ok(buildWorkspace(structuredClone(ws), facts())).objects));
  assert.equal(a, b);
  const s = ok(buildWorkspace(ws, facts())).objects.statefulSet;
  assert.deepEqual(
    s.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchExpressions?.map((e) => e.key),
    ['a', 'm', 'z'],
  );
  const noUid = ok(buildWorkspace({ ...ws, metadata: { name: 'ws1' } }, facts()));
  assert.equal(noUid.objects.statefulSet.metadata?.ownerReferences, undefined);
  assert.equal(noUid.objects.statefulSet.metadata?.namespace, 'default');
});

test('label selector: In expressions join the affinity (W25); none at all → no affinity', () => {
  const ws = presetWorkspace('phi-4-mini-instruct');
  ws.resource.labelSelector = { matchLabels: { a: '1' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] };
  const terms = sts(buildWorkspace(ws, facts())).spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  assert.deepEqual(terms, [
    {
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['1'] },
        { key: 'zone', operator: 'In', values: ['z1'] },
      ],
    },
  ]);
  ws.resource.labelSelector = {};
  assert.equal(sts(buildWorkspace(ws, facts())).spec?.template.spec?.affinity, undefined);
});

test('kept volume shape: the reason stays the original one, or says what a new StatefulSet would use', () => {
  const same = buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts({ volumeKindOverride: 'nvme' }));
  assert.match(decision(same, 'modelWeightsVolume')?.reason ?? '', /has local NVMe and StorageClass kaito-local-nvme-disk exists/);
  const changed = buildWorkspace(presetWorkspace('phi-4-mini-instruct'), facts({ volumeKindOverride: 'emptyDir' }));
  assert.match(decision(changed, 'modelWeightsVolume')?.reason ?? '', /kept from the existing StatefulSet .*a new StatefulSet would use nvme/);
});

test('startup probe (KAITO v0.10): /health every 10 s for the preset readiness timeout, liveness unchanged', () => {
  const cases: [preset: string, timeoutSeconds: number, failureThreshold: number][] = [
    ['phi-4-mini-instruct', 1800, 180],
    ['gemma-3-27b-instruct', 2700, 270],
  ];
  for (const [preset, timeoutSeconds, failureThreshold] of cases) {
    const ws = presetWorkspace(preset);
    ws.inference = { preset: { name: preset, presetOptions: { modelAccessSecret: 'hf' } } };
    const c = main(sts(buildWorkspace(ws, facts())));
    assert.deepEqual(c.startupProbe, { httpGet: { path: '/health', port: 5000 }, periodSeconds: 10, failureThreshold }, preset);
    assert.equal((c.startupProbe?.periodSeconds ?? 0) * (c.startupProbe?.failureThreshold ?? 0), timeoutSeconds, preset);
    assert.equal(c.livenessProbe?.initialDelaySeconds, 600, preset);
  }
});

test("an InferenceSet member: created-by on the selector and pod labels, served as the set's name (KAITO #2004); a MultiRoleInference member keeps the preset's", () => {
  const member = presetWorkspace('phi-4-mini-instruct');
  member.metadata.labels = { 'inferenceset.kaito.sh/created-by': 'chat' };
  const s = ok(buildWorkspace(member, facts())).objects.statefulSet;
  assert.equal(s.spec?.selector?.matchLabels?.['inferenceset.kaito.sh/created-by'], 'chat');
  assert.equal(s.spec?.template.metadata?.labels?.['inferenceset.kaito.sh/created-by'], 'chat');
  assert.match(command(s), / --served-model-name=chat /);
  member.metadata.labels['multiroleinference.kaito.sh/created-by'] = 'pd';
  assert.match(command(ok(buildWorkspace(member, facts())).objects.statefulSet), / --served-model-name=phi-4-mini-instruct /);
});
