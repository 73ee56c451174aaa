import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { main } from '../../../src/cli/main.js';

type Doc = Record<string, unknown>;
const A100 = 'Standard_NC24ads_A100_v4';
const selector = { matchLabels: { apps: 'w' } };
const preset = { preset: { name: 'phi-4-mini-instruct' } };

const ws = (o: Doc = {}, name = 'w'): Doc => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name },
  resource: { instanceType: A100, labelSelector: selector },
  inference: preset,
  ...o,
});
const set = (template: Doc = {}, name = 's'): Doc => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'InferenceSet',
  metadata: { name },
  spec: { replicas: 1, labelSelector: selector, template: { resource: { instanceType: A100 }, inference: preset, ...template } },
});
const tuning = {
  preset: { name: 'phi-3-mini-4k-instruct' },
  method: 'qlora',
  input: { urls: ['https://e.com/d'] },
  output: { image: 'r.io/o:1', imagePushSecret: 'p' },
};

async function renderDoc(doc: Doc): Promise<{ code: number; stdout: string; stderr: string; file: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'render-admission-')), 'doc.yaml');
  writeFileSync(file, stringify(doc));
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['render', '-f', file], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
  return { code, stdout: out.join(''), stderr: err.join(''), file };
}

test("render refuses what the API server refuses: exit 2, one line naming the file and the field, the CRD's message", async () => {
  const cases: [string, Doc, RegExp][] = [
    [
      'inference and tuning',
      ws({ tuning }),
      /workspace default\/w: refused by the API server: <root>: Either Inference or Tuning must be specified, but not both$/,
    ],
    [
      'preset and template',
      ws({ inference: { ...preset, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } }),
      /refused by the API server: inference: Preset and Template cannot be set at the same time$/,
    ],
    [
      'duplicate adapter names',
      ws({ inference: { ...preset, adapters: [{ source: { name: 'a', image: 'r.io/a:1' } }, { source: { name: 'a', image: 'r.io/b:1' } }] } }),
      /refused by the API server: inference\.adapters: Duplicate adapter source name found/,
    ],
    [
      'upper-case name',
      ws({}, 'Phi'),
      /workspace default\/Phi: refused by the API server: metadata\.name: Invalid value: "Phi": a lowercase RFC 1123 subdomain/,
    ],
    ['name of 53 characters', ws({}, 'n'.repeat(53)), /metadata\.name: metadata\.name must be no more than 52 characters/],
    [
      'label value of 64',
      ws({ metadata: { name: 'w', labels: { team: 'v'.repeat(64) } } }),
      /metadata\.labels\[team\]: Invalid value: "v{64}": must be no more than 63 characters$/,
    ],
    [
      'bad tuning image',
      ws({ inference: undefined, tuning: { ...tuning, input: { image: 'r.io/Data:1' } } }),
      /tuning\.input\.image: Unable to parse input image reference: invalid reference format$/,
    ],
    ['unknown field', ws({ inference: { ...preset, replicas: 2 } }), /refused by the API server: inference\.replicas: field not declared in schema$/],
    [
      'v1alpha1 without its fields',
      { ...ws(), apiVersion: 'kaito.sh/v1alpha1', inference: { preset: { name: 'phi-4-mini-instruct', presetOptions: { modelAccessSecret: 's' } } } },
      /inference\.preset\.presetOptions\.modelAccessSecret: field not declared in schema$/,
    ],
    [
      'apiVersion not served',
      { ...ws(), apiVersion: 'kaito.sh/v2' },
      /apiVersion: Unsupported value: "kaito\.sh\/v2": Workspace is served as kaito\.sh\/v1alpha1, kaito\.sh\/v1beta1$/,
    ],
    [
      'a pod template the StatefulSet refuses',
      ws({ inference: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } }),
      /workspace default\/w: the API server would refuse StatefulSet default\/w: spec\.template\.spec\.restartPolicy: Unsupported value: "Never"/,
    ],
    [
      'a GPU quantity of 1.5',
      ws({ inference: { template: { spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1.5' } } }] } } } }),
      /containers\[0\]\.resources\.limits\[nvidia\.com\/gpu\]: Invalid value: "1500m": must be an integer$/,
    ],
    [
      'an adapter name that cannot name a container',
      ws({ inference: { ...preset, adapters: [{ source: { name: 'my.adapter', image: 'r.io/a:1' } }] } }),
      /initContainers\[\d\]\.name: Invalid value: "puller-my\.adapter"/,
    ],
    [
      'InferenceSet: unknown preset',
      set({ inference: { preset: { name: 'no-such-model' } } }),
      /inferenceset default\/s: its child workspace default\/s-xxxxx: inference\.preset\.name: Unsupported inference preset name no-such-model/,
    ],
    [
      'InferenceSet: unknown SKU',
      set({ resource: { instanceType: 'Standard_Nothing_v9' } }),
      /inferenceset default\/s: its child workspace default\/s-xxxxx: resource\.instanceType: .*Standard_Nothing_v9/,
    ],
    [
      'InferenceSet: a label its children cannot carry',
      set({ metadata: { labels: { team: 'a b' } } }),
      /inferenceset default\/s: the API server would refuse Workspace default\/s-<generated>: metadata\.labels\[team\]/,
    ],
    ['InferenceSet: name of 47', set({}, 's'.repeat(47)), /refused by the API server: metadata\.name: metadata\.name must be no more than 46 characters/],
  ];
  for (const [label, doc, want] of cases) {
    const r = await renderDoc(doc);
    assert.equal(r.code, 2, `${label}: ${r.stderr}`);
    assert.equal(r.stdout, '', label);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, `${label}: ${r.stderr}`);
    assert.ok(r.stderr.startsWith(`kaito-ts: ${r.file}: `), `${label}: names the file: ${r.stderr}`);
    assert.match(r.stderr.trimEnd(), want, label);
  }
});

test('render accepts what the API server accepts: the edges of names, labels, images, quantities and both apiVersions', async () => {
  const template = (container: Doc): Doc => ({ inference: { template: { spec: { containers: [{ name: 'c', image: 'nginx', ...container }] } } } });
  const cases: [string, Doc][] = [
    ['name of 52', ws({}, 'n'.repeat(52))],
    ['label value of 63 and an empty one', ws({ metadata: { name: 'w', labels: { team: 'v'.repeat(63), empty: '' } } })],
    ['upper-case annotation prefix', ws({ metadata: { name: 'w', annotations: { 'Example.com/Team': 'x' } } })],
    ['tuning image with port and digest', ws({ inference: undefined, tuning: { ...tuning, input: { image: `localhost:5000/d@sha256:${'a'.repeat(64)}` } } })],
    ['template image with upper case', ws(template({ image: 'NGINX:Latest' }))],
    ['quantities in any form', ws(template({ resources: { limits: { cpu: '1.5', memory: '0.5Gi', 'nvidia.com/gpu': 1 }, requests: { memory: '1e3' } } }))],
    ['an unknown container field', ws(template({ warmup: true }))],
    ['v1alpha1', { ...ws(), apiVersion: 'kaito.sh/v1alpha1' }],
    ['InferenceSet v1alpha1', { ...set(), apiVersion: 'kaito.sh/v1alpha1' }],
    ['status, ignored on create', ws({ status: { workerNodes: ['n'] } })],
  ];
  for (const [label, doc] of cases) {
    const r = await renderDoc(doc);
    assert.equal(r.code, 0, `${label}: ${r.stderr}`);
    assert.notEqual(r.stdout, '', label);
  }
});
