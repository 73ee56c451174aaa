import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { admit, servedSchema } from '../../../src/api/admission.js';
import { celErrors, celValue, compileCel, isTransitionRule } from '../../../src/api/cel-rules.js';
import { collectCelRules, workspaceCrd } from '../../../src/api/crd.js';
import { inferenceSetCrd } from '../../../src/api/inferenceset-crd.js';
import { Msg } from '../../../src/api/messages.js';

type Doc = Record<string, unknown>;
const A100 = 'Standard_NC24ads_A100_v4';
const selector = { matchLabels: { apps: 'w' } };
const preset = { preset: { name: 'phi-4-mini-instruct' } };
const image = 'registry.example.com/a:1';

const ws = (o: { name?: string; inference?: Doc; tuning?: Doc; resource?: Doc; apiVersion?: string } = {}): Doc => ({
  apiVersion: o.apiVersion ?? 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: o.name ?? 'w', namespace: 'default' },
  resource: { instanceType: A100, labelSelector: selector, ...o.resource },
  ...(o.tuning ? {} : { inference: o.inference ?? preset }),
  ...(o.tuning ? { tuning: o.tuning } : {}),
});
const tuning = (o: Doc = {}): Doc => ({
  preset: { name: 'phi-3-mini-4k-instruct' },
  method: 'qlora',
  input: { urls: ['https://example.com/d.parquet'] },
  output: { image, imagePushSecret: 'push' },
  ...o,
});
const is = (o: { name?: string; inference?: Doc; spec?: Doc; labelSelector?: Doc; apiVersion?: string } = {}): Doc => ({
  apiVersion: o.apiVersion ?? 'kaito.sh/v1beta1',
  kind: 'InferenceSet',
  metadata: { name: o.name ?? 's', namespace: 'default' },
  spec: { labelSelector: o.labelSelector ?? selector, template: { resource: { instanceType: A100 }, inference: o.inference ?? preset }, ...o.spec },
});
const adapter = (source: Doc, extra: Doc = {}): Doc => ({ source: { name: 'a', image, ...source }, ...extra });
const longKey = 'k'.repeat(318);

/** Mistakes in `inference` (and a label selector) are refused in a Workspace and in an InferenceSet's template alike. */
const inferenceCases: [string, Doc, RegExp][] = [
  ['preset and template', { ...preset, template: { spec: { containers: [] } } }, /Preset and Template cannot be set at the same time/],
  ['neither preset nor template', { config: 'c' }, /Preset or Template must be specified/],
  ['duplicate adapter names', { ...preset, adapters: [adapter({}), adapter({ image: 'x/b' })] }, /Duplicate adapter source name/],
  ['adapter without name', { ...preset, adapters: [adapter({ name: undefined })] }, /Name of Adapter field must be specified/],
  ['adapter name upper case', { ...preset, adapters: [adapter({ name: 'A' })] }, /lowercase RFC 1123 subdomain/],
  ['adapter without image', { ...preset, adapters: [adapter({ image: undefined })] }, /Image of Adapter field must be specified/],
  ['adapter with urls and image', { ...preset, adapters: [adapter({ urls: ['https://e.com/a'] })] }, /Exactly one of URLs, Volume, or Image/],
  [
    'strength not a number',
    { ...preset, adapters: [adapter({}, { strength: 'high' })] },
    /^Invalid strength value for Adapter 'a': high is not a decimal number$/,
  ],
  ['strength above 1', { ...preset, adapters: [adapter({}, { strength: '1.5' })] }, /^Strength value for Adapter 'a' must be between 0 and 1$/],
];

