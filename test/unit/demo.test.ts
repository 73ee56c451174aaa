// The demo's pure parts: sample parsing, the table rows computed from API objects, the live block.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Deployment, V1Node, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../../src/api/types.js';
import { loadSamples, ownedLegacyDeployment, parseSamples, samplesDir } from '../../src/demo/samples.js';
import { LiveBlock } from '../../src/demo/screen.js';
import { allReady, childrenOf, formatRows, notReadySummary, rowsOf, type Snapshot } from '../../src/demo/table.js';
import { goneFrom } from '../../src/demo/scale.js';
import { commandLine, scaleArgs } from '../../src/demo/kubectl.js';
import type { InferenceSet } from '../../src/api/inferenceset-types.js';
import type { NodeClaim } from '../../src/builders/nodeclaim.js';
import { layoutFor } from '../../src/simcluster/layout.js';

const ws = (name: string, extra: Partial<Workspace> = {}): Workspace => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name, namespace: 'kaito-demo', uid: `uid-${name}`, generation: 1 },
  resource: { labelSelector: { matchLabels: { 'kaito.sh/sim-pool': 'a100' } } },
  inference: { preset: { name: 'phi-4-mini-instruct' } },
  ...extra,
});

const cond = (status: 'True' | 'False', reason: string, observedGeneration = 1) => ({
  type: 'InferenceReady',
  status,
  reason,
  message: `${reason} message`,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration,
});

const sts = (name: string, nvme: boolean, ready: number, replicas = 1): V1StatefulSet => ({
  metadata: { name },
  spec: {
    replicas,
    serviceName: `${name}-headless`,
    selector: {},
    template: {},
    ...(nvme ? { volumeClaimTemplates: [{ metadata: { name: 'model-weights-volume' } }] } : {}),
  },
  status: { replicas, readyReplicas: ready },
});

const node = (name: string, type: string): V1Node => ({ metadata: { name, labels: { 'node.kubernetes.io/instance-type': type } } });
const pod = (name: string, nodeName?: string): V1Pod => ({ metadata: { name }, spec: { containers: [], ...(nodeName ? { nodeName } : {}) } });
const claim = (name: string, phase: string): V1PersistentVolumeClaim => ({ metadata: { name }, status: { phase } });
const deployment = (name: string, ready: number): V1Deployment => ({
  metadata: { name },
  spec: { replicas: 1, selector: {}, template: {} },
  status: { readyReplicas: ready },
});

const empty: Snapshot = {
  workspaces: [],
  inferenceSets: [],
  statefulSets: [],
  deployments: [],
  claims: [],
  pods: [],
  nodes: [node('gpu-a100-0', 'Standard_NC24ads_A100_v4'), node('gpu-a10-0', 'Standard_NV36ads_A10_v5')],
  nodeClaims: [],
};

const nodeClaim = (name: string, ws: string, o: { launched?: boolean; ready?: boolean; node?: string } = {}): NodeClaim => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name, labels: { 'kaito.sh/workspace': ws, 'kaito.sh/workspacenamespace': 'kaito-demo' } },
  spec: {
    nodeClassRef: { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' },
    taints: [],
    requirements: [],
    resources: { requests: { storage: '1Gi' } },
  },
  status: {
    ...(o.node ? { nodeName: o.node } : {}),
    conditions: [
      ...(o.launched ? [{ type: 'Launched', status: 'True' }] : []),
      ...(o.ready !== undefined ? [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] : []),
    ],
  },
});

