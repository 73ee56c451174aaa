// planWorkspace in Karpenter mode (--node-provisioner=karpenter), table-tested: the NodePool step,
// the NodeClass gate, the pods pinned to the pool's nodes, ownership and deletion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1StatefulSet } from '@kubernetes/client-node';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import { ConditionType, WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import { parseNodeClassConfig } from '../../../src/api/node-class-config.js';
import type { Workspace } from '../../../src/api/types.js';
import { findCondition } from '../../../src/api/workspace-conditions.js';
import { defaultFacts } from '../../../src/builders/facts.js';
import type { NodePool } from '../../../src/builders/nodepool.js';
import { describeAction, type Action, type Plan } from '../../../src/controllers/shared/actions.js';
import type { OperatorConfig } from '../../../src/controllers/workspace/context.js';
import { KarpenterReason } from '../../../src/controllers/workspace/karpenter-plan.js';
import { planWorkspace } from '../../../src/controllers/workspace/plan.js';
import { Reason } from '../../../src/controllers/workspace/reasons.js';
import { cachesFromObjects, readSnapshot, type WorkspaceSnapshot } from '../../../src/controllers/workspace/snapshot.js';
import { NVME_CLASS, presetWorkspace } from '../builders/fixtures.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const A100 = 'Standard_NC24ads_A100_v4';
const POOL = 'ns1-ws1';
const parsed = parseNodeClassConfig({
  group: 'karpenter.kwok.sh',
  kind: 'KWOKNodeClass',
  version: 'v1alpha1',
  resourceName: 'kwoknodeclasses',
  nodeClasses: '[{"name":"default","default":true,"spec":{}},{"name":"other"}]',
});
assert.ok(parsed.ok);
const base = defaultFacts();
const config: OperatorConfig = {
  featureGates: DEFAULT_FEATURE_GATES,
  nodeProvisioner: 'karpenter',
  nodeClasses: parsed.config,
  cloudProvider: base.cloudProvider,
  presetRegistry: base.presetRegistry,
  releaseNamespace: base.releaseNamespace,
  nodeProvisioningTimeoutMs: 1_800_000,
};

const ws = (extra: Partial<Workspace['metadata']> = {}): Workspace => {
  const w = presetWorkspace('phi-3-mini-4k-instruct', A100);
  return { ...w, metadata: { ...w.metadata, ...extra } };
};
const nodeClass = (ready: boolean) => ({
  apiVersion: 'karpenter.kwok.sh/v1alpha1',
  kind: 'KWOKNodeClass',
  metadata: { name: 'default' },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const ownLabels = { 'karpenter.kaito.sh/managed-by': 'kaito', 'karpenter.kaito.sh/workspace-name': 'ws1', 'karpenter.kaito.sh/workspace-namespace': 'ns1' };
const pool = (replicas: number, labels: Record<string, string> = ownLabels): KubernetesObject =>
  ({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: POOL, uid: 'pool-uid', labels }, spec: { replicas } }) as KubernetesObject;
const readyClaim = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'default-abc', labels: { 'karpenter.sh/nodepool': POOL, ...ownLabels } },
  spec: {},
  status: { nodeName: 'kwok-1', conditions: [{ type: 'Ready', status: 'True' }] },
};
const poolNode = {
  kind: 'Node',
  metadata: {
    name: 'kwok-1',
    labels: { apps: 'test', pool: 'gpu', 'node.kubernetes.io/instance-type': A100, accelerator: 'nvidia', 'karpenter.sh/nodepool': POOL, ...ownLabels },
  },
  status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: { 'nvidia.com/gpu': '1' } },
};
const nvmeClass = { kind: 'StorageClass', metadata: { name: NVME_CLASS } };

function snapshot(w: Workspace, objects: KubernetesObject[], crd = true, patch: Partial<WorkspaceSnapshot> = {}): WorkspaceSnapshot {
  const snap = readSnapshot(w, { caches: cachesFromObjects(objects), config, fieldManager: 'kaito-ts', now: NOW, provisioningCrdInstalled: () => crd });
  return { ...snap, ...patch };
}

const steps = (p: Plan) =>
  p.actions.map((a: Action) => {
    if (a.kind === 'event') return `event ${a.note.reason}`;
    if (a.kind === 'apply' || a.kind === 'create') return `${a.kind} ${a.type.kind} ${a.object.metadata?.name}`.replace(/-[0-9a-f]{5,}$/, '-<hash>');
    if (a.kind === 'delete') return `delete ${a.type.kind} ${a.ref.name}`;
    return a.kind;
  });