const selectorCases: [string, Doc, RegExp][] = [
  ['matchLabels key over 317', { matchLabels: { [longKey]: 'v' } }, /label keys must be no more than 317 characters/],
  ['matchExpressions NotIn', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['b'] }] }, new RegExp(Msg.labelSelectorFlat.replace(/[()']/g, '.'))],
];

/** [label, document, what the first error says]: one per CEL rule at least (the coverage test checks). */
function refusedCases(version: string): [string, Doc, RegExp][] {
  const v = `kaito.sh/${version}`;
  return [
    ['workspace name 53', ws({ apiVersion: v, name: 'n'.repeat(53) }), /no more than 52 characters/],
    ['workspace name with a dot', ws({ apiVersion: v, name: 'a.b' }), /lowercase RFC 1123 label/],
    ['neither inference nor tuning', { ...ws({ apiVersion: v }), inference: undefined }, /not neither/],
    ['inference and tuning', { ...ws({ apiVersion: v }), tuning: tuning() }, /but not both/],
    ['tuning on two nodes', ws({ apiVersion: v, tuning: tuning(), resource: { count: 2 } }), /multinode/],
    [
      'tuning input with urls and image',
      ws({ apiVersion: v, tuning: tuning({ input: { urls: ['https://e.com/d'], image } }) }),
      /Exactly one of URLs, Volume, or Image/,
    ],
    ['tuning input name upper case', ws({ apiVersion: v, tuning: tuning({ input: { name: 'A', image } }) }), /at most 36 characters/],
    [
      'tuning input image upper-case path',
      ws({ apiVersion: v, tuning: tuning({ input: { image: 'registry.example.com/Data:1' } }) }),
      /Unable to parse input image reference/,
    ],
    ['tuning output with neither', ws({ apiVersion: v, tuning: tuning({ output: {} }) }), /Exactly one of Volume or Image/],
    ['tuning output without push secret', ws({ apiVersion: v, tuning: tuning({ output: { image } }) }), /imagePushSecret/],
    [
      'tuning output image with a space',
      ws({ apiVersion: v, tuning: tuning({ output: { image: 'a b', imagePushSecret: 'p' } }) }),
      /Unable to parse output image reference/,
    ],
    ['tuning method full', ws({ apiVersion: v, tuning: tuning({ method: 'full' }) }), /^invalid value: full: Method/],
    ['tuning preset not tunable', ws({ apiVersion: v, tuning: tuning({ preset: { name: 'llama-3.3-70b-instruct' } }) }), /does not support tuning/],
    ...inferenceCases.map(([label, inference, want]): [string, Doc, RegExp] => [`workspace: ${label}`, ws({ apiVersion: v, inference }), want]),
    ...selectorCases.map(([label, labelSelector, want]): [string, Doc, RegExp] => [
      `workspace: ${label}`,
      ws({ apiVersion: v, resource: { labelSelector } }),
      want,
    ]),
    ['inferenceset name 47', is({ apiVersion: v, name: 's'.repeat(47) }), /no more than 46 characters/],
    ['inferenceset name upper case', is({ apiVersion: v, name: 'S' }), /RFC 1123 subdomain|RFC 1123 label/],
    ['inferenceset name with a dot', is({ apiVersion: v, name: 's.t' }), /lowercase RFC 1123 label/],
    ['inferenceset cron of 3 fields', is({ apiVersion: v, spec: { autoUpgrade: { maintenanceWindow: { schedule: '* * *' } } } }), /invalid cron expression/],
    [
      'inferenceset window of 0s',
      is({ apiVersion: v, spec: { autoUpgrade: { maintenanceWindow: { schedule: '@daily', duration: '0s' } } } }),
      /must be a positive duration/,
    ],
    ...inferenceCases.map(([label, inference, want]): [string, Doc, RegExp] => [`inferenceset: ${label}`, is({ apiVersion: v, inference }), want]),
    ...selectorCases.map(([label, labelSelector, want]): [string, Doc, RegExp] => [`inferenceset: ${label}`, is({ apiVersion: v, labelSelector }), want]),
  ];
}

for (const version of ['v1beta1', 'v1alpha1']) {
  test(`${version}: each mistake is refused with the CRD's message`, () => {
    for (const [label, doc, want] of refusedCases(version)) {
      const { errors } = admit(doc);
      assert.ok(errors.length > 0, `${label}: accepted`);
      assert.match(errors[0]!.message, want, `${label}: ${JSON.stringify(errors)}`);
    }
  });
}

test('every CEL rule of every version of both CRDs compiles and is refused by at least one case of the table', () => {
  for (const crd of [workspaceCrd(), inferenceSetCrd()]) {
    for (const v of crd.spec.versions) {
      const failed = new Set(refusedCases(v.name).flatMap(([, doc]) => (doc.kind === crd.spec.names.kind ? admit(doc).errors.map((e) => e.rule) : [])));
      for (const { path, rule } of collectCelRules(v.schema.openAPIV3Schema)) {
        assert.doesNotThrow(() => compileCel(rule.rule), rule.rule);
        if (rule.messageExpression) assert.doesNotThrow(() => compileCel(rule.messageExpression!), rule.messageExpression);
        if (isTransitionRule(rule)) continue; // update only: not for render
        assert.ok(failed.has(rule.rule), `${crd.spec.names.kind} ${v.name} ${path}: no case of the table fails ${rule.rule}`);
      }
    }
  }
});

test('accepted: the examples, both apiVersions, preserved template fields, status, a cron window, a tunable preset in any case of the method', () => {
  const dir = join(import.meta.dirname, '..', '..', '..', '..', 'examples');
  const docs = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml') && !f.startsWith('state') && !f.startsWith('demo'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => ({ f, doc: d.toJS() as Doc })))
    .filter(({ doc }) => doc.kind === 'Workspace' || doc.kind === 'InferenceSet');
  assert.ok(docs.length >= 20, `${docs.length} example documents`);
  const extra: { f: string; doc: Doc }[] = [
    { f: 'v1alpha1', doc: ws({ apiVersion: 'kaito.sh/v1alpha1' }) },
    { f: 'template with unknown fields', doc: ws({ inference: { template: { spec: { containers: [{ name: 'c', image: 'i', warmup: true }] } } } }) },
    { f: 'status on create', doc: { ...ws(), status: { workerNodes: ['n'] } } },
    { f: 'status without the required fields of a condition', doc: { ...ws(), status: { conditions: [{ type: 'A' }] } } },
    { f: 'a null where a default is declared', doc: ws({ resource: { count: null } }) },
    { f: 'cron', doc: is({ spec: { autoUpgrade: { maintenanceWindow: { schedule: '0 2 * * 6', duration: '1h30m' } } } }) },
    { f: 'LoRA', doc: ws({ tuning: tuning({ method: 'LoRA' }) }) },
    { f: 'adapter strength 0.5', doc: ws({ inference: { ...preset, adapters: [adapter({}, { strength: '.5' })] } }) },
    { f: 'name 52', doc: ws({ name: 'n'.repeat(52) }) },
    { f: 'inferenceset name 46', doc: is({ name: 's'.repeat(46) }) },
  ];
  for (const { f, doc } of [...docs, ...extra]) assert.deepEqual(admit(doc).errors, [], f);
});

test('apiVersion, kind, metadata and unknown fields are refused before the CEL rules', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['not an object', 'x', '<root>', /must be an object/],
    ['unknown kind', { ...ws(), kind: 'Workspaces' }, 'kind', /not a kind of kaito\.sh/],
    ['unknown version', { ...ws(), apiVersion: 'kaito.sh/v1' }, 'apiVersion', /served as kaito\.sh\/v1alpha1, kaito\.sh\/v1beta1/],
    [
      'v1beta1 field in v1alpha1',
      ws({ apiVersion: 'kaito.sh/v1alpha1', inference: { preset: { name: 'p', presetOptions: { modelAccessSecret: 's' } } } }),
      'inference.preset.presetOptions.modelAccessSecret',
      /not declared/,
    ],
    ['unknown top-level field', { ...ws(), spec: {} }, 'spec', /not declared/],
    ['bad label value', { ...ws(), metadata: { name: 'w', labels: { a: 'b c' } } }, 'metadata.labels[a]', /valid label/],
    ['count as a string', ws({ resource: { count: 'two' } }), 'resource.count', /must be of type integer/],
    [
      'a null where no default is declared',
      ws({ inference: { preset: { name: 'p', presetOptions: null } } }),
      'inference.preset.presetOptions',
      /"null": must be of type object/,
    ],
    ['status with an unknown field', { ...ws(), status: { colour: 'blue' } }, 'status.colour', /not declared/],
    ['status of the wrong type', { ...ws(), status: { workerNodes: 'n' } }, 'status.workerNodes', /must be of type array/],
  ];
  for (const [label, doc, field, want] of cases) {
    const [first] = admit(doc).errors;
    assert.equal(first?.field, field, `${label}: ${JSON.stringify(first)}`);
    assert.match(first.message, want, label);
    assert.equal(first.rule, undefined, `${label}: not a CEL rule`);
  }
});

