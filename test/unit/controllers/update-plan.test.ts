// Zero-downtime updates, pass by pass: planWorkspace over a small world that applies each plan's
// writes, while the test plays the StatefulSet controller, the scheduler, kubelet and the endpoints
// controller. Every step of docs/controller.md's sequence, and its failure paths.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1Pod, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import {
  ANNOTATION_REVISION,
  ANNOTATION_SURGE_FAILED,
  ANNOTATION_UPDATE_STRATEGY,
  CONDITION_UPDATING,
  ConditionType,
  LABEL_SURGE,
} from '../../../src/api/labels.js';
import type { Workspace } from '../../../src/api/types.js';
import { findCondition } from '../../../src/api/workspace-conditions.js';
import type { Action, Plan } from '../../../src/controllers/shared/actions.js';
import { planWorkspace } from '../../../src/controllers/workspace/plan.js';
import { cachesFromObjects, readSnapshot } from '../../../src/controllers/workspace/snapshot.js';
import { UpdateReason } from '../../../src/controllers/workspace/update-plan.js';
import { A10_NODE_LABELS, byoOperatorConfig, byoWorkspace, gpuNode } from '../builders/fixtures.js';

const config = byoOperatorConfig();
const node = (name: string) => ({
  ...gpuNode(name, A10_NODE_LABELS),
  kind: 'Node',
  status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '1' } },
});

/** The cluster as the operator's caches would hold it, with the writes of each plan applied. */
class World {
  objects: KubernetesObject[] = [node('n1'), node('n2')];
  now = new Date('2026-12-02T10:00:00Z');
  private uid = 0;
  constructor(public ws: Workspace) {}

  pass(): Plan {
    const snap = readSnapshot(this.ws, {
      caches: cachesFromObjects(this.objects),
      config,
      fieldManager: 'kaito-ts',
      now: this.now,
      provisioningCrdInstalled: () => false,
    });
    const plan = planWorkspace(snap);
    for (const a of plan.actions) this.apply(a);
    return plan;
  }

  private apply(a: Action): void {
    if (a.kind === 'patchMetadata') {
      const m = this.ws.metadata;
      this.ws = { ...this.ws, metadata: { ...m, finalizers: a.finalizers ?? m.finalizers, annotations: { ...m.annotations, ...a.annotations } } };
    } else if (a.kind === 'status') this.ws = { ...this.ws, status: a.status };
    else if (a.kind === 'apply' || a.kind === 'create') {
      const found = this.get(a.type.kind, a.object.metadata?.name ?? '');
      if (found && a.kind === 'create') return;
      const generation = ((found?.metadata as { generation?: number })?.generation ?? 0) + 1;
      const merged = {
        ...(found ?? {}),
        ...a.object,
        kind: a.type.kind,
        metadata: {
          ...a.object.metadata,
          uid: found?.metadata?.uid ?? `uid-${++this.uid}`,
          generation,
          creationTimestamp: found?.metadata?.creationTimestamp ?? this.now,
          managedFields: [{ manager: 'kaito-ts' }],
        },
      };
      this.objects = [...this.objects.filter((o) => o !== found), merged];
    } else if (a.kind === 'delete') this.objects = this.objects.filter((o) => !(o.kind === a.type.kind && o.metadata?.name === a.ref.name));
  }