const statusOf = (p: Plan) => [...p.actions].reverse().find((a): a is Extract<Action, { kind: 'status' }> => a.kind === 'status')?.status;
const claimCondition = (p: Plan) => findCondition(statusOf(p)?.conditions, ConditionType.NodeClaimsReady);
const written = <T>(p: Plan, kind: string) =>
  p.actions.find((a): a is Extract<Action, { kind: 'create' | 'apply' }> => (a.kind === 'create' || a.kind === 'apply') && a.type.kind === kind)?.object as
    T | undefined;

interface Row {
  name: string;
  snap: () => WorkspaceSnapshot;
  steps?: string[];
  failure?: string;
  check?: (p: Plan) => void;
}

const rows: Row[] = [
  {
    name: 'a new workspace, its NodeClass Ready: the NodePool for the missing node, no StatefulSet yet',
    snap: () => snapshot(ws(), [nvmeClass, nodeClass(true)]),
    steps: [
      'patchMetadata',
      'create NodePool ns1-ws1',
      // A legacy name is KAITO v0.12.0's catalog entry by default: no config copy (v0.11+).
      'apply ControllerRevision ws1-<hash>',
      'apply Service ws1-headless',
      'apply Service ws1',
      'status',
    ],
    check: (p) => {
      const np = written<NodePool>(p, 'NodePool');
      assert.equal(np?.spec.replicas, 1);
      assert.deepEqual(np?.spec.template.spec.nodeClassRef, { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' });
      assert.equal(findCondition(statusOf(p)?.conditions, ConditionType.InferenceReady)?.reason, Reason.WaitingForNodes);
    },
  },
  {
    name: 'the NodeClass missing: nothing written for nodes, the condition says which class',
    snap: () => snapshot(ws(), [nvmeClass]),
    check: (p) => {
      assert.ok(!steps(p).some((s) => s.includes('NodePool') || s.includes('StatefulSet')), steps(p).join(', '));
      assert.equal(claimCondition(p)?.reason, KarpenterReason.NodeClassNotReady);
      assert.match(claimCondition(p)?.message ?? '', /"default"/);
    },
  },
  {
    name: 'an annotation naming a class outside the list: NodeClassNotPermitted, no NodePool',
    snap: () => snapshot(ws({ annotations: { 'kaito.sh/node-class-name': 'gold' } }), [nvmeClass, nodeClass(true)]),
    check: (p) => {
      assert.ok(!steps(p).some((s) => s.includes('NodePool')));
      assert.equal(claimCondition(p)?.reason, KarpenterReason.NodeClassNotPermitted);
    },
  },
  {
    name: 'the NodePool CRD not installed: the condition says so, nothing for nodes',
    snap: () => snapshot(ws(), [nvmeClass, nodeClass(true)], false),
    check: (p) => {
      assert.ok(!steps(p).some((s) => s.includes('NodePool')));
      assert.equal(claimCondition(p)?.reason, Reason.NodePoolCrdMissing);
    },
  },
  {
    name: 'the pool node Ready with its GPU: the StatefulSet, its pods pinned to this workspace’s nodes; the pool untouched',
    snap: () => snapshot(ws(), [nvmeClass, nodeClass(true), pool(1), readyClaim, poolNode]),
    check: (p) => {
      assert.ok(!steps(p).some((s) => s.includes('NodePool')), steps(p).join(', '));
      const sts = written<V1StatefulSet>(p, 'StatefulSet');
      const terms = sts?.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
      const show = (i: number) => terms?.[i]?.matchExpressions?.map((e) => `${e.key} ${e.operator} ${e.values?.join() ?? ''}`.trim());
      assert.equal(terms?.length, 2);
      assert.deepEqual(
        show(0),
        ['apps In test', 'pool In gpu', 'karpenter.kaito.sh/workspace-name In ws1', 'karpenter.kaito.sh/workspace-namespace In ns1'],
        'the pool labels ANDed in',
      );
      assert.deepEqual(
        show(1),
        ['apps In test', 'pool In gpu', 'karpenter.kaito.sh/workspace-name DoesNotExist', 'kaito.sh/workspace DoesNotExist'],
        'or a node made for no workspace (bring-your-own)',
      );
    },
  },
  {
    name: 'a NodePool of that name without our labels: reported, never touched',
    snap: () => snapshot(ws(), [nvmeClass, nodeClass(true), pool(1, { team: 'x' })]),
    failure: Reason.NotOwned,
    check: (p) => assert.ok(!steps(p).some((s) => s.includes('NodePool'))),
  },
  {
    name: 'deletion with our NodePool: deleted by UID, the finalizer kept while Karpenter drains',
    snap: () => snapshot(ws({ deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] }), [pool(1), readyClaim]),
    steps: ['delete NodePool ns1-ws1', 'status'],
    check: (p) => {
      const del = p.actions.find((a) => a.kind === 'delete');
      assert.equal(del?.kind === 'delete' ? del.uid : '', 'pool-uid');
    },
  },
  {
    name: 'deletion, the NodePool gone but a claim left: nothing deleted, still waiting',
    snap: () => snapshot(ws({ deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] }), [readyClaim]),
    check: (p) => assert.ok(!p.actions.some((a) => a.kind === 'removeFinalizer' || a.kind === 'delete')),
  },
  {
    name: 'deletion, pool and claims gone: the finalizer removed',
    snap: () => snapshot(ws({ deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] }), []),
    check: (p) =>
      assert.ok(
        p.actions.some((a) => a.kind === 'removeFinalizer'),
        steps(p).join(', '),
      ),
  },
  {
    name: 'deletion, a foreign NodePool of that name: never deleted',
    snap: () => snapshot(ws({ deletionTimestamp: NOW, finalizers: [WORKSPACE_FINALIZER] }), [pool(1, { team: 'x' })]),
    check: (p) => assert.ok(!p.actions.some((a) => a.kind === 'delete')),
  },
];