test('servedSchema follows the served versions of each CRD', () => {
  for (const kind of ['Workspace', 'InferenceSet']) {
    for (const v of ['v1alpha1', 'v1beta1']) assert.ok('schema' in servedSchema(`kaito.sh/${v}`, kind), `${kind} ${v}`);
  }
});

test('CEL values: integer fields are CEL ints, a failed evaluation is an error, messageExpression is evaluated', () => {
  assert.equal(celValue(2, { type: 'integer' }), 2n);
  assert.equal(celValue(2, { type: 'number' }), 2);
  assert.deepEqual(celValue({ a: [1] }, { type: 'object', properties: { a: { type: 'array', items: { type: 'integer' } } } }), { a: [1n] });
  const schema = {
    type: 'object' as const,
    properties: { d: { type: 'string' as const } },
    'x-kubernetes-validations': [
      { rule: "duration(self.d) > duration('0s')", message: 'm' },
      { rule: 'size(self.d) < 2', messageExpression: '"too long: " + self.d' },
    ],
  };
  const errors = celErrors({ d: 'soon' }, schema);
  assert.match(errors[0]!.message, /^Invalid value: .*duration/);
  assert.equal(errors[1]!.message, 'too long: soon');
  assert.deepEqual(celErrors({ d: '1h' }, { ...schema, 'x-kubernetes-validations': [schema['x-kubernetes-validations'][0]!] }), []);
});
