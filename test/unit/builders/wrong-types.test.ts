// Fuzz: every spec path of a template, a preset and a tuning workspace (and every Go field of the pod
// template's structs), given a value of the wrong JSON type, goes through what the reconciler runs, in
// its order (resolve, validateWorkspace, buildWorkspace; tuning builds before it validates). Either
// validation reports an error, or the builder returns; nothing throws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Workspace } from '../../../src/api/types.js';
import { errorsOf, formatIssues, validateWorkspace } from '../../../src/api/validation.js';
import { resolveFromFacts, type ClusterFacts } from '../../../src/builders/facts.js';
import { K8S_STRUCTS } from '../../../src/builders/gojson/k8s-types.js';
import { buildTuning } from '../../../src/builders/tuning/build.js';
import { buildWorkspace } from '../../../src/builders/workspace.js';
import { facts } from './fixtures.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const WRONG: readonly Json[] = ['oops', '', 42, 1.5, -1, true, false, null, [], ['x'], [1], [{}], {}, { x: 1 }];

function templateWorkspace(): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'custom', namespace: 'ns1', uid: 'uid-1' },
    resource: { count: 1, instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: 'custom' } } },
    inference: {
      template: {
        metadata: { labels: { app: 'mine' }, annotations: { a: 'b' } },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'nginx',
              args: ['--port', '80'],
              env: [{ name: 'E', value: 'v' }],
              ports: [{ containerPort: 80, name: 'http' }],
              resources: { limits: { cpu: '1', 'nvidia.com/gpu': '1' }, requests: { memory: '1Gi' } },
              volumeMounts: [{ name: 'v', mountPath: '/v' }],
              readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 },
            },
          ],
          volumes: [{ name: 'v', emptyDir: { medium: 'Memory' } }],
          tolerations: [{ key: 'mine', operator: 'Exists', effect: 'NoSchedule' }],
          nodeSelector: { zone: 'a' },
          affinity: { podAntiAffinity: {} },
          terminationGracePeriodSeconds: 30,
          nodeName: 'n1',
        },
      },
    },
  };
}

function presetWorkspace(runtime: 'vllm' | 'transformers'): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'ws1', namespace: 'ns1', uid: 'uid-1', annotations: { 'kaito.sh/runtime': runtime } },
    resource: {
      count: 1,
      instanceType: 'Standard_NC24ads_A100_v4',
      labelSelector: { matchLabels: { apps: 'test' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] },
      preferredNodes: ['n1'],
    },
    inference: {
      preset: { name: 'phi-4-mini-instruct', accessMode: 'public', presetOptions: { image: 'x', imagePullSecrets: ['s'] } },
      config: 'my-config',
      adapters: [
        {
          source: { name: 'adapter-a', image: 'registry.example/adapter:1', imagePullSecrets: ['pull'], volumeSource: { emptyDir: {} } },
          ...(runtime === 'transformers' ? { strength: '0.5' } : {}),
        },
      ],
    },
  };
}

/** Every path under resource and inference (object keys and array indices), parents before children. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  const children: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [];
  for (const [k, v] of children) out.push([...prefix, k], ...paths(v, [...prefix, k]));
  return out;
}

function setAt(ws: Workspace, path: (string | number)[], value: Json): Workspace {
  const copy = structuredClone(ws) as unknown as Record<string | number, unknown>;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy as unknown as Workspace;
}

function tuningWorkspace(input: 'urls' | 'image' | 'volume'): Workspace {
  const sources = {
    urls: { urls: ['https://example.com/a.parquet'] },
    image: { name: 'data', image: 'registry.example/data:1', imagePullSecrets: ['pull'] },
    volume: { volumeSource: { persistentVolumeClaim: { claimName: 'pvc-in' } } },
  };
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'tune', namespace: 'ns1', uid: 'uid-1' },
    resource: { count: 1, instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { apps: 'tune' } } },
    tuning: {
      preset: { name: 'phi-3-mini-128k-instruct' },
      method: 'qlora',
      input: sources[input],
      output: input === 'volume' ? { volumeSource: { emptyDir: {} } } : { image: 'registry.example/adapter:1', imagePushSecret: 'push' },
    },
  };
}

/** What the reconciler runs, in its order; the error when something threw. */
function run(ws: Workspace, f: ClusterFacts): { threw?: unknown; refused?: string } {
  try {
    const resolved = resolveFromFacts(ws, f);
    if (ws.tuning) {
      // The tuning path builds before it validates (src/controllers/workspace/tuning.ts).
      buildTuning(ws, f, resolved);
      const issues = errorsOf(validateWorkspace(ws, { resolved, operation: 'create' }));
      return issues.length ? { refused: formatIssues(issues) } : {};
    }
    const issues = errorsOf(validateWorkspace(ws, { resolved, operation: 'create' }));
    if (issues.length) return { refused: formatIssues(issues) };
    buildWorkspace(ws, f, resolved);
    return {};
  } catch (err) {
    return { threw: err };
  }
}

/** The ConfigMap the preset workspace names, so the builder goes past it. */
const CONFIG = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'my-config', namespace: 'ns1' },
  data: { 'inference_config.yaml': 'vllm:\n  max-model-len: 4096\n' },
};

