import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { VolumeKind } from '../../../bench/controllers.js';
import {
  benchDocument,
  checkVolumes,
  costTable,
  formatTable,
  markdownTable,
  napStageTable,
  parseBenchDocument,
  volumeKindOf,
  type ControllerResult,
} from '../../../bench/results.js';
import type { NapFigures } from '../../../bench/nap.js';

const kaitoTs: ControllerResult = {
  controller: 'kaito-ts',
  allStatefulSetsSeconds: 3.2,
  allReadySeconds: 6.8,
  peakRssMiB: 88.4,
  cpuSeconds: 4.25,
  requestsByVerb: { patch: 400, watch: 8, list: 8, create: 10 },
  writesPerIdleMinute: 0,
  correct: true,
};
const kaito: ControllerResult = {
  controller: 'kaito-v0.8.0',
  allStatefulSetsSeconds: 70,
  allReadySeconds: null,
  peakRssMiB: 120,
  cpuSeconds: 9,
  requestsByVerb: { update: 900, get: 2 },
  writesPerIdleMinute: 3,
  correct: false,
};

describe('benchDocument', () => {
  it('has exactly the documented keys, in order, with verbs sorted', () => {
    const doc = benchDocument(200, [kaitoTs, kaito]);
    assert.deepEqual(Object.keys(doc), ['n', 'results']);
    assert.deepEqual(Object.keys(doc.results[0] ?? {}), [
      'controller',
      'allStatefulSetsSeconds',
      'allReadySeconds',
      'peakRssMiB',
      'cpuSeconds',
      'requestsByVerb',
      'writesPerIdleMinute',
      'correct',
    ]);
    assert.deepEqual(Object.keys(doc.results[0]?.requestsByVerb ?? {}), ['list', 'watch', 'create', 'patch']);
    assert.equal(JSON.stringify(JSON.parse(JSON.stringify(doc))), JSON.stringify(doc));
  });
  it('round-trips through parseBenchDocument and refuses other shapes', () => {
    const doc = benchDocument(50, [kaitoTs]);
    assert.deepEqual(parseBenchDocument(JSON.stringify(doc)), doc);
    assert.throws(() => parseBenchDocument('{"results": []}', 'x.json'), /x.json: expected/);
    assert.throws(() => parseBenchDocument('{"n": 5, "results": [{}]}'), /no controller/);
  });
  it('--restart: the restart figures go into the document', () => {
    const restart = {
      workspaces: 50,
      metricsUpSeconds: 0.3,
      readySeconds: 0.7,
      firstPassSeconds: 0.6,
      allPassesSeconds: 0.9,
      writesToSettled: 0,
      writesPerIdleMinute: 0,
      writesByResource: {},
      peakRssMiB: 60,
      cpuSeconds: 1.1,
    };
    assert.deepEqual(benchDocument(50, [{ ...kaitoTs, restart }]).results[0]?.restart, restart);
  });
  it('--hf-models: the Hugging Face endpoint figures go into the document and the printed table', () => {
    const hub = { models: 25, requestsToIdle: 50, requestsPerIdleMinute: 0 };
    const doc = benchDocument(50, [{ ...kaitoTs, hub }]);
    assert.deepEqual(doc.results[0]?.hub, hub);
    assert.match(formatTable(doc), /kaito-ts: Hugging Face endpoint: 25 models, 50 requests until idle \(2\.0 per model\), 0 per idle minute/);
  });
});

const stages = (p50: number): NapFigures['stages'] => ({
  claim: { p50, p90: p50, p99: p50, max: p50 },
  claimReady: { p50: 31, p90: 31.5, p99: 32, max: 32 },
  nodeGpu: { p50: 1, p90: 1, p99: 1.2, max: 1.2 },
  statefulSet: { p50: 0.2, p90: 0.4, p99: 0.5, max: 0.5 },
  inferenceReady: null,
});
const napTs: ControllerResult = {
  ...kaitoTs,
  nap: {
    nodeClaimsCreated: 50,
    claimsPerWorkspace: { min: 1, max: 1, mean: 1 },
    nodesCreated: 50,
    createRequests: { 201: 50 },
    stages: stages(0.3),
    leftAfterCleanup: { nodeClaims: 0, nodes: 0 },
  },
};
const napKaito: ControllerResult = {
  ...kaito,
  nap: { nodeClaimsCreated: 52, claimsPerWorkspace: { min: 1, max: 2, mean: 1.04 }, nodesCreated: 51, stages: stages(2) },
};
const delays = { provisionDelaySeconds: 30, devicePluginDelaySeconds: 1, podReadyDelaySeconds: 30 };