test('rows: one case per state a workspace passes through', () => {
  const cases: { name: string; snap: Partial<Snapshot>; legacy?: boolean; want: Partial<ReturnType<typeof rowsOf>[number]> }[] = [
    {
      name: 'nothing yet',
      snap: { workspaces: [ws('a')] },
      want: { sku: '-', replicas: '-', volume: '-', claim: '-', nodeClaim: '-', inference: '-', ready: false, migration: '-' },
    },
    {
      name: 'node auto-provisioning: claim made, not launched',
      snap: { workspaces: [ws('a')], nodeClaims: [nodeClaim('ws0123456789', 'a', { ready: false })] },
      want: { nodeClaim: 'ws0123456789 Pending' },
    },
    {
      name: 'claim launched',
      snap: { workspaces: [ws('a')], nodeClaims: [nodeClaim('ws0123456789', 'a', { launched: true, ready: false })] },
      want: { nodeClaim: 'ws0123456789 Launched' },
    },
    {
      name: "claim ready with its node; other workspaces' claims ignored",
      snap: {
        workspaces: [ws('a')],
        nodeClaims: [nodeClaim('ws0123456789', 'a', { launched: true, ready: true, node: 'aks-ws0123456789-1-vmss000000' }), nodeClaim('wsffffffffff', 'b')],
      },
      want: { nodeClaim: 'ws0123456789 Ready → aks-ws0123456789-1-vmss000000' },
    },
    {
      name: 'nvme, claim pending, pod not scheduled: SKU from the selected nodes',
      snap: {
        workspaces: [ws('a', { status: { workerNodes: ['gpu-a100-0'], conditions: [cond('False', 'PodUnschedulable')] } })],
        statefulSets: [sts('a', true, 0)],
        claims: [claim('model-weights-volume-a-0', 'Pending')],
        pods: [pod('a-0')],
      },
      want: { sku: 'Standard_NC24ads_A100_v4', replicas: '0/1', volume: 'nvme claim', claim: 'Pending', inference: 'False PodUnschedulable', ready: false },
    },
    {
      name: 'nvme, claim not created yet',
      snap: { workspaces: [ws('a')], statefulSets: [sts('a', true, 0)] },
      want: { claim: 'none' },
    },
    {
      name: 'nvme ready: SKU and node of pod 0',
      snap: {
        workspaces: [ws('a', { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } })],
        statefulSets: [sts('a', true, 1)],
        claims: [claim('model-weights-volume-a-0', 'Bound')],
        pods: [pod('a-0', 'gpu-a100-0')],
      },
      want: { sku: 'Standard_NC24ads_A100_v4 (gpu-a100-0)', replicas: '1/1', claim: 'Bound', inference: 'True WorkspaceInferenceStatusSuccess', ready: true },
    },
    {
      name: 'multi-node: claims counted',
      snap: {
        workspaces: [ws('a')],
        statefulSets: [sts('a', true, 1, 3)],
        claims: [claim('model-weights-volume-a-0', 'Bound'), claim('model-weights-volume-a-1', 'Pending')],
      },
      want: { replicas: '1/3', claim: 'Pending (1/3 Bound)' },
    },
    {
      name: 'emptyDir: no claim column',
      snap: {
        workspaces: [ws('a', { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } })],
        statefulSets: [sts('a', false, 1)],
        pods: [pod('a-0', 'gpu-a10-0')],
      },
      want: { sku: 'Standard_NV36ads_A10_v5 (gpu-a10-0)', volume: 'emptyDir', claim: '-', ready: true },
    },
    {
      name: 'True for an older generation is not ready',
      snap: { workspaces: [ws('a', { metadata: { name: 'a', generation: 2 }, status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess', 1)] } })] },
      want: { ready: false },
    },
    {
      name: 'legacy, Deployment still there',
      legacy: true,
      snap: { workspaces: [ws('a', { status: { conditions: [cond('False', 'WorkloadMigration')] } })], deployments: [deployment('a', 1)] },
      want: { migration: 'Deployment present (1/1 ready)', inference: 'False WorkloadMigration', ready: false },
    },
    {
      name: 'legacy, True while the Deployment is still there is not done',
      legacy: true,
      snap: { workspaces: [ws('a', { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } })], deployments: [deployment('a', 1)] },
      want: { ready: false },
    },
    {
      name: 'legacy, migrated',
      legacy: true,
      snap: { workspaces: [ws('a', { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } })] },
      want: { migration: 'Deployment deleted', ready: true },
    },
    {
      name: 'a same-named Deployment of a non-legacy sample is not a migration',
      snap: { workspaces: [ws('a')], deployments: [deployment('a', 1)] },
      want: { migration: '-' },
    },
  ];
  for (const c of cases) {
    const [row] = rowsOf({ ...empty, ...c.snap }, new Set(c.legacy ? ['a'] : []));
    assert.ok(row, c.name);
    for (const [k, v] of Object.entries(c.want)) assert.equal(row[k as keyof typeof row], v, `${c.name}: ${k}`);
  }
});

