import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { workspaceSchema } from '../../src/api/crd.js';
import { checkSchema } from '../../src/api/schema-check.js';
import { main } from '../../src/cli/main.js';

const EXAMPLES = 'examples';

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['render', ...args], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

function exampleFiles(): string[] {
  return readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(EXAMPLES, f));
}

/**
 * BYO examples need the BYO gate and nodes; the rest render against the NVMe cluster state. The falcon
 * inference example is a KAITO v0.8.0 preset (v0.12.0 refuses it): it renders with --legacy-presets=v0.8.
 */
function argsFor(file: string): string[] {
  if (file.includes('tuning-')) return ['-f', file, '--state', join(EXAMPLES, 'state', 'tuning.yaml')];
  if (file.includes('falcon-')) return ['-f', file, '--state', join(EXAMPLES, 'state', 'nvme.yaml'), '--legacy-presets', 'v0.8'];
  return file.includes('byo-')
    ? ['-f', file, '--feature-gates', 'disableNodeAutoProvisioning=true', '--state', join(EXAMPLES, 'state', 'byo-nodes.yaml')]
    : ['-f', file, '--state', join(EXAMPLES, 'state', 'nvme.yaml')];
}

function docs(text: string): { kind?: string; metadata?: { name?: string } }[] {
  return parseAllDocuments(text).map((d) => {
    assert.deepEqual(d.errors, []);
    return d.toJS() as { kind?: string };
  });
}

test('examples cover every preset family, a template, adapters, multi-node, BYO and LoadBalancer', () => {
  const all = exampleFiles()
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  for (const family of ['deepseek', 'falcon', 'gemma-3', 'gpt-oss', 'llama-3', 'mistral', 'phi-3', 'phi-4', 'qwen']) {
    assert.match(all, new RegExp(`name: ${family}`), family);
  }
  assert.match(all, /template:/);
  assert.match(all, /adapters:/);
  assert.match(all, /llama-3\.3-70b-instruct/);
  assert.match(all, /kaito\.sh\/enablelb: "True"/);
  assert.ok(exampleFiles().some((f) => f.includes('byo-')));
  // Tuning: every input kind (URLs, image, volume) and every output kind (image push, volume).
  const tuning = exampleFiles()
    .filter((f) => f.includes('tuning-'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  for (const kind of [/input:\n\s+urls:/, /input:\n(\s+name: .*\n)?\s+image:/, /input:\n\s+volumeSource:/, /output:\n\s+image:/, /output:\n\s+volumeSource:/]) {
    assert.match(tuning, kind);
  }
});

test('every example is a valid Workspace per the generated CRD schema', () => {
  for (const file of exampleFiles()) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      assert.deepEqual(checkSchema(doc.toJS(), workspaceSchema()), [], file);
    }
  }
});

test('every example renders: YAML and JSON, the objects of the workspace, nothing on stderr', async () => {
  for (const file of exampleFiles()) {
    const yaml = await run(argsFor(file));
    assert.equal(yaml.code, 0, `${file}: ${yaml.stderr}`);
    assert.equal(yaml.stderr, '', file);
    const objects = docs(yaml.stdout);
    const kinds = objects.map((o) => o.kind);
    const expected = file.includes('tuning-') ? ['ControllerRevision', 'Job'] : ['ControllerRevision', 'Service', 'Service', 'StatefulSet'];
    assert.deepEqual(
      kinds.filter((k) => k !== 'ConfigMap'),
      expected,
      file,
    );
    const name = docs(readFileSync(file, 'utf8'))[0]?.metadata?.name ?? '';
    assert.equal(objects.at(-1)?.metadata?.name, name, file);

    const json = await run([...argsFor(file), '-o', 'json']);
    assert.equal(json.code, 0, file);
    const list = JSON.parse(json.stdout) as { apiVersion: string; kind: string; items: unknown[] };
    assert.equal(list.apiVersion, 'v1');
    assert.equal(list.kind, 'List');
    assert.deepEqual(list.items, objects, file);
  }
});

