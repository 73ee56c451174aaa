// The NodePool, NodeClasses and node selector of KAITO v0.12's karpenter mode, field for field, and
// the --karpenter-node-class* flags with KAITO's defaults and errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNodeClassConfig, type NodeClassConfig } from '../../../src/api/node-class-config.js';
import { Msg } from '../../../src/api/messages.js';
import { buildNodeClass, buildNodePool, karpenterNodeAffinity, nodePoolName, resolveNodeClassName } from '../../../src/builders/nodepool.js';
import { presetWorkspace } from './fixtures.js';

const CLASSES =
  '[{"name":"image-family-ubuntu","default":true,"spec":{"imageFamily":"Ubuntu"}},{"name":"image-family-azure-linux","spec":{"imageFamily":"AzureLinux"}}]';

function config(flags: Parameters<typeof parseNodeClassConfig>[0] = {}): NodeClassConfig {
  const r = parseNodeClassConfig({ nodeClasses: CLASSES, ...flags });
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.config;
}

test('nodePoolName: <ns>-<name>; beyond 63 characters 53 of them, "-" and 9 hex of the sha256 (KAITO v0.12 NodePoolName)', () => {
  assert.equal(nodePoolName('ns1', 'ws1'), 'ns1-ws1');
  const ns = 'namespace-with-a-fairly-long-name-xxxxx';
  const name = 'workspace-with-an-even-longer-name';
  // 74 characters; expected value printed by KAITO's own NodePoolName (bin/kaito-render) and by sha256sum.
  assert.equal(nodePoolName(ns, name), 'namespace-with-a-fairly-long-name-xxxxx-workspace-wit-ed8547b4b');
  assert.equal(nodePoolName(ns, name).length, 63);
  const exactly63 = `${'a'.repeat(31)}-${'b'.repeat(31)}`;
  assert.equal(nodePoolName('a'.repeat(31), 'b'.repeat(31)), exactly63);
});

test('NodePool: labels, template labels with sanitized matchLabels, nodeClassRef, requirements, taint, expireAfter, disruption', () => {
  const ws = presetWorkspace('phi-4-mini-instruct');
  ws.resource.labelSelector = { matchLabels: { apps: 'test', 'kaito.sh/workspace': 'other', 'karpenter.kaito.sh/workspace-name': 'other' } };
  assert.deepEqual(buildNodePool(ws, 2, config(), 'image-family-ubuntu'), {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      name: 'ns1-ws1',
      labels: { 'karpenter.kaito.sh/managed-by': 'kaito', 'karpenter.kaito.sh/workspace-name': 'ws1', 'karpenter.kaito.sh/workspace-namespace': 'ns1' },
    },
    spec: {
      replicas: 2,
      template: {
        metadata: { labels: { 'karpenter.kaito.sh/workspace-name': 'ws1', 'karpenter.kaito.sh/workspace-namespace': 'ns1', apps: 'test' } },
        spec: {
          nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'image-family-ubuntu' },
          requirements: [
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_NC24ads_A100_v4'] },
            { key: 'karpenter.azure.com/placement-scope', operator: 'In', values: ['regional'] },
          ],
          taints: [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }],
          expireAfter: 'Never',
        },
      },
      disruption: { consolidateAfter: '0s', budgets: [{ nodes: '1', reasons: ['Drifted'] }] },
    },
  });
});

test('NodePool of an InferenceSet member: InferenceSet keys on the pool and its template, drift budget "0"', () => {
  const ws = presetWorkspace('phi-4-mini-instruct');
  ws.metadata.labels = { 'inferenceset.kaito.sh/created-by': 'set1' };
  const np = buildNodePool(ws, 1, config(), 'image-family-ubuntu');
  const setLabels = { 'karpenter.kaito.sh/inferenceset': 'set1', 'karpenter.kaito.sh/inferenceset-namespace': 'ns1' };
  assert.deepEqual(np.metadata.labels, {
    'karpenter.kaito.sh/managed-by': 'kaito',
    'karpenter.kaito.sh/workspace-name': 'ws1',
    'karpenter.kaito.sh/workspace-namespace': 'ns1',
    ...setLabels,
  });
  assert.deepEqual(np.spec.template.metadata.labels, {
    'karpenter.kaito.sh/workspace-name': 'ws1',
    'karpenter.kaito.sh/workspace-namespace': 'ns1',
    ...setLabels,
    apps: 'test',
    pool: 'gpu',
  });
  assert.deepEqual(np.spec.disruption.budgets, [{ nodes: '0', reasons: ['Drifted'] }]);
});

