// planWorkspace, table-tested: a snapshot of cluster objects in, the ordered actions, the status and
// the failure out. Each row is one branch of the workspace controller.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1Container, V1ControllerRevision, V1Deployment, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import { ConditionType, WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import type { Workspace } from '../../../src/api/types.js';
import { findCondition } from '../../../src/api/workspace-conditions.js';
import { defaultFacts } from '../../../src/builders/facts.js';
import { describeAction, type Action, type Plan } from '../../../src/controllers/shared/actions.js';
import { operatorConfigOf, type OperatorConfig } from '../../../src/controllers/workspace/context.js';
import { planWorkspace } from '../../../src/controllers/workspace/plan.js';
import { NODECLAIMS_CREATED_ANNOTATION } from '../../../src/controllers/workspace/provisioning-plan.js';
import { Reason } from '../../../src/controllers/workspace/reasons.js';
import { cachesFromObjects, readSnapshot, type WorkspaceSnapshot } from '../../../src/controllers/workspace/snapshot.js';
import { A10_NODE_LABELS, byoWorkspace, gpuNode, H100_NODE_LABELS, NVME_CLASS, presetWorkspace } from '../builders/fixtures.js';
import { writtenObjects } from './written-objects.js';

const NOW = new Date('2026-12-01T12:00:00Z');
/** Short names as KAITO v0.8.0 rendered them (`--legacy-presets=v0.8`): these plans were written for its presets; plan-legacy.test.ts has the default's. */
const config = (byo: boolean): OperatorConfig =>
  operatorConfigOf(defaultFacts({ featureGates: { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: byo }, legacyNames: 'v0.8' }), 1_800_000);
const a10 = () => ({
  ...gpuNode('n1', A10_NODE_LABELS),
  kind: 'Node',
  status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '1' } },
});
const nvmeClass = { kind: 'StorageClass', metadata: { name: NVME_CLASS } };

function snapshot(
  ws: Workspace,
  objects: KubernetesObject[],
  opts: { byo?: boolean; crd?: boolean; patch?: Partial<WorkspaceSnapshot> } = {},
): WorkspaceSnapshot {
  const byo = opts.byo ?? true;
  const snap = readSnapshot(ws, {
    caches: cachesFromObjects(objects),
    config: config(byo),
    fieldManager: 'kaito-ts',
    now: NOW,
    provisioningCrdInstalled: () => opts.crd ?? true,
  });
  return { ...snap, ...opts.patch };
}

/** `verb Kind name` per action; events as `event Reason`. */
const steps = (p: Plan) =>
  p.actions.map((a: Action) => {
    if (a.kind === 'event') return `event ${a.note.reason}`;
    if (a.kind === 'apply' || a.kind === 'create')
      return `${a.kind} ${a.type.kind} ${a.object.metadata?.name}`.replace(/ws[0-9a-f]{9}$/, 'ws<claim>').replace(/-[0-9a-f]{5,}$/, '-<hash>');
    if (a.kind === 'delete') return `delete ${a.type.kind} ${a.ref.name}`;
    return a.kind;
  });
const statusOf = (p: Plan) => [...p.actions].reverse().find((a): a is Extract<Action, { kind: 'status' }> => a.kind === 'status')?.status;
const inferenceReason = (p: Plan) => findCondition(statusOf(p)?.conditions, ConditionType.InferenceReady)?.reason;

/** The children a first pass would write, as the server would hold them (owned, with UIDs). */
function converged(ws: Workspace, objects: KubernetesObject[] = [a10()], opts: { byo?: boolean; crd?: boolean } = {}): KubernetesObject[] {
  const first = planWorkspace(snapshot(ws, objects, opts));
  const written = writtenObjects(first);
  return [...objects, ...written];
}

/** A workspace as it is after its first pass: finalizer and revision annotations. */
function afterFirstPass(ws: Workspace, objects: KubernetesObject[] = [a10()], opts: { byo?: boolean; crd?: boolean } = {}): Workspace {
  const first = planWorkspace(snapshot(ws, objects, opts));
  const meta = first.actions.find((a): a is Extract<Action, { kind: 'patchMetadata' }> => a.kind === 'patchMetadata');
  return { ...ws, metadata: { ...ws.metadata, finalizers: [WORKSPACE_FINALIZER], annotations: { ...ws.metadata.annotations, ...meta?.annotations } } };
}

const readySts = (objects: KubernetesObject[]): KubernetesObject[] =>
  objects.map((o) =>
    o.kind === 'StatefulSet'
      ? ({
          ...o,
          metadata: { ...o.metadata, generation: 1 },
          status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: 'r1', updateRevision: 'r1' },
        } as V1StatefulSet)
      : o,
  );
