import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { Workspace } from '../../../src/api/types.js';
import { observeJob, tuningStatus, type JobPhase, type TuningOutcome } from '../../../src/controllers/workspace/tuning-status.js';

const NOW = new Date('2026-01-01T00:00:00Z');

function job(status: V1Job['status']): V1Job {
  return { metadata: { name: 'ws1', namespace: 'ns1', uid: 'job-uid' }, status };
}
function pod(phase: string, status: V1Pod['status'] = {}, owner = 'job-uid'): V1Pod {
  return {
    metadata: { name: 'ws1-abcde', namespace: 'ns1', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'ws1', uid: owner }] },
    status: { phase, ...status },
  };
}
const cond = (type: string, reason = '', message = '') => ({ type, status: 'True', reason, message });
const terminated = (name: string, exitCode: number, reason: string, message?: string) => ({
  name,
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode, reason, ...(message ? { message } : {}) } },
});

const JOBS: { name: string; job: V1Job; pods: V1Pod[]; phase: JobPhase; message?: string | RegExp }[] = [
  { name: 'Complete', job: job({ succeeded: 1, conditions: [cond('Complete')] }), pods: [], phase: 'Succeeded' },
  {
    name: 'a failed attempt is not final while the Job has no Failed condition (W1)',
    job: job({ failed: 1, active: 1, ready: 1 }),
    pods: [pod('Failed'), pod('Running')],
    phase: 'Running',
  },
  {
    name: 'Failed: the pod, the container, the exit code and the last line of its message',
    job: job({ failed: 1, conditions: [cond('Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')] }),
    pods: [
      pod('Failed', {
        containerStatuses: [terminated('pusher', 0, 'Completed')],
        initContainerStatuses: [terminated('ws1', 3, 'Error', 'loading\nCUDA out of memory\n')],
      }),
    ],
    phase: 'Failed',
    message:
      'job ns1/ws1 failed (BackoffLimitExceeded: Job has reached the specified backoff limit); pod ws1-abcde: container ws1 exited with code 3 (Error): CUDA out of memory',
  },
  {
    name: 'Failed without a container status: the pod reason',
    job: job({ failed: 1, conditions: [cond('Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline')] }),
    pods: [pod('Failed', { reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' })],
    phase: 'Failed',
    message: /DeadlineExceeded.*pod ws1-abcde failed: Evicted: The node was low on resource/,
  },
  {
    name: 'pods of another Job are ignored',
    job: job({ failed: 1, conditions: [cond('Failed', 'BackoffLimitExceeded')] }),
    pods: [pod('Failed', { containerStatuses: [terminated('x', 1, 'Error')] }, 'other')],
    phase: 'Failed',
    message: 'job ns1/ws1 failed (BackoffLimitExceeded)',
  },
  { name: 'running pod', job: job({ active: 1 }), pods: [pod('Running')], phase: 'Running', message: 'Tuning job has started' },
  {
    name: 'unschedulable pod',
    job: job({ active: 1 }),
    pods: [pod('Pending', { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/4 nodes are available' }] })],
    phase: 'Pending',
    message: 'job ns1/ws1 created; pod ws1-abcde is not scheduled (Unschedulable): 0/4 nodes are available',
  },
  { name: 'no pod yet', job: job({}), pods: [], phase: 'Pending', message: 'job ns1/ws1 created; no pod yet' },
];
for (const c of JOBS) {
  test(`observeJob: ${c.name}`, () => {
    const o = observeJob(c.job, c.pods);
    assert.equal(o.phase, c.phase);
    if (typeof c.message === 'string') assert.equal(o.message, c.message);
    else if (c.message) assert.match(o.message, c.message);
  });
}

const ws: Workspace = {
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'ws1', namespace: 'ns1', generation: 2 },
  resource: { labelSelector: {} },
};
const nodes = { nodes: { target: 1, ready: 1, selected: 1, workerNodes: ['n1'] } };
const j = (phase: JobPhase, message = 'm'): TuningOutcome => ({
  kind: 'job',
  job: { phase, active: phase === 'Running' ? 1 : 0, ready: phase === 'Running' ? 1 : 0, message },
});

const STATUSES: { name: string; outcome: TuningOutcome; state: string; jobStarted: string; succeeded: string }[] = [
  {
    name: 'running',
    outcome: j('Running'),
    state: 'Running',
    jobStarted: 'True WorkspaceTuningJobStatusStarted Tuning job has started',
    succeeded: 'False workspacePending workspace has not completed, tuning job has 1 active pod, 1 ready pod',
  },
  {
    name: 'succeeded',
    outcome: j('Succeeded'),
    state: 'Succeeded',
    jobStarted: 'True WorkspaceTuningJobStatusStarted Tuning job has started',
    succeeded: 'True workspaceSucceeded workspace succeeds',
  },
  {
    name: 'failed',
    outcome: j('Failed', 'job failed: why'),
    state: 'Failed',
    jobStarted: 'False WorkspaceTuningJobStatusFailed job failed: why',
    succeeded: 'False workspaceFailed job failed: why',
  },
  {
    name: 'pending pod',
    outcome: j('Pending', 'not scheduled'),
    state: 'Running',
    jobStarted: 'False WorkspaceTuningJobStatusPending not scheduled',
    succeeded: 'False workspacePending workspace has not completed, tuning job has 0 active pod, 0 ready pod',
  },
  {
    name: 'invalid spec',
    outcome: { kind: 'invalid', reason: 'InvalidSpec', message: 'bad' },
    state: 'Failed',
    jobStarted: 'False WorkspaceTuningJobStatusFailed bad',
    succeeded: 'False workspaceFailed bad',
  },
  {
    name: 'waiting for nodes',
    outcome: { kind: 'waiting', reason: 'WaitingForNodes', message: 'waiting for nodes: x' },
    state: 'Running',
    jobStarted: 'False WaitingForNodes waiting for nodes: x',
    succeeded: 'False workspacePending workspace has not completed, tuning job has 0 active pod, 0 ready pod',
  },
];
for (const c of STATUSES) {
  test(`tuningStatus: ${c.name}`, () => {
    const { status, changed } = tuningStatus(ws, nodes, c.outcome, NOW);
    assert.ok(changed);
    assert.equal(status.state, c.state);
    const show = (type: string) => {
      const x = status.conditions?.find((k) => k.type === type);
      return x ? `${x.status} ${x.reason} ${x.message}` : 'absent';
    };
    assert.equal(show('JobStarted'), c.jobStarted);
    assert.equal(show('WorkspaceSucceeded'), c.succeeded);
    assert.equal(show('ResourceReady'), 'True workspaceResourceStatusSuccess workspace resource is ready');
    assert.equal(show('InferenceReady'), 'absent');
    assert.equal(status.targetNodeCount, 1);
    assert.ok(status.conditions?.every((k) => k.observedGeneration === 2));
    // Writing it again changes nothing: a converged workspace costs no write.
    assert.equal(tuningStatus({ ...ws, status }, nodes, c.outcome, NOW).changed, false);
  });
}
