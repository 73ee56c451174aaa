import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  configMapKeyProblem,
  dns1035LabelProblem,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  envVarNameProblem,
  labelValueProblem,
  portNameProblem,
  qualifiedNameProblem,
} from '../../../src/api/k8s-names.js';
import { ANNOTATIONS_MAX_BYTES, objectMetaErrors } from '../../../src/api/object-meta.js';
import {
  admissionProblem,
  childWorkspacesToCheck,
  documentAdmissionProblem,
  OFFLINE_OWNER_UID,
  printedObjectsProblem,
  withOwnerUids,
} from '../../../src/api/render-admission.js';
import { CONFIG_MAP_MAX_BYTES, workloadErrors } from '../../../src/api/workload-admission.js';

type Doc = Record<string, unknown>;

test('names and values: accepted and refused as apimachinery does', () => {
  const table: [string, (v: string) => string | undefined, string[], [string, RegExp][]][] = [
    [
      'DNS-1123 label',
      dns1123LabelProblem,
      ['a', '1a', 'a-b', 'a'.repeat(63)],
      [
        ['A', /lowercase RFC 1123 label/],
        ['a.b', /label/],
        ['a'.repeat(64), /no more than 63/],
        ['-a', /label/],
      ],
    ],
    [
      'DNS-1123 subdomain',
      dns1123SubdomainProblem,
      ['a.b', 'a-1.b', 'a'.repeat(253)],
      [
        ['A.b', /subdomain/],
        ['a..b', /subdomain/],
        ['a'.repeat(254), /no more than 253/],
      ],
    ],
    [
      'DNS-1035 label',
      dns1035LabelProblem,
      ['a1', 'a-b'],
      [
        ['1a', /start with an alphabetic/],
        ['a-', /DNS-1035/],
      ],
    ],
    [
      'qualified name',
      qualifiedNameProblem,
      ['a', 'A_b.c', 'example.com/Team', 'k'.repeat(63)],
      [
        ['a/b/c', /qualified name/],
        ['/a', /prefix part must be non-empty/],
        ['Example.com/a', /prefix part/],
        ['k'.repeat(64), /name part must be no more than 63/],
        ['a b', /name part must consist/],
      ],
    ],
    [
      'label value',
      labelValueProblem,
      ['', 'a', 'A.b_c-D', 'v'.repeat(63)],
      [
        ['v'.repeat(64), /no more than 63/],
        ['a b', /valid label/],
        ['ml-', /valid label/],
      ],
    ],
    [
      'port name',
      portNameProblem,
      ['http', 'http-2'],
      [
        ['a-very-long-port-name', /no more than 15/],
        ['80', /at least one letter/],
        ['a--b', /consecutive/],
        ['HTTP', /alpha-numeric/],
      ],
    ],
    [
      'config key',
      configMapKeyProblem,
      ['a.yaml', 'A_b-c'],
      [
        ['..a', /must not be/],
        ['a/b', /valid config key/],
      ],
    ],
    [
      'env name',
      envVarNameProblem,
      ['A', 'my.var', '1A'],
      [
        ['A=B', /other than '='/],
        ['', /Required/],
        ['é', /printable ASCII/],
      ],
    ],
  ];
  for (const [what, check, good, bad] of table) {
    for (const v of good) assert.equal(check(v), undefined, `${what}: ${v}`);
    for (const [v, want] of bad) assert.match(check(v) ?? 'accepted', want, `${what}: ${v}`);
  }
});

test('object metadata: fields, types, names, labels, annotations, owners', () => {
  const opts = { nameRule: 'dns1123Subdomain' as const, namespaced: true };
  const good: Doc[] = [
    { name: 'a.b' },
    { generateName: 'a-' },
    { name: 'a', namespace: 'ns', labels: { a: '', 'x.io/b': 'B_1' }, annotations: { 'X.io/Any': 'x'.repeat(1000) }, creationTimestamp: null },
    { name: 'a', annotations: { a: 'x'.repeat(ANNOTATIONS_MAX_BYTES - 1) } },
    { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u' }], finalizers: ['kaito.sh/x'] },
  ];
  for (const meta of good) assert.deepEqual(objectMetaErrors(meta, opts), [], JSON.stringify(meta).slice(0, 80));
  const bad: [unknown, string, RegExp][] = [
    ['x', 'metadata', /must be an object/],
    [{}, 'metadata.name', /name or generateName is required/],
    [{ name: 'A' }, 'metadata.name', /subdomain/],
    [{ generateName: 'Abc-' }, 'metadata.generateName', /subdomain/],
    [{ name: 'a', colour: 'blue' }, 'metadata.colour', /not declared/],
    [{ name: 'a', labels: { v: 2 } }, 'metadata.labels', /must be a string/],
    [{ name: 'a', labels: 'x' }, 'metadata.labels', /map of strings/],
    [{ name: 'a', namespace: 'Ns' }, 'metadata.namespace', /label/],
    [{ name: 'a', labels: { v: 'a b' } }, 'metadata.labels[v]', /valid label/],
    [{ name: 'a', annotations: { 'a b': 'x' } }, 'metadata.annotations', /name part/],
    [{ name: 'a', annotations: { a: 'x'.repeat(ANNOTATIONS_MAX_BYTES) } }, 'metadata.annotations', /262144 bytes/],
    [{ name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n' }] }, 'metadata.ownerReferences[0].uid', /Required/],
    [{ name: 'a', finalizers: ['a/b/c'] }, 'metadata.finalizers[0]', /qualified name/],
  ];
  for (const [meta, field, want] of bad) {
    const [first] = objectMetaErrors(meta, opts);
    assert.equal(first?.field, field, JSON.stringify(meta).slice(0, 80));
    assert.match(first.message, want, field);
  }
  assert.match(objectMetaErrors({ name: '1a' }, { nameRule: 'dns1035Label', namespaced: true })[0]?.message ?? '', /DNS-1035/);
});

const container = (o: Doc = {}): Doc => ({ name: 'c', image: 'nginx', ...o });
const sts = (spec: Doc, meta: Doc = {}): Doc => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'w', namespace: 'ns', ...meta },
  spec: { selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [container()], ...spec } } },
});