describe('node auto-provisioning results', () => {
  it('carry the mode, the delays and the figures in the --json document, and round-trip', () => {
    const doc = benchDocument(50, [napTs, napKaito], delays);
    assert.deepEqual(Object.keys(doc), ['n', 'mode', 'nap', 'results']);
    assert.equal(doc.mode, 'nap');
    assert.deepEqual(doc.nap, delays);
    assert.deepEqual(Object.keys(doc.results[0] ?? {}).at(-1), 'nap');
    assert.deepEqual(parseBenchDocument(JSON.stringify(doc)), doc);
    // Bring-your-own documents keep their old shape.
    assert.equal('nap' in (benchDocument(50, [kaitoTs]).results[0] ?? {}), false);
  });
  it('print claims per workspace, what was left and the stages under the table', () => {
    const lines = formatTable(benchDocument(50, [napTs, napKaito], delays))
      .trimEnd()
      .split('\n');
    assert.equal(lines[0], 'N = 50, node auto-provisioning (provision 30s, device plugin 1s, pod ready 30s)');
    assert.equal(lines[4], 'kaito-ts: 50 NodeClaims (1 per workspace) (create requests by status: 201 50), 50 nodes; left 0 claims, 0 nodes');
    assert.equal(lines[5], '  stages p50/p90/max s: claim 0.3/0.3/0.3, claimReady 31/31.5/32, nodeGpu 1/1/1.2, statefulSet 0.2/0.4/0.5, inferenceReady -');
    assert.equal(lines[6], 'kaito-v0.8.0: 52 NodeClaims (1–2 per workspace), 51 nodes; left: not measured');
  });
  it('add two Markdown columns, blank for bring-your-own rows', () => {
    const md = markdownTable([benchDocument(50, [napTs, napKaito], delays), benchDocument(10, [kaitoTs])])
      .trimEnd()
      .split('\n');
    assert.match(md[0] ?? '', /\| correct \| NodeClaims \/ workspace \| left after cleanup \(claims, nodes\) \| requests by verb \|$/);
    assert.equal((md[1] ?? '').split('|').length, (md[0] ?? '').split('|').length);
    assert.match(md[2] ?? '', /^\| 10 \| kaito-ts \| .* \| yes \| {2}\| {2}\| list 8/);
    assert.match(md[3] ?? '', /^\| 50 \| kaito-ts \| .* \| yes \| 1 \| 0, 0 \| list 8/);
    assert.match(md[4] ?? '', /^\| 50 \| kaito-v0\.8\.0 \| .* \| no \| 1\.04 \(1–2\) \| {2}\| get 2/);
  });
  it('give a stage table of NAP rows only', () => {
    assert.equal(napStageTable([benchDocument(10, [kaitoTs])]), '');
    const rows = napStageTable([benchDocument(50, [napTs, napKaito], delays)])
      .trimEnd()
      .split('\n');
    assert.equal(rows[0], '| N | controller | claim | claimReady | nodeGpu | statefulSet | inferenceReady |');
    assert.equal(rows[2], '| 50 | kaito-ts | 0.3 / 0.3 / 0.3 | 31 / 31.5 / 32 | 1 / 1 / 1.2 | 0.2 / 0.4 / 0.5 | - |');
    assert.equal(rows.length, 4);
    const labelled = napStageTable([{ ...benchDocument(50, [napTs], delays), label: 'first' }])
      .trimEnd()
      .split('\n');
    assert.equal(labelled[0], '| run | N | controller | claim | claimReady | nodeGpu | statefulSet | inferenceReady |');
    assert.match(labelled[2] ?? '', /^\| first \| 50 \| kaito-ts \| 0\.3 /);
  });
});

describe('formatTable / markdownTable', () => {
  it('prints one aligned row per controller, timeouts and failures spelled out', () => {
    const text = formatTable(benchDocument(200, [kaitoTs, kaito]));
    const lines = text.trimEnd().split('\n');
    assert.equal(lines[0], 'N = 200');
    assert.match(lines[2] ?? '', /^kaito-ts\s+3\.2\s+6\.8\s+88\s+4\.3\s+0\s+yes\s+list 8, watch 8, create 10, patch 400$/);
    assert.match(lines[3] ?? '', /^kaito-v0\.8\.0\s+70\.0\s+timeout\s+120\s+9\.0\s+3\s+NO\s+get 2, update 900$/);
    // Columns line up: "all ready s" starts at the same offset in the header and both rows.
    const col = (lines[1] ?? '').indexOf('all ready s');
    assert.equal((lines[2] ?? '').slice(col, col + 3), '6.8');
    assert.equal((lines[3] ?? '').slice(col, col + 7), 'timeout');
  });
  it('sorts documents by N in Markdown', () => {
    const md = markdownTable([benchDocument(500, [kaitoTs]), benchDocument(50, [kaito])]);
    const rows = md.trimEnd().split('\n').slice(2);
    assert.equal(rows.length, 2);
    assert.match(rows[0] ?? '', /^\| 50 \| kaito-v0\.8\.0 \| 70\.0 \| timeout \| 120 \| 9\.0 \| 3 \| no \|/);
    assert.match(rows[1] ?? '', /^\| 500 \| kaito-ts \|/);
  });
});