  get<T extends KubernetesObject>(kind: string, name: string): T | undefined {
    return this.objects.find((o) => o.kind === kind && o.metadata?.name === name) as T | undefined;
  }
  sts(name: string): V1StatefulSet | undefined {
    return this.get<V1StatefulSet>('StatefulSet', name);
  }
  surgeName(): string | undefined {
    return this.objects.find((o) => o.kind === 'StatefulSet' && o.metadata?.labels?.[LABEL_SURGE])?.metadata?.name;
  }
  /** The StatefulSet controller and kubelet: the set's pod 0 on `nodeName`, Ready or loading, the set rolled out when Ready. */
  pod(stsName: string, state: 'ready' | 'loading' | 'unschedulable' | 'crashing', nodeName = 'n1'): void {
    const sts = this.sts(stsName)!;
    const name = `${stsName}-0`;
    const ready = state === 'ready';
    const pod: V1Pod & KubernetesObject = {
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'ns1',
        labels: { ...sts.spec?.template.metadata?.labels, 'statefulset.kubernetes.io/pod-name': name },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: stsName, uid: sts.metadata?.uid ?? '', controller: true }],
      },
      spec: { containers: [{ name: 'c' }], ...(state === 'unschedulable' ? {} : { nodeName }) },
      status: {
        startTime: new Date(this.now.getTime() - 30_000),
        conditions: [
          state === 'unschedulable'
            ? { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient nvidia.com/gpu.' }
            : { type: 'PodScheduled', status: 'True', lastTransitionTime: this.now },
          { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: this.now },
        ],
        ...(state === 'crashing'
          ? {
              containerStatuses: [
                { name: 'c', ready: false, restartCount: 4, image: 'x', imageID: '', state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } } },
              ],
            }
          : {}),
      },
    };
    this.objects = [...this.objects.filter((o) => !(o.kind === 'Pod' && o.metadata?.name === name)), pod];
    const rev = `${stsName}-r${sts.metadata?.generation}`;
    const done = ready
      ? { readyReplicas: 1, updatedReplicas: 1, currentRevision: rev }
      : { readyReplicas: 0, updatedReplicas: 1, currentRevision: `${rev}-old` };
    sts.status = { observedGeneration: sts.metadata?.generation, replicas: 1, updateRevision: rev, ...done };
  }
  /** The endpoints controller: the main Service's slice lists these pods as serving. */
  serving(...pods: string[]): void {
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name: 'ws1-abcde', namespace: 'ns1', labels: { 'kubernetes.io/service-name': 'ws1' } },
      endpoints: pods.map((p) => ({ addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', name: p }, conditions: { ready: true, serving: true } })),
    };
    this.objects = [...this.objects.filter((o) => o.kind !== 'EndpointSlice'), slice];
  }
  selected(): string | undefined {
    return this.get<V1Service & KubernetesObject>('Service', 'ws1')?.spec?.selector?.['statefulset.kubernetes.io/pod-name'];
  }
  updating() {
    return findCondition(this.ws.status?.conditions, CONDITION_UPDATING);
  }
  inferenceReady() {
    return findCondition(this.ws.status?.conditions, ConditionType.InferenceReady)?.status;
  }
}

const writes = (p: Plan) =>
  p.actions
    .filter((a) => a.kind !== 'event' && a.kind !== 'status')
    .map((a) =>
      a.kind === 'apply' || a.kind === 'create'
        ? `${a.kind} ${a.type.kind} ${a.object.metadata?.name}`
        : a.kind === 'delete'
          ? `delete ${a.type.kind} ${a.ref.name}`
          : a.kind,
    );

/** Writes of the workload and its update (a new revision's metadata and ControllerRevision left out). */
const workloadWrites = (p: Plan) => writes(p).filter((x) => x !== 'patchMetadata' && !x.includes('ControllerRevision'));
const hashOf = (p: Plan) =>
  /-(?:s|pull-)([0-9a-f]{5})$/.exec(
    p.actions
      .flatMap((a) => (a.kind === 'create' || a.kind === 'apply' ? [a.object.metadata?.name ?? ''] : []))
      .find((n) => /-(s|pull-)[0-9a-f]{5}$/.test(n)) ?? '',
  )?.[1];

/** A serving single-replica workspace (revision 1 Ready on n1, endpoints on ws1-0), then an adapter added. */
function servingThenChanged(annotations: Record<string, string> = {}): World {
  const ws = byoWorkspace('phi-3-mini-4k-instruct');
  ws.metadata.annotations = { ...ws.metadata.annotations, ...annotations };
  const w = new World(ws);
  w.pass();
  w.pod('ws1', 'ready');
  w.serving('ws1-0');
  w.pass();
  assert.deepEqual(writes(w.pass()), [], 'converged: an idle pass writes nothing');
  assert.equal(w.updating(), undefined, 'no Updating condition on a workspace that never updated');
  w.ws = {
    ...w.ws,
    metadata: { ...w.ws.metadata, generation: 2 },
    inference: { ...w.ws.inference, adapters: [{ source: { name: 'a1', image: 'example.com/adapter:1' } }] },
  };
  return w;
}

