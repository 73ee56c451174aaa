import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Workspace } from '../../../src/api/types.js';
import { replicaBound, replicasFor, replicaShortfall } from '../../../src/builders/replicas.js';
import { buildWorkspace } from '../../../src/builders/workspace.js';
import { A10_NODE_LABELS, byoFacts, facts, gpuNode } from './fixtures.js';

test('replicaBound: the matching nodes (at least 1) with BYO nodes, none with auto-provisioning', () => {
  const cases: [boolean, number, number | undefined][] = [
    [true, 3, 3],
    [true, 0, 1],
    [false, 3, undefined],
    [false, 0, undefined],
  ];
  for (const [byo, nodes, want] of cases) assert.equal(replicaBound(byo, nodes), want, `byo=${byo} nodes=${nodes}`);
});

test('replicasFor: bounded on creation, raised (never lowered) as nodes appear, live value kept without a bound', () => {
  const cases: { name: string; target: number; bound?: number; live?: number; want: number }[] = [
    { name: 'create, no bound', target: 5, want: 5 },
    { name: 'create, bound below target', target: 100000, bound: 2, want: 2 },
    { name: 'create, bound above target', target: 3, bound: 8, want: 3 },
    { name: 'existing, no bound: live kept (user scale survives)', target: 3, live: 7, want: 7 },
    { name: 'existing, nodes appeared: raised to the bound', target: 5, bound: 4, live: 2, want: 4 },
    { name: 'existing, nodes appeared past the target: raised to the target', target: 5, bound: 9, live: 2, want: 5 },
    { name: 'existing, nodes gone: not lowered (running pods stay)', target: 5, bound: 1, live: 3, want: 3 },
    { name: 'existing, converged', target: 2, bound: 2, live: 2, want: 2 },
  ];
  for (const c of cases) assert.equal(replicasFor(c.target, c.bound, c.live), c.want, c.name);
});

test('replicaShortfall: a ResourceReady problem only while BYO nodes hold the target back', () => {
  assert.equal(replicaShortfall(3, false, 0), undefined, 'auto-provisioning: nodes come from NodeClaims');
  assert.equal(replicaShortfall(3, true, 3), undefined);
  assert.equal(replicaShortfall(1, true, 0), undefined, 'a bound of 1 holds a target of 1');
  const s = replicaShortfall(200, true, 2);
  assert.equal(s?.reason, 'InsufficientMatchingNodes');
  assert.match(s?.message ?? '', /targetNodeCount is 200 but 2 node\(s\) match resource\.labelSelector: the StatefulSet asks for at most 2 replica\(s\)/);
});

function templateWorkspace(count: number): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'tpl', namespace: 'ns1', uid: 'uid-t' },
    resource: { count, labelSelector: { matchLabels: { apps: 'test', pool: 'gpu' } } },
    inference: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

test('a template workspace with a huge count gets at most one replica per matching BYO node, and a decision says why', () => {
  const nodes = [gpuNode('n1', A10_NODE_LABELS), gpuNode('n2', A10_NODE_LABELS), gpuNode('other', {})];
  nodes[2]!.metadata!.labels = { pool: 'elsewhere' };
  const r = buildWorkspace(templateWorkspace(100000), byoFacts({ nodes }));
  assert.ok(r.ok);
  assert.equal(r.targetNodeCount, 100000, 'the target is what was asked');
  assert.equal(r.objects.statefulSet.spec?.replicas, 2);
  assert.equal(r.replicaBound, 2);
  assert.match(r.decisions.find((d) => d.topic === 'replicas')?.reason ?? '', /targetNodeCount 100000, but only 2 node\(s\) can hold a replica/);

  const nap = buildWorkspace(templateWorkspace(4), facts());
  assert.ok(nap.ok);
  assert.equal(nap.objects.statefulSet.spec?.replicas, 4, 'auto-provisioning: no bound');
  assert.equal(nap.replicaBound, undefined);
  assert.equal(
    nap.decisions.find((d) => d.topic === 'replicas'),
    undefined,
  );
});