test('printed objects: what kube-apiserver refuses in a StatefulSet, Job, Service and ConfigMap', () => {
  const good: Doc[] = [
    sts({}),
    sts({ containers: [container({ image: 'nginx:1.27 ' })] }),
    { apiVersion: 'v1', kind: 'Service', metadata: { name: '1edge' }, spec: { ports: [{ port: 80 }] } },
    sts({
      containers: [
        container({ resources: { limits: { cpu: '1.5', memory: '0.5Gi', 'nvidia.com/gpu': 2 }, requests: { cpu: '500m', 'nvidia.com/gpu': '2' } } }),
      ],
    }),
    sts({
      containers: [
        container({ ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'my.var', value: '1' }], volumeMounts: [{ name: 'd', mountPath: '/d' }] }),
      ],
      volumes: [{ name: 'd', emptyDir: {} }],
    }),
    { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container()] } } } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'w-headless' },
      spec: {
        selector: { app: 'w' },
        ports: [
          { name: 'http', port: 80 },
          { name: 'r', port: 29500 },
        ],
      },
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'inference_config.yaml': 'x' } },
    { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'w-abcde' }, revision: 1 },
  ];
  for (const o of good) assert.deepEqual(workloadErrors(o), [], `${String(o.kind)} ${JSON.stringify(o.spec ?? {}).slice(0, 60)}`);
  const bad: [string, Doc, string, RegExp][] = [
    ['restartPolicy Never', sts({ restartPolicy: 'Never' }), 'spec.template.spec.restartPolicy', /supported values: "Always"/],
    ['no containers', sts({ containers: [] }), 'spec.template.spec.containers', /Required/],
    ['no image', sts({ containers: [container({ image: '' })] }), 'spec.template.spec.containers[0].image', /Required/],
    ['twin containers', sts({ containers: [container(), container()] }), 'spec.template.spec.containers[1].name', /Duplicate/],
    ['init container twin', sts({ initContainers: [container()] }), 'spec.template.spec.containers[0].name', /Duplicate/],
    ['container name with a dot', sts({ containers: [container({ name: 'puller-a.b' })] }), 'spec.template.spec.containers[0].name', /label/],
    [
      'port 70000',
      sts({ containers: [container({ ports: [{ containerPort: 70000 }] })] }),
      'spec.template.spec.containers[0].ports[0].containerPort',
      /between 1 and 65535/,
    ],
    [
      'bad protocol',
      sts({ containers: [container({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] }),
      'spec.template.spec.containers[0].ports[0].protocol',
      /supported values/,
    ],
    [
      'twin port names',
      sts({
        containers: [
          container({
            ports: [
              { containerPort: 80, name: 'h' },
              { containerPort: 81, name: 'h' },
            ],
          }),
        ],
      }),
      'spec.template.spec.containers[0].ports[1].name',
      /Duplicate/,
    ],
    ['env name with =', sts({ containers: [container({ env: [{ name: 'A=B' }] })] }), 'spec.template.spec.containers[0].env[0].name', /'='/],
    [
      'quantity 1Gix',
      sts({ containers: [container({ resources: { limits: { memory: '1Gix' } } })] }),
      'spec.template.spec.containers[0].resources.limits[memory]',
      /quantities must match/,
    ],
    [
      'negative cpu',
      sts({ containers: [container({ resources: { requests: { cpu: '-1' } } })] }),
      'spec.template.spec.containers[0].resources.requests[cpu]',
      /greater than or equal to 0/,
    ],
    [
      'gpu 1.5',
      sts({ containers: [container({ resources: { limits: { 'nvidia.com/gpu': '1.5' } } })] }),
      'spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]',
      /integer/,
    ],
    [
      'gpu request only',
      sts({ containers: [container({ resources: { requests: { 'nvidia.com/gpu': '1' } } })] }),
      'spec.template.spec.containers[0].resources.limits',
      /non overcommitable/,
    ],
    [
      'gpu request below limit',
      sts({ containers: [container({ resources: { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '2' } } })] }),
      'spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]',
      /equal to/,
    ],
    [
      'memory request above limit',
      sts({ containers: [container({ resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } })] }),
      'spec.template.spec.containers[0].resources.requests[memory]',
      /less than or equal/,
    ],
    [
      'resource gpu',
      sts({ containers: [container({ resources: { limits: { gpu: '1' } } })] }),
      'spec.template.spec.containers[0].resources.limits[gpu]',
      /standard resource/,
    ],
    [
      'mount of no volume',
      sts({ containers: [container({ volumeMounts: [{ name: 'd', mountPath: '/d' }] })] }),
      'spec.template.spec.containers[0].volumeMounts[0].name',
      /Not found/,
    ],
    [
      'twin volumes',
      sts({
        volumes: [
          { name: 'd', emptyDir: {} },
          { name: 'd', emptyDir: {} },
        ],
      }),
      'spec.template.spec.volumes[1].name',
      /Duplicate/,
    ],
    [
      'pod label',
      { ...sts({}), spec: { ...(sts({}).spec as Doc), template: { metadata: { labels: { app: 'w', t: 'a b' } }, spec: { containers: [container()] } } } },
      'spec.template.metadata.labels[t]',
      /valid label/,
    ],
    [
      'selector mismatch',
      { ...sts({}), spec: { ...(sts({}).spec as Doc), selector: { matchLabels: { app: 'x' } } } },
      'spec.template.metadata.labels',
      /does not match/,
    ],
    ['workspace label too long', sts({}, { labels: { team: 'v'.repeat(64) } }), 'metadata.labels[team]', /no more than 63/],
    [
      'job restartPolicy Always',
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { containers: [container()] } } } },
      'spec.template.spec.restartPolicy',
      /OnFailure/,
    ],
    ['service name a.b', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a.b' }, spec: { ports: [{ port: 80 }] } }, 'metadata.name', /RFC 1123 label/],
    [
      'service unnamed ports',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { ports: [{ port: 80 }, { port: 81 }] } },
      'spec.ports[0].name',
      /Required/,
    ],
    ['configmap key', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'a/b': 'x' } }, 'data[a/b]', /config key/],
    [
      'configmap too big',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'x'.repeat(CONFIG_MAP_MAX_BYTES + 1) } },
      'data',
      /1048576 bytes/,
    ],
  ];
  for (const [label, o, field, want] of bad) {
    const [first] = workloadErrors(o);
    assert.equal(first?.field, field, `${label}: ${JSON.stringify(workloadErrors(o))}`);
    assert.match(first.message, want, label);
  }
});

