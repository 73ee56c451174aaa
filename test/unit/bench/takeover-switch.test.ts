import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { commandsOf, localScript, switchProcedure } from '../../../bench/takeover-doc.js';
import { deploymentArgs, kaitoChartValues, operatorFlagsOf, standInManifests } from '../../../bench/takeover-chart.js';
import { takeoverInferenceSets } from '../../../bench/takeover-plan.js';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'takeover.md'), 'utf8');

describe("docs/takeover.md's switch, as the takeover run reads it", () => {
  const { settings, steps } = switchProcedure(DOC);
  it('settings NS, RELEASE, CHART, VERSION and FLAGS (from KAITO’s Deployment) come first', () => {
    assert.deepEqual(
      commandsOf(settings).map((c) => c.split('=')[0]),
      ['NS', 'RELEASE', 'CHART', 'VERSION', 'FLAGS'],
    );
    assert.match(settings, /kubectl -n \$NS get deployment \$RELEASE/);
  });
  it('steps a to g, in order, ending with helm uninstall of KAITO’s release and a clean check', () => {
    assert.deepEqual(
      steps.map((s) => s.id),
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    );
    const all = steps.map((s) => commandsOf(s.script).join('\n')).join('\n');
    // Every KAITO v0.12.0 CRD and webhook configuration is named.
    const text = steps.map((s) => s.script).join('\n');
    for (const name of ['workspaces', 'inferencesets', 'modelmirrors', 'multiroleinferences']) assert.match(text, new RegExp(`\\b${name}\\b`));
    for (const hook of [
      'validation.workspace.kaito.sh',
      'validation.inferenceset.kaito.sh',
      'validation.multiroleinference.kaito.sh',
      'validation.modelmirror.kaito.sh',
    ])
      assert.ok(all.includes(hook), hook);
    // Helm reads the keep mark from the release's manifest: step a re-renders the release with it.
    assert.match(
      commandsOf(steps[0]!.script)[0]!,
      /^helm upgrade \$RELEASE \$CHART --version \$VERSION -n \$NS --reuse-values --post-renderer kaito-ts --post-renderer-args helm-keep$/,
    );
    assert.deepEqual(commandsOf(steps.at(-1)!.script), ['helm uninstall $RELEASE -n $NS', 'kaito-ts check --release-namespace $NS']);
  });
  it('the install of kaito-ts becomes helm template; its rollout wait is left to the run; every other command runs as written', () => {
    const e = steps.find((s) => /Install kaito-ts/.test(s.title))!;
    const local = localScript(e);
    assert.equal(local.installs, true);
    assert.match(local.script, /^helm template kaito-ts \.\/charts\/kaito-ts -n \$NS -f /m);
    assert.doesNotMatch(local.script, /rollout status deploy\/kaito-ts/);
    const c = steps.find((s) => s.id === 'c')!;
    assert.deepEqual(localScript(c), { script: commandsOf(c.script).join('\n'), installs: false });
  });
  it('continuations are joined; comments and blank lines dropped', () => {
    assert.deepEqual(commandsOf('# x\nkubectl delete a \\\n  b --ignore-not-found\n\nfor x in 1; do\n  echo $x\ndone\n'), [
      'kubectl delete a b --ignore-not-found',
      'for x in 1; do',
      'echo $x',
      'done',
    ]);
  });
  it('a document without the section is refused', () => {
    assert.throws(() => switchProcedure('# nothing here\n'), /no "## 2\. The switch" section/);
  });
});

describe("KAITO v0.12.0's chart on the run's cluster", () => {
  const rendered = [
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: kaito-workspace-svc\n  namespace: kaito-workspace\nspec:\n  type: ClusterIP\n  selector:\n    app: x\n  ports:\n    - name: https-webhook\n      port: 9443\n',
    'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: kaito-local-nvme-disk\nprovisioner: localdisk.csi.acstor.io\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inference-params-template\n',
  ].join('---\n');
  it('the webhook Service becomes an ExternalName for localhost (ports kept), the local-CSI StorageClass is left out, the rest untouched', () => {
    const docs = parseAllDocuments(standInManifests(rendered)).map((d) => d.toJS() as { kind: string; spec?: Record<string, unknown> });
    assert.deepEqual(
      docs.map((d) => d.kind),
      ['Service', 'ConfigMap'],
    );
    assert.deepEqual(docs[0]!.spec, { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https-webhook', port: 9443 }] });
  });
  it('values: no device plugin or CSI subchart, the run’s provisioner and webhook port; Karpenter mode names the kwok NodeClass', () => {
    assert.deepEqual(kaitoChartValues('byo', 12345), {
      nvidiaDevicePlugin: { enabled: false },
      localCSIDriver: { useLocalCSIDriver: false },
      webhook: { port: 12345 },
      nodeProvisioner: 'byo',
    });
    const k = kaitoChartValues('karpenter', 1) as { karpenterProvider: string; karpenterProviders: Record<string, { kind: string }> };
    assert.equal(k.karpenterProviders[k.karpenterProvider]?.kind, 'KWOKNodeClass');
  });
  it('the shared operator flags of a rendered Deployment', () => {
    const args = [
      '--feature-gates=vLLM=true',
      '--node-provisioner=karpenter',
      '--karpenter-node-class-group=g',
      '--karpenter-node-classes=[]',
      '--leader-elect',
      '--metrics-bind-address=:8080',
    ];
    assert.deepEqual(operatorFlagsOf(args), args.slice(0, 4));
    const deployment = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kaito-ts\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          args: ["--feature-gates=vLLM=true"]\n`;
    assert.deepEqual(deploymentArgs(`${rendered}---\n${deployment}`, 'kaito-ts'), ['--feature-gates=vLLM=true']);
    assert.equal(deploymentArgs(rendered, 'kaito-ts'), undefined);
  });
  it('InferenceSets from KAITO v0.12.0: one created through each version, in both modes; none from v0.8.0', () => {
    for (const mode of ['byo', 'karpenter'] as const)
      assert.deepEqual(
        takeoverInferenceSets(mode, 'kaito-v0.12.0').map((s) => s.apiVersion),
        ['kaito.sh/v1beta1', 'kaito.sh/v1alpha1'],
      );
    assert.deepEqual(takeoverInferenceSets('byo', 'kaito-v0.8.0'), []);
  });
});
