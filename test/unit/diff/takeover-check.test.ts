import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { deletedByUninstall, featureGatesArg, takeoverFindings, type TakeoverState } from '../../../src/diff/takeover-check.js';
import { main } from '../../../src/cli/main.js';

const NS = 'kaito-workspace';
const helm = {
  labels: { 'app.kubernetes.io/managed-by': 'Helm' },
  annotations: { 'meta.helm.sh/release-name': 'kaito-workspace', 'meta.helm.sh/release-namespace': NS },
};
const kept = { ...helm, annotations: { ...helm.annotations, 'helm.sh/resource-policy': 'keep' } };
const crd = (name: string, meta: object = helm): KubernetesObject & { spec: object } => ({ metadata: { name, ...meta }, spec: { group: 'kaito.sh' } });
const webhook = (name: string, failurePolicy: string | undefined, groups = ['kaito.sh'], operations = ['CREATE', 'UPDATE']) => ({
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: [
    { name, ...(failurePolicy ? { failurePolicy } : {}), rules: [{ apiGroups: groups, apiVersions: ['v1alpha1'], resources: ['inferencesets'], operations }] },
  ],
});
const kaitoDeployment = (
  args: string[],
  labels: Record<string, string> = { 'app.kubernetes.io/name': 'workspace' },
  image = 'mcr.microsoft.com/aks/kaito/workspace:0.12.0',
) => ({
  metadata: { name: 'kaito-workspace', namespace: NS, labels },
  spec: { template: { spec: { containers: [{ name: 'workspace', image, args }] } } },
});
const CHART_GATES =
  '--feature-gates=ModelMirror=false,ModelStreaming=false,disableNodeAutoProvisioning=false,enableAccelerator=false,enableBaseImageAutoUpgrade=false,enableInferenceSetController=true,enableMIG=false,enableMultiRoleInferenceController=false,gatewayAPIInferenceExtension=false,vLLM=true';

const empty: TakeoverState = {
  crds: [],
  configMaps: [],
  storageClasses: [],
  webhookConfigurations: [],
  multiRoleInferences: [],
  modelMirrors: [],
  workspaces: [],
  inferenceSets: [],
  deployments: [],
};