test('formatRows aligns columns; notReadySummary names each waiting workspace and why', () => {
  const rows = rowsOf(
    {
      ...empty,
      workspaces: [
        ws('phi-4-mini', { status: { conditions: [cond('False', 'PodsNotReady')] } }),
        ws('b', { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } }),
      ],
    },
    new Set(),
  );
  const lines = formatRows(rows);
  assert.equal(lines.length, 3);
  assert.match(lines[0] ?? '', /^WORKSPACE\s+NODECLAIM\s+SKU \(NODE\)\s+READY\s+WEIGHTS\s+CLAIM\s+INFERENCEREADY\s+MIGRATION$/);
  // Every row starts its SKU column where the header does.
  const at = (lines[0] ?? '').indexOf('SKU');
  for (const l of lines.slice(1)) assert.equal(l[at - 1], ' ');
  assert.equal(notReadySummary(rows), '1 of 2 workspaces not InferenceReady: phi-4-mini (False PodsNotReady: PodsNotReady message)');
});

const set = (name: string, replicas: number, status: InferenceSet['status'] = {}): InferenceSet => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'InferenceSet',
  metadata: { name, namespace: 'kaito-demo', uid: `uid-${name}` },
  spec: {
    replicas,
    labelSelector: { matchLabels: { apps: name } },
    template: { resource: { instanceType: 'Standard_NV36ads_A10_v5' }, inference: { preset: { name: 'microsoft/Phi-3-mini-4k-instruct' } } },
  },
  status,
});

const child = (setName: string, suffix: string, created: string, o: { ready?: boolean; deleting?: boolean } = {}): Workspace =>
  ws(`${setName}-${suffix}`, {
    metadata: {
      name: `${setName}-${suffix}`,
      namespace: 'kaito-demo',
      generation: 1,
      creationTimestamp: created as unknown as Date,
      labels: { 'inferenceset.kaito.sh/created-by': setName },
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' as unknown as Date } : {}),
    },
    ...(o.ready ? { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } } : {}),
  });

const setReady = (readyReplicas: number) => ({
  readyReplicas,
  replicas: readyReplicas,
  conditions: [{ ...cond('True', 'inferencesetReady'), type: 'InferenceSetReady' }],
});