test('another NodeClass group: no placement-scope requirement', () => {
  const cfg = config({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', version: 'v1', resourceName: 'ec2nodeclasses' });
  const np = buildNodePool(presetWorkspace('phi-4-mini-instruct'), 1, cfg, 'image-family-ubuntu');
  assert.deepEqual(np.spec.template.spec.nodeClassRef, { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'image-family-ubuntu' });
  assert.deepEqual(np.spec.template.spec.requirements, [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_NC24ads_A100_v4'] }]);
});

const resolutions: [string, string | undefined, ReturnType<typeof resolveNodeClassName>][] = [
  ['no annotation: the default', undefined, { ok: true, name: 'image-family-ubuntu' }],
  ['empty annotation: the default', '', { ok: true, name: 'image-family-ubuntu' }],
  ['an allowed name', 'image-family-azure-linux', { ok: true, name: 'image-family-azure-linux' }],
  [
    "an unknown name: KAITO's error",
    'gpu-special',
    {
      ok: false,
      message:
        'annotation kaito.sh/node-class-name="gpu-special" is not permitted: choose one of the KAITO-managed NodeClasses [image-family-azure-linux image-family-ubuntu]',
    },
  ],
];
for (const [name, annotation, want] of resolutions) {
  test(`node class name: ${name}`, () => {
    const ws = presetWorkspace('phi-4-mini-instruct');
    if (annotation !== undefined) ws.metadata.annotations = { 'kaito.sh/node-class-name': annotation };
    assert.deepEqual(resolveNodeClassName(ws, config()), want);
  });
}

test('node-class flags: KAITO defaults (AKSNodeClass), entries and names sorted, the default found', () => {
  assert.deepEqual(config(), {
    group: 'karpenter.azure.com',
    kind: 'AKSNodeClass',
    version: 'v1beta1',
    resourceName: 'aksnodeclasses',
    nodeClasses: [
      { name: 'image-family-azure-linux', spec: { imageFamily: 'AzureLinux' } },
      { name: 'image-family-ubuntu', default: true, spec: { imageFamily: 'Ubuntu' } },
    ],
    nodeClassNames: ['image-family-azure-linux', 'image-family-ubuntu'],
    defaultName: 'image-family-ubuntu',
  });
});

const F = '--karpenter-node-classes';
const badFlags: [string, string | undefined, string][] = [
  ['missing', undefined, `${F} is required when node-provisioner=karpenter`],
  ['empty list', '[]', `${F} declares no NodeClasses`],
  ['null', 'null', `${F} declares no NodeClasses`],
  ['empty name', '[{"default":true}]', `${F} entry 0 has an empty name`],
  ['bad name', '[{"name":"a","default":true},{"name":"Bad_Name"}]', `${F} entry 1 name "Bad_Name" is not a valid resource name: ${Msg.subdomainFormat}`],
  ['duplicate', '[{"name":"a","default":true},{"name":"a"}]', `${F} declares "a" more than once`],
  ['two defaults', '[{"name":"b","default":true},{"name":"a","default":true}]', `${F} must mark exactly one entry default, got 2 [b a]`],
  ['no default', '[{"name":"a"}]', `${F} must mark exactly one entry default, got 0 []`],
];
for (const [name, raw, message] of badFlags) {
  test(`node-class flags refused: ${name}`, () => {
    assert.deepEqual(parseNodeClassConfig(raw === undefined ? {} : { nodeClasses: raw }), { ok: false, message });
  });
}

test('node-class flags refused: not JSON, not a list, wrong field types', () => {
  for (const raw of ['{', '{"name":"a"}', '[{"name":1,"default":true}]', '[{"name":"a","default":"yes"}]']) {
    const r = parseNodeClassConfig({ nodeClasses: raw });
    assert.ok(!r.ok && r.message.startsWith(`parsing ${F} as a JSON array: `), raw);
  }
});

test('NodeClass objects: group/version, kind, name, managed-by label, default label, spec passed through', () => {
  const cfg = config();
  assert.deepEqual(
    cfg.nodeClasses.map((e) => buildNodeClass(cfg, e)),
    [
      {
        apiVersion: 'karpenter.azure.com/v1beta1',
        kind: 'AKSNodeClass',
        metadata: { name: 'image-family-azure-linux', labels: { 'karpenter.kaito.sh/managed-by': 'kaito' } },
        spec: { imageFamily: 'AzureLinux' },
      },
      {
        apiVersion: 'karpenter.azure.com/v1beta1',
        kind: 'AKSNodeClass',
        metadata: { name: 'image-family-ubuntu', labels: { 'karpenter.kaito.sh/managed-by': 'kaito', 'karpenter.kaito.sh/default': 'true' } },
        spec: { imageFamily: 'Ubuntu' },
      },
    ],
  );
  assert.equal('spec' in buildNodeClass(cfg, { name: 'bare' }), false);
});

test('karpenterNodeAffinity: workspace name and namespace, each In [value]', () => {
  assert.deepEqual(karpenterNodeAffinity(presetWorkspace('phi-4-mini-instruct')), [
    { key: 'karpenter.kaito.sh/workspace-name', operator: 'In', values: ['ws1'] },
    { key: 'karpenter.kaito.sh/workspace-namespace', operator: 'In', values: ['ns1'] },
  ]);
});
