import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { planMigration } from '../../../src/controllers/workspace/migration.js';

const WS_UID = 'ws-uid';
function deployment(ownerUid?: string): V1Deployment {
  return {
    metadata: {
      name: 'ws',
      namespace: 'team',
      uid: 'dep-uid',
      ownerReferences: ownerUid ? [{ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: 'ws', uid: ownerUid, controller: true }] : undefined,
    },
  };
}
const readyPod: V1Pod = { metadata: { name: 'ws-0' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
const gpuBlocked: V1Pod = {
  metadata: { name: 'ws-0' },
  status: {
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes are available: 2 Insufficient nvidia.com/gpu.' }],
  },
};
const pendingPod: V1Pod = { metadata: { name: 'ws-0' }, status: { phase: 'Pending' } };

const cases: { name: string; dep?: V1Deployment; sts: boolean; pod0?: V1Pod; legacyGpus?: boolean; kind: string }[] = [
  { name: 'no Deployment', sts: true, kind: 'none' },
  { name: 'Deployment without owner is foreign', dep: deployment(), sts: false, kind: 'foreign' },
  { name: 'Deployment owned by another workspace UID is foreign', dep: deployment('other'), sts: true, pod0: readyPod, kind: 'foreign' },
  { name: 'owned, StatefulSet not yet created', dep: deployment(WS_UID), sts: false, kind: 'waitForPod0' },
  { name: 'owned, pod 0 pending', dep: deployment(WS_UID), sts: true, pod0: pendingPod, kind: 'waitForPod0' },
  { name: 'owned, pod 0 ready → delete', dep: deployment(WS_UID), sts: true, pod0: readyPod, kind: 'deleteDeployment' },
  {
    name: 'owned, pod 0 blocked on GPUs the old pods hold → delete first',
    dep: deployment(WS_UID),
    sts: true,
    pod0: gpuBlocked,
    legacyGpus: true,
    kind: 'deleteDeploymentFirst',
  },
  {
    name: 'owned, pod 0 blocked on GPUs but the old pods hold none → keep waiting',
    dep: deployment(WS_UID),
    sts: true,
    pod0: gpuBlocked,
    legacyGpus: false,
    kind: 'waitForPod0',
  },
];

for (const c of cases) {
  test(`planMigration: ${c.name}`, () => {
    const plan = planMigration(WS_UID, c.dep, c.sts, c.pod0, c.legacyGpus ?? false);
    assert.equal(plan.kind, c.kind);
    if (plan.kind === 'foreign') assert.match(plan.message, /Deployment team\/ws is not controlled by this workspace/);
    if (plan.kind === 'deleteDeployment' || plan.kind === 'deleteDeploymentFirst') assert.equal(plan.uid, 'dep-uid');
  });
}