test('rows: an InferenceSet row, then its children marked under it, oldest first; done only at exactly its replicas', () => {
  const readyWs = ws('alone', { status: { conditions: [cond('True', 'WorkspaceInferenceStatusSuccess')] } });
  const older = child('s', 'aaaaa', '2026-01-01T00:00:01Z', { ready: true });
  const newer = child('s', 'bbbbb', '2026-01-01T00:00:02Z', { ready: true });
  const cases: {
    name: string;
    snap: Partial<Snapshot>;
    want: { workspace: string; replicas?: string; ready: boolean }[];
    done: boolean;
  }[] = [
    {
      name: 'applied, no child yet',
      snap: { workspaces: [readyWs], inferenceSets: [set('s', 1)] },
      want: [
        { workspace: 'alone', ready: true },
        { workspace: 'inferenceset/s', replicas: '0/1', ready: false },
      ],
      done: false,
    },
    {
      name: 'one child serving at 1 replica',
      snap: { workspaces: [older, readyWs], inferenceSets: [set('s', 1, setReady(1))] },
      want: [
        { workspace: 'alone', ready: true },
        { workspace: 'inferenceset/s', replicas: '1/1', ready: true },
        { workspace: '└ s-aaaaa', ready: true },
      ],
      done: true,
    },
    {
      name: 'scaled to 2: the new child is not serving yet',
      snap: { workspaces: [readyWs, child('s', 'bbbbb', '2026-01-01T00:00:02Z'), older], inferenceSets: [set('s', 2, setReady(1))] },
      want: [
        { workspace: 'alone', ready: true },
        { workspace: 'inferenceset/s', replicas: '1/2', ready: false },
        { workspace: '└ s-aaaaa', ready: true },
        { workspace: '└ s-bbbbb', ready: false },
      ],
      done: false,
    },
    {
      name: 'both children serve, but the set has not counted the second yet',
      snap: { workspaces: [readyWs, newer, older], inferenceSets: [set('s', 2, setReady(1))] },
      want: [
        { workspace: 'alone', ready: true },
        { workspace: 'inferenceset/s', replicas: '1/2', ready: false },
        { workspace: '└ s-aaaaa', ready: true },
        { workspace: '└ s-bbbbb', ready: true },
      ],
      done: false,
    },
    {
      name: 'scaled back to 1: the extra child is being deleted',
      snap: {
        workspaces: [readyWs, older, child('s', 'bbbbb', '2026-01-01T00:00:02Z', { ready: true, deleting: true })],
        inferenceSets: [set('s', 1, setReady(1))],
      },
      want: [
        { workspace: 'alone', ready: true },
        { workspace: 'inferenceset/s', replicas: '1/1', ready: false },
        { workspace: '└ s-aaaaa', ready: true },
        { workspace: '└ s-bbbbb (deleting)', ready: false },
      ],
      done: false,
    },
    {
      name: 'a child of a set that is not in the snapshot is listed as a workspace',
      snap: { workspaces: [readyWs, child('gone', 'ccccc', '2026-01-01T00:00:03Z', { ready: true })], inferenceSets: [] },
      want: [
        { workspace: 'alone', ready: true },
        { workspace: 'gone-ccccc', ready: true },
      ],
      done: false,
    },
  ];
  for (const c of cases) {
    const rows = rowsOf({ ...empty, ...c.snap }, new Set());
    assert.deepEqual(
      rows.map((r) => ({
        workspace: r.workspace,
        ready: r.ready,
        ...(c.want.find((w) => w.workspace === r.workspace)?.replicas ? { replicas: r.replicas } : {}),
      })),
      c.want,
      c.name,
    );
    assert.equal(allReady(rows, { workspaces: 1, inferenceSets: 1 }), c.done, `${c.name}: done`);
  }
  const rows = rowsOf({ ...empty, workspaces: [child('s', 'bbbbb', '2026-01-01T00:00:02Z'), older], inferenceSets: [set('s', 2, setReady(1))] }, new Set());
  assert.equal(
    notReadySummary(rows),
    '1 of 2 workspaces not InferenceReady, 1 of 1 InferenceSets not at their replicas: inferenceset/s (True inferencesetReady: 2 child Workspace(s) for 2 replica(s), 1 ready; inferencesetReady message); s-bbbbb (no status yet: no InferenceReady condition yet)',
  );
  assert.deepEqual(
    childrenOf({ workspaces: [newer, readyWs, older] }, 's').map((w) => w.metadata.name),
    ['s-aaaaa', 's-bbbbb'],
  );
});

test('scale step: the command shown is the one run; the deleted child is the one no longer listed', () => {
  const args = scaleArgs('kaito-demo', 'phi-3-mini-set', 2);
  assert.deepEqual(args, ['-n', 'kaito-demo', 'scale', 'inferenceset/phi-3-mini-set', '--replicas=2']);
  assert.equal(commandLine(args), 'kubectl -n kaito-demo scale inferenceset/phi-3-mini-set --replicas=2');
  const cases: [string[], string[], string[]][] = [
    [['a', 'b'], ['a'], ['b']],
    [['a', 'b'], ['b'], ['a']],
    [['a'], ['a'], []],
    [['a', 'b'], ['c'], ['a', 'b']],
  ];
  for (const [before, after, want] of cases) assert.deepEqual(goneFrom(before, after), want, `${before.join(',')} → ${after.join(',')}`);
});

