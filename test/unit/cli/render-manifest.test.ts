// `kaito-ts render -f` on multi-document files as KAITO ships them: the kaito.sh objects are rendered,
// the ConfigMaps and Secrets beside them are cluster state once applied (merged with --state, the file
// winning), other kinds are skipped with a warning.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseAllDocuments } from 'yaml';
import { main } from '../../../src/cli/main.js';
import { WORKSPACE } from './bad-input-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'render-manifest-'));

function file(name: string, ...docs: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, docs.join('---\n'));
  return path;
}

async function render(args: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (t: string) => out.push(t),
    stderr: (t: string) => err.push(t),
    ...(stdin === undefined ? {} : { stdin: Readable.from([Buffer.from(stdin)]) }),
  };
  const code = await main(['render', ...args], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const kinds = (yaml: string) => parseAllDocuments(yaml).map((d) => (d.toJS() as { kind: string }).kind);

/** A Workspace on NAP (phi-4-mini-instruct on an A100), with `extra` lines appended under `inference:`. */
const workspace = (extra = '') => `${WORKSPACE}${extra}`;

const configMap = (maxModelLen: number) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: my-config
data:
  inference_config.yaml: |
    vllm:
      max-model-len: ${maxModelLen}
`;

const pvc = (name: string) => `kind: PersistentVolumeClaim
apiVersion: v1
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteMany]
  resources:
    requests:
      storage: 100Gi
`;

const tuning = `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: tune
resource:
  instanceType: Standard_NC24ads_A100_v4
  labelSelector:
    matchLabels:
      apps: tune
tuning:
  preset:
    name: phi-3-mini-128k-instruct
  method: qlora
  input:
    volumeSource:
      persistentVolumeClaim:
        claimName: pvc-input
  output:
    volumeSource:
      persistentVolumeClaim:
        claimName: pvc-output
`;

const inferenceSet = `apiVersion: kaito.sh/v1alpha1
kind: InferenceSet
metadata:
  name: llama
spec:
  replicas: 1
  labelSelector:
    matchLabels:
      apps: llama
  template:
    inference:
      preset:
        name: phi-4-mini-instruct
    resource:
      instanceType: Standard_NC24ads_A100_v4
`;

const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: hf-token\nstringData:\n  HF_TOKEN: hf_x\n';

describe('render: multi-document files as kubectl apply -f takes them', () => {
  it('a ConfigMap beside the workspace is the ConfigMap it reads; it wins over --state; --state alone still works', async () => {
    const withConfig = workspace('  config: my-config\n');
    // KAITO v0.8.0's rendering puts the ConfigMap's context length on the command line, where it shows which ConfigMap was read.
    const v08 = ['--legacy-presets', 'v0.8'];
    const beside = await render(['-f', file('cm.yaml', configMap(1234), withConfig), ...v08]);
    assert.equal(beside.code, 0, beside.stderr);
    assert.match(beside.stdout, /--max-model-len=1234 /);
    assert.equal(
      beside.stderr,
      `kaito-ts: warning: ${join(dir, 'cm.yaml')}: ConfigMap my-config is not rendered (read as cluster state, as after kubectl apply)\n`,
    );
    assert.deepEqual(kinds(beside.stdout).sort(), ['ControllerRevision', 'Service', 'Service', 'StatefulSet']);

    const state = file('state.yaml', configMap(4321));
    const both = await render(['-f', file('cm.yaml', configMap(1234), withConfig), '--state', state, ...v08]);
    assert.equal(both.code, 0, both.stderr);
    assert.match(both.stdout, /--max-model-len=1234 /, 'the file is applied after the state it lands on');

    const stateOnly = await render(['-f', file('ws.yaml', withConfig), '--state', state, ...v08]);
    assert.equal(stateOnly.code, 0, stateOnly.stderr);
    assert.match(stateOnly.stdout, /--max-model-len=4321 /);

    const missing = await render(['-f', file('ws.yaml', withConfig)]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /ConfigMap 'my-config'/);
  });

  it('PersistentVolumeClaims beside a tuning workspace: skipped with a warning each, the Job rendered', async () => {
    const r = await render(['-f', file('tune.yaml', pvc('pvc-input'), pvc('pvc-output'), tuning)]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(kinds(r.stdout).includes('Job'), r.stdout);
    const warnings = r.stderr.trimEnd().split('\n');
    assert.equal(warnings.length, 2, r.stderr);
    for (const [i, name] of ['pvc-input', 'pvc-output'].entries())
      assert.equal(
        warnings[i],
        `kaito-ts: warning: ${join(dir, 'tune.yaml')}: PersistentVolumeClaim ${name} is not rendered (not read: render does not need it)`,
      );
  });

  it('an InferenceSet with its Secret, and a kind: List of both, from standard input', async () => {
    const r = await render(['-f', file('is.yaml', secret, inferenceSet)]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(kinds(r.stdout), ['Workspace']);
    assert.match(r.stderr, /Secret hf-token is not rendered \(read as cluster state/);

    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: parseAllDocuments(`${secret}---\n${inferenceSet}`).map((d) => d.toJS() as unknown) });
    const fromStdin = await render(['-f', '-'], list);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(fromStdin.stdout, r.stdout);
    assert.match(fromStdin.stderr, /^kaito-ts: warning: standard input: Secret hf-token is not rendered/);
  });

  it('what cannot be rendered is refused by name: another kaito.sh kind, a document that is not an object or has no kind', async () => {
    const rag = 'apiVersion: kaito.sh/v1alpha1\nkind: RAGEngine\nmetadata:\n  name: rag\nspec: {}\n';
    const cases: [string[], RegExp][] = [
      [[rag, workspace()], /^kaito-ts: .*rag\.yaml: kind must be Workspace, got "RAGEngine"$/],
      [[workspace(), '- a\n- b\n'], /^kaito-ts: .*rag\.yaml: document 2 is a list, not a Kubernetes object/],
      [['metadata:\n  name: x\n', workspace()], /^kaito-ts: .*rag\.yaml: document 1 has no kind, so it is not a Kubernetes object$/],
      [[pvc('only')], /^kaito-ts: .*rag\.yaml: no Workspace or InferenceSet found$/],
    ];
    for (const [docs, message] of cases) {
      const r = await render(['-f', file('rag.yaml', ...docs)]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr.trimEnd(), message);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    }
  });
});