const pod0 = (ready: boolean, owner: { kind: string; uid: string }, extra: Partial<V1Pod['spec']> = {}): V1Pod & { kind: string } => ({
  kind: 'Pod',
  metadata: {
    name: 'ws1-0',
    namespace: 'ns1',
    labels: { 'kaito.sh/workspace': 'ws1' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: 'x', uid: owner.uid, controller: true }],
  },
  spec: { containers: [{ name: 'c' }], ...extra },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

interface Row {
  name: string;
  snap: () => WorkspaceSnapshot;
  steps?: string[];
  failure?: string;
  inference?: string;
  requeue?: boolean;
  check?: (p: Plan) => void;
}

const byo = byoWorkspace('phi-3-mini-4k-instruct');
const owned = (name: string) => ({
  metadata: {
    name,
    namespace: 'ns1',
    uid: `uid-${name}`,
    ownerReferences: [{ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: 'ws1', uid: 'uid-1', controller: true }],
  },
});

/** The workspace as the controller reads it (v1beta1), its spec written through `apiVersion` (managedFields). */
const writtenIn = (apiVersion: string, ws: Workspace): Workspace => ({
  ...ws,
  metadata: { ...ws.metadata, managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion, fieldsV1: { 'f:resource': {}, 'f:inference': {} } }] },
});
const twoNodes: Workspace = { ...byo, resource: { ...byo.resource, count: 2 } };

/** A new revision: an adapter added to the spec. */
const withAdapter = (ws: Workspace): Workspace => ({ ...ws, inference: { ...ws.inference, adapters: [{ source: { name: 'a', image: 'example/a:1' } }] } });
function withMain(sts: V1StatefulSet, main: Partial<V1Container>): V1StatefulSet {
  const copy = structuredClone(sts);
  const pod = copy.spec!.template.spec!;
  pod.containers = [{ ...pod.containers[0]!, ...main }, ...pod.containers.slice(1)];
  return copy;
}
/** The StatefulSet as KAITO v0.12 would have made it: its image, command and exec probe, written by its manager. */
function writtenByKaito(o: KubernetesObject): V1StatefulSet {
  const sts = o as V1StatefulSet;
  if (o.kind !== 'StatefulSet') return sts;
  const name = sts.spec!.template.spec!.containers[0]!.name;
  const kaito = withMain(sts, { image: 'kaito-base:0.5.0', command: ['kaito'], startupProbe: { exec: { command: ['true'] } } });
  const fieldsV1 = { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { [`k:{"name":"${name}"}`]: { '.': {}, 'f:name': {}, 'f:image': {} } } } } } };
  return { ...kaito, metadata: { ...kaito.metadata, managedFields: [{ manager: 'manager', operation: 'Update', fieldsV1 }] } };
}
const appliedStatefulSet = (p: Plan) => {
  const a = p.actions.find((x) => x.kind === 'apply' && x.type.kind === 'StatefulSet');
  return a?.kind === 'apply' ? (a.object as V1StatefulSet) : undefined;
};

