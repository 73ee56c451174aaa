import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countPhases, OperatorMetrics, workspacePhase } from '../../../src/manager/metrics.js';
import { ObjectCache } from '../../../src/runtime/cache.js';
import { Controller } from '../../../src/runtime/controller.js';
import { RequestCounter } from '../../../src/runtime/transport.js';
import { TerminalError } from '../../../src/runtime/controller.js';

const cond = (type: string, status: string, reason = 'R') => ({ type, status, reason, message: '' });

test('workspacePhase looks conditions up by type, so their order never matters (KAITO W9)', () => {
  const cases: { conditions: ReturnType<typeof cond>[]; deleting?: boolean; want: string }[] = [
    { conditions: [], want: 'pending' },
    { conditions: [cond('WorkspaceSucceeded', 'True')], want: 'succeeded' },
    { conditions: [cond('WorkspaceSucceeded', 'False')], want: 'error' },
    { conditions: [cond('WorkspaceSucceeded', 'Unknown')], want: 'pending' },
    { conditions: [cond('WorkspaceSucceeded', 'False', 'workspacePending')], want: 'pending' }, // a running tuning Job
    { conditions: [cond('InferenceReady', 'True')], want: 'pending' },
    // KAITO: first decisive condition in stored order wins, so these two orders disagree there.
    { conditions: [cond('WorkspaceSucceeded', 'True'), cond('WorkspaceDeleting', 'True')], want: 'deleting' },
    { conditions: [cond('WorkspaceDeleting', 'True'), cond('WorkspaceSucceeded', 'True')], want: 'deleting' },
    { conditions: [cond('WorkspaceDeleting', 'False'), cond('WorkspaceSucceeded', 'False')], want: 'error' },
  ];
  for (const c of cases) {
    for (const order of [c.conditions, [...c.conditions].reverse()]) {
      assert.equal(workspacePhase({ status: { conditions: order } }), c.want, JSON.stringify(order));
    }
  }
  assert.deepEqual(countPhases([{}, { status: { conditions: [cond('WorkspaceSucceeded', 'True')] } }]), { succeeded: 1, error: 0, pending: 1, deleting: 0 });
});

function metricValue(text: string, line: string): number | undefined {
  const hit = text.split('\n').find((l) => l.startsWith(`${line} `));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
}

test('metrics use controller-runtime names and follow reconciles, the queue, requests and the cache', async () => {
  const outcomes = ['ok', 'fail', 'terminal', 'later'];
  let failures = 0;
  const controller = new Controller({
    name: 'workspace',
    maxConcurrentReconciles: 2,
    reconcile: async (key) => {
      await new Promise((r) => setTimeout(r, 5));
      if (key === 'fail' && failures++ === 0) throw new Error('boom'); // retried after 5 ms, then succeeds
      if (key === 'terminal') throw new TerminalError('Bad', 'bad');
      return key === 'later' ? { requeueAfterMs: 60_000 } : {};
    },
  });
  const workspaces = new ObjectCache();
  workspaces.upsert({ metadata: { namespace: 'a', name: 'w1' }, status: { conditions: [cond('WorkspaceSucceeded', 'True')] } } as never);
  const requests = new RequestCounter();
  requests.inc('get');
  requests.inc('apply');
  requests.inc('apply');
  const m = new OperatorMetrics({ controller, workspaces: workspaces as never, requests, isLeader: () => true });
  await controller.start();
  for (const k of outcomes) controller.enqueue(k);
  while (
    controller.metrics.reconciles.success +
      controller.metrics.reconciles.error +
      controller.metrics.reconciles.terminal_error +
      controller.metrics.reconciles.requeue_after <
    5
  ) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setImmediate(r)); // the last worker leaves its finally block
  const { body, contentType } = m.render();
  await controller.stop(1000);
  assert.match(contentType, /text\/plain/);
  const v = (line: string) => metricValue(body, line);
  assert.equal(v('controller_runtime_reconcile_total{controller="workspace",result="success"}'), 2);
  assert.equal(v('controller_runtime_reconcile_total{controller="workspace",result="error"}'), 2);
  assert.equal(v('controller_runtime_reconcile_total{controller="workspace",result="requeue_after"}'), 1);
  assert.equal(v('controller_runtime_reconcile_errors_total{controller="workspace"}'), 2);
  assert.equal(v('controller_runtime_terminal_reconcile_errors_total{controller="workspace"}'), 1);
  assert.equal(v('controller_runtime_reconcile_time_seconds_count{controller="workspace"}'), 5);
  assert.ok((v('controller_runtime_reconcile_time_seconds_sum{controller="workspace"}') ?? 0) >= 0.015);
  assert.equal(v('controller_runtime_max_concurrent_reconciles{controller="workspace"}'), 2);
  assert.equal(v('controller_runtime_active_workers{controller="workspace"}'), 0);
  assert.equal(v('workqueue_adds_total{name="workspace",controller="workspace"}'), 5);
  assert.equal(v('workqueue_retries_total{name="workspace",controller="workspace"}'), 1);
  assert.equal(v('workqueue_depth{name="workspace",controller="workspace"}'), 0);
  assert.equal(v('workqueue_queue_duration_seconds_count{name="workspace",controller="workspace"}'), 5);
  assert.equal(v('workqueue_work_duration_seconds_count{name="workspace",controller="workspace"}'), 5);
  assert.equal(v('rest_client_requests_total{verb="apply"}'), 2);
  assert.equal(v('rest_client_requests_total{verb="get"}'), 1);
  assert.equal(v('leader_election_master_status{name="kaito-ts-leader"}'), 1);
  for (const phase of ['succeeded', 'error', 'pending', 'deleting']) assert.notEqual(v(`kaito_workspace_count{phase="${phase}"}`), undefined, phase);
  assert.ok(body.includes('process_cpu_seconds_total'), 'default process metrics');
});
