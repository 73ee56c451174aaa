// A StatefulSet with adapter pullers written by KAITO v0.8.0, taken over: its init containers run
// KAITO's script, ours run kaito-ts's own (src/builders/adapter-puller.ts). At the workspace's revision
// it is adopted as it is: no write, and a replica change writes nothing a pod runs. The next revision
// makes the pod template ours, init containers whole. KAITO's script is test data, read from KAITO's
// source tree (test/unit/support/kaito-source.ts); without the tree a stand-in script plays its part.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../../../src/api/types.js';
import { ANNOTATION_REVISION, WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import { pullerScript } from '../../../src/builders/adapter-puller.js';
import { ADAPTER_MOUNT_PATH, normalizeImageRef } from '../../../src/builders/adapters.js';
import type { Action, Plan } from '../../../src/controllers/shared/actions.js';
import { planWorkspace } from '../../../src/controllers/workspace/plan.js';
import { cachesFromObjects, readSnapshot } from '../../../src/controllers/workspace/snapshot.js';
import { workspaceIntent } from '../../../src/diff/intent.js';
import { needsApply } from '../../../src/runtime/drift.js';
import { A10_NODE_LABELS, byoOperatorConfig, byoWorkspace, gpuNode } from '../builders/fixtures.js';
import { kaitoPullerScript } from '../support/kaito-source.js';
import { writtenObjects } from './written-objects.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const config = byoOperatorConfig();
const node = () => ({
  ...gpuNode('n1', A10_NODE_LABELS),
  kind: 'Node',
  status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '1' } },
});
const ADAPTERS = [
  { source: { name: 'private-lora', image: 'myregistry.azurecr.io/adapters/phi-3-lora:0.0.1', imagePullSecrets: ['acr-pull'] } },
  { source: { name: 'public-lora', image: 'kaito/phi-3-lora' } },
];

function workspace(adapters = ADAPTERS): Workspace {
  const ws = byoWorkspace('phi-3-mini-4k-instruct');
  return { ...ws, inference: { ...ws.inference, adapters } };
}

const plan = (ws: Workspace, objects: KubernetesObject[]): Plan =>
  planWorkspace(
    readSnapshot(ws, {
      caches: cachesFromObjects(objects),
      config,
      fieldManager: 'kaito-ts',
      now: NOW,
      provisioningCrdInstalled: () => true,
    }),
  );

const applied = (p: Plan, kind: string) =>
  p.actions.filter((a): a is Extract<Action, { kind: 'apply' }> => a.kind === 'apply' && a.type.kind === kind).map((a) => a.object as V1StatefulSet);

/** The script KAITO v0.8.0 writes for this puller: from KAITO's source, else a stand-in of another generator. */
const kaitoScript = (image: string, dir: string) =>
  kaitoPullerScript(normalizeImageRef(image), dir) ?? `# stand-in for another generator's puller script\nskopeo copy docker://${image} dir:/tmp/l\n`;

const pullers = (sts: V1StatefulSet) => (sts.spec?.template.spec?.initContainers ?? []).filter((c) => c.name.startsWith('puller-'));

/**
 * The children as a KAITO v0.8.0 cluster holds them: what kaito-ts would write for this revision, with
 * KAITO's puller scripts in the StatefulSet (KAITO's pod otherwise has the shape kaito-ts renders for
 * legacy names), ready, written by KAITO's field manager.
 */
function kaitoCluster(ws: Workspace): KubernetesObject[] {
  const first = plan(ws, [node()]);
  const written = writtenObjects(first, 'manager');
  return [
    node(),
    ...written.map((o) => {
      if (o.kind !== 'StatefulSet') return o;
      const sts = structuredClone(o) as V1StatefulSet;
      for (const c of pullers(sts)) {
        const adapter = ws.inference!.adapters!.find((a) => `puller-${a.source!.name}` === c.name)!;
        c.args = [kaitoScript(adapter.source!.image!, `${ADAPTER_MOUNT_PATH}/${adapter.source!.name}`)];
      }
      // KAITO's create owns the whole main container (template-ownership.ts reads who wrote it).
      const main = `k:{"name":"${sts.spec!.template.spec!.containers[0]!.name}"}`;
      const fieldsV1 = { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { [main]: { '.': {}, 'f:name': {}, 'f:image': {} } } } } } };
      return {
        ...sts,
        metadata: { ...sts.metadata, generation: 1, managedFields: [{ manager: 'manager', operation: 'Update', fieldsV1 }] },
        status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: 'r1', updateRevision: 'r1' },
      } as KubernetesObject;
    }),
  ];
}

const taken = (ws: Workspace): Workspace => ({ ...ws, metadata: { ...ws.metadata, finalizers: [WORKSPACE_FINALIZER] } });
const liveSts = (objects: KubernetesObject[]) => objects.find((o) => o.kind === 'StatefulSet') as V1StatefulSet;