const rows: Row[] = [
  {
    name: 'a new workspace: metadata, workload before revision and Services, status',
    snap: () => snapshot(byo, [a10()]),
    steps: [
      'patchMetadata',
      'create ConfigMap inference-params-template',
      'apply StatefulSet ws1',
      'apply ControllerRevision ws1-<hash>',
      'apply Service ws1-headless',
      'apply Service ws1',
      'status',
    ],
    inference: 'PodsNotReady',
  },
  {
    name: 'converged and ready: nothing at all',
    snap: () => {
      const ws = afterFirstPass(byo);
      const objects = readySts(converged(byo));
      const first = planWorkspace(snapshot(ws, objects));
      return snapshot({ ...ws, status: statusOf(first) }, objects);
    },
    steps: [],
  },
  {
    name: 'converged, status not yet written: one status write, InferenceReady True',
    snap: () => snapshot(afterFirstPass(byo), readySts(converged(byo))),
    steps: ['status'],
    inference: 'WorkspaceInferenceStatusSuccess',
  },
  {
    name: 'invalid spec (unknown instance of a preset): finalizer, Warning event, status, terminal',
    snap: () => snapshot(presetWorkspace('no-such-model'), [a10()]),
    steps: ['patchMetadata', 'event InvalidSpec', 'status'],
    failure: 'InvalidSpec',
  },
  {
    name: 'a StatefulSet of that name another object controls: reported, nothing written',
    snap: () => snapshot(byo, [a10(), { kind: 'StatefulSet', metadata: { name: 'ws1', namespace: 'ns1', uid: 'x' } }]),
    steps: ['patchMetadata', 'event ObjectNotOwned', 'status'],
    failure: Reason.NotOwned,
  },
  {
    name: 'a Service of that name another object controls: reported before any child write',
    snap: () => snapshot(byo, [a10(), { kind: 'Service', metadata: { name: 'ws1-headless', namespace: 'ns1', uid: 'x' } }]),
    steps: ['patchMetadata', 'event ObjectNotOwned', 'status'],
    failure: Reason.NotOwned,
  },
  {
    name: 'our revision name with another hash: KAITO revision conflict',
    snap: () => {
      const cr = converged(byo).find((o) => o.kind === 'ControllerRevision') as V1ControllerRevision;
      return snapshot(byo, [a10(), { ...cr, metadata: { ...cr.metadata, annotations: { 'workspace.kaito.io/hash': 'other' } } }]);
    },
    failure: 'RevisionConflict',
  },
  {
    name: 'a foreign revision under our name: NotOwned, never taken',
    snap: () => {
      const cr = converged(byo).find((o) => o.kind === 'ControllerRevision') as V1ControllerRevision;
      return snapshot(byo, [a10(), { ...cr, metadata: { ...cr.metadata, ownerReferences: [] } }]);
    },
    failure: Reason.NotOwned,
  },
  {
    name: 'history beyond 10 older revisions: the oldest owned ones pruned, look-alikes kept',
    snap: () => {
      const old = Array.from({ length: 12 }, (_, i) => ({
        kind: 'ControllerRevision',
        revision: i + 1,
        ...owned(`ws1-old${i}`),
        metadata: { ...owned(`ws1-old${i}`).metadata, labels: { 'workspace.kaito.io/name': 'ws1' } },
      }));
      const lookAlike = {
        kind: 'ControllerRevision',
        revision: 0,
        metadata: { name: 'ws1-copy', namespace: 'ns1', uid: 'copy', labels: { 'workspace.kaito.io/name': 'ws1' } },
      };
      return snapshot(byo, [a10(), ...old, lookAlike] as KubernetesObject[]);
    },
    check: (p) =>
      assert.deepEqual(
        steps(p).filter((s) => s.startsWith('delete')),
        ['delete ControllerRevision ws1-old0', 'delete ControllerRevision ws1-old1'],
      ),
  },
  {
    name: 'a Secret problem before any workload: terminal, nothing created',
    snap: () => snapshot(byo, [a10()], { patch: { secretProblem: { reason: Reason.SecretNotFound, message: 'Secret ns1/hf does not exist' } } }),
    steps: ['patchMetadata', `event ${Reason.SecretNotFound}`, 'status'],
    failure: Reason.SecretNotFound,
  },
  {
    name: 'a Secret problem while serving: keeps serving, warned once',
    snap: () =>
      snapshot(afterFirstPass(byo), readySts(converged(byo)), {
        patch: { secretProblem: { reason: Reason.SecretNotFound, message: 'Secret ns1/hf does not exist' } },
      }),
    steps: [`event ${Reason.SecretNotFound}`, 'status'],
    check: (p) => assert.match(findCondition(statusOf(p)?.conditions, ConditionType.InferenceReady)?.message ?? '', /running pods keep serving/),
  },
  {
    name: 'BYO replica scale-up at the same revision: the StatefulSet applied with the new count',
    snap: () =>
      snapshot(
        afterFirstPass(byo),
        readySts(converged(byo)).map((o) => (o.kind === 'StatefulSet' ? { ...o, spec: { ...(o as V1StatefulSet).spec!, replicas: 0 } } : o)),
      ),
    check: (p) => {
      const sts = p.actions.find((a) => a.kind === 'apply' && a.type.kind === 'StatefulSet');
      assert.equal(sts?.kind === 'apply' ? (sts.object as V1StatefulSet).spec?.replicas : undefined, 1);
      assert.equal(inferenceReason(p), 'RolloutInProgress', 'a spec change is a generation not yet observed');
    },
  },
  {
    name: 'BYO replica scale-up at the same revision of a pod template another generator wrote: only the replicas change',
    snap: () =>
      snapshot(
        afterFirstPass(byo),
        readySts(converged(byo)).map((o) => {
          if (o.kind !== 'StatefulSet') return o;
          const sts = structuredClone(o) as V1StatefulSet;
          const pod = sts.spec!.template.spec!;
          pod.initContainers = pod.initContainers?.map((c) => ({ ...c, args: ['their script'] }));
          pod.volumes = [...(pod.volumes ?? []), { name: 'theirs', emptyDir: {} }];
          pod.containers[0]!.volumeMounts = [...(pod.containers[0]!.volumeMounts ?? []), { name: 'theirs', mountPath: '/theirs' }];
          delete pod.containers[0]!.startupProbe;
          return { ...sts, spec: { ...sts.spec!, replicas: 0 } };
        }),
      ),
    check: (p) => {
      const sts = p.actions.find((a) => a.kind === 'apply' && a.type.kind === 'StatefulSet');
      const object = sts?.kind === 'apply' ? (sts.object as V1StatefulSet) : undefined;
      assert.equal(object?.spec?.replicas, 1);
      const pod = object?.spec?.template.spec;
      assert.ok(pod?.initContainers?.length && pod.initContainers.every((c) => c.args?.[0] === 'their script'), 'the live init containers');
      assert.ok(
        pod.volumes?.some((v) => v.name === 'theirs') && pod.containers[0]?.volumeMounts?.some((m) => m.name === 'theirs'),
        'the live volumes and mounts',
      );
      assert.equal(pod.containers[0]?.startupProbe, undefined, 'no field of ours the live template lacks');
    },
  },
  {
    name: 'a spec change on a pod template KAITO wrote (a takeover): its fields become ours, then our template is applied whole',
    snap: () =>
      snapshot(
        withAdapter(afterFirstPass(byo)),
        readySts(converged(byo)).map((o) => writtenByKaito(o)),
      ),
    check: (p) => {
      assert.deepEqual(
        steps(p).filter((s) => /StatefulSet|takeFieldOwnership/.test(s)),
        ['takeFieldOwnership', 'apply StatefulSet ws1'],
      );
      const take = p.actions.find((a) => a.kind === 'takeFieldOwnership');
      assert.deepEqual(take?.kind === 'takeFieldOwnership' ? [take.ref, take.container] : undefined, [{ namespace: 'ns1', name: 'ws1' }, 'ws1']);
      const main = appliedStatefulSet(p)?.spec?.template.spec?.containers[0];
      assert.notEqual(main?.image, 'kaito-base:0.5.0', "our image, not KAITO's");
      assert.notDeepEqual(main?.command, ['kaito'], 'our command');
      assert.equal(main?.startupProbe?.exec, undefined);
      const live = converged(byo).find((o): o is V1StatefulSet => o.kind === 'StatefulSet')!;
      assert.deepEqual(appliedStatefulSet(p)?.spec?.selector, live.spec?.selector, 'the immutable selector as live');
    },
  },
  {
    name: "a spec change on a pod template kaito-ts wrote: KAITO's selective update, nothing taken over",
    snap: () =>
      snapshot(
        withAdapter(afterFirstPass(byo)),
        readySts(converged(byo)).map((o) => (o.kind === 'StatefulSet' ? withMain(o as V1StatefulSet, { image: 'user:1', command: ['user'] }) : o)),
      ),
    check: (p) => {
      assert.ok(!p.actions.some((a) => a.kind === 'takeFieldOwnership'));
      const main = appliedStatefulSet(p)?.spec?.template.spec?.containers[0];
      assert.deepEqual([main?.image, main?.command], ['user:1', ['user']], 'image and command as live');
    },
  },
  {
    name: 'a replica change at the revision of a pod template KAITO wrote: no takeover, the template as live',
    snap: () =>
      snapshot(
        afterFirstPass(byo),
        readySts(converged(byo)).map((o) => (o.kind === 'StatefulSet' ? { ...writtenByKaito(o), spec: { ...writtenByKaito(o).spec!, replicas: 0 } } : o)),
      ),
    check: (p) => {
      assert.ok(!p.actions.some((a) => a.kind === 'takeFieldOwnership'));
      const sts = appliedStatefulSet(p);
      assert.equal(sts?.spec?.replicas, 1);
      assert.equal(sts?.spec?.template.spec?.containers[0]?.image, 'kaito-base:0.5.0');
    },
  },
  {
    name: 'a new revision whose weights volume changes (NVMe class gone): the StatefulSet deleted to recreate, announced',
    snap: () => {
      const ws = presetWorkspace('phi-3-mini-4k-instruct', 'Standard_NC24ads_A100_v4');
      const opts = { byo: false, crd: false };
      const objects = converged(ws, [nvmeClass], opts);
      assert.ok(
        objects.some((o) => o.kind === 'StatefulSet' && (o as V1StatefulSet).spec?.volumeClaimTemplates?.length),
        'the first StatefulSet has an NVMe claim template',
      );
      const changed = {
        ...afterFirstPass(ws, [nvmeClass], opts),
        inference: { preset: { name: 'phi-3-mini-4k-instruct' }, adapters: [{ source: { name: 'a', image: 'example/a:1' } }] },
      } as Workspace;
      return snapshot(
        changed,
        objects.filter((o) => o.kind !== 'StorageClass'),
        { byo: false, crd: false },
      );
    },
    check: (p) => {
      assert.deepEqual(
        steps(p).filter((s) => /StatefulSet|WeightsVolume/.test(s)),
        [`event ${Reason.WeightsVolumeChange}`, 'delete StatefulSet ws1'],
      );
      assert.equal(statusOf(p), undefined, 'the delete event brings the pass back; no status yet');
    },
  },
  {
    name: 'migration: owned legacy Deployment, pod 0 Ready → Normal event, Deployment deleted with its UID',
    snap: () => {
      const objects = readySts(converged(byo));
      const sts = objects.find((o) => o.kind === 'StatefulSet')!;
      const dep = { kind: 'Deployment', ...owned('ws1') } as V1Deployment & KubernetesObject;
      return snapshot(afterFirstPass(byo), [...objects, dep, pod0(true, { kind: 'StatefulSet', uid: sts.metadata!.uid! })]);
    },
    check: (p) => {
      assert.deepEqual(
        steps(p).filter((s) => /Deployment|Migration/.test(s)),
        [`event ${Reason.WorkloadMigration}`, 'delete Deployment ws1'],
      );
      const del = p.actions.find((a) => a.kind === 'delete');
      assert.equal(del?.kind === 'delete' ? del.uid : '', 'uid-ws1');
    },
  },
  {
    name: 'migration: pod 0 not Ready yet → the main Service stays on the legacy pods, InferenceReady says why',
    snap: () => {
      const objects = converged(byo).filter((o) => !(o.kind === 'Service' && o.metadata?.name === 'ws1'));
      const legacySvc = { kind: 'Service', ...owned('ws1'), spec: { selector: { app: 'legacy' } } };
      return snapshot(afterFirstPass(byo), [...objects, legacySvc, { kind: 'Deployment', ...owned('ws1') }] as KubernetesObject[]);
    },
    check: (p) => assert.ok(!steps(p).includes('apply Service ws1')),
    inference: Reason.WorkloadMigration,
  },
  {
    name: 'migration: a Deployment of that name not ours → left alone, Warning event',
    snap: () =>
      snapshot(afterFirstPass(byo), [
        ...readySts(converged(byo)),
        { kind: 'Deployment', metadata: { name: 'ws1', namespace: 'ns1', uid: 'd' } },
      ] as KubernetesObject[]),
    steps: [`event ${Reason.NotOwned}`, 'status'],
  },
  {
    name: 'auto-provisioning, no claim yet: one metadata patch carries the claim count, a NodeClaim, no StatefulSet',
    snap: () => snapshot(presetWorkspace('phi-3-mini-4k-instruct', 'Standard_NC24ads_A100_v4'), [nvmeClass], { byo: false }),
    steps: [
      'patchMetadata',
      'create NodeClaim ws<claim>',
      'create ConfigMap inference-params-template',
      'apply ControllerRevision ws1-<hash>',
      'apply Service ws1-headless',
      'apply Service ws1',
      'status',
    ],
    inference: Reason.WaitingForNodes,
    requeue: false, // the claim's own events bring it back; its bounded wait starts once it exists
    check: (p) => {
      const meta = p.actions[0];
      assert.equal(meta?.kind === 'patchMetadata' ? meta.annotations?.[NODECLAIMS_CREATED_ANNOTATION] : '', '1');
      assert.ok(meta?.kind === 'patchMetadata' && meta.finalizers?.includes(WORKSPACE_FINALIZER));
    },
  },
  {
    name: 'auto-provisioning, CRD not installed: no claim, the condition says so',
    snap: () => snapshot(presetWorkspace('phi-3-mini-4k-instruct', 'Standard_NC24ads_A100_v4'), [], { byo: false, crd: false }),
    check: (p) => {
      assert.ok(!steps(p).some((s) => s.includes('NodeClaim')));
      assert.equal(findCondition(statusOf(p)?.conditions, ConditionType.NodeClaimsReady)?.reason, Reason.NodeClaimCrdMissing);
    },
  },
  {
    name: 'a template whose spec is a string: refused as InvalidSpec before any builder runs',
    snap: () => snapshot({ ...byo, inference: { template: { spec: 'oops' } } } as unknown as Workspace, [a10()]),
    failure: Reason.InvalidSpec,
    check: (p) => assert.equal(p.actions.filter((a) => a.kind === 'apply').length, 0),
  },
  {
    name: "KAITO v0.12's resource.partition: refused as InvalidSpec naming the field (Warning event, status), nothing built",
    snap: () => snapshot({ ...byo, resource: { ...byo.resource, partition: { mode: 'mig', profile: '1g.10gb' } } }, [a10()]),
    steps: ['patchMetadata', 'event InvalidSpec', 'status'],
    failure: Reason.InvalidSpec,
    check: (p) => assert.match(p.failure?.message ?? '', /^resource\.partition: GPU partitioning \(mode "mig"; .* not supported by kaito-ts/),
  },
  {
    name: "written in v1alpha1, two nodes, the default config has no max-model-len: InvalidSpec with KAITO's v1alpha1 message",
    snap: () => snapshot(writtenIn('kaito.sh/v1alpha1', twoNodes), [a10()]),
    failure: Reason.InvalidSpec,
    check: (p) =>
      assert.match(p.failure?.message ?? '', /^inference\.config\[max-model-len\]: missing field\(s\): max-model-len is required in the vllm section/),
  },
  {
    name: 'written in v1beta1, two nodes, the same config: no v1alpha1 rule, the plan goes on',
    snap: () => snapshot(writtenIn('kaito.sh/v1beta1', twoNodes), [a10()]),
    check: (p) => assert.ok(steps(p).includes('apply StatefulSet ws1'), steps(p).join(', ')),
  },
  {
    name: 'anything that still throws inside the plan becomes ReconcilePlanFailed: a condition and an event, terminal',
    snap: () => snapshot(byo, [a10()], { patch: { nodes: [null as never] } }),
    failure: Reason.PlanFailed,
    check: (p) => assert.ok(steps(p).includes(`event ${Reason.PlanFailed}`), steps(p).join(', ')),
  },
  {
    name: 'deletion with claims left: claims deleted, finalizer kept, status names them',
    snap: () =>
      snapshot({ ...byo, metadata: { ...byo.metadata, deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] } }, [], {
        byo: false,
        patch: {
          provisioning: 'on',
          claims: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'wsabc', uid: 'c1', labels: {} }, spec: {} } as never],
        },
      }),
    steps: ['delete NodeClaim wsabc', 'status'],
  },
  {
    name: 'deletion, nothing left: the shared config copy (ours, unused) deleted, then the finalizer',
    snap: () =>
      snapshot({ ...byo, metadata: { ...byo.metadata, deletionTimestamp: NOW, finalizers: ['other', WORKSPACE_FINALIZER] } }, [
        {
          kind: 'ConfigMap',
          metadata: {
            name: 'inference-params-template',
            namespace: 'ns1',
            uid: 'cm',
            labels: { 'app.kubernetes.io/managed-by': 'kaito-ts' },
            managedFields: [{ manager: 'kaito-ts' }],
          },
        },
      ]),
    steps: ['status', 'delete ConfigMap inference-params-template', 'removeFinalizer'],
    check: (p) => assert.equal((p.actions.at(-1) as Extract<Action, { kind: 'removeFinalizer' }>).index, 1),
  },
  {
    name: 'deletion right after a restart, NodeClaim cache not listed yet (crdUnknown): nothing deleted, finalizer kept, status says why',
    snap: () =>
      snapshot({ ...byo, metadata: { ...byo.metadata, deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] } }, [], {
        byo: false,
        patch: { provisioning: 'crdUnknown', claims: [] },
      }),
    steps: ['status'],
    check: (p) => assert.match(JSON.stringify(statusOf(p)), /waiting for the NodeClaim and NodePool caches to list once/),
  },
  {
    name: 'deletion while a Karpenter node cache has not listed (provisioningSettled false): finalizer kept',
    snap: () =>
      snapshot({ ...byo, metadata: { ...byo.metadata, deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] } }, [], {
        byo: false,
        patch: { provisioning: 'on', provisioningSettled: false, claims: [] },
      }),
    steps: ['status'],
  },
  {
    name: 'deletion once the node caches listed and hold nothing for it: the finalizer goes',
    snap: () =>
      snapshot({ ...byo, metadata: { ...byo.metadata, deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] } }, [], {
        byo: false,
        patch: { provisioning: 'on', provisioningSettled: true, claims: [] },
      }),
    steps: ['status', 'removeFinalizer'],
  },
  {
    name: 'deletion without our finalizer: nothing',
    snap: () => snapshot({ ...byo, metadata: { ...byo.metadata, deletionTimestamp: NOW } }, []),
    steps: [],
  },
];