// [case, state, expected "object: problem" lines (regexes, in order)]
const cases: [string, Partial<TakeoverState>, RegExp[]][] = [
  ['an empty cluster: nothing', {}, []],
  [
    "KAITO v0.12.0's chart as installed: its four CRDs, its three ConfigMaps, both webhooks; its default gates are no finding",
    {
      crds: ['workspaces.kaito.sh', 'inferencesets.kaito.sh', 'modelmirrors.kaito.sh', 'multiroleinferences.kaito.sh'].map((n) => crd(n)),
      configMaps: ['inference-params-template', 'lora-params-template', 'qlora-params-template', 'kaito-logging-config'].map((name) => ({
        metadata: { name, namespace: NS, ...helm },
      })),
      webhookConfigurations: [webhook('validation.workspace.kaito.sh', 'Fail'), webhook('validation.inferenceset.kaito.sh', 'Fail')],
      deployments: [kaitoDeployment([CHART_GATES, '--node-provisioner=byo'])],
    },
    [
      /^CustomResourceDefinition workspaces\.kaito\.sh: `helm uninstall` of release kaito-workspace deletes it \(and every object of its kind, with what they own\); annotate it helm\.sh\/resource-policy=keep first$/,
      /^CustomResourceDefinition inferencesets\.kaito\.sh: `helm uninstall`/,
      /^CustomResourceDefinition modelmirrors\.kaito\.sh: /,
      /^CustomResourceDefinition multiroleinferences\.kaito\.sh: /,
      /^ConfigMap kaito-workspace\/inference-params-template: `helm uninstall` of release kaito-workspace deletes it \(kaito-ts reads it for new workspaces\)/,
      /^ConfigMap kaito-workspace\/lora-params-template: /,
      /^ConfigMap kaito-workspace\/qlora-params-template: /,
      /^ValidatingWebhookConfiguration validation\.workspace\.kaito\.sh: failurePolicy Fail on kaito\.sh writes: validation\.workspace\.kaito\.sh \(inferencesets\); .*delete it$/,
      /^ValidatingWebhookConfiguration validation\.inferenceset\.kaito\.sh: failurePolicy Fail/,
    ],
  ],
  [
    'after the switch: CRDs and ConfigMaps kept, webhooks gone, KAITO uninstalled: nothing',
    {
      crds: [crd('workspaces.kaito.sh', kept), crd('inferencesets.kaito.sh', kept)],
      configMaps: [{ metadata: { name: 'inference-params-template', namespace: NS, ...kept } }],
    },
    [],
  ],
  [
    "CRDs from a chart's crds/ folder (no Helm marks), another namespace's ConfigMap: not Helm's to delete",
    { crds: [crd('workspaces.kaito.sh', {})], configMaps: [{ metadata: { name: 'inference-params-template', namespace: 'other', ...helm } }] },
    [],
  ],
  [
    'the NVMe StorageClass of the chart is named; another StorageClass is not',
    { storageClasses: [{ metadata: { name: 'kaito-local-nvme-disk', ...helm } }, { metadata: { name: 'standard', ...helm } }] },
    [/^StorageClass kaito-local-nvme-disk: `helm uninstall` of release kaito-workspace deletes it \(new workspaces lose local NVMe\)/],
  ],
  [
    'webhooks: Ignore, another group, read-only operations are no finding; no failurePolicy means Fail; a * group counts',
    {
      webhookConfigurations: [
        webhook('ignore', 'Ignore'),
        webhook('other-group', 'Fail', ['apps']),
        webhook('deletes-only', 'Fail', ['kaito.sh'], ['DELETE']),
        webhook('defaulted', undefined),
        webhook('everything', 'Fail', ['*'], ['*']),
      ],
    },
    [/^ValidatingWebhookConfiguration defaulted: failurePolicy Fail/, /^ValidatingWebhookConfiguration everything: failurePolicy Fail/],
  ],
  [
    'MultiRoleInference and ModelMirror objects, partitioned Workspaces and InferenceSets',
    {
      multiRoleInferences: [{ metadata: { name: 'mri', namespace: 'team' } }],
      modelMirrors: [{ metadata: { name: 'phi' } }],
      workspaces: [
        { metadata: { name: 'mig', namespace: 'team' }, resource: { partition: { mode: 'mig', profile: '1g.10gb' } } },
        { metadata: { name: 'whole', namespace: 'team' }, resource: {} },
      ],
      inferenceSets: [{ metadata: { name: 'acc', namespace: 'team' }, spec: { template: { resource: { partition: { mode: 'accelerator', count: 2 } } } } }],
    },
    [
      /^MultiRoleInference team\/mri: kaito-ts has no MultiRoleInference controller/,
      /^ModelMirror phi: kaito-ts has no ModelMirror controller/,
      /^Workspace team\/mig: resource\.partition is set: kaito-ts refuses a partitioned workspace/,
      /^InferenceSet team\/acc: spec\.template\.resource\.partition is set/,
    ],
  ],
  [
    "KAITO's Deployment with unimplemented gates on (found by label or by image), a malformed value; kaito-ts's own Deployment is not read",
    {
      deployments: [
        kaitoDeployment(['--feature-gates=enableMIG=true,ModelMirror=true']),
        kaitoDeployment(['--feature-gates', 'gatewayAPIInferenceExtension=true'], {}, 'mcr.microsoft.com/aks/kaito/workspace@sha256:abc'),
        kaitoDeployment(['--feature-gates=bogus=true']),
        kaitoDeployment(['--feature-gates=enableMIG=true'], { 'app.kubernetes.io/name': 'kaito-ts' }, 'ghcr.io/x/kaito-ts:1'),
      ],
    },
    [
      /^Deployment kaito-workspace\/kaito-workspace: KAITO runs with feature gate enableMIG=true, which kaito-ts does not implement \(docs\/operations\.md#feature-gates\)$/,
      /feature gate ModelMirror=true/,
      /feature gate gatewayAPIInferenceExtension=true/,
      /its --feature-gates cannot be read as KAITO's: unknown feature gate "bogus"/,
    ],
  ],
];

for (const [name, partial, expected] of cases) {
  test(`takeoverFindings: ${name}`, () => {
    const got = takeoverFindings({ ...empty, ...partial }, NS).map((f) => `${f.object}: ${f.problem}`);
    assert.equal(got.length, expected.length, JSON.stringify(got, null, 1));
    expected.forEach((re, i) => assert.match(got[i] ?? '', re));
  });
}

test('deletedByUninstall: the release from its annotation; keep wins; a bare managed-by label still counts', () => {
  assert.equal(deletedByUninstall(crd('a')), 'kaito-workspace');
  assert.equal(deletedByUninstall(crd('a', kept)), undefined);
  assert.equal(deletedByUninstall(crd('a', { labels: { 'app.kubernetes.io/managed-by': 'Helm' } })), '(unknown release)');
  assert.equal(deletedByUninstall(crd('a', {})), undefined);
});

test('featureGatesArg: = and separate forms, command or args, the last wins', () => {
  assert.equal(featureGatesArg({ args: ['--feature-gates=vLLM=true'] }), 'vLLM=true');
  assert.equal(featureGatesArg({ args: ['--feature-gates', 'a=true', '--feature-gates=b=false'] }), 'b=false');
  assert.equal(featureGatesArg({ command: ['/workspace', '-feature-gates=c=true'] }), 'c=true');
  assert.equal(featureGatesArg({ args: ['--webhook=false'] }), undefined);
});

test('`kaito-ts check`: a stray flag or no cluster exits 2 with one line', async () => {
  for (const args of [['--nope'], ['--kubeconfig', '/nonexistent/kubeconfig']]) {
    const err: string[] = [];
    const code = await main(['check', ...args], { stdout: () => undefined, stderr: (t) => err.push(t) });
    assert.equal(code, 2, args.join(' '));
    assert.equal(err.join('').trimEnd().split('\n').length, 1, err.join(''));
  }
});

test('helm-keep marks kaito.sh CRDs, KAITO’s ConfigMaps and the NVMe StorageClass keep; nothing else changes', async () => {
  const { keepManifests } = await import('../../../src/cli/commands/helm-keep.js');
  const { parseAllDocuments } = await import('yaml');
  const input = [
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: workspaces.kaito.sh\nspec:\n  group: kaito.sh\n',
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: inferencepools.x\nspec:\n  group: inference.networking.k8s.io\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: qlora-params-template\n  annotations:\n    a: b\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kaito-logging-config\n',
    'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: kaito-local-nvme-disk\n',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kaito-workspace\n',
  ].join('---\n');
  const out = parseAllDocuments(keepManifests(input)).map((d) => d.toJS() as KubernetesObject);
  assert.deepEqual(
    out.map((o) => `${o.metadata?.name}:${o.metadata?.annotations?.['helm.sh/resource-policy'] ?? '-'}`),
    [
      'workspaces.kaito.sh:keep',
      'inferencepools.x:-',
      'qlora-params-template:keep',
      'kaito-logging-config:-',
      'kaito-local-nvme-disk:keep',
      'kaito-workspace:-',
    ],
  );
  assert.equal(out[2]?.metadata?.annotations?.a, 'b');
  assert.throws(() => keepManifests('a: [\n'), /helm-keep: stdin is not YAML/);
});

test("Helm's release manifest decides, not the live object: a live keep annotation alone is still a finding", async () => {
  const { releaseManifestOf } = await import('../../../src/diff/takeover-check.js');
  const manifestCrd = (keep: boolean) => ({
    kind: 'CustomResourceDefinition',
    metadata: { name: 'workspaces.kaito.sh', ...(keep ? { annotations: { 'helm.sh/resource-policy': 'keep' } } : {}) },
  });
  const live = { ...empty, crds: [crd('workspaces.kaito.sh', kept)] };
  const unmarked = takeoverFindings({ ...live, releases: [releaseManifestOf('kaito-workspace', [manifestCrd(false)])] }, NS);
  assert.equal(unmarked.length, 1);
  assert.match(unmarked[0]!.problem, /`helm uninstall` of release kaito-workspace deletes it/);
  assert.deepEqual(takeoverFindings({ ...live, releases: [releaseManifestOf('kaito-workspace', [manifestCrd(true)])] }, NS), []);
  // An object no release lists: the live marks decide.
  assert.deepEqual(takeoverFindings({ ...live, releases: [releaseManifestOf('other', [])] }, NS), []);
});
