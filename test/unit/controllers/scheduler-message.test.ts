import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableSchedulerMessage } from '../../../src/controllers/workspace/scheduler-message.js';

const PREEMPTION =
  ' no new claims to deallocate, preemption: 0/11 nodes are available: 2 No preemption victims found for incoming pod, 9 Preemption is not helpful for scheduling.';
const OTHER = "no node that matches the pod's node affinity/selector can take it (none match, or they are tainted or cordoned)";

const cases: { name: string; message: string; want: string }[] = [
  {
    name: 'unrelated nodes and the preemption tally dropped, the pool nodes kept',
    message: `0/11 nodes are available: 2 Insufficient nvidia.com/gpu, 9 node(s) didn't match Pod's node affinity/selector.${PREEMPTION}`,
    want: '2 Insufficient nvidia.com/gpu',
  },
  {
    name: 'a fresh unrelated node with the not-ready taint changes nothing',
    message: `0/12 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient nvidia.com/gpu, 9 node(s) didn't match Pod's node affinity/selector.${PREEMPTION}`,
    want: '2 Insufficient nvidia.com/gpu',
  },
  {
    name: 'taint text with a key and a dot',
    message: '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 2 Insufficient memory.',
    want: '2 Insufficient memory',
  },
  {
    name: 'several relevant reasons keep their order and counts',
    message: '0/4 nodes are available: 1 Insufficient cpu, 1 node(s) had volume node affinity conflict, 2 node(s) were unschedulable.',
    want: '1 Insufficient cpu, 1 node(s) had volume node affinity conflict',
  },
  { name: 'no node matches the selector', message: "0/8 nodes are available: 8 node(s) didn't match Pod's node affinity/selector.", want: OTHER },
  {
    name: 'no match and some tainted: the same sentence whatever the counts',
    message: "0/9 nodes are available: 1 node(s) had untolerated taint(s), 8 node(s) didn't match Pod's node affinity/selector.",
    want: OTHER,
  },
  {
    name: 'only taints and cordons',
    message: '0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable.',
    want: 'every node is tainted or cordoned against the pod',
  },
  { name: 'another shape is kept', message: 'pod has unbound immediate PersistentVolumeClaims', want: 'pod has unbound immediate PersistentVolumeClaims' },
  { name: 'a list that does not parse is kept', message: '0/3 nodes are available: something odd.', want: '0/3 nodes are available: something odd.' },
];

for (const c of cases) {
  test(`stableSchedulerMessage: ${c.name}`, () => assert.equal(stableSchedulerMessage(c.message), c.want));
}