const tuningWs = (): Workspace => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'ws1', namespace: 'ns1', uid: 'uid-1' },
  resource: { labelSelector: { matchLabels: { app: 't' } } },
  tuning: {
    preset: { name: 'phi-3-mini-128k-instruct' },
    method: 'qlora',
    input: { urls: ['https://example.com/d.parquet'] },
    output: { image: 'example.com/out:1', imagePushSecret: 'push' },
  },
});
const tuningNode = () => ({ ...gpuNode('t1', { app: 't', ...H100_NODE_LABELS }), kind: 'Node' }) as KubernetesObject;
const tuningFirst = () => planWorkspace(snapshot(tuningWs(), [tuningNode()]));
const tuningJob = (revision: string, extra: Record<string, unknown> = {}) =>
  ({
    kind: 'Job',
    ...owned('ws1'),
    ...extra,
    metadata: { ...owned('ws1').metadata, annotations: { 'workspace.kaito.io/revision': revision } },
  }) as KubernetesObject;

rows.push(
  {
    name: 'tuning, new: metadata, revision, the Job by SSA, a Normal event, status',
    snap: () => snapshot(tuningWs(), [tuningNode()]),
    check: (p) => {
      const s = steps(p);
      assert.equal(s[0], 'patchMetadata');
      assert.ok(s.includes('apply Job ws1') && s.includes('event TuningJobCreated') && s.at(-1) === 'status', s.join(', '));
      const job = p.actions.find((a) => a.kind === 'apply' && a.type.kind === 'Job');
      assert.equal(job?.kind === 'apply' ? job.refusedReason : '', Reason.InvalidJob, 'a refused Job is reported under its own reason');
    },
  },
  {
    name: 'tuning, the Job of this revision exists: only observed, never re-created',
    snap: () => snapshot(tuningWs(), [tuningNode(), tuningJob('1')]),
    check: (p) => assert.ok(!steps(p).some((s) => s.includes('Job')), steps(p).join(', ')),
  },
  {
    name: 'tuning, the Job of an older revision: deleted (foreground) before the new one',
    snap: () => snapshot(tuningWs(), [tuningNode(), tuningJob('0')]),
    check: (p) => {
      const del = p.actions.find((a) => a.kind === 'delete');
      assert.ok(del?.kind === 'delete' && del.type.kind === 'Job' && del.propagationPolicy === 'Foreground' && del.uid === 'uid-ws1', steps(p).join(', '));
      assert.ok(!steps(p).includes('apply Job ws1'));
    },
  },
  {
    name: 'tuning, a Job of that name another object controls: reported, untouched',
    snap: () => snapshot(tuningWs(), [tuningNode(), { kind: 'Job', metadata: { name: 'ws1', namespace: 'ns1', uid: 'x' } }]),
    failure: Reason.NotOwned,
  },
  {
    name: 'tuning, the push Secret missing: waiting with a Warning, looked at again in 30 s, no Job',
    snap: () => snapshot(tuningWs(), [tuningNode()], { patch: { missingSecrets: ['push'] } }),
    requeue: true,
    check: (p) => {
      assert.ok(!steps(p).includes('apply Job ws1'));
      assert.ok(steps(p).includes(`event SecretNotFound`) || steps(p).some((s) => s.startsWith('event ')), steps(p).join(', '));
    },
  },
  {
    name: 'tuning first pass and a repeat of it: the plan is the same twice (idempotent)',
    snap: () => snapshot(tuningWs(), [tuningNode()]),
    check: (p) => assert.deepEqual(steps(p), steps(tuningFirst())),
  },
);

