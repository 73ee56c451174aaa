// Named not-ready reasons on the real control plane. The pod status is written the way a kubelet
// (kwok) writes it — phase Running, Ready=False, a waiting container — through the status
// subresource; kwok's pod-ready Stage only acts on Pending pods, so it leaves the failure alone.
// Recovery is kwok's: the failed pod is deleted, the StatefulSet makes a new one, kwok readies it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kubectl } from '../harness.js';
import { applyWorkspace, conditionOf, pool, selectorFor, waitCondition, waitReady, world } from '../support/operator.js';

function failedStatus(state: Record<string, unknown>, lastState: Record<string, unknown> = {}) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: now },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: now },
        { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: now },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
      ],
      containerStatuses: [{ name: 'server', image: 'nginx:1.27', imageID: '', ready: false, started: false, restartCount: 4, state, lastState }],
    },
  };
}

async function setPodStatus(ns: string, pod: string, body: unknown): Promise<void> {
  await kubectl(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', JSON.stringify(body)], { namespace: ns });
}

test('image pull error, then crash loop: InferenceReady names each, state NotReady; a new pod recovers it', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'flaky' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { template: { spec: { containers: [{ name: 'server', image: 'nginx:1.27', resources: { limits: { 'nvidia.com/gpu': 1 } } }] } } },
  });
  const ready = await waitReady(w.ns, 'flaky');
  assert.equal(ready.status?.state, 'Ready');

  await setPodStatus(w.ns, 'flaky-0', failedStatus({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx:1.27"' } }));
  const pull = await waitCondition(w.ns, 'flaky', 'InferenceReady', 'False', { reason: 'ImagePullError' });
  assert.equal(
    conditionOf(pull, 'InferenceReady')?.message,
    'pod flaky-0 container server image pull failed (ImagePullBackOff): Back-off pulling image "nginx:1.27"',
  );
  assert.equal(pull.status?.state, 'NotReady', 'once Ready, a failure is NotReady, not Pending');

  await setPodStatus(
    w.ns,
    'flaky-0',
    failedStatus({ waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } }, { terminated: { exitCode: 1, reason: 'Error', message: 'boom' } }),
  );
  const crash = await waitCondition(w.ns, 'flaky', 'InferenceReady', 'False', { reason: 'ContainerCrashLoopBackOff' });
  assert.equal(conditionOf(crash, 'InferenceReady')?.message, 'pod flaky-0 container server is in CrashLoopBackOff; last termination: boom');

  await kubectl(['delete', 'pod', 'flaky-0', '--wait=false'], { namespace: w.ns });
  const back = await waitReady(w.ns, 'flaky');
  assert.equal(back.status?.state, 'Ready');
  assert.equal(conditionOf(back, 'InferenceReady')?.reason, 'WorkspaceInferenceStatusSuccess');
});
