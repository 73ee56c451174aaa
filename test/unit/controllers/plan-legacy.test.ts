// `--legacy-presets` on a running cluster: flipping it rewrites nothing by itself (each workload keeps
// its KAITO generation while its workspace's spec is unchanged); a spec change moves the workload to
// the setting's generation, whole template, still answering to the served name it had.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject, V1StatefulSet } from '@kubernetes/client-node';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import type { KaitoGeneration } from '../../../src/api/legacy-presets.js';
import { WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import type { Workspace } from '../../../src/api/types.js';
import { defaultFacts } from '../../../src/builders/facts.js';
import { liveServedModelNames, workloadGeneration } from '../../../src/builders/generation.js';
import type { Action, Plan } from '../../../src/controllers/shared/actions.js';
import { operatorConfigOf } from '../../../src/controllers/workspace/context.js';
import { planWorkspace } from '../../../src/controllers/workspace/plan.js';
import { cachesFromObjects, readSnapshot } from '../../../src/controllers/workspace/snapshot.js';
import { byoWorkspace, gpuNode, H100_NODE_LABELS, NVME_CLASS } from '../builders/fixtures.js';
import { writtenObjects } from './written-objects.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const node = {
  ...gpuNode('h100-0', H100_NODE_LABELS),
  kind: 'Node',
  status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '2' } },
};
const objectsBase: KubernetesObject[] = [node, { kind: 'StorageClass', metadata: { name: NVME_CLASS } }];

function plan(ws: Workspace, objects: KubernetesObject[], setting: KaitoGeneration): Plan {
  const gates = { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: true };
  const config = operatorConfigOf(defaultFacts({ featureGates: gates, legacyNames: setting }), 1_800_000);
  return planWorkspace(
    readSnapshot(ws, { caches: cachesFromObjects(objects), config, fieldManager: 'kaito-ts', now: NOW, provisioningCrdInstalled: () => true }),
  );
}

/** The workspace and its children as the server holds them after the first pass under `setting`, serving. */
function converged(ws: Workspace, setting: KaitoGeneration): { ws: Workspace; objects: KubernetesObject[] } {
  const first = plan(ws, objectsBase, setting);
  assert.equal(first.failure, undefined, JSON.stringify(first.failure));
  const meta = first.actions.find((a): a is Extract<Action, { kind: 'patchMetadata' }> => a.kind === 'patchMetadata');
  const written = writtenObjects(first);
  const serving = written.map((o) =>
    o.kind === 'StatefulSet'
      ? {
          ...o,
          metadata: { ...o.metadata, generation: 1 },
          status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: 'r1', updateRevision: 'r1' },
        }
      : o,
  );
  const annotated = {
    ...ws,
    metadata: { ...ws.metadata, finalizers: [WORKSPACE_FINALIZER], annotations: { ...ws.metadata.annotations, ...meta?.annotations } },
  };
  return { ws: annotated, objects: [...objectsBase, ...serving] };
}

/** Every write but the workspace's own status: what a flip must not cause. */
const childWrites = (p: Plan) =>
  p.actions
    .filter((a) => a.kind !== 'status' && a.kind !== 'event')
    .map((a) => (a.kind === 'apply' || a.kind === 'create' ? `${a.kind} ${a.type.kind}` : a.kind));
const statefulSetOf = (objects: KubernetesObject[]) => objects.find((o) => o.kind === 'StatefulSet') as V1StatefulSet;

for (const [from, to] of [
  ['v0.8', 'v0.12'],
  ['v0.12', 'v0.8'],
] as const) {
  test(`a workload made under --legacy-presets=${from} is left as it is under ${to}: the same plan, no child written`, () => {
    const { ws, objects } = converged(byoWorkspace('mistral-7b-instruct'), from);
    assert.equal(workloadGeneration(statefulSetOf(objects)), from);
    const same = plan(ws, objects, from);
    const flipped = plan(ws, objects, to);
    assert.deepEqual(childWrites(same), [], 'converged');
    assert.deepEqual(flipped.actions, same.actions, 'the flip changes nothing in the plan');
  });
}

/**
 * The StatefulSet the next pass applies after a spec change (one more label the node has), with KAITO's
 * restart in place so the apply is in this pass.
 */
function afterSpecChange(ws: Workspace, objects: KubernetesObject[], setting: KaitoGeneration): V1StatefulSet {
  const matchLabels = { ...ws.resource.labelSelector.matchLabels, 'nvidia.com/gpu.count': '2' };
  const annotations = { ...ws.metadata.annotations, 'kaito-ts.io/update-strategy': 'Recreate' };
  const p = plan({ ...ws, metadata: { ...ws.metadata, annotations }, resource: { ...ws.resource, labelSelector: { matchLabels } } }, objects, setting);
  assert.equal(p.failure, undefined, JSON.stringify(p.failure));
  const sts = p.actions.flatMap((a) => (a.kind === 'apply' && a.type.kind === 'StatefulSet' ? [a.object as V1StatefulSet] : [])).at(-1);
  assert.ok(sts, `a StatefulSet apply: ${p.actions.map((a) => a.kind).join(', ')}`);
  return sts;
}

test('a spec change under v0.12 moves a v0.8.0 workload: v0.12.0 template whole, still serving its old name', () => {
  const { ws, objects } = converged(byoWorkspace('mistral-7b-instruct'), 'v0.8');
  assert.deepEqual(liveServedModelNames(statefulSetOf(objects)), ['mistral-7b-instruct']);
  const sts = afterSpecChange(ws, objects, 'v0.12');
  assert.equal(workloadGeneration(sts), 'v0.12');
  const pod = sts.spec!.template.spec!;
  assert.match(pod.containers[0]!.image ?? '', /kaito-base:0\.5\.0$/);
  assert.equal(pod.initContainers?.some((c) => c.name === 'model-weights-downloader') ?? false, false, 'no v0.8.0 init container kept');
  assert.deepEqual(liveServedModelNames(sts), ['mistral-7b-instruct-v0.3', 'mistral-7b-instruct']);
  assert.match(pod.containers[0]!.command![2]!, / --served-model-name mistral-7b-instruct-v0\.3 mistral-7b-instruct /);
});

test('a spec change under v0.8 keeps a v0.8.0 workload v0.8.0 (selective update), nothing carried', () => {
  const { ws, objects } = converged(byoWorkspace('mistral-7b-instruct'), 'v0.8');
  const sts = afterSpecChange(ws, objects, 'v0.8');
  assert.equal(workloadGeneration(sts), 'v0.8');
  assert.deepEqual(liveServedModelNames(sts), ['mistral-7b-instruct']);
});