// KAITO v0.12's kv-events Service port: catalog ids get it on a new Service or with a change made
// anyway; it never by itself rewrites a live Service, and legacy names never get it.
const catalogByo = byoWorkspace('microsoft/Phi-4-mini-instruct');
const mainServiceApply = (p: Plan) => {
  const a = p.actions.find((x) => x.kind === 'apply' && x.type.kind === 'Service' && x.object.metadata?.name === 'ws1');
  return a?.kind === 'apply' ? (a.object as { spec?: { type?: string; ports?: { name?: string }[] } }) : undefined;
};
const servicePortNames = (p: Plan) => mainServiceApply(p)?.spec?.ports?.map((x) => x.name);
/** The converged objects with the main Service as a kaito-ts release before the port wrote it (and with `spec` changes). */
const serviceWithoutKvEvents = (objects: KubernetesObject[], spec: Record<string, unknown> = {}) =>
  objects.map((o) => {
    if (o.kind !== 'Service' || o.metadata?.name !== 'ws1') return o;
    const svc = o as KubernetesObject & { spec: { ports: { name: string }[] } };
    return { ...svc, spec: { ...svc.spec, ports: svc.spec.ports.filter((x) => x.name !== 'kv-events'), ...spec } };
  });
rows.push(
  {
    name: 'a catalog id, new: the main Service publishes kv-events 5557 (KAITO v0.12, ClusterIP)',
    snap: () => snapshot(catalogByo, [a10()]),
    check: (p) => {
      assert.deepEqual(servicePortNames(p), ['http', 'ray', 'dashboard', 'kv-events']);
      const port = mainServiceApply(p)?.spec?.ports?.[3];
      assert.deepEqual(port, { name: 'kv-events', protocol: 'TCP', port: 5557, targetPort: 5557 });
    },
  },
  {
    name: 'a catalog id behind a LoadBalancer: no kv-events port (the stream is unauthenticated)',
    snap: () => snapshot({ ...catalogByo, metadata: { ...catalogByo.metadata, annotations: { 'kaito.sh/enablelb': 'True' } } }, [a10()]),
    check: (p) => assert.deepEqual(servicePortNames(p), ['http', 'ray', 'dashboard']),
  },
  {
    name: 'a converged catalog id whose Service has no kv-events port (made before): the Service is not written',
    snap: () => {
      const ws = afterFirstPass(catalogByo);
      const objects = serviceWithoutKvEvents(readySts(converged(catalogByo)));
      const first = planWorkspace(snapshot(ws, objects));
      return snapshot({ ...ws, status: statusOf(first) }, objects);
    },
    steps: [],
  },
  {
    name: 'a catalog id whose Service without kv-events changes anyway (LoadBalancer → ClusterIP): the port rides along',
    snap: () => snapshot(afterFirstPass(catalogByo), serviceWithoutKvEvents(readySts(converged(catalogByo)), { type: 'LoadBalancer' })),
    check: (p) => {
      assert.equal(mainServiceApply(p)?.spec?.type, 'ClusterIP');
      assert.deepEqual(servicePortNames(p), ['http', 'ray', 'dashboard', 'kv-events']);
    },
  },
  {
    name: 'a legacy name: the Service has no kv-events port, and a live one that has it (KAITO v0.12 made it) is not rewritten',
    snap: () => {
      const ws = afterFirstPass(byo);
      const objects = readySts(converged(byo)).map((o) => {
        if (o.kind !== 'Service' || o.metadata?.name !== 'ws1') return o;
        const svc = o as KubernetesObject & { spec: { ports: object[] } };
        return { ...svc, spec: { ...svc.spec, ports: [...svc.spec.ports, { name: 'kv-events', protocol: 'TCP', port: 5557, targetPort: 5557 }] } };
      });
      const first = planWorkspace(snapshot(ws, objects));
      assert.deepEqual(servicePortNames(planWorkspace(snapshot(byo, [a10()]))), ['http', 'ray', 'dashboard']);
      return snapshot({ ...ws, status: statusOf(first) }, objects);
    },
    steps: [],
  },
);