for (const r of rows) {
  test(`planWorkspace (karpenter): ${r.name}`, () => {
    const plan = planWorkspace(r.snap());
    if (r.steps) assert.deepEqual(steps(plan), r.steps, plan.actions.map((a) => describeAction(a)).join('\n'));
    assert.equal(plan.failure?.reason, r.failure, plan.failure?.message);
    r.check?.(plan);
  });
}

test('a raise of an existing pool applies spec.replicas and the budgets as cached, at the resourceVersion read (an adopted pool keeps the rest)', () => {
  // Two nodes wanted (multi-node target), the pool has one.
  const budgets = [{ nodes: '0', reasons: ['Drifted'] }];
  const cached = {
    ...pool(1),
    metadata: { ...pool(1).metadata, resourceVersion: '9' },
    spec: { replicas: 1, disruption: { consolidateAfter: '0s', budgets } },
  };
  const snap = snapshot(ws(), [nvmeClass, nodeClass(true), cached]);
  const plan = planWorkspace({ ...snap, ws: { ...snap.ws, status: { ...snap.ws.status, targetNodeCount: 2 } } });
  const apply = plan.actions.find((a) => a.kind === 'apply' && a.type.kind === 'NodePool');
  assert.ok(apply?.kind === 'apply', plan.actions.map((a) => describeAction(a)).join('\n'));
  // The InferenceSet's drift step applies the budgets under the same field manager: a replicas-only apply would drop them.
  assert.deepEqual(apply.object, {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: POOL, resourceVersion: '9' },
    spec: { replicas: 2, disruption: { budgets } },
  });
});

test('a weights claim on a volume pinned by hostname (a Karpenter node’s NodeClaim name, not its node name) is not taken for stranded', () => {
  const node = { ...poolNode, metadata: { ...poolNode.metadata, labels: { ...poolNode.metadata.labels, 'kubernetes.io/hostname': 'default-abc' } } };
  const objects: KubernetesObject[] = [nvmeClass, nodeClass(true), pool(1), readyClaim, node];
  const sts = written<V1StatefulSet>(planWorkspace(snapshot(ws(), objects)), 'StatefulSet');
  assert.ok(sts?.spec?.volumeClaimTemplates?.length, 'an NVMe StatefulSet');
  const owner = { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: 'ws1', uid: 'uid-1', controller: true };
  const claim = {
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'model-weights-volume-ws1-0', namespace: 'ns1', uid: 'pvc-1', labels: { 'kaito.sh/workspace': 'ws1' } },
    spec: { volumeName: 'nvme-kwok-1-0' },
    status: { phase: 'Bound' },
  };
  const volume = {
    kind: 'PersistentVolume',
    metadata: { name: 'nvme-kwok-1-0' },
    spec: {
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['default-abc'] }] }] } },
    },
  };
  const plan = planWorkspace(
    snapshot(ws(), [...objects, { ...sts, kind: 'StatefulSet', metadata: { ...sts.metadata, uid: 'sts-1', ownerReferences: [owner] } }, claim, volume]),
  );
  assert.ok(!plan.actions.some((a) => a.kind === 'delete'), plan.actions.map((a) => describeAction(a)).join('\n'));
});
