// `kaito-ts render` agrees with the API server. Every Workspace and InferenceSet document of KAITO
// v0.8.0's and v0.12.0's examples and docs, the Workspace fuzz generator's output, kaito-ts's own
// examples and a table of edge cases is applied to the real API server with a server-side dry run
// (`dryRun=All`, `fieldValidation=Strict`, as `kubectl apply --server-side --dry-run=server`) and
// rendered in-process. The document refused by one and not by the other is a disagreement. For each
// document the server accepts, the objects render prints are dry-run applied too and must all be
// accepted; when render refuses one of those objects instead, the server must refuse it as well.
// Render's own refusals for the operator's reasons (an unknown preset, a missing ConfigMap...) are
// counted apart: the API server has no opinion on them.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { V1ALPHA1_DEFAULT_INSTANCE_TYPE } from '../../src/api/crd.js';
import { parseFeatureGates } from '../../src/api/feature-gates.js';
import { CHILD_REFUSED_BY_API_SERVER, childWorkspacesToCheck, REFUSED_BY_API_SERVER, withOwnerUids } from '../../src/api/render-admission.js';
import { parseWorkspace } from '../../src/api/validation.js';
import { defaultFacts, factsFromObjects } from '../../src/builders/facts.js';
import { buildTuning, tuningObjectList } from '../../src/builders/tuning/build.js';
import { buildWorkspace, objectList } from '../../src/builders/workspace.js';
import { CliError } from '../../src/cli/command-io.js';
import { render } from '../../src/cli/commands/render.js';
import { provisionerOf } from '../../src/controllers/workspace/context.js';
import { podNodePinning } from '../../src/controllers/workspace/gather-facts.js';
import { parseInferenceSet, planInferenceSetOffline } from '../../src/diff/inferenceset-intent.js';
import { KubeApiError } from '../../src/runtime/errors.js';
import { KubeTransport } from '../../src/runtime/transport.js';
import { skipOutsideCi } from '../unit/support/kaito-source.js';
import { bed, freshNamespace } from './harness.js';
import { kaitoCorpus, type CorpusDoc } from './support/kaito-corpus.js';
import { installCrd } from './support/operator.js';
import { edgeCases } from './support/render-edge-cases.js';
import { generate } from './support/workspace-fuzz.js';

type Doc = Record<string, unknown>;
const ROOT = join(import.meta.dirname, '..', '..', '..');
const FUZZ_COUNT = Number(process.env.KAITO_TS_RENDER_FUZZ_COUNT ?? 300);
const FUZZ_SEED = Number(process.env.KAITO_TS_FUZZ_SEED ?? 14);
const BYO_GATES = 'disableNodeAutoProvisioning=true';
/** Nothing listens there: a Hugging Face id outside the catalog fails fast instead of reaching out. */
const NO_HUB = 'http://127.0.0.1:9';

const PLURALS: Record<string, string> = {
  Workspace: 'workspaces',
  InferenceSet: 'inferencesets',
  ControllerRevision: 'controllerrevisions',
  ConfigMap: 'configmaps',
  Service: 'services',
  StatefulSet: 'statefulsets',
  Job: 'jobs',
  Secret: 'secrets',
};

interface ServerAnswer {
  accepted: boolean;
  message: string;
  /** 409: a precondition on the stored object (a `metadata.uid` that no stored object has); an answer about the cluster, not the document. */
  conflict?: boolean;
}

type RenderAnswer =
  | { verdict: 'printed'; objects: Doc[] }
  /** The document itself: refused by the API server. */
  | { verdict: 'api'; message: string }
  /** An object render would print: the API server would refuse it. */
  | { verdict: 'child'; message: string }
  /** The operator's own reasons (catalogs, gates, cluster state). */
  | { verdict: 'operator'; message: string };

const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);
const metaOf = (d: Doc): Doc => (isObject(d.metadata) ? d.metadata : {});