// Node auto-provisioning with gpu-provisioner NodeClaims: KAITO v0.12 pins a workspace's pods to the
// nodes made for it (#2161); kaito-ts does so for catalog and Hugging Face ids, not for legacy names.
const A100_TYPE = 'Standard_NC24ads_A100_v4';
const claimLabels = { 'karpenter.sh/nodepool': 'kaito', 'kaito.sh/workspace': 'ws1', 'kaito.sh/workspacenamespace': 'ns1' };
const claimNodeObjects = (): KubernetesObject[] => [
  nvmeClass,
  {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: 'wsabc', uid: 'c1', labels: claimLabels },
    spec: {},
    status: { nodeName: 'claimed', conditions: [{ type: 'Ready', status: 'True' }] },
  } as KubernetesObject,
  {
    kind: 'Node',
    metadata: {
      name: 'claimed',
      labels: { apps: 'test', pool: 'gpu', 'node.kubernetes.io/instance-type': A100_TYPE, accelerator: 'nvidia', ...claimLabels },
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '1' } },
  } as KubernetesObject,
];
const termsOf = (p: Plan) => {
  const a = p.actions.find((x) => x.kind === 'apply' && x.type.kind === 'StatefulSet');
  const sts = a?.kind === 'apply' ? (a.object as V1StatefulSet) : undefined;
  return sts?.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.map((t) =>
    t.matchExpressions?.map((e) => `${e.key} ${e.operator} ${e.values?.join() ?? ''}`.trim()),
  );
};
rows.push(
  {
    name: 'auto-provisioning, a catalog id: its pods pinned to its own gpu-provisioner nodes, or to nodes no provisioner made (KAITO v0.12, #2161)',
    snap: () => snapshot(presetWorkspace('microsoft/Phi-4-mini-instruct', A100_TYPE), claimNodeObjects(), { byo: false }),
    check: (p) =>
      assert.deepEqual(termsOf(p), [
        ['apps In test', 'pool In gpu', 'kaito.sh/workspace In ws1', 'kaito.sh/workspacenamespace In ns1'],
        ['apps In test', 'pool In gpu', 'karpenter.sh/nodepool DoesNotExist'],
      ]),
  },
  {
    name: "auto-provisioning, a catalog id: NodesReady counts its own claim's node, never a sibling's with the same selector (KAITO v0.12, #2201)",
    snap: () => {
      const sibling = { ...claimLabels, 'kaito.sh/workspace': 'ws2' };
      const siblingNode = {
        kind: 'Node',
        metadata: { name: 'sibling', labels: { apps: 'test', pool: 'gpu', 'node.kubernetes.io/instance-type': A100_TYPE, accelerator: 'nvidia', ...sibling } },
        status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '1' } },
      } as KubernetesObject;
      return snapshot(presetWorkspace('microsoft/Phi-4-mini-instruct', A100_TYPE), [...claimNodeObjects(), siblingNode], { byo: false });
    },
    check: (p) => assert.match(findCondition(statusOf(p)?.conditions, ConditionType.NodesReady)?.message ?? '', /CurrentReadyNodes: 1, SelectedNodes: 1\)/),
  },
  {
    name: 'auto-provisioning, a legacy name: the label selector only, as KAITO v0.8.0',
    snap: () => snapshot(presetWorkspace('phi-4-mini-instruct', A100_TYPE), claimNodeObjects(), { byo: false }),
    check: (p) => assert.deepEqual(termsOf(p), [['apps In test', 'pool In gpu']]),
  },
  {
    name: 'bring-your-own nodes, a catalog id: the label selector only (no provisioner labels to pin to)',
    snap: () => snapshot(catalogByo, [a10()]),
    check: (p) => assert.deepEqual(termsOf(p), [['apps In test', 'pool In gpu']]),
  },
);

for (const r of rows) {
  test(`planWorkspace: ${r.name}`, () => {
    const plan = planWorkspace(r.snap());
    if (r.steps) assert.deepEqual(steps(plan), r.steps, plan.actions.map((a) => describeAction(a)).join('\n'));
    assert.equal(plan.failure?.reason, r.failure, plan.failure?.message);
    if (r.inference) assert.equal(inferenceReason(plan), r.inference);
    if (r.requeue !== undefined) assert.equal(plan.requeueAfterMs !== undefined, r.requeue);
    r.check?.(plan);
  });
}

test('planWorkspace is pure: the same snapshot gives the same plan, and the snapshot is not changed', () => {
  const snap = snapshot(byo, [a10()]);
  const before = structuredClone(snap.ws);
  assert.deepEqual(planWorkspace(snap), planWorkspace(snap));
  assert.deepEqual(snap.ws, before);
});