/** Every Go field of the pod template's structs that the base template leaves out, as extra paths to fill. */
function absentGoFields(base: Workspace): (string | number)[][] {
  if (!base.inference?.template) return [];
  const at = (prefix: (string | number)[], type: string) => (K8S_STRUCTS[type] ?? []).map(([name]) => [...prefix, name]);
  const t = ['inference', 'template'];
  return [
    ...at([...t, 'metadata'], 'ObjectMeta'),
    ...at([...t, 'spec'], 'PodSpec'),
    ...at([...t, 'spec', 'containers', 0], 'Container'),
    ...at([...t, 'spec', 'volumes', 0], 'Volume'),
  ].filter((p) => {
    let node: unknown = base;
    for (const k of p) node = (node as Record<string | number, unknown> | undefined)?.[k];
    return node === undefined;
  });
}

function fuzz(name: string, base: Workspace): void {
  test(`wrong JSON types at every spec path of a ${name} workspace: refused by validation or built`, () => {
    const f = facts({ configMaps: [CONFIG] });
    assert.deepEqual(run(base, f), {}, `the ${name} workspace itself builds`);
    const failures: string[] = [];
    let cases = 0;
    for (const root of ['resource', 'inference', 'tuning'] as const) {
      for (const path of [...paths(base[root], [root]), ...(root === 'inference' ? absentGoFields(base) : [])]) {
        for (const wrong of WRONG) {
          cases++;
          const r = run(setAt(base, path, wrong), f);
          if (r.threw !== undefined) {
            const msg = r.threw instanceof Error ? r.threw.message : JSON.stringify(r.threw);
            failures.push(`${path.join('.')} = ${JSON.stringify(wrong)}: ${msg}`);
          }
        }
      }
    }
    assert.ok(cases > 150, `${cases} cases`);
    assert.deepEqual(failures, []);
  });
}

fuzz('template', templateWorkspace());
fuzz('vLLM preset', presetWorkspace('vllm'));
fuzz('transformers preset', presetWorkspace('transformers'));
fuzz('tuning (URL input)', tuningWorkspace('urls'));
fuzz('tuning (image input)', tuningWorkspace('image'));
fuzz('tuning (volume input and output)', tuningWorkspace('volume'));

test('wrong JSON types in a template: refused by validation with the field named', () => {
  const cases: [path: (string | number)[], value: Json, refused: string][] = [
    [['inference', 'template', 'spec'], 'oops', 'inference.template.spec: Invalid value: "string": must be of type object'],
    [['inference', 'template', 'metadata'], ['x'], 'inference.template.metadata: Invalid value: "array": must be of type object'],
    [['inference', 'template'], 'oops', 'inference.template: Invalid value: "string": must be of type object'],
    [
      ['inference', 'template', 'spec', 'tolerations'],
      42,
      'inference.template.spec.tolerations: Invalid value: "number": must be an array, as in a core/v1 PodTemplateSpec',
    ],
    [
      ['inference', 'template', 'spec', 'containers', 0, 'image'],
      42,
      'inference.template.spec.containers[0].image: Invalid value: "number": must be a string, as in a core/v1 PodTemplateSpec',
    ],
    [
      ['inference', 'template', 'metadata', 'labels'],
      'a=b',
      'inference.template.metadata.labels: Invalid value: "string": must be an object (a map), as in a core/v1 PodTemplateSpec',
    ],
    [
      ['inference', 'template', 'spec', 'nodeSelector', 'zone'],
      1,
      'inference.template.spec.nodeSelector[zone]: Invalid value: "number": must be a string, as in a core/v1 PodTemplateSpec',
    ],
    [['resource', 'instanceType'], 42, 'resource.instanceType: Invalid value: "integer": must be of type string'],
  ];
  for (const [path, value, refused] of cases) {
    const r = run(setAt(templateWorkspace(), path, value), facts());
    assert.deepEqual(r, { refused }, path.join('.'));
  }
});

test('values Go accepts are not refused: null anywhere in a template, numbers for quantities and int-or-string ports', () => {
  const cases: [path: (string | number)[], value: Json][] = [
    [['inference', 'template', 'spec', 'tolerations'], null],
    [['inference', 'template', 'metadata'], null],
    [['inference', 'template', 'spec', 'containers', 0, 'resources', 'limits', 'cpu'], 2],
    [['inference', 'template', 'spec', 'containers', 0, 'readinessProbe', 'httpGet', 'port'], 'http'],
    [['inference', 'template', 'spec', 'containers', 0, 'unknownField'], 'dropped, as Go drops it'],
  ];
  for (const [path, value] of cases) assert.deepEqual(run(setAt(templateWorkspace(), path, value), facts()), {}, path.join('.'));
});

test('the builders called without validation: a wrong-typed value is an InvalidSpec problem, not a TypeError', () => {
  const template = buildWorkspace(setAt(templateWorkspace(), ['inference', 'template', 'spec'], 'oops'), facts());
  assert.equal(template.ok, false);
  assert.deepEqual(template.problems, [
    { field: 'inference.template.spec', reason: 'InvalidSpec', message: 'Invalid value: "string": must be of type object' },
  ]);
  const tolerations = buildWorkspace(setAt(templateWorkspace(), ['inference', 'template', 'spec', 'tolerations'], 42), facts());
  assert.deepEqual(tolerations.problems, [
    {
      field: 'inference.template.spec.tolerations',
      reason: 'InvalidSpec',
      message: 'Invalid value: "number": must be an array, as in a core/v1 PodTemplateSpec',
    },
  ]);
  const tuning = buildTuning(setAt(tuningWorkspace('urls'), ['tuning', 'input', 'urls'], 'https://example.com/a'), facts());
  assert.deepEqual(tuning.ok ? [] : tuning.problems, [
    { field: 'tuning.input.urls', reason: 'InvalidSpec', message: 'Invalid value: "string": must be of type array' },
  ]);
});
