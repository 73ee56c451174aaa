import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { collectCelRules } from '../../../src/api/crd.js';
import { INFERENCESET_NAME_MAX, inferenceSetCrd } from '../../../src/api/inferenceset-crd.js';
import { checkSchema } from '../../../src/api/schema-check.js';
import { renderCrdYaml } from '../../../src/cli/commands/crd.js';
import { main } from '../../../src/cli/main.js';

const path = (p: string) => fileURLToPath(new URL(`../../../../${p}`, import.meta.url));

test('committed config/crd/kaito.sh_inferencesets.yaml (and the chart copy) equal `kaito-ts crd --kind inferenceset`', () => {
  for (const f of ['config/crd/kaito.sh_inferencesets.yaml', 'charts/kaito-ts/crds/kaito.sh_inferencesets.yaml']) {
    assert.ok(readFileSync(path(f), 'utf8') === renderCrdYaml('inferenceset'), `${f} is stale: run \`node bin/kaito-ts.js crd --kind inferenceset > ${f}\``);
  }
});

test('`kaito-ts crd --kind` picks the CRD; an unknown kind exits 2', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
  assert.equal(await main(['crd', '--kind', 'inferenceset'], io), 0);
  assert.equal(out.join(''), renderCrdYaml('inferenceset'));
  assert.equal(await main(['crd', '--kind', 'bogus'], io), 2);
});

test("names, versions, status and scale subresources and printer columns are KAITO v0.12.0's", () => {
  const crd = inferenceSetCrd();
  assert.equal(crd.metadata.name, 'inferencesets.kaito.sh');
  assert.deepEqual(crd.spec.names, {
    kind: 'InferenceSet',
    listKind: 'InferenceSetList',
    plural: 'inferencesets',
    singular: 'inferenceset',
    shortNames: ['is', 'isets'],
    categories: ['inferenceset'],
  });
  assert.deepEqual(
    crd.spec.versions.map((v) => [v.name, v.served, v.storage]),
    [
      ['v1alpha1', true, false],
      ['v1beta1', true, true],
    ],
  );
  for (const v of crd.spec.versions) {
    assert.deepEqual(v.subresources, {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    });
    assert.deepEqual(v.additionalPrinterColumns, [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'ReadyReplicas', type: 'integer', jsonPath: '.status.readyReplicas' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  }
});

test('defaults and version differences', () => {
  const [alpha, beta] = inferenceSetCrd().spec.versions.map((v) => v.schema.openAPIV3Schema.properties!.spec!);
  for (const spec of [alpha!, beta!]) {
    assert.equal(spec.properties!.replicas!.default, 1);
    assert.equal(spec.properties!.replicas!.minimum, 0);
    assert.deepEqual(spec.properties!.updateStrategy!.default, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } });
    assert.equal(spec.properties!.updateStrategy!['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(spec.properties!.autoUpgrade!.properties!.strategy!.default, 'InPlace');
    assert.equal(spec.properties!.autoUpgrade!.properties!.maintenanceWindow!.properties!.duration!.default, '4h');
    assert.deepEqual(spec.required, ['labelSelector', 'template']);
  }
  assert.equal(alpha!.properties!.template!.properties!.resource!.properties!.partition, undefined);
  assert.ok(beta!.properties!.template!.properties!.resource!.properties!.partition);
});

test("the template may change (no transition rule inside it but partition's); the name fits its children", () => {
  const root = inferenceSetCrd().spec.versions[1]!.schema.openAPIV3Schema;
  const transition = collectCelRules(root)
    .filter((r) => r.rule.rule.includes('oldSelf'))
    .map((r) => r.path);
  assert.deepEqual(transition, ['.spec.template.resource']);
  assert.ok(collectCelRules(root).some((r) => r.rule.rule.includes(`<= ${INFERENCESET_NAME_MAX}`)));
  assert.equal(INFERENCESET_NAME_MAX, 46);
});

test("KAITO v0.12.0's InferenceSet examples (examples/inferenceset/) conform to the schema of their version", () => {
  const dir = path('examples/inferenceset');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length >= 3);
  for (const f of files) {
    const docs = parseAllDocuments(readFileSync(`${dir}/${f}`, 'utf8')).map((d) => d.toJS() as { apiVersion: string; kind: string });
    const obj = docs.find((d) => d.kind === 'InferenceSet')!;
    const v = inferenceSetCrd().spec.versions.find((x) => `kaito.sh/${x.name}` === obj.apiVersion)!;
    assert.deepEqual(checkSchema(obj, v.schema.openAPIV3Schema), [], f);
  }
});