describe('zero-downtime update of a single-replica workspace', () => {
  it('surge: the old pod serves until the surge serves, the primary restarts behind it, the Service returns, the surge goes', () => {
    const w = servingThenChanged();
    const start = w.pass();
    const surge = w.surgeName()!;
    assert.match(surge, /^ws1-s[0-9a-f]{5}$/);
    assert.ok(writes(start).includes(`apply StatefulSet ${surge}`));
    assert.ok(!writes(start).includes('apply StatefulSet ws1'), 'the primary is not touched');
    assert.equal(w.sts('ws1')?.metadata?.annotations?.[ANNOTATION_REVISION], '1');
    assert.equal(w.updating()?.reason, UpdateReason.SurgeStarting);
    assert.equal(w.inferenceReady(), 'True');
    const surgeSts = w.sts(surge)!;
    assert.equal(surgeSts.spec?.template.metadata?.labels?.[LABEL_SURGE], surge.slice(-5));
    assert.equal(surgeSts.spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted, 'Delete');
    assert.ok(JSON.stringify(surgeSts.spec?.template).includes('example.com/adapter:1'), 'the surge has the new template');

    w.pod(surge, 'loading', 'n2');
    assert.deepEqual(writes(w.pass()), [], 'loading: nothing to write');
    assert.equal(w.selected(), 'ws1-0');

    w.pod(surge, 'ready', 'n2');
    assert.deepEqual(writes(w.pass()), ['apply Service ws1']);
    assert.equal(w.selected(), `${surge}-0`);
    assert.equal(w.updating()?.reason, UpdateReason.SurgeReady);
    assert.deepEqual(writes(w.pass()), [], 'the primary waits until the endpoints show the surge');

    w.serving(`${surge}-0`);
    assert.deepEqual(writes(w.pass()), ['apply StatefulSet ws1']);
    assert.equal(w.sts('ws1')?.metadata?.annotations?.[ANNOTATION_REVISION], '2');
    assert.equal(w.updating()?.reason, UpdateReason.ServingFromSurge);

    w.pod('ws1', 'loading');
    w.pass();
    assert.equal(w.selected(), `${surge}-0`, 'the Service stays on the surge while the primary loads');
    assert.equal(w.inferenceReady(), 'True', 'InferenceReady follows what the Service selects');

    w.pod('ws1', 'ready');
    assert.deepEqual(writes(w.pass()), ['apply Service ws1']);
    assert.equal(w.selected(), 'ws1-0');
    assert.deepEqual(writes(w.pass()), [], 'the surge stays until the endpoints show the primary');

    w.serving('ws1-0');
    assert.deepEqual(writes(w.pass()), [`delete StatefulSet ${surge}`]);
    assert.equal(w.updating()?.status, 'False');
    assert.equal(w.updating()?.reason, UpdateReason.CutoverComplete);
    assert.deepEqual(writes(w.pass()), [], 'done: idle again');
    assert.equal(w.ws.status?.state, 'Ready');
  });

  it('no free node (BYO, SurgeIfCapacity): the surge goes, the images are pulled on the node, the restart is announced before it happens', () => {
    const w = servingThenChanged();
    w.pass();
    const surge = w.surgeName()!;
    w.pod(surge, 'unschedulable');
    assert.deepEqual(writes(w.pass()), ['patchMetadata', `delete StatefulSet ${surge}`]);
    assert.equal(w.ws.metadata.annotations?.[ANNOTATION_SURGE_FAILED], `${surge.slice(-5)}:NoCapacity`);
    assert.equal(w.updating()?.reason, UpdateReason.FellBackToRecreate);

    const pull = w.pass();
    assert.deepEqual(writes(pull), [`create Job ws1-pull-${surge.slice(-5)}`]);
    assert.equal(w.updating()?.reason, UpdateReason.PullingImages);
    assert.match(w.updating()?.message ?? '', /inference stops for .*at most 30s/);
    const job = w.get<KubernetesObject & { spec?: { template?: { spec?: { nodeName?: string } } } }>('Job', `ws1-pull-${surge.slice(-5)}`);
    assert.equal(job?.spec?.template?.spec?.nodeName, 'n1', 'on the primary node');
    assert.equal(w.surgeName(), undefined, 'no new surge');
    assert.deepEqual(writes(w.pass()), [], 'the restart waits for the pull');

    (job as { status?: object }).status = { succeeded: 1 };
    assert.deepEqual(writes(w.pass()), ['apply StatefulSet ws1'], 'announced in an earlier pass: the primary restarts now');
    w.pod('ws1', 'ready');
    assert.deepEqual(writes(w.pass()), [`delete Job ws1-pull-${surge.slice(-5)}`]);
    assert.equal(w.updating()?.reason, UpdateReason.CutoverComplete);
  });

  it('Surge (never a gap) keeps waiting for capacity; the primary is untouched', () => {
    const w = servingThenChanged({ [ANNOTATION_UPDATE_STRATEGY]: 'Surge' });
    w.pass();
    w.pod(w.surgeName()!, 'unschedulable');
    assert.deepEqual(writes(w.pass()), []);
    assert.equal(w.updating()?.reason, UpdateReason.SurgeWaitingCapacity);
    assert.match(w.updating()?.message ?? '', /Insufficient nvidia.com\/gpu/);
    assert.equal(w.sts('ws1')?.metadata?.annotations?.[ANNOTATION_REVISION], '1');
  });

  it('a crash-looping surge is deleted and the primary keeps the old revision until the spec changes', () => {
    const w = servingThenChanged();
    w.pass();
    const surge = w.surgeName()!;
    w.pod(surge, 'crashing', 'n2');
    assert.deepEqual(writes(w.pass()), ['patchMetadata', `delete StatefulSet ${surge}`]);
    assert.equal(w.updating()?.status, 'False');
    assert.equal(w.updating()?.reason, UpdateReason.SurgeFailed);
    assert.match(w.updating()?.message ?? '', /CrashLoopBackOff|crash/i);
    assert.deepEqual(writes(w.pass()), [], 'not tried again, primary held');
    assert.equal(w.sts('ws1')?.metadata?.annotations?.[ANNOTATION_REVISION], '1');
    assert.equal(w.inferenceReady(), 'True', 'the old revision still serves');
  });

  it('Recreate: announced in one pass, the images pulled, then the restart (KAITO’s behaviour, with the gap stated first)', () => {
    const w = servingThenChanged({ [ANNOTATION_UPDATE_STRATEGY]: 'Recreate' });
    const first = w.pass();
    assert.deepEqual(workloadWrites(first), [`create Job ws1-pull-${hashOf(first)}`]);
    assert.equal(w.updating()?.reason, UpdateReason.PullingImages);
    assert.equal(w.surgeName(), undefined);
  });

  it('the spec changes again while the surge serves: the primary takes the newest revision, one surge only', () => {
    const w = servingThenChanged();
    w.pass();
    const surge = w.surgeName()!;
    w.pod(surge, 'ready', 'n2');
    w.pass();
    w.serving(`${surge}-0`);
    w.pass();
    w.ws = {
      ...w.ws,
      metadata: { ...w.ws.metadata, generation: 3 },
      inference: { ...w.ws.inference, adapters: [{ source: { name: 'a2', image: 'example.com/adapter:2' } }] },
    };
    assert.deepEqual(workloadWrites(w.pass()), ['apply StatefulSet ws1']);
    assert.equal(w.selected(), `${surge}-0`, 'the old surge keeps serving');
    assert.ok(JSON.stringify(w.sts('ws1')?.spec?.template).includes('example.com/adapter:2'));
  });
});