test("KAITO's puller script at the workspace's revision: the StatefulSet is not written", (t) => {
  if (!kaitoPullerScript('x', '/x')) t.diagnostic("KAITO's source tree is not on this machine: a stand-in script plays KAITO's");
  const ws = workspace();
  const objects = kaitoCluster(ws);
  const live = liveSts(objects);
  assert.equal(pullers(live).length, 2);
  for (const [i, c] of pullers(live).entries()) {
    const { name, image } = ws.inference!.adapters![i]!.source!;
    assert.notEqual(c.args?.[0], pullerScript(normalizeImageRef(image!), `${ADAPTER_MOUNT_PATH}/${name}`), 'the live script is not ours');
  }
  assert.equal(live.metadata?.annotations?.[ANNOTATION_REVISION], '1');
  const p = plan(taken(ws), objects);
  assert.deepEqual(applied(p, 'StatefulSet'), [], 'no StatefulSet apply');
  assert.ok(!p.actions.some((a) => a.kind === 'takeFieldOwnership'), 'no ownership taken');
  assert.ok(!p.actions.some((a) => (a.kind === 'delete' || a.kind === 'create') && a.type.kind === 'StatefulSet'));
  // `kaito-ts diff` decides the same; `--rebuild` shows our script where KAITO's runs (nothing written).
  const caches = cachesFromObjects(objects);
  const intent = workspaceIntent(taken(ws), caches, config, NOW);
  assert.ok(intent.ok);
  assert.equal(intent.children.find((c) => c.type.kind === 'StatefulSet')?.apply, undefined);
  const rebuilt = workspaceIntent(taken(ws), caches, config, NOW, true);
  assert.ok(rebuilt.ok);
  const ours = rebuilt.children.find((c) => c.type.kind === 'StatefulSet')?.apply as V1StatefulSet;
  assert.deepEqual(
    pullers(ours).map((c) => c.args?.[0]),
    ws.inference!.adapters!.map((a) => pullerScript(normalizeImageRef(a.source!.image!), `${ADAPTER_MOUNT_PATH}/${a.source!.name}`)),
  );
});

test("a replica change at the workspace's revision: only the replicas change, KAITO's init containers stay", () => {
  const ws = workspace();
  const objects = kaitoCluster(ws).map((o) =>
    o.kind === 'StatefulSet' ? ({ ...o, spec: { ...(o as V1StatefulSet).spec!, replicas: 0 } } as KubernetesObject) : o,
  );
  const live = liveSts(objects);
  const p = plan(taken(ws), objects);
  const [sts, ...more] = applied(p, 'StatefulSet');
  assert.ok(sts && more.length === 0, 'one StatefulSet apply');
  assert.ok(!p.actions.some((a) => a.kind === 'takeFieldOwnership'), "KAITO's template is not taken over for a replica change");
  assert.equal(sts.spec?.replicas, 1);
  assert.deepEqual(sts.spec?.template.spec?.initContainers, live.spec?.template.spec?.initContainers);
  assert.ok(!needsApply(sts.spec?.template, live.spec?.template), 'nothing in the pod template changes');
});

test("KAITO v0.8.0's StatefulSet (no revision annotation, the pod kaito-ts renders) when its replicas change: no pod change, no ownership taken", () => {
  const ws = workspace();
  const ours = applied(plan(ws, [node()]), 'StatefulSet')[0]!;
  const objects = kaitoCluster(ws).map((o) => {
    if (o.kind !== 'StatefulSet') return o;
    const sts = structuredClone(o) as V1StatefulSet;
    delete sts.metadata!.annotations![ANNOTATION_REVISION];
    sts.spec!.template.spec!.initContainers = ours.spec!.template.spec!.initContainers;
    return { ...sts, spec: { ...sts.spec!, replicas: 0 } } as KubernetesObject;
  });
  const live = liveSts(objects);
  const p = plan(taken(ws), objects);
  const [sts] = applied(p, 'StatefulSet');
  assert.equal(sts?.spec?.replicas, 1);
  assert.ok(!p.actions.some((a) => a.kind === 'takeFieldOwnership'));
  assert.ok(!needsApply(sts?.spec?.template, live.spec?.template), 'nothing in the pod template changes');
});

test("a new revision: the init containers become ours as a whole, KAITO's script nowhere", () => {
  const ws = workspace();
  const objects = kaitoCluster(ws);
  const live = liveSts(objects);
  const changed = workspace([...ADAPTERS, { source: { name: 'third-lora', image: 'kaito/third-lora:1' } }]);
  const p = plan(taken(changed), objects);
  const [sts] = applied(p, 'StatefulSet');
  assert.ok(sts, 'the StatefulSet is applied for revision 2');
  // KAITO wrote the template: its fields become ours first, then our template is applied whole.
  assert.deepEqual(
    p.actions.filter((a) => a.kind === 'takeFieldOwnership' || (a.kind === 'apply' && a.type.kind === 'StatefulSet')).map((a) => a.kind),
    ['takeFieldOwnership', 'apply'],
  );
  const ours = applied(plan(changed, [node()]), 'StatefulSet')[0]!;
  assert.deepEqual(sts.spec?.template, ours.spec?.template, 'the pod template a fresh workspace of this spec gets');
  assert.equal(sts.metadata?.annotations?.[ANNOTATION_REVISION], '2');
  const init = sts.spec?.template.spec?.initContainers ?? [];
  const kaitoScripts = new Set(pullers(live).map((c) => c.args?.[0]));
  assert.deepEqual(
    pullers(sts).map((c) => [c.name, c.args?.[0]]),
    changed.inference!.adapters!.map((a) => [
      `puller-${a.source!.name}`,
      pullerScript(normalizeImageRef(a.source!.image!), `${ADAPTER_MOUNT_PATH}/${a.source!.name}`),
    ]),
  );
  assert.ok(
    init.every((c) => !kaitoScripts.has(c.args?.[0])),
    "no init container keeps KAITO's script",
  );
  assert.deepEqual(
    init.map((c) => c.name),
    live.spec!.template.spec!.initContainers!.map((c) => c.name).concat('puller-third-lora'),
  );
});