const child = (labels: Doc = {}): Doc => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: {
    generateName: 's-',
    namespace: 'ns',
    labels,
    ownerReferences: [{ apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', name: 's', uid: '', controller: true }],
  },
  resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { a: 'b' } } },
  inference: { preset: { name: 'phi-4-mini-instruct' } },
});

test("render's lines: the document, the objects it prints, an InferenceSet's children", () => {
  const ws = child();
  assert.equal(admissionProblem({ ...ws, metadata: { name: 'w' } }, 'workspace ns/w'), undefined);
  assert.equal(
    admissionProblem({ ...ws, metadata: { name: 'W' } }, 'workspace ns/W'),
    'workspace ns/W: refused by the API server: metadata.name: Invalid value: "W": ' +
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  );
  assert.equal(documentAdmissionProblem({ kind: 'ConfigMap' }), undefined, 'other kinds are not checked');
  assert.match(
    documentAdmissionProblem({ ...ws, metadata: { generateName: 'a-' } }) ?? '',
    /^workspace default\/<no name>: refused by the API server: metadata\.name: Required value/,
  );
  // The owner's UID is the operator's to write: a child without one is not refused offline.
  assert.equal(printedObjectsProblem([child()], 'inferenceset ns/s'), undefined);
  assert.equal((withOwnerUids(child()).metadata as { ownerReferences: { uid: string }[] }).ownerReferences[0]!.uid, OFFLINE_OWNER_UID);
  assert.match(
    printedObjectsProblem([child({ team: 'a b' })], 'inferenceset ns/s') ?? '',
    /^inferenceset ns\/s: the API server would refuse Workspace ns\/s-<generated>: metadata\.labels\[team\]: /,
  );
  const [parsed] = childWorkspacesToCheck([child()]);
  assert.equal(parsed?.metadata.name, 's-xxxxx');
  assert.equal(parsed?.inference?.preset?.accessMode, 'public', 'CRD defaults applied');
  const hub = { ...child(), inference: { preset: { name: 'org/model-outside-the-catalog' } } };
  assert.deepEqual(childWorkspacesToCheck([hub]), [], 'a Hugging Face id is left to the hub');
});