test('samples: the shipped examples/demo parse, cover NVMe, non-NVMe, a provisioned node and a legacy Deployment', () => {
  const s = loadSamples(samplesDir(layoutFor().projectRoot));
  const pools = s.workspaces.map((w) => w.resource.labelSelector?.matchLabels?.['kaito.sh/sim-pool']);
  for (const pool of ['a100', 'h100', 'a10']) assert.ok(pools.includes(pool), `a sample on ${pool}`);
  assert.equal(s.legacy.length, 1);
  for (const w of s.workspaces) {
    assert.equal(w.metadata.namespace, 'kaito-demo');
    assert.ok(w.resource.instanceType, 'node auto-provisioning mode: every sample names its SKU');
  }
  assert.ok(
    s.workspaces.some((w) => !w.resource.labelSelector?.matchLabels?.['kaito.sh/sim-pool']),
    'a sample whose node is provisioned',
  );
  const legacy = s.legacy[0]!;
  const owner = s.workspaces.find((w) => w.metadata.name === legacy.metadata?.name)!;
  const owned = ownedLegacyDeployment(legacy, { ...owner, metadata: { ...owner.metadata, uid: 'u-1' } });
  assert.deepEqual(owned.metadata?.ownerReferences, [
    { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: owner.metadata.name, uid: 'u-1', controller: true, blockOwnerDeletion: true },
  ]);
  assert.throws(() => ownedLegacyDeployment(legacy, owner), /no uid/);
  // An InferenceSet the demo scales from 1 to 2 and back, on nodes provisioned for its children.
  assert.equal(s.inferenceSets.length, 1);
  const is = s.inferenceSets[0]!;
  assert.equal(is.metadata.namespace, 'kaito-demo');
  assert.equal(is.spec.replicas, 1);
  assert.ok(is.spec.template.resource?.instanceType, 'node auto-provisioning mode: the set names its SKU');
  assert.equal(is.spec.labelSelector.matchLabels?.['kaito.sh/sim-pool'], undefined, 'its children get nodes of their own');
});

test('samples: bad input is named', () => {
  const cases: [string, RegExp][] = [
    ['apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', /unexpected kind "ConfigMap"/],
    ['apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: lonely}\n', /lonely has no workspace of the same name/],
    ['kind: [\n', /f\.yaml: /],
    ['apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: x}\n', /resource is required/],
    ['apiVersion: kaito.sh/v1beta1\nkind: InferenceSet\nmetadata: {name: s}\nspec: {replicas: 1}\n', /f\.yaml: inferenceset s: spec\.(template|labelSelector)/],
    ['apiVersion: kaito.sh/v1\nkind: InferenceSet\nmetadata: {name: s}\n', /f\.yaml: apiVersion must be one of/],
  ];
  for (const [text, want] of cases) assert.throws(() => parseSamples([{ path: 'f.yaml', text }]), want);
});

test('LiveBlock: redraws in place on a TTY, appends only changed bodies otherwise', () => {
  let tty = '';
  const a = new LiveBlock({ write: (t) => (tty += t), tty: true, columns: 10 });
  a.show('h1', ['row-one-is-long', 'b']);
  a.show('h2', ['c']);
  assert.equal(tty, 'h1\nrow-one-i\nb\n\x1b[3F\x1b[Jh2\nc\n');

  let log = '';
  const b = new LiveBlock({ write: (t) => (log += t), tty: false });
  b.show('t=1', ['x']);
  b.show('t=2', ['x']);
  b.show('t=3', ['y']);
  assert.equal(log, 't=1\nx\n\nt=3\ny\n\n');
});
