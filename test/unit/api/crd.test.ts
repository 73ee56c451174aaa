import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { collectCelRules, workspaceCrd, workspaceSchema } from '../../../src/api/crd.js';
import { ConditionType } from '../../../src/api/labels.js';
import { Msg } from '../../../src/api/messages.js';
import type { OpenApiSchema } from '../../../src/api/openapi-schema.js';
import { checkSchema } from '../../../src/api/schema-check.js';
import { renderCrdYaml } from '../../../src/cli/commands/crd.js';
import { main } from '../../../src/cli/main.js';

const committedPath = fileURLToPath(new URL('../../../../config/crd/kaito.sh_workspaces.yaml', import.meta.url));

test('committed config/crd/kaito.sh_workspaces.yaml equals `kaito-ts crd` output', () => {
  const committed = readFileSync(committedPath, 'utf8');
  assert.ok(
    committed === renderCrdYaml(),
    'config/crd/kaito.sh_workspaces.yaml is stale: run `node bin/kaito-ts.js crd > config/crd/kaito.sh_workspaces.yaml`',
  );
});

test('`kaito-ts crd` prints the YAML and exits 0; a stray flag exits 2 with one line', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
  assert.equal(await main(['crd'], io), 0);
  assert.equal(out.join(''), renderCrdYaml());
  out.length = 0;
  assert.equal(await main(['crd', '--bogus'], io), 2);
  assert.deepEqual(out, []);
  assert.equal(err.join('').trim().split('\n').length, 1);
});

test('names, scope, versions and status subresource match KAITO', () => {
  const crd = workspaceCrd();
  assert.equal(crd.metadata.name, 'workspaces.kaito.sh');
  assert.equal(crd.spec.group, 'kaito.sh');
  assert.deepEqual(crd.spec.names, {
    kind: 'Workspace',
    listKind: 'WorkspaceList',
    plural: 'workspaces',
    singular: 'workspace',
    shortNames: ['wk', 'wks'],
    categories: ['workspace'],
  });
  assert.equal(crd.spec.scope, 'Namespaced');
  assert.deepEqual(
    crd.spec.versions.map((v) => [v.name, v.served, v.storage]),
    [
      ['v1alpha1', true, false],
      ['v1beta1', true, true],
    ],
  );
  for (const v of crd.spec.versions) assert.deepEqual(v.subresources, { status: {} });
});

