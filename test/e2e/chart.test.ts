// The chart as CI ships it: `helm lint --strict` passes, the values schema rejects bad values,
// `helm package` makes the archive, and an upgrade from the previous chart version changes only
// the operator's own objects: same kinds and names (helm deletes nothing), the same Deployment
// selector (immutable), and no workload a workspace runs on is a chart resource.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const CHART = join(ROOT, 'charts', 'kaito-ts');

function run(cmd: string, args: string[], opts: { cwd?: string } = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd ?? ROOT, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

async function ok(cmd: string, args: string[], opts: { cwd?: string } = {}): Promise<string> {
  const r = await run(cmd, args, opts);
  assert.equal(r.code, 0, `${cmd} ${args.join(' ')}:\n${r.out}`);
  return r.out;
}

interface Rendered {
  kind: string;
  metadata: { name: string };
  spec?: { selector?: unknown };
}

async function render(helm: string, chart: string): Promise<Rendered[]> {
  const out = await ok(helm, ['template', 'kaito-ts', chart, '--namespace', 'kaito-workspace', '--include-crds']);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => o !== null);
}

/** The newest commit whose chart has another version than the checkout's (the version users upgrade from). */
async function previousChartCommit(version: string): Promise<string | undefined> {
  const log = await ok('git', ['log', '--format=%H', '--', 'charts/kaito-ts/Chart.yaml']);
  for (const sha of log.split('\n').filter(Boolean)) {
    const chart = parse(await ok('git', ['show', `${sha}:charts/kaito-ts/Chart.yaml`])) as { version: string };
    if (chart.version !== version) return sha;
  }
  return undefined;
}

test('chart: helm lint --strict, values schema, helm package, upgrade from the previous version touches only the operator', { timeout: 600_000 }, async (t) => {
  const helm = (await ok('bash', [join(ROOT, 'simcluster', 'build-helm.sh')])).trim().split('\n').pop()!;
  await ok(helm, ['lint', '--strict', CHART]);

  const bad = await run(helm, ['lint', CHART, '--set', 'replicaCount=two', '--set', 'featureGates.typo=true', '--set', 'cloudProviderName=gcp']);
  assert.notEqual(bad.code, 0);
  for (const field of ['/replicaCount', '/featureGates', '/cloudProviderName']) assert.ok(bad.out.includes(field), `schema names ${field}:\n${bad.out}`);

  const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-chart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };
  await ok(helm, ['package', CHART, '--destination', dir]);
  const archive = join(dir, `kaito-ts-${chart.version}.tgz`);
  const files = (await ok('tar', ['-tzf', archive])).split('\n');
  for (const f of ['Chart.yaml', 'values.yaml', 'values.schema.json', 'crds/kaito.sh_workspaces.yaml', 'templates/deployment.yaml'])
    assert.ok(files.includes(`kaito-ts/${f}`), `${f} in ${archive}`);

  const current = await render(helm, archive);
  const deployment = current.find((o) => o.kind === 'Deployment');
  const container = (deployment as { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } } | undefined)?.spec?.template?.spec
    ?.containers?.[0];
  assert.equal(container?.image, `ghcr.io/kaito-ts/kaito-ts:${chart.appVersion}`, 'the default image is the one npm run image builds');
  // What a workspace runs on (StatefulSets, its Services, ControllerRevisions, Workspaces) is never a chart resource.
  assert.deepEqual(
    current.filter((o) => ['StatefulSet', 'ControllerRevision', 'Workspace', 'Job'].includes(o.kind)),
    [],
  );

  const previous = await previousChartCommit(chart.version);
  assert.ok(previous, 'a previous chart version in git history');
  const old = join(dir, 'previous');
  await ok('bash', ['-c', `mkdir -p "${old}" && git archive "${previous}" charts/kaito-ts | tar -x -C "${old}"`]);
  const before = await render(helm, join(old, 'charts', 'kaito-ts'));
  const ids = (list: Rendered[]) => list.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  const removed = ids(before).filter((id) => !ids(current).includes(id));
  const added = ids(current).filter((id) => !ids(before).includes(id));
  assert.deepEqual(removed, [], 'the upgrade deletes no object');
  // A new API (0.2.0: InferenceSet) adds its CRD; nothing else is added.
  assert.deepEqual(
    added.filter((id) => !id.startsWith('CustomResourceDefinition/')),
    [],
    "the upgrade adds no object but a new API's CRD",
  );
  t.diagnostic(`upgrade from ${previous.slice(0, 8)}: added ${added.join(', ') || 'nothing'}`);
  const oldDeployment = before.find((o) => o.kind === 'Deployment');
  assert.deepEqual(deployment?.spec?.selector, oldDeployment?.spec?.selector, 'Deployment selector (immutable) unchanged');
});