test('--explain: YAML comments on top (stdout still parses), stderr with -o json', async () => {
  const file = join(EXAMPLES, 'phi-4-mini-instruct.yaml');
  const yaml = await run([...argsFor(file), '--explain']);
  assert.match(yaml.stdout, /^# workspace default\/phi-4-mini: revision 1, hash [0-9a-f]{64}\n/);
  assert.match(yaml.stdout, /^# modelWeightsVolume: nvme — .*kaito-local-nvme-disk exists/m);
  assert.match(yaml.stdout, /^# generation: has none yet \(no StatefulSet\); gets KAITO v0\.12\.0 \(--legacy-presets=v0\.12\)$/m);
  // KAITO v0.12.0's catalog entry (the default): no config copy, so revision, two Services, the StatefulSet.
  assert.equal(docs(yaml.stdout).length, 4);
  const v08 = await run([...argsFor(file), '--explain', '--legacy-presets', 'v0.8']);
  assert.match(v08.stdout, /^# generation: has none yet \(no StatefulSet\); gets KAITO v0\.8\.0 \(--legacy-presets=v0\.8\)$/m);
  assert.equal(docs(v08.stdout).length, 5, 'v0.8.0 copies inference-params-template');
  const json = await run([...argsFor(file), '--explain', '-o', 'json']);
  assert.doesNotThrow(() => JSON.parse(json.stdout));
  assert.match(json.stderr, /modelWeightsVolume: nvme/);
});

test("--explain prints the controller's own plan for that state: NodeClaims first under auto-provisioning, the StatefulSet on BYO nodes", async () => {
  const nap = await run([...argsFor(join(EXAMPLES, 'phi-4-mini-instruct.yaml')), '--explain']);
  const plan = (out: string) =>
    out
      .split('\n')
      .filter((l) => l.startsWith('#   '))
      .map((l) => l.slice(4).split(/[ :]/).slice(0, 2).join(' '));
  assert.deepEqual(plan(nap.stdout).slice(0, 2), ['patch workspace', 'create NodeClaim']);
  assert.ok(!plan(nap.stdout).includes('apply StatefulSet'), 'the workload waits for its nodes');
  const byo = await run([...argsFor(join(EXAMPLES, 'byo-phi-3-mini-4k-instruct-a10.yaml')), '--explain']);
  assert.ok(plan(byo.stdout).includes('apply StatefulSet'), byo.stdout);
});

test('cluster state decides NVMe vs emptyDir; no --state is an empty cluster', async () => {
  const file = join(EXAMPLES, 'phi-4-mini-instruct.yaml');
  const cases: [string[], boolean][] = [
    [['--state', join(EXAMPLES, 'state', 'nvme.yaml')], true],
    [['--state', join(EXAMPLES, 'state', 'no-nvme.yaml')], false],
    [[], false],
  ];
  for (const [state, nvme] of cases) {
    const r = await run(['-f', file, ...state]);
    assert.equal(r.code, 0, r.stderr);
    const sts = docs(r.stdout).at(-1) as {
      spec: { volumeClaimTemplates?: unknown[]; template: { spec: { volumes: { name: string; emptyDir?: { sizeLimit?: string } }[] } } };
    };
    assert.equal(sts.spec.volumeClaimTemplates !== undefined, nvme, state.join(' '));
    const weights = sts.spec.template.spec.volumes.find((v) => v.name === 'model-weights-volume');
    // KAITO v0.12.0's disk figure for the catalog entry (weights + 80 GiB); v0.8.0's preset had 70Gi.
    assert.deepEqual(weights, nvme ? undefined : { name: 'model-weights-volume', emptyDir: { sizeLimit: '87Gi' } });
  }
});

test('bad input: exit 2, one line on stderr naming the problem, nothing on stdout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'render-'));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const ws = (preset: string, instanceType: string) =>
    `apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\nresource:\n  instanceType: ${instanceType}\n  labelSelector:\n    matchLabels: {a: b}\ninference:\n  preset:\n    name: ${preset}\n`;
  const cases: { name: string; args: string[]; message: RegExp }[] = [
    {
      name: 'unknown preset',
      args: ['-f', write('p.yaml', ws('phi-4-mini-instrukt', 'Standard_NC24ads_A100_v4'))],
      message: /phi-4-mini-instrukt.*closest.*phi-4-mini-instruct/,
    },
    { name: 'unknown SKU', args: ['-f', write('s.yaml', ws('phi-4', 'p9.huge'))], message: /p9\.huge/ },
    {
      name: 'SKU of another cloud',
      args: ['-f', write('c.yaml', ws('phi-4', 'Standard_NC24ads_A100_v4')), '--cloud-provider', 'aws'],
      message: /Standard_NC24ads_A100_v4/,
    },
    {
      name: 'too little GPU memory (v0.8.0)',
      args: ['-f', write('m.yaml', ws('falcon-7b', 'Standard_NC6s_v3')), '--legacy-presets', 'v0.8'],
      message: /too small/,
    },
    {
      name: 'falcon under v0.12',
      args: ['-f', write('f.yaml', ws('falcon-7b', 'Standard_NC24ads_A100_v4'))],
      message: /Unsupported inference preset name falcon-7b/,
    },
    {
      name: 'a SKU v0.12.0 dropped',
      args: ['-f', write('v.yaml', ws('microsoft/phi-4', 'Standard_NC24s_v3'))],
      message: /Unsupported SKU 'Standard_NC24s_v3'/,
    },
    {
      name: 'bad --legacy-presets',
      args: ['-f', join(EXAMPLES, 'phi-4-mini-instruct.yaml'), '--legacy-presets', 'v0.10'],
      message: /--legacy-presets must be one of v0\.12, v0\.8/,
    },
    { name: 'invalid YAML', args: ['-f', write('y.yaml', 'kind: Workspace\n  bad: [\n')], message: /invalid YAML/ },
    {
      name: 'missing required field',
      args: [
        '-f',
        write('r.yaml', 'apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\nresource: {}\ninference:\n  preset:\n    name: phi-4\n'),
      ],
      message: /r\.yaml: workspace default\/w: refused by the API server: resource\.labelSelector: Required value/,
    },
    { name: 'missing file', args: ['-f', join(dir, 'nope.yaml')], message: /cannot read workspace file .*nope\.yaml: no such file/ },
    { name: 'missing -f', args: [], message: /-f/ },
    { name: 'bad -o', args: ['-f', join(EXAMPLES, 'phi-4-mini-instruct.yaml'), '-o', 'xml'], message: /-o must be yaml or json/ },
    {
      name: 'bad feature gate',
      args: ['-f', join(EXAMPLES, 'phi-4-mini-instruct.yaml'), '--feature-gates', 'nope=true'],
      message: /unknown feature gate "nope"/,
    },
    { name: 'bad cloud', args: ['-f', join(EXAMPLES, 'phi-4-mini-instruct.yaml'), '--cloud-provider', 'gcp'], message: /gcp/ },
    {
      name: 'unknown kind in state',
      args: ['-f', join(EXAMPLES, 'phi-4-mini-instruct.yaml'), '--state', write('st.yaml', 'kind: Pod\nmetadata: {name: p}\n')],
      message: /unsupported kind "Pod"/,
    },
    {
      name: 'missing user ConfigMap',
      args: ['-f', write('cm.yaml', `${ws('phi-4', 'Standard_NC24ads_A100_v4')}  config: mine\n`)],
      message: /ConfigMap 'mine'/,
    },
    {
      name: "KAITO v0.12's resource.partition",
      args: [
        '-f',
        write('part.yaml', ws('phi-4', 'Standard_NC24ads_A100_v4').replace('resource:\n', 'resource:\n  partition:\n    mode: accelerator\n    count: 2\n')),
      ],
      message: /resource\.partition: GPU partitioning \(mode "accelerator"; .*not supported by kaito-ts/,
    },
    {
      name: 'an unimplemented KAITO feature gate set to true',
      args: ['-f', join(EXAMPLES, 'phi-4-mini-instruct.yaml'), '--feature-gates', 'enableMIG=true'],
      message: /feature gate "enableMIG" is not implemented by kaito-ts.*docs\/operations\.md#feature-gates/,
    },
    {
      name: 'BYO without nodes',
      args: ['-f', join(EXAMPLES, 'byo-phi-3-mini-4k-instruct-a10.yaml'), '--feature-gates', 'disableNodeAutoProvisioning=true'],
      message: /No nodes found/,
    },
  ];
  for (const c of cases) {
    const r = await run(c.args);
    assert.equal(r.code, 2, `${c.name}: ${r.stderr}`);
    assert.equal(r.stdout, '', c.name);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, `${c.name}: ${r.stderr}`);
    assert.match(r.stderr, /^kaito-ts: /, c.name);
    assert.match(r.stderr, c.message, c.name);
    assert.doesNotMatch(r.stderr, /\n\s+at /, c.name);
  }
});

test('template examples render with the spec hash KAITO v0.8.0 computes', async () => {
  // Hashes from KAITO v0.8.0's own code: api/v1beta1/workspace_types.go with k8s.io/api and
  // apimachinery v0.34.1, ComputeHash's three json.Encoder documents, run with `go run` on the
  // workspaces as parsed here (CRD defaults applied). See docs/builders.md, "Spec hash parity".
  const want: Record<string, string> = {
    'template-nginx.yaml': '9c540613206b3488f9758ed81d61e22eb788cb26340212e90a558893fa7239d2',
    'template-quantities.yaml': 'e2f6a9b51e225d3de8bc0b5ac13ccd6cfcda712e8367ef6d55d7f95763a4561c',
  };
  const templates = exampleFiles().filter((f) => /^\s+template:/m.test(readFileSync(f, 'utf8')));
  assert.deepEqual(templates.map((f) => f.slice(EXAMPLES.length + 1)).sort(), Object.keys(want).sort());
  for (const file of templates) {
    const r = await run([...argsFor(file), '--explain']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`hash ${want[file.slice(EXAMPLES.length + 1)]}`), file);
  }
});

test("an InferenceSet renders as the child Workspaces its first pass creates; --explain prints that pass's plan", async () => {
  const file = join(EXAMPLES, 'inferenceset', 'kaito_inferenceset_phi_4_mini.yaml');
  const out = await run(['-f', file, '--explain']);
  assert.equal(out.code, 0, out.stderr);
  const children = docs(out.stdout) as { kind?: string; metadata?: { generateName?: string; annotations?: Record<string, string> } }[];
  assert.ok(children.length >= 1);
  for (const c of children) {
    assert.equal(c.kind, 'Workspace');
    assert.equal(c.metadata?.generateName, 'phi-4-mini-');
    assert.match(c.metadata?.annotations?.['kaito-ts.io/template-hash'] ?? '', /^[0-9a-f]{64}$/);
  }
  assert.match(out.stdout, /^# inferenceset default\/phi-4-mini: \d+ child Workspace\(s\) to create, template hash [0-9a-f]{64}$/m);
  assert.match(out.stdout, /^# {3}create Workspace default\/: replica 1 of /m);
  // KAITO's example with its HF token Secret: the Secret is skipped with a warning.
  const llama = await run(['-f', join(EXAMPLES, 'inferenceset', 'kaito_inferenceset_llama-3.1_8b_instruct.yaml')]);
  assert.equal(llama.code, 0, llama.stderr);
  assert.match(llama.stderr, /Secret hf-token is not rendered/);
  // BYO: no instanceType allowed (KAITO's webhook message).
  const byo = await run(['-f', file, '--feature-gates', 'disableNodeAutoProvisioning=true']);
  assert.equal(byo.code, 2);
  assert.match(byo.stderr, /instanceType must be empty when nodeProvisioner is byo/);
});
