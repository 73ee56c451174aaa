import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RestartClock, restartFigures, restartMarkdown, restartSummaryLine, workspacePasses } from '../../../bench/restart.js';

// As kaito-ts's /metrics and controller-runtime's (KAITO) print the counter.
const KAITO_TS = `# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="workspace",result="success"} 7
controller_runtime_reconcile_total{controller="workspace",result="requeue_after"} 2
controller_runtime_reconcile_total{controller="inferenceset",result="success"} 40
controller_runtime_reconcile_errors_total{controller="workspace"} 1
`;
const CONTROLLER_RUNTIME = `controller_runtime_reconcile_total{controller="workspace",result="error"} 0
controller_runtime_reconcile_total{controller="workspace",result="requeue"} 0
controller_runtime_reconcile_total{controller="workspace",result="requeue_after"} 0
controller_runtime_reconcile_total{controller="workspace",result="success"} 1000
controller_runtime_reconcile_total{controller="workspace-tuning",result="success"} 3
`;

describe('bench restart', () => {
  const cases: Array<[string, string, number]> = [
    ['kaito-ts: every result of the workspace controller, not the InferenceSet one', KAITO_TS, 9],
    ['controller-runtime: a controller whose name only starts the same is not counted', CONTROLLER_RUNTIME, 1000],
    ['no counter yet', '# HELP process_cpu_seconds_total\nprocess_cpu_seconds_total 0.5\n', 0],
    ['empty', '', 0],
  ];
  for (const [name, text, want] of cases) it(`workspacePasses: ${name}`, () => assert.equal(workspacePasses(text), want));

  it('RestartClock takes the first scrape at which each milestone held', () => {
    const clock = new RestartClock(9);
    clock.observe(0.05, undefined);
    clock.observe(0.1, '');
    clock.observe(0.5, KAITO_TS.replace(' 7\n', ' 0\n').replace(' 2\n', ' 0\n'));
    assert.equal(clock.done(), false);
    clock.observe(0.9, KAITO_TS.replace(' 7\n', ' 1\n'));
    clock.observe(1.4, KAITO_TS);
    clock.observe(1.5, KAITO_TS);
    assert.deepEqual([clock.metricsUpAt, clock.firstPassAt, clock.allPassesAt, clock.done()], [0.1, 0.9, 1.4, true]);
  });

  it('figures, the summary line and the table', () => {
    const clock = new RestartClock(1000);
    clock.observe(0.412, '');
    clock.observe(2.3456, CONTROLLER_RUNTIME.replace(' 1000\n', ' 1\n'));
    const f = restartFigures(clock, 0.5, { toSettled: 0, perIdleMinute: 0, byResource: {} }, { peakRssMiB: 120.5, cpuSeconds: 3.2 });
    assert.deepEqual(f, {
      workspaces: 1000,
      metricsUpSeconds: 0.41,
      readySeconds: 0.5,
      firstPassSeconds: 2.35,
      allPassesSeconds: null,
      writesToSettled: 0,
      writesPerIdleMinute: 0,
      writesByResource: {},
      peakRssMiB: 120.5,
      cpuSeconds: 3.2,
    });
    assert.match(restartSummaryLine(f), /first pass 2.35s, 1000 passes -s; 0 writes until quiet, 0 per idle minute; peak RSS 120.5 MiB/);
    const withWrites = { ...f, writesToSettled: 3, writesByResource: { 'patch kaito.sh/workspaces/status': 3 } };
    assert.match(restartSummaryLine(withWrites), /3 writes until quiet \(patch kaito.sh\/workspaces\/status 3\)/);
    const table = restartMarkdown([{ n: 1000, results: [{ controller: 'kaito-ts', restart: f }, { controller: 'kaito-v0.8.0' }] }]);
    assert.equal(table.split('\n').filter((l) => l.startsWith('| 1000 |')).length, 1);
    assert.match(table, /\| 1000 \| kaito-ts \| 0.41 \| 2.35 \| - \| 0 \| 0 \| 120.5 \| 3.2 \|/);
    assert.equal(restartMarkdown([{ n: 5, results: [{ controller: 'kaito-ts' }] }]), '');
  });
});
