// Hand-written Workspaces and InferenceSets at the edges of what the API server accepts: the mistakes
// `render` used to print objects for, names and label values at their length limits, image references,
// quantities, both apiVersions, unknown fields. No expected answer here: the corpus test compares
// render's answer with the API server's on each.
type Doc = Record<string, unknown>;

const A100 = 'Standard_NC24ads_A100_v4';
const selector = { matchLabels: { apps: 'edge' } };
const nginx = { name: 'server', image: 'nginx:1.27' };
const DIGEST = 'sha256:' + 'a'.repeat(64);

const meta = (name: string, extra: Doc = {}): Doc => ({ name, ...extra });
const template = (containers: Doc[], spec: Doc = {}): Doc => ({ template: { spec: { containers, ...spec } } });

/** A template workspace on BYO nodes (the render case runs with the BYO gate when there is no instanceType). */
export function templateWorkspace(o: { name?: string; metadata?: Doc; containers?: Doc[]; spec?: Doc; apiVersion?: string; extra?: Doc } = {}): Doc {
  return {
    apiVersion: o.apiVersion ?? 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: meta(o.name ?? 'edge', o.metadata),
    resource: { labelSelector: selector },
    inference: template(o.containers ?? [nginx], o.spec),
    ...o.extra,
  };
}

/** A preset workspace under node auto-provisioning. */
export function presetWorkspace(o: { name?: string; metadata?: Doc; inference?: Doc; apiVersion?: string; resource?: Doc; extra?: Doc } = {}): Doc {
  return {
    apiVersion: o.apiVersion ?? 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: meta(o.name ?? 'edge-preset', o.metadata),
    resource: { instanceType: A100, labelSelector: selector, ...o.resource },
    inference: { preset: { name: 'phi-4-mini-instruct' }, ...o.inference },
    ...o.extra,
  };
}

function tuningWorkspace(o: { input?: Doc; output?: Doc; method?: string; extra?: Doc } = {}): Doc {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'edge-tuning' },
    resource: { instanceType: A100, labelSelector: selector },
    tuning: {
      preset: { name: 'phi-3-mini-4k-instruct' },
      method: o.method ?? 'qlora',
      input: o.input ?? { urls: ['https://example.com/data.parquet'] },
      output: o.output ?? { image: 'registry.example.com/out/adapter:1', imagePushSecret: 'push' },
    },
    ...o.extra,
  };
}

function inferenceSet(o: { name?: string; apiVersion?: string; spec?: Doc; template?: Doc; preset?: string; instanceType?: string } = {}): Doc {
  return {
    apiVersion: o.apiVersion ?? 'kaito.sh/v1beta1',
    kind: 'InferenceSet',
    metadata: { name: o.name ?? 'edge-set' },
    spec: {
      replicas: 1,
      labelSelector: selector,
      template: {
        resource: { instanceType: o.instanceType ?? A100 },
        inference: { preset: { name: o.preset ?? 'phi-4-mini-instruct' } },
        ...o.template,
      },
      ...o.spec,
    },
  };
}

const adapter = (name: string, image = 'registry.example.com/adapters/a:1', strength?: string): Doc => ({
  source: { name, image },
  ...(strength !== undefined ? { strength } : {}),
});