/**
 * The SKU the document names (a v1alpha1 Workspace defaults one): without one, render runs with the
 * BYO gate, as an operator serving it would.
 */
function instanceTypeOf(d: Doc): unknown {
  if (d.kind === 'InferenceSet') {
    const template = isObject(d.spec) && isObject(d.spec.template) ? d.spec.template : {};
    return isObject(template.resource) ? template.resource.instanceType : undefined;
  }
  if (d.apiVersion === 'kaito.sh/v1alpha1') return V1ALPHA1_DEFAULT_INSTANCE_TYPE;
  return isObject(d.resource) ? d.resource.instanceType : undefined;
}

/** BYO nodes for the fuzzed workspaces' selector, so their presets get past "no nodes" and their objects are printed. */
const FUZZ_POOL = 'render-agrees';
function stateFile(dir: string): string {
  const node = (i: number): Doc => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `gpu-render-agrees-${i}`,
      labels: {
        'kubernetes.io/hostname': `gpu-render-agrees-${i}`,
        'node.kubernetes.io/instance-type': 'Standard_NC80adis_H100_v5',
        'nvidia.com/gpu.product': 'NVIDIA-H100-NVL',
        'nvidia.com/gpu.count': '2',
        'nvidia.com/gpu.memory': '96256',
        'kaito.sh/sim-pool': FUZZ_POOL,
      },
    },
    status: { capacity: { 'nvidia.com/gpu': '2' }, conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const file = join(dir, 'state.yaml');
  writeFileSync(file, [0, 1, 2, 3].map((i) => stringify(node(i))).join('---\n'));
  return file;
}

/** The document moved into the test's namespace (KAITO's examples name theirs, or none). */
function inNamespace(d: Doc, ns: string): Doc {
  const copy = structuredClone(d);
  if (isObject(copy.metadata)) copy.metadata.namespace = ns;
  else if (copy.metadata === undefined) copy.metadata = { namespace: ns };
  return copy;
}

async function dryRun(transport: KubeTransport, o: Doc, ns: string): Promise<ServerAnswer> {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const plural = PLURALS[String(o.kind)];
  if (!plural) throw new Error(`no resource known for kind ${String(o.kind)}`);
  const meta = metaOf(o);
  const base = `${apiVersion.includes('/') ? '/apis' : '/api'}/${apiVersion}/namespaces/${typeof meta.namespace === 'string' ? meta.namespace : ns}/${plural}`;
  const name = typeof meta.name === 'string' ? meta.name : '';
  const query = { dryRun: 'All', fieldValidation: 'Strict', fieldManager: 'render-corpus' };
  try {
    if (name) {
      await transport.request({
        verb: 'apply',
        method: 'PATCH',
        path: `${base}/${encodeURIComponent(name)}`,
        query: { ...query, force: true },
        body: o,
        contentType: 'application/apply-patch+yaml',
      });
    } else if (typeof meta.generateName === 'string' && o.kind === 'Workspace' && isObject(o.metadata) && o.metadata.ownerReferences) {
      // A child Workspace of an InferenceSet: created by its controller with generateName, not applied.
      await transport.request({ verb: 'create', method: 'POST', path: base, query, body: o });
    } else {
      // What kubectl answers without sending anything.
      return { accepted: false, message: 'error: resource name may not be empty' };
    }
    return { accepted: true, message: 'accepted' };
  } catch (err) {
    // A 500 too: server-side apply answers one for a value of the wrong type ("failed to create typed patch object"); kubectl reports it as an error.
    const transient = [429, 503, 504];
    if (err instanceof KubeApiError && err.status !== undefined && err.status >= 400 && !transient.includes(err.status)) {
      return { accepted: false, message: `${err.status}: ${err.message.split('\n').join(' ')}`, ...(err.status === 409 ? { conflict: true } : {}) };
    }
    throw err;
  }
}