test('printer columns of §2.2 and KAITO v0.9 (TargetNodeCount, State) on both versions', () => {
  for (const v of workspaceCrd().spec.versions) {
    assert.deepEqual(v.additionalPrinterColumns, [
      { name: 'Instance', type: 'string', jsonPath: '.resource.instanceType' },
      { name: 'ResourceReady', type: 'string', jsonPath: '.status.conditions[?(@.type=="ResourceReady")].status' },
      { name: 'InferenceReady', type: 'string', jsonPath: '.status.conditions[?(@.type=="InferenceReady")].status' },
      { name: 'JobStarted', type: 'string', jsonPath: '.status.conditions[?(@.type=="JobStarted")].status' },
      { name: 'WorkspaceSucceeded', type: 'string', jsonPath: '.status.conditions[?(@.type=="WorkspaceSucceeded")].status' },
      { name: 'TargetNodeCount', type: 'integer', jsonPath: '.status.targetNodeCount' },
      { name: 'State', type: 'string', jsonPath: '.status.state' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  }
  assert.ok(Object.values(ConditionType).includes('WorkspaceSucceeded'));
});

test('top level is resource/inference/tuning/status with no spec wrapper', () => {
  for (const version of ['v1alpha1', 'v1beta1']) {
    const props = Object.keys(workspaceSchema(version).properties ?? {});
    assert.deepEqual(props.sort(), ['apiVersion', 'inference', 'kind', 'metadata', 'resource', 'status', 'tuning']);
  }
});

test('defaults and version differences (§2.9)', () => {
  const beta = workspaceSchema('v1beta1');
  const alpha = workspaceSchema('v1alpha1');
  assert.equal(beta.properties?.resource?.properties?.count?.default, 1);
  assert.equal(beta.properties?.resource?.properties?.instanceType?.default, undefined);
  assert.equal(alpha.properties?.resource?.properties?.instanceType?.default, 'Standard_NC24ads_A100_v4');
  assert.equal(beta.properties?.inference?.properties?.preset?.properties?.accessMode?.default, 'public');
  assert.equal(beta.properties?.tuning?.properties?.preset?.properties?.accessMode?.default, 'public');
  assert.ok(beta.properties?.inference?.properties?.preset?.properties?.presetOptions?.properties?.modelAccessSecret);
  assert.equal(alpha.properties?.inference?.properties?.preset?.properties?.presetOptions?.properties?.modelAccessSecret, undefined);
  assert.ok(beta.properties?.status?.properties?.targetNodeCount);
  assert.equal(alpha.properties?.status?.properties?.targetNodeCount, undefined);
  assert.equal(beta.properties?.inference?.properties?.adapters?.maxItems, 10);
  assert.equal(beta.properties?.inference?.properties?.template?.['x-kubernetes-preserve-unknown-fields'], true);
  assert.deepEqual(beta.properties?.resource?.required, ['labelSelector']);
});

test("resource.partition is KAITO v0.12.0's PartitionSpec in v1beta1 (kept, not pruned) and absent from v1alpha1, as in KAITO", () => {
  const partition = workspaceSchema('v1beta1').properties?.resource?.properties?.partition;
  assert.ok(partition, 'v1beta1 declares resource.partition');
  // KAITO's facts (charts/kaito/workspace/templates/kaito.sh_workspaces.yaml): mode required, enum; count >= 1; profile a string.
  assert.deepEqual(partition.required, ['mode']);
  assert.deepEqual(partition.properties?.mode?.enum, ['mig', 'accelerator']);
  assert.equal(partition.properties?.count?.type, 'integer');
  assert.equal(partition.properties?.count?.minimum, 1);
  assert.equal(partition.properties?.profile?.type, 'string');
  assert.equal(partition['x-kubernetes-validations'], undefined, 'KAITO declares no CEL rule on it');
  assert.equal(workspaceSchema('v1alpha1').properties?.resource?.properties?.partition, undefined);
  const resource = workspaceSchema('v1beta1').properties!.resource!;
  const value = { labelSelector: { matchLabels: { a: 'b' } }, partition: { mode: 'mig', profile: '1g.10gb' } };
  assert.deepEqual(checkSchema(value, resource), []);
  assert.ok(checkSchema({ ...value, partition: { mode: 'slices' } }, resource).length > 0, 'an unknown mode is refused');
});

test('every CEL rule is non-empty and carries a message', () => {
  for (const version of ['v1alpha1', 'v1beta1']) {
    const rules = collectCelRules(workspaceSchema(version));
    assert.ok(rules.length >= 25, `expected many CEL rules, got ${rules.length}`);
    for (const { path, rule } of rules) {
      assert.ok(rule.rule.trim().length > 0, `empty rule at ${path}`);
      assert.ok((rule.message ?? '').trim().length > 0, `rule at ${path} has no message: ${rule.rule}`);
      // Transition rules must sit on a node that exists on both sides (root or a field), never inside list items.
      if (rule.rule.includes('oldSelf')) assert.ok(!path.includes('[*]'), `transition rule inside a list at ${path}`);
    }
  }
});

test('the rules of §3 that need no cluster state are CEL rules with KAITO messages', () => {
  const messages = collectCelRules(workspaceSchema('v1beta1')).map((r) => r.rule.message);
  for (const expected of [
    Msg.labelFormat,
    Msg.neitherInferenceNorTuning,
    Msg.bothInferenceAndTuning,
    Msg.inferenceToggled,
    Msg.tuningToggled,
    Msg.tuningMultiNode,
    Msg.immutable,
    Msg.labelSelectorFlat,
    Msg.presetOrTemplate,
    Msg.presetAndTemplate,
    Msg.templateToggled,
    Msg.adapterNameRequired,
    Msg.subdomainFormat,
    Msg.adapterImageRequired,
    Msg.exactlyOneSource,
    Msg.exactlyOneDestination,
    Msg.pushSecretRequired,
    Msg.tuningMethodChanged,
    Msg.tuningPresetChanged,
    Msg.tuningInputNameChanged,
  ]) {
    assert.ok(messages.includes(expected), `no CEL rule says: ${expected}`);
  }
});

test('every string or list a CEL rule walks is bounded (keeps the API server cost estimate low)', () => {
  // Strings the rules call matches()/size()/lowerAscii() on, and lists they iterate.
  const beta = workspaceSchema('v1beta1');
  const adapter = beta.properties?.inference?.properties?.adapters?.items;
  assert.ok(adapter?.properties?.source?.properties?.name?.maxLength);
  assert.ok(adapter?.properties?.strength?.maxLength);
  assert.ok(beta.properties?.metadata?.properties?.name?.maxLength);
  assert.ok(beta.properties?.tuning?.properties?.method?.maxLength);
  assert.ok(beta.properties?.resource?.properties?.labelSelector?.properties?.matchLabels?.maxProperties);
  assert.ok(beta.properties?.resource?.properties?.labelSelector?.properties?.matchExpressions?.maxItems);
});

test('a workspace name too long for a derived name is refused by CEL; resource.count has a ceiling', async () => {
  const { RESOURCE_COUNT_MAX, WORKSPACE_NAME_MAX } = await import('../../../src/api/crd.js');
  const { headlessServiceName } = await import('../../../src/builders/meta.js');
  // The tightest derived name: the pod label controller-revision-hash=<name>-<FNV-32 in decimal, ≤ 10 chars>.
  const longest = 'a'.repeat(WORKSPACE_NAME_MAX);
  assert.equal(`${longest}-${String(2 ** 32 - 1)}`.length, 63);
  assert.ok(headlessServiceName({ metadata: { name: longest } } as never).length <= 63);
  assert.ok(`${longest}-${RESOURCE_COUNT_MAX - 1}`.length <= 63, 'pod hostname <name>-<ordinal>');
  for (const version of ['v1alpha1', 'v1beta1']) {
    const root = collectCelRules(workspaceSchema(version))
      .filter((r) => r.path === '.')
      .map((r) => r.rule);
    const rule = root.find((r) => r.rule === `size(self.metadata.name) <= ${WORKSPACE_NAME_MAX}`);
    assert.ok(rule, `${version}: no name-length rule`);
    assert.match(rule.message ?? '', /metadata\.name must be no more than 52 characters: the StatefulSet controller labels each pod controller-revision-hash/);
    assert.equal(workspaceSchema(version).properties?.resource?.properties?.count?.maximum, RESOURCE_COUNT_MAX);
  }
});

test('the resource.count ceiling covers the most nodes the estimator asks for, any catalog preset on any catalog SKU', async (t) => {
  const { RESOURCE_COUNT_MAX } = await import('../../../src/api/crd.js');
  const { estimateNodeCount } = await import('../../../src/builders/estimator.js');
  const { getPreset, presetNames } = await import('../../../src/catalog/presets.js');
  const { CLOUD_PROVIDERS, lookupSku, supportedSkus } = await import('../../../src/catalog/gpu-skus.js');
  let most = { nodes: 0, where: '' };
  for (const cloud of CLOUD_PROVIDERS) {
    for (const sku of supportedSkus(cloud)) {
      for (const name of presetNames()) {
        const r = estimateNodeCount({ preset: getPreset(name), gpuConfig: lookupSku(cloud, sku), count: 1, maxModelLen: 2048 });
        if (r.ok && r.nodes > most.nodes) most = { nodes: r.nodes, where: `${name} on ${cloud} ${sku}` };
      }
    }
  }
  t.diagnostic(`most nodes the estimator asks for: ${most.nodes} (${most.where}); ceiling ${RESOURCE_COUNT_MAX}`);
  assert.ok(most.nodes > 1 && most.nodes <= RESOURCE_COUNT_MAX, `${most.nodes} (${most.where})`);
});

/** Every node of a schema tree with its path. */
function schemaNodes(schema: OpenApiSchema, path = ''): { path: string; schema: OpenApiSchema }[] {
  return [
    { path: path || '.', schema },
    ...Object.entries(schema.properties ?? {}).flatMap(([k, s]) => schemaNodes(s, `${path}.${k}`)),
    ...(schema.items ? schemaNodes(schema.items, `${path}[*]`) : []),
  ];
}

test('every kept-as-is value (pod template, its metadata and spec, volume sources) is declared an object', () => {
  for (const version of ['v1alpha1', 'v1beta1']) {
    const opaque = schemaNodes(workspaceSchema(version)).filter((n) => n.schema['x-kubernetes-preserve-unknown-fields']);
    assert.deepEqual(
      opaque.map((n) => n.path),
      [
        '.inference.template',
        '.inference.template.metadata',
        '.inference.template.spec',
        '.inference.adapters[*].source.volumeSource',
        '.tuning.input.volumeSource',
        '.tuning.output.volumeSource',
      ],
      version,
    );
    for (const n of opaque) assert.equal(n.schema.type, 'object', `${version} ${n.path}`);
  }
});

test('a pod template or pod spec that is not an object fails the schema, as the API server refuses it', () => {
  const ws = (template: unknown) => ({
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'w' },
    resource: { labelSelector: { matchLabels: { a: 'b' } } },
    inference: { template },
  });
  const schema = workspaceSchema('v1beta1');
  assert.deepEqual(
    checkSchema(ws({ spec: 'oops' }), schema).map((e) => `${e.field}: ${e.message}`),
    ['inference.template.spec: Invalid value: "string": must be of type object'],
  );
  assert.deepEqual(
    checkSchema(ws({ metadata: [] }), schema).map((e) => e.field),
    ['inference.template.metadata'],
  );
  assert.deepEqual(
    checkSchema(ws('oops'), schema).map((e) => e.field),
    ['inference.template'],
  );
  // Anything inside is kept as written (KAITO's schema declares nothing there either).
  assert.deepEqual(checkSchema(ws({ metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }], anything: 1 } }), schema), []);
});