export function edgeCases(): { label: string; doc: Doc }[] {
  const cases: [string, Doc][] = [
    // The mistakes of issue #36.
    ['inference and tuning', presetWorkspace({ extra: { tuning: tuningWorkspace().tuning } })],
    ['preset and template', presetWorkspace({ inference: { template: { spec: { containers: [nginx] } } } })],
    ['neither preset nor template', presetWorkspace({ inference: { preset: undefined, config: 'x' } })],
    ['duplicate adapter names', presetWorkspace({ inference: { adapters: [adapter('a'), adapter('a', 'registry.example.com/adapters/b:1')] } })],
    ['distinct adapter names', presetWorkspace({ inference: { adapters: [adapter('a'), adapter('b')] } })],
    ['adapter name with a dot', presetWorkspace({ inference: { adapters: [adapter('my.adapter')] } })],
    ['adapter strength 1.5', presetWorkspace({ inference: { adapters: [adapter('a', undefined, '1.5')] } })],
    ['adapter strength not a number', presetWorkspace({ inference: { adapters: [adapter('a', undefined, 'high')] } })],
    ['adapter image upper case', presetWorkspace({ inference: { adapters: [adapter('a', 'Registry.Example.com/Adapters/A:1')] } })],
    ['adapter without image', presetWorkspace({ inference: { adapters: [{ source: { name: 'a' } }] } })],
    ['InferenceSet with unknown preset', inferenceSet({ preset: 'no-such-model' })],
    ['InferenceSet with unknown SKU', inferenceSet({ instanceType: 'Standard_Nothing_v9' })],
    ['InferenceSet good', inferenceSet()],
    ['InferenceSet v1alpha1', inferenceSet({ apiVersion: 'kaito.sh/v1alpha1' })],
    ['InferenceSet name 46', inferenceSet({ name: 's'.repeat(46) })],
    ['InferenceSet name 47', inferenceSet({ name: 's'.repeat(47) })],
    ['InferenceSet negative replicas', inferenceSet({ spec: { replicas: -1 } })],
    ['InferenceSet bad child label', inferenceSet({ template: { metadata: { labels: { team: 'a b' } } } })],
    ['InferenceSet good child label', inferenceSet({ template: { metadata: { labels: { team: 'ml' } } } })],
    ['InferenceSet bad child annotation key', inferenceSet({ template: { metadata: { annotations: { 'a b': 'x' } } } })],
    ['InferenceSet replicas 2^31', inferenceSet({ spec: { replicas: 2 ** 31 } })],
    ['InferenceSet empty labelSelector', inferenceSet({ spec: { labelSelector: {} } })],
    ['InferenceSet without instanceType', inferenceSet({ template: { resource: {} } })],
    [
      'InferenceSet preset and template',
      inferenceSet({ template: { inference: { preset: { name: 'phi-4-mini-instruct' }, template: { spec: { containers: [nginx] } } } } }),
    ],
    ['InferenceSet bad cron', inferenceSet({ spec: { autoUpgrade: { maintenanceWindow: { schedule: '* * *' } } } })],
    ['InferenceSet good cron', inferenceSet({ spec: { autoUpgrade: { maintenanceWindow: { schedule: '0 2 * * 6', duration: '3h30m' } } } })],
    ['InferenceSet zero duration', inferenceSet({ spec: { autoUpgrade: { maintenanceWindow: { schedule: '@daily', duration: '0s' } } } })],
    ['InferenceSet unknown field', inferenceSet({ spec: { replicaz: 2 } })],
    // Object names.
    ['name 52 characters', templateWorkspace({ name: 'n'.repeat(52) })],
    ['name 53 characters', templateWorkspace({ name: 'n'.repeat(53) })],
    ['name upper case', templateWorkspace({ name: 'Edge' })],
    ['name with a dot', templateWorkspace({ name: 'edge.one' })],
    ['name with a leading digit', templateWorkspace({ name: '1edge' })],
    ['name with a trailing dash', templateWorkspace({ name: 'edge-' })],
    ['no name', templateWorkspace({ metadata: { name: undefined, generateName: 'edge-' } })],
    // Labels and annotations.
    ['label value 63', templateWorkspace({ metadata: { labels: { team: 'v'.repeat(63) } } })],
    ['label value 64', templateWorkspace({ metadata: { labels: { team: 'v'.repeat(64) } } })],
    ['label value empty', templateWorkspace({ metadata: { labels: { team: '' } } })],
    ['label value with a space', templateWorkspace({ metadata: { labels: { team: 'a b' } } })],
    ['label value with dots and underscores', templateWorkspace({ metadata: { labels: { team: 'A.b_c-D' } } })],
    ['label value ends with a dash', templateWorkspace({ metadata: { labels: { team: 'ml-' } } })],
    ['label value a number', templateWorkspace({ metadata: { labels: { version: 2 } } })],
    ['label key with prefix', templateWorkspace({ metadata: { labels: { 'example.com/team': 'ml' } } })],
    ['label key two slashes', templateWorkspace({ metadata: { labels: { 'a/b/c': 'ml' } } })],
    ['label key name 64', templateWorkspace({ metadata: { labels: { ['k'.repeat(64)]: 'ml' } } })],
    ['label key upper-case prefix', templateWorkspace({ metadata: { labels: { 'Example.com/team': 'ml' } } })],
    ['annotation key upper-case prefix', templateWorkspace({ metadata: { annotations: { 'Example.com/Team': 'ml' } } })],
    ['annotation key with a space', templateWorkspace({ metadata: { annotations: { 'team name': 'ml' } } })],
    ['annotations of 256 KiB', templateWorkspace({ metadata: { annotations: { big: 'x'.repeat(256 * 1024 - 3) } } })],
    ['annotations over 256 KiB', templateWorkspace({ metadata: { annotations: { big: 'x'.repeat(256 * 1024) } } })],
    ['unknown metadata field', templateWorkspace({ metadata: { colour: 'blue' } })],
    ['resourceVersion set', templateWorkspace({ metadata: { resourceVersion: '12345' } })],
    ['uid set', templateWorkspace({ metadata: { uid: '6d2b7f4e-0000-4000-8000-000000000001' } })],
    ['creationTimestamp not a time', templateWorkspace({ metadata: { creationTimestamp: 'yesterday' } })],
    ['creationTimestamp a time', templateWorkspace({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z' } })],
    ['finalizer without a domain', templateWorkspace({ metadata: { finalizers: ['keep'] } })],
    ['generation negative', templateWorkspace({ metadata: { generation: -1 } })],
    // Image references (tuning: a CEL rule; templates: only what the StatefulSet's validation checks).
    ['tuning input image with port and digest', tuningWorkspace({ input: { image: `localhost:5000/data/set@${DIGEST}` } })],
    ['tuning input image with tag and digest', tuningWorkspace({ input: { image: `registry.example.com/data:v1@${DIGEST}` } })],
    ['tuning input image upper-case repository', tuningWorkspace({ input: { image: 'registry.example.com/Data:v1' } })],
    ['tuning input image upper-case registry', tuningWorkspace({ input: { image: 'Registry.Example.com/data:v1' } })],
    ['tuning input image short digest', tuningWorkspace({ input: { image: 'registry.example.com/data@sha256:abc' } })],
    ['tuning output image with space', tuningWorkspace({ output: { image: 'registry.example.com/out adapter:1', imagePushSecret: 'push' } })],
    ['tuning output image without push secret', tuningWorkspace({ output: { image: 'registry.example.com/out:1' } })],
    ['tuning method LoRA', tuningWorkspace({ method: 'LoRA' })],
    ['tuning method bad', tuningWorkspace({ method: 'full' })],
    ['tuning multi-node', tuningWorkspace({ extra: { resource: { instanceType: A100, labelSelector: selector, count: 2 } } })],
    ['template image with digest', templateWorkspace({ containers: [{ name: 'server', image: `nginx@${DIGEST}` }] })],
    ['template image upper case', templateWorkspace({ containers: [{ name: 'server', image: 'NGINX:Latest' }] })],
    ['template image trailing space', templateWorkspace({ containers: [{ name: 'server', image: 'nginx:1.27 ' }] })],
    ['template image empty', templateWorkspace({ containers: [{ name: 'server', image: '' }] })],
    // Quantities.
    ['template cpu 1.5 and memory 0.5Gi', templateWorkspace({ containers: [{ ...nginx, resources: { limits: { cpu: '1.5', memory: '0.5Gi' } } }] })],
    ['template memory 1Gix', templateWorkspace({ containers: [{ ...nginx, resources: { limits: { memory: '1Gix' } } }] })],
    ['template cpu negative', templateWorkspace({ containers: [{ ...nginx, resources: { requests: { cpu: '-1' } } }] })],
    ['template gpu 1.5', templateWorkspace({ containers: [{ ...nginx, resources: { limits: { 'nvidia.com/gpu': '1.5' } } }] })],
    ['template gpu 2', templateWorkspace({ containers: [{ ...nginx, resources: { limits: { 'nvidia.com/gpu': 2 } } }] })],
    ['template gpu request without limit', templateWorkspace({ containers: [{ ...nginx, resources: { requests: { 'nvidia.com/gpu': 1 } } }] })],
    ['template request above limit', templateWorkspace({ containers: [{ ...nginx, resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } }] })],
    ['template resource name gpu', templateWorkspace({ containers: [{ ...nginx, resources: { limits: { gpu: '1' } } }] })],
    ['template memory 1e3', templateWorkspace({ containers: [{ ...nginx, resources: { limits: { memory: '1e3' } } }] })],
    // Other pod template mistakes the Workspace CRD keeps as-is.
    ['template restartPolicy Never', templateWorkspace({ spec: { restartPolicy: 'Never' } })],
    ['template two containers one name', templateWorkspace({ containers: [nginx, nginx] })],
    ['template container name upper case', templateWorkspace({ containers: [{ ...nginx, name: 'Server' }] })],
    ['template port 0', templateWorkspace({ containers: [{ ...nginx, ports: [{ containerPort: 0 }] }] })],
    ['template port name too long', templateWorkspace({ containers: [{ ...nginx, ports: [{ containerPort: 80, name: 'a-very-long-port-name' }] }] })],
    ['template env name with =', templateWorkspace({ containers: [{ ...nginx, env: [{ name: 'A=B', value: '1' }] }] })],
    ['template env name with a dot', templateWorkspace({ containers: [{ ...nginx, env: [{ name: 'my.var', value: '1' }] }] })],
    ['template mount of a missing volume', templateWorkspace({ containers: [{ ...nginx, volumeMounts: [{ name: 'data', mountPath: '/data' }] }] })],
    [
      'template mount of a volume',
      templateWorkspace({
        containers: [{ ...nginx, volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        spec: { volumes: [{ name: 'data', emptyDir: {} }] },
      }),
    ],
    ['template unknown container field', templateWorkspace({ containers: [{ ...nginx, warmup: true }] })],
    ['template imagePullPolicy Sometimes', templateWorkspace({ containers: [{ ...nginx, imagePullPolicy: 'Sometimes' }] })],
    ['template dnsPolicy Nowhere', templateWorkspace({ spec: { dnsPolicy: 'Nowhere' } })],
    ['template volume with two sources', templateWorkspace({ spec: { volumes: [{ name: 'd', emptyDir: {}, hostPath: { path: '/x' } }] } })],
    ['template volume without a source', templateWorkspace({ spec: { volumes: [{ name: 'd' }] } })],
    ['template runAsUser negative', templateWorkspace({ containers: [{ ...nginx, securityContext: { runAsUser: -1 } }] })],
    [
      'template env valueFrom with two sources',
      templateWorkspace({
        containers: [{ ...nginx, env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, configMapKeyRef: { name: 'c', key: 'k' } } }] }],
      }),
    ],
    [
      'template env value and valueFrom',
      templateWorkspace({ containers: [{ ...nginx, env: [{ name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] }),
    ],
    ['template probe without a handler', templateWorkspace({ containers: [{ ...nginx, readinessProbe: { periodSeconds: 5 } }] })],
    ['template probe port 0', templateWorkspace({ containers: [{ ...nginx, readinessProbe: { httpGet: { port: 0 } } }] })],
    ['template terminationGracePeriodSeconds negative', templateWorkspace({ spec: { terminationGracePeriodSeconds: -5 } })],
    ['template nodeSelector bad value', templateWorkspace({ spec: { nodeSelector: { zone: 'a b' } } })],
    ['template toleration bad operator', templateWorkspace({ spec: { tolerations: [{ key: 'k', operator: 'Maybe' }] } })],
    [
      'template pod label bad value',
      templateWorkspace({ extra: { inference: { template: { metadata: { labels: { tier: 'a b' } }, spec: { containers: [nginx] } } } } }),
    ],
    // Fields and types.
    ['unknown top-level field', templateWorkspace({ extra: { spec: {} } })],
    ['unknown inference field', presetWorkspace({ inference: { replicas: 2 } })],
    ['unknown preset field', presetWorkspace({ inference: { preset: { name: 'phi-4-mini-instruct', version: '1' } } })],
    ['count 0', presetWorkspace({ resource: { count: 0 } })],
    ['count 257', presetWorkspace({ resource: { count: 257 } })],
    ['count a string', presetWorkspace({ resource: { count: 'two' } })],
    ['count 1.5', presetWorkspace({ resource: { count: 1.5 } })],
    ['count null', presetWorkspace({ resource: { count: null } })],
    ['presetOptions null', presetWorkspace({ inference: { preset: { name: 'phi-4-mini-instruct', presetOptions: null } } })],
    ['adapters null', presetWorkspace({ inference: { adapters: null } })],
    ['adapter null', presetWorkspace({ inference: { adapters: [null] } })],
    ['labels null', templateWorkspace({ metadata: { labels: null } })],
    ['label value null', templateWorkspace({ metadata: { labels: { team: null } } })],
    ['annotation value a number', templateWorkspace({ metadata: { annotations: { team: 1 } } })],
    ['instanceType empty', presetWorkspace({ resource: { instanceType: '' } })],
    ['template spec null', templateWorkspace({ extra: { inference: { template: { spec: null } } } })],
    ['status is ignored', presetWorkspace({ extra: { status: { workerNodes: ['n1'] } } })],
    ['status without the required fields of a condition', presetWorkspace({ extra: { status: { conditions: [{ type: 'A' }] } } })],
    ['status with an unknown field', presetWorkspace({ extra: { status: { colour: 'blue' } } })],
    ['status of the wrong type', presetWorkspace({ extra: { status: { workerNodes: 'n1' } } })],
    ['InferenceSet status with an unknown field', { ...inferenceSet(), status: { colour: 'blue' } }],
    [
      'labelSelector with NotIn',
      templateWorkspace({ extra: { resource: { labelSelector: { matchExpressions: [{ key: 'apps', operator: 'NotIn', values: ['x'] }] } } } }),
    ],
    [
      'labelSelector with In of one',
      templateWorkspace({ extra: { resource: { labelSelector: { matchExpressions: [{ key: 'apps', operator: 'In', values: ['edge'] }] } } } }),
    ],
    // apiVersions.
    ['v1alpha1 preset', presetWorkspace({ apiVersion: 'kaito.sh/v1alpha1' })],
    ['v1alpha1 template', templateWorkspace({ apiVersion: 'kaito.sh/v1alpha1' })],
    [
      'v1alpha1 preset with presetOptions.image',
      presetWorkspace({ apiVersion: 'kaito.sh/v1alpha1', inference: { preset: { name: 'phi-4-mini-instruct', presetOptions: { image: 'x/y:1' } } } }),
    ],
    [
      'v1beta1 modelAccessSecret on v1alpha1',
      presetWorkspace({ apiVersion: 'kaito.sh/v1alpha1', inference: { preset: { name: 'phi-4-mini-instruct', presetOptions: { modelAccessSecret: 's' } } } }),
    ],
    ['apiVersion kaito.sh/v1', templateWorkspace({ apiVersion: 'kaito.sh/v1' })],
  ];
  return cases.map(([label, doc]) => ({ label, doc: JSON.parse(JSON.stringify(doc)) as Doc }));
}