async function renderDoc(file: string, d: Doc, state: string): Promise<RenderAnswer> {
  writeFileSync(file, stringify(d));
  const out: string[] = [];
  const args = [
    '-f',
    file,
    '--state',
    state,
    '-o',
    'json',
    '--hf-endpoint',
    NO_HUB,
    '--hf-timeout',
    '2s',
    ...(instanceTypeOf(d) ? [] : ['--feature-gates', BYO_GATES]),
  ];
  try {
    await render(args, { stdout: (s) => out.push(s), stderr: () => undefined });
  } catch (err) {
    if (!(err instanceof CliError)) throw new Error(`render crashed on ${file}: ${(err as Error).stack ?? String(err)}`);
    const message = err.message;
    if (message.includes(`: ${REFUSED_BY_API_SERVER}: `)) return { verdict: 'api', message };
    if (message.includes(`: ${CHILD_REFUSED_BY_API_SERVER} `)) return { verdict: 'child', message };
    return { verdict: 'operator', message };
  }
  return { verdict: 'printed', objects: (JSON.parse(out.join('')) as { items: Doc[] }).items };
}

/** The objects render would print for `d` without its check of them (the builders and plan it calls). */
function unchecked(d: Doc, state: string): Doc[] {
  const gates = parseFeatureGates(instanceTypeOf(d) ? undefined : BYO_GATES);
  const base = defaultFacts({ featureGates: gates });
  const stateObjects = parseAllDocuments(readFileSync(state, 'utf8')).map((x) => x.toJS() as unknown);
  const build = (ws: ReturnType<typeof parseWorkspace>): Doc[] => {
    const facts = { ...factsFromObjects(stateObjects, ws.metadata.namespace ?? 'default', base), ...podNodePinning(ws, provisionerOf(base)) };
    const built = ws.tuning ? buildTuning(ws, facts) : buildWorkspace(ws, facts);
    if (!built.ok) return [];
    return ('job' in built.objects ? tuningObjectList(built.objects) : objectList(built.objects)) as Doc[];
  };
  if (d.kind === 'Workspace') return build(parseWorkspace(d));
  const plan = planInferenceSetOffline(parseInferenceSet(d), { workspaces: [], controllerRevisions: [] }, { byo: gates.disableNodeAutoProvisioning });
  const creates = plan.actions.flatMap((a) => (a.kind === 'create' && a.type.kind === 'Workspace' ? [a.object as Doc] : []));
  let children: Doc[] = [];
  try {
    children = childWorkspacesToCheck(creates).flatMap(build);
  } catch {
    // A child that does not parse is refused as a Workspace already (the creates above).
  }
  return [...creates, ...children];
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function inBatches<T>(items: readonly T[], limit: number, fn: (x: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

function ownExamples(): CorpusDoc[] {
  const dir = join(ROOT, 'examples');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml') && !f.startsWith('state') && !f.startsWith('demo'));
  return files.sort().flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8'))
      .map((d) => d.toJS() as unknown)
      .filter((v): v is Doc => isObject(v) && (v.kind === 'Workspace' || v.kind === 'InferenceSet'))
      .map((doc, i) => ({ source: 'kaito-ts examples', origin: `examples/${f}#${i}`, doc })),
  );
}

test('render agrees with the API server on KAITO examples and docs, fuzzed workspaces, our examples and edge cases', async (t) => {
  const started = Date.now();
  const kaito = ['v0.8.0', 'v0.12.0'].map((v) => kaitoCorpus(v));
  if (kaito.some((c) => c === undefined)) return skipOutsideCi(t);
  const { kc } = await bed();
  await installCrd();
  const ns = await freshNamespace(t, 'render-agrees');
  const transport = new KubeTransport(kc, { qps: 200, burst: 400 });

  const fuzzSelector = { matchLabels: { 'kaito.sh/sim-pool': FUZZ_POOL } };
  const corpus: CorpusDoc[] = [
    ...kaito.flatMap((c) => c!.docs),
    ...generate(FUZZ_SEED, FUZZ_COUNT, fuzzSelector).map((c, i) => ({ source: 'fuzz', origin: `fuzz seed ${FUZZ_SEED} #${i} (${c.shape})`, doc: c.body })),
    ...ownExamples(),
    ...edgeCases().map((c) => ({ source: 'edge cases', origin: c.label, doc: c.doc })),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'render-agrees-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const state = stateFile(dir);

  const disagreements: string[] = [];
  const bySource: Record<string, Record<string, number>> = {};
  const count = (source: string, what: string) => {
    const s = (bySource[source] ??= {});
    s[what] = (s[what] ?? 0) + 1;
  };
  let printedObjects = 0;
  await inBatches(corpus, 6, async (c, i) => {
    const doc = inNamespace(c.doc, ns);
    const file = join(dir, `doc-${i}.yaml`);
    const [server, rendered] = await Promise.all([dryRun(transport, doc, ns), renderDoc(file, doc, state)]);
    const where = `${c.source} ${c.origin} (${file})`;
    const renderSays = rendered.verdict === 'printed' ? `printed ${rendered.objects.length} objects` : `${rendered.verdict}: ${rendered.message}`;
    count(c.source, 'documents');
    if (rendered.verdict !== 'printed') {
      assert.ok(!rendered.message.includes('\n'), `${where}: render's refusal is one line: ${rendered.message}`);
      if (rendered.verdict !== 'operator')
        assert.ok(rendered.message.startsWith(`${file}: `), `${where}: render's refusal names the file: ${rendered.message}`);
    }
    if (server.conflict) {
      count(c.source, 'conflict with the cluster (not compared)');
      return;
    }
    if (!server.accepted) {
      count(c.source, 'refused by both');
      if (rendered.verdict !== 'api') disagreements.push(`${where}: the API server refuses it (${server.message}); render: ${renderSays}`);
      return;
    }
    if (rendered.verdict === 'api') {
      disagreements.push(`${where}: the API server accepts it; render: ${renderSays}`);
      return;
    }
    if (rendered.verdict === 'operator') {
      count(c.source, 'refused by the operator');
      return;
    }
    const objects = rendered.verdict === 'printed' ? rendered.objects : unchecked(doc, state);
    const answers = await Promise.all(objects.map(async (o) => ({ o, a: await dryRun(transport, withOwnerUids(o), ns) })));
    const refused = answers.filter((x) => !x.a.accepted);
    if (rendered.verdict === 'printed') {
      printedObjects += objects.length;
      count(c.source, 'accepted by both');
      for (const { o, a } of refused)
        disagreements.push(
          `${where}: render printed ${String(o.kind)} ${String(metaOf(o).name ?? metaOf(o).generateName)}, the API server refuses it: ${a.message}`,
        );
    } else {
      count(c.source, 'printed object refused by both');
      if (refused.length === 0)
        disagreements.push(`${where}: render refuses an object it would print (${rendered.message}), the API server accepts all ${objects.length}`);
    }
  });

  const total = corpus.length;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  t.diagnostic(`${total} documents, ${printedObjects} printed objects dry-run applied, ${disagreements.length} disagreements, ${seconds} s`);
  t.diagnostic(`KAITO YAML blocks or files that do not parse (not counted): ${kaito.map((c) => c!.unparsable).join(' + ')}`);
  for (const [source, counts] of Object.entries(bySource)) t.diagnostic(`${source}: ${JSON.stringify(counts)}`);
  assert.deepEqual(disagreements.slice(0, 30), [], `${disagreements.length} disagreements`);
  assert.ok(total >= 500, `at least 500 documents (got ${total})`);
  for (const source of ['kaito-v0.8.0 examples', 'kaito-v0.12.0 examples', 'kaito-v0.8.0 docs', 'kaito-v0.12.0 docs']) {
    assert.ok((bySource[source]?.documents ?? 0) > 0, `${source} contributes documents`);
  }
});
