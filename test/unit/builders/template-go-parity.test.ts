import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeGo } from '../../../src/builders/gojson/encode.js';
import { pruneToGoType } from '../../../src/builders/gojson/prune.js';

// `go` is what Go writes for the template after decoding it into corev1.PodTemplateSpec from
// k8s.io/api v0.34.1 (KAITO v0.8.0's pin): json.Unmarshal then json.Marshal, run with `go run`
// (Go 1.26) over these exact templates. It is the template part of KAITO's spec hash input.
const cases: { name: string; template: Record<string, unknown>; go: string; dropped: string[] }[] = [
  {
    name: 'unknown container field dropped; zero creationTimestamp omitted (omitzero); resources {}',
    template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], bogus: 1 }] } },
    go: '{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],"resources":{}}]}}',
    dropped: ['spec.containers[0].bogus'],
  },
  {
    name: 'quantities canonical (1000m\u21921, 0.5Gi\u2192512Mi, 1.5\u21921500m, 2048Mi\u21922Gi, number 1\u2192"1"), divisor "0", IntOrString ports, HTML escaping, fields newer than v1.34 dropped',
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'vllm' }, annotations: { a: '<b>&' } },
      spec: {
        containers: [
          {
            name: 'vllm',
            image: 'vllm/vllm-openai:v0.9.0',
            command: ['vllm', 'serve'],
            resources: { limits: { 'nvidia.com/gpu': 1, cpu: '1000m', memory: '0.5Gi' }, requests: { cpu: 1.5, memory: '2048Mi', 'ephemeral-storage': '1e3' } },
            livenessProbe: { httpGet: { path: '/health', port: 5000 }, initialDelaySeconds: 600 },
            readinessProbe: { tcpSocket: { port: 'http' } },
            unknownField: { x: 1 },
          },
        ],
        volumes: [
          { name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '64Gi' } },
          { name: 'd', downwardAPI: { items: [{ path: 'p', resourceFieldRef: { resource: 'limits.cpu' } }] } },
        ],
        schedulingGroup: { podGroupName: 'g' },
        futureField: true,
      },
    },
    go: '{"metadata":{"labels":{"app":"vllm"},"annotations":{"a":"\\u003cb\\u003e\\u0026"}},"spec":{"volumes":[{"name":"dshm","emptyDir":{"medium":"Memory","sizeLimit":"64Gi"}},{"name":"d","downwardAPI":{"items":[{"path":"p","resourceFieldRef":{"resource":"limits.cpu","divisor":"0"}}]}}],"containers":[{"name":"vllm","image":"vllm/vllm-openai:v0.9.0","command":["vllm","serve"],"resources":{"limits":{"cpu":"1","memory":"512Mi","nvidia.com/gpu":"1"},"requests":{"cpu":"1500m","ephemeral-storage":"1e3","memory":"2Gi"}},"livenessProbe":{"httpGet":{"path":"/health","port":5000},"initialDelaySeconds":600},"readinessProbe":{"tcpSocket":{"port":"http"}}}]}}',
    dropped: ['spec.containers[0].unknownField', 'spec.schedulingGroup', 'spec.futureField'],
  },
  {
    name: 'a set creationTimestamp in UTC whole seconds; initContainers resources {}; overhead',
    template: {
      metadata: { creationTimestamp: '2024-05-01T10:00:00.123+02:00', name: 'n' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            resources: { limits: { memory: '1536Mi', cpu: '0.1' } },
            env: [{ name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }],
          },
        ],
        overhead: { cpu: '250m' },
        initContainers: [{ name: 'init', image: 'busybox', extra: [1] }],
      },
    },
    go: '{"metadata":{"name":"n","creationTimestamp":"2024-05-01T08:00:00Z"},"spec":{"initContainers":[{"name":"init","image":"busybox","resources":{}}],"containers":[{"name":"c","image":"i","env":[{"name":"A","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Mi"}}}],"resources":{"limits":{"cpu":"100m","memory":"1536Mi"}}}],"overhead":{"cpu":"250m"}}}',
    dropped: ['spec.initContainers[0].extra'],
  },
  {
    name: 'fields added after Kubernetes v1.34 dropped (bindMountOptions, defaultUser)',
    template: {
      spec: {
        containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/m', bindMountOptions: {} }] }],
        volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'cm' } }], defaultUser: 5 } }],
      },
    },
    go: '{"metadata":{},"spec":{"volumes":[{"name":"v","projected":{"sources":[{"configMap":{"name":"cm"}}]}}],"containers":[{"name":"c","image":"i","resources":{},"volumeMounts":[{"name":"v","mountPath":"/m"}]}]}}',
    dropped: ['spec.containers[0].volumeMounts[0].bindMountOptions', 'spec.volumes[0].projected.defaultUser'],
  },
  {
    name: 'empty template: metadata {}, containers null (no omitempty)',
    template: {},
    go: '{"metadata":{},"spec":{"containers":null}}',
    dropped: [],
  },
];

describe('inference.template as KAITO v0.8.0 hashes it', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(encodeGo(c.template, 'PodTemplateSpec'), c.go);
    });
  }
});

describe('pruneToGoType: what Go decoding drops', () => {
  for (const c of cases) {
    it(c.name, () => {
      const pruned = pruneToGoType(c.template, 'PodTemplateSpec');
      assert.deepEqual(pruned.dropped, c.dropped);
      // What is kept encodes exactly as the original: Go had dropped the same keys.
      assert.equal(encodeGo(pruned.value, 'PodTemplateSpec'), c.go);
    });
  }
  it("keeps values as written except quantities, which take Go's form", () => {
    const pruned = pruneToGoType(
      { spec: { containers: [{ name: 'c', args: ['1000m'], resources: { limits: { cpu: '1000m', memory: 1 } } }] } },
      'PodTemplateSpec',
    );
    assert.deepEqual(pruned.value, { spec: { containers: [{ name: 'c', args: ['1000m'], resources: { limits: { cpu: '1', memory: '1' } } }] } });
  });
});