describe('costTable', () => {
  it('peak RSS and CPU per run and per 100 workspaces, sorted by N', () => {
    const rows = costTable([benchDocument(200, [kaitoTs]), benchDocument(50, [kaito])])
      .trimEnd()
      .split('\n');
    assert.match(rows[0] ?? '', /peak RSS per 100 workspaces \(MiB\) \| CPU \(s\) \| CPU per 100 workspaces \(s\) \|$/);
    assert.deepEqual(rows.slice(2), ['| 50 | kaito-v0.8.0 | 120.0 | 240.0 | 9.0 | 18.0 |', '| 200 | kaito-ts | 88.4 | 44.2 | 4.3 | 2.1 |']);
  });
});

function sts(opts: { claim?: boolean; emptyDir?: boolean }): V1StatefulSet {
  return {
    metadata: { name: 'ws' },
    spec: {
      selector: {},
      serviceName: 'ws-headless',
      ...(opts.claim ? { volumeClaimTemplates: [{ metadata: { name: 'model-weights-volume' } }] } : {}),
      template: {
        spec: {
          containers: [],
          volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory' } }, ...(opts.emptyDir ? [{ name: 'model-weights-volume', emptyDir: {} }] : [])],
        },
      },
    },
  };
}

describe('volumeKindOf / checkVolumes', () => {
  it('tells a claim template from an emptyDir from nothing', () => {
    assert.equal(volumeKindOf(sts({ claim: true })), 'nvme');
    assert.equal(volumeKindOf(sts({ emptyDir: true })), 'emptyDir');
    assert.equal(volumeKindOf(sts({})), 'none');
  });
  it('names each wrong or missing workspace and counts the kinds', () => {
    const expected = new Map<string, VolumeKind>([
      ['a', 'nvme'],
      ['b', 'emptyDir'],
      ['c', 'nvme'],
      ['d', 'emptyDir'],
    ]);
    const actual = new Map<string, VolumeKind>([
      ['a', 'nvme'],
      ['b', 'emptyDir'],
      ['c', 'emptyDir'],
      ['zzz', 'nvme'],
    ]);
    assert.deepEqual(checkVolumes(expected, actual), {
      ok: false,
      problems: ['c: emptyDir, expected nvme', 'd: no StatefulSet'],
      kinds: { nvme: 1, emptyDir: 2 },
    });
    assert.equal(checkVolumes(expected, new Map(expected)).ok, true);
  });
});

describe('sumMetric', () => {
  it('sums every sample of one family and nothing else', async () => {
    const { sumMetric } = await import('../../../bench/cluster.js');
    const text = [
      '# HELP rest_client_rate_limiter_duration_seconds Client side rate limiter latency in seconds.',
      'rest_client_rate_limiter_duration_seconds_sum{host="127.0.0.1:28443",verb="GET"} 2517.5',
      'rest_client_rate_limiter_duration_seconds_sum{host="127.0.0.1:28443",verb="PUT"} 641.25',
      'rest_client_rate_limiter_duration_seconds_count{host="127.0.0.1:28443",verb="PUT"} 11936',
      'rest_client_rate_limiter_duration_seconds_sum_other 99',
      'rest_client_rate_limiter_duration_seconds_sum 1',
    ].join('\n');
    assert.equal(sumMetric(text, 'rest_client_rate_limiter_duration_seconds_sum'), 3159.75);
  });
});

describe('controllerManagerArgs', () => {
  it('raises qps, burst (2×), StatefulSet workers and node grace, or leaves kcm alone at 0', async () => {
    const { controllerManagerArgs } = await import('../../../bench/cluster.js');
    assert.deepEqual(controllerManagerArgs(300), [
      '--kube-api-qps=300',
      '--kube-api-burst=600',
      '--concurrent-statefulset-syncs=20',
      '--node-monitor-grace-period=10m',
    ]);
    assert.deepEqual(controllerManagerArgs(0), []);
  });
});

describe('markdownTable with labels', () => {
  it('adds a limits column and sorts by label, then N', () => {
    const md = markdownTable([
      { ...benchDocument(200, [kaito]), label: '500/1000' },
      { ...benchDocument(200, [kaitoTs]), label: '30/50' },
      { ...benchDocument(50, [kaitoTs]), label: '30/50' },
    ]);
    const rows = md.trimEnd().split('\n');
    assert.match(rows[0] ?? '', /^\| limits \| N \| controller \|/);
    assert.deepEqual(
      rows.slice(2).map((r) =>
        r
          .split('|')
          .slice(1, 4)
          .map((c) => c.trim()),
      ),
      [
        ['30/50', '50', 'kaito-ts'],
        ['30/50', '200', 'kaito-ts'],
        ['500/1000', '200', 'kaito-v0.8.0'],
      ],
    );
  });
});
