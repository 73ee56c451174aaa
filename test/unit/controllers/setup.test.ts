// The mappers that wire the workspace controller (setup.ts): each turns one change of a watched
// kind into the workspace keys that must be reconciled. Table tests with real objects and caches.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EventsV1Event, KubernetesObject, V1Node, V1PersistentVolume, V1PersistentVolumeClaim, V1StatefulSet } from '@kubernetes/client-node';
import type { NodeClaim } from '../../../src/builders/nodeclaim.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import {
  claimantWorkspace,
  claimChanged,
  claimToWorkspace,
  configMapToWorkspaces,
  failedCreateWorkspace,
  labelledWorkspace,
  nodeChangeMatters,
  sameNameWorkspace,
  secretToWorkspaces,
  servingChanged,
  volumeGoing,
  workspacesDecidingVolume,
  workspacesSelectingNode,
  setupWorkspaceController,
} from '../../../src/controllers/workspace/setup.js';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import { defaultFacts } from '../../../src/builders/facts.js';
import { FAILED_CREATE_FIELD_SELECTOR } from '../../../src/controllers/workspace/pod-creation.js';
import { ObjectCache, type ObjectEvent } from '../../../src/runtime/cache.js';
import { asReadonly } from '../../../src/runtime/readonly.js';
import { KubeClient } from '../../../src/runtime/client.js';
import { EventRecorder } from '../../../src/runtime/events.js';
import { silentLogger } from '../../../src/runtime/log.js';
import { resourcePath, Resources } from '../../../src/runtime/resources.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { FakeApiServer } from '../runtime/fake-apiserver.js';
import { until } from '../runtime/until.js';

const meta = (namespace: string | undefined, name: string, extra: Record<string, unknown> = {}) => ({
  ...(namespace ? { namespace } : {}),
  name,
  uid: `uid-${namespace ?? ''}-${name}`,
  resourceVersion: '1',
  ...extra,
});

const workspace = (namespace: string, name: string, spec: Record<string, unknown>): WorkspaceObject =>
  ({ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: meta(namespace, name), ...spec }) as WorkspaceObject;

function cacheOf<T extends KubernetesObject>(...objs: T[]): ObjectCache<T> {
  const c = new ObjectCache<T>();
  for (const o of objs) c.upsert(o);
  return c;
}

const add = <T>(obj: T): ObjectEvent<T> => ({ type: 'add', obj: asReadonly(obj) });
const update = <T>(old: T, obj: T): ObjectEvent<T> => ({ type: 'update', old: asReadonly(old), obj: asReadonly(obj) });
const del = <T>(obj: T): ObjectEvent<T> => ({ type: 'delete', obj: asReadonly(obj) });
const sorted = (keys: string[]) => [...keys].sort();

const workspaces = cacheOf(
  workspace('team', 'gpu-a', {
    resource: { labelSelector: { matchLabels: { pool: 'a' } } },
    inference: { config: 'my-config', preset: { name: 'llama-3.1-8b-instruct', presetOptions: { modelAccessSecret: 'hf' } } },
  }),
  workspace('team', 'gpu-b', {
    resource: { labelSelector: { matchLabels: { pool: 'b' } } },
    inference: { preset: { name: 'phi-3-mini-4k-instruct', presetOptions: { modelAccessSecret: 'hf' } } },
  }),
  workspace('team', 'tune', { resource: { labelSelector: { matchLabels: { pool: 'a', gpu: 'yes' } } }, tuning: { method: 'qlora' } }),
  workspace('team', 'tune-own', { resource: { labelSelector: { matchLabels: {} } }, tuning: { method: 'lora', config: 'my-tuning' } }),
  workspace('other', 'gpu-a', {
    resource: { labelSelector: { matchLabels: { pool: 'a' } } },
    inference: { preset: { name: 'llama-3.1-8b-instruct', presetOptions: { modelAccessSecret: 'hf' } } },
  }),
);

const obj = (namespace: string | undefined, name: string, labels?: Record<string, string>): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: meta(namespace, name, labels ? { labels } : {}),
});

describe('workspace controller mappers (setup.ts)', () => {
  it('sameNameWorkspace: an object named like a cached workspace, in its namespace', () => {
    const map = sameNameWorkspace(workspaces);
    const cases: [string, KubernetesObject, string[]][] = [
      ['a Deployment named like a workspace', obj('team', 'gpu-a'), ['team/gpu-a']],
      ['same name, namespace without that workspace', obj('default', 'gpu-a'), []],
      ['no workspace of that name', obj('team', 'web'), []],
    ];
    for (const [name, o, want] of cases) assert.deepEqual(map(add(o)), want, name);
  });

  it("labelledWorkspace: the kaito.sh/workspace label names the workspace in the object's namespace", () => {
    const cases: [string, KubernetesObject, string[]][] = [
      ['a pod of a workspace', obj('team', 'gpu-a-0', { 'kaito.sh/workspace': 'gpu-a' }), ['team/gpu-a']],
      ['a weights claim', obj('other', 'weights-gpu-a-0', { 'kaito.sh/workspace': 'gpu-a' }), ['other/gpu-a']],
      ['no label', obj('team', 'web-0', { app: 'web' }), []],
      ['no labels at all', obj('team', 'web-1'), []],
    ];
    for (const [name, o, want] of cases) {
      assert.deepEqual(labelledWorkspace(add(o)), want, name);
      assert.deepEqual(labelledWorkspace(del(o)), want, `${name} (delete)`);
    }
  });

  it('volumeGoing + claimantWorkspace: a volume being deleted wakes the workspace whose weights claim it binds', () => {
    const claims = cacheOf<V1PersistentVolumeClaim>(
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('team', 'weights-gpu-a-0', { labels: { 'kaito.sh/workspace': 'gpu-a' } }) },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('team', 'data') },
    );
    const pv = (claim: string | undefined, deleting = false): V1PersistentVolume => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: meta(undefined, `pv-${claim ?? 'free'}`, deleting ? { deletionTimestamp: new Date('2026-01-01T00:00:00Z') } : {}),
      spec: claim ? { claimRef: { namespace: 'team', name: claim } } : {},
    });
    const map = claimantWorkspace(claims);
    const cases: [string, ObjectEvent<V1PersistentVolume>, boolean, string[]][] = [
      ['deleted', del(pv('weights-gpu-a-0')), true, ['team/gpu-a']],
      ['deletion starts', update(pv('weights-gpu-a-0'), pv('weights-gpu-a-0', true)), true, ['team/gpu-a']],
      ['already deleting: a later update is noise', update(pv('weights-gpu-a-0', true), pv('weights-gpu-a-0', true)), false, ['team/gpu-a']],
      ['added', add(pv('weights-gpu-a-0')), false, ['team/gpu-a']],
      ["a claim that is not a workspace's", del(pv('data')), true, []],
      ['a claim not in the cache', del(pv('gone')), true, []],
      ['unbound volume', del(pv(undefined)), true, []],
    ];
    for (const [name, e, going, want] of cases) {
      assert.equal(volumeGoing(e), going, `${name}: volumeGoing`);
      assert.deepEqual(map(e), want, name);
    }
  });

  it('workspacesSelectingNode: workspaces whose label selector matches the node, before or after the change', () => {
    const node = (labels: Record<string, string>): V1Node => ({ apiVersion: 'v1', kind: 'Node', metadata: meta(undefined, 'n1', { labels }) });
    const map = workspacesSelectingNode(workspaces);
    const cases: [string, ObjectEvent<V1Node>, string[]][] = [
      ['pool a: both gpu-a and an empty selector', add(node({ pool: 'a' })), ['other/gpu-a', 'team/gpu-a', 'team/tune-own']],
      ['pool a with gpu: the tuning workspace too', add(node({ pool: 'a', gpu: 'yes' })), ['other/gpu-a', 'team/gpu-a', 'team/tune', 'team/tune-own']],
      [
        'relabelled a → b: old and new selectors',
        update(node({ pool: 'a' }), node({ pool: 'b' })),
        ['other/gpu-a', 'team/gpu-a', 'team/gpu-b', 'team/tune-own'],
      ],
      ['no labels: only the empty selector', add({ apiVersion: 'v1', kind: 'Node', metadata: meta(undefined, 'bare') }), []],
    ];
    for (const [name, e, want] of cases) assert.deepEqual(sorted(map(e)), want, name);
  });

  it('nodeChangeMatters: labels, spec, Ready, pressure and GPU capacity; not heartbeats', () => {
    const base: V1Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta(undefined, 'n1', { labels: { pool: 'a' }, generation: 1 }),
      spec: {},
      status: {
        capacity: { 'nvidia.com/gpu': '1' },
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'MemoryPressure', status: 'False' },
        ],
      },
    };
    const change = (f: (n: V1Node) => void): V1Node => {
      const n = structuredClone(base);
      f(n);
      return n;
    };
    const cases: [string, ObjectEvent<V1Node>, boolean][] = [
      ['add', add(base), true],
      ['delete', del(base), true],
      [
        'heartbeat: a new resourceVersion and heartbeat time only',
        update(
          base,
          change((n) => {
            n.metadata!.resourceVersion = '2';
            n.status!.conditions![0]!.lastHeartbeatTime = new Date('2026-01-01T00:00:10Z');
          }),
        ),
        false,
      ],
      [
        'labels changed',
        update(
          base,
          change((n) => void (n.metadata!.labels = { pool: 'b' })),
        ),
        true,
      ],
      [
        'not Ready any more',
        update(
          base,
          change((n) => void (n.status!.conditions![0]!.status = 'False')),
        ),
        true,
      ],
      [
        'memory pressure',
        update(
          base,
          change((n) => void (n.status!.conditions![1]!.status = 'True')),
        ),
        true,
      ],
      [
        'GPUs appear (device plugin)',
        update(
          base,
          change((n) => void (n.status!.capacity = { 'nvidia.com/gpu': '8' })),
        ),
        true,
      ],
      [
        'cordoned',
        update(
          base,
          change((n) => void (n.spec = { unschedulable: true })),
        ),
        true,
      ],
      [
        'unschedulable false is no change',
        update(
          base,
          change((n) => void (n.spec = { unschedulable: false })),
        ),
        false,
      ],
    ];
    for (const [name, e, want] of cases) assert.equal(nodeChangeMatters(e), want, name);
  });

  it('claimToWorkspace + claimChanged: a NodeClaim names its workspace in labels; lastPodEventTime alone is noise', () => {
    const claim = (labels: Record<string, string>, status: Record<string, unknown> = {}, rv = '1'): NodeClaim => ({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'ws0abc', uid: 'uid-claim', resourceVersion: rv, labels },
      spec: {
        nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'image-family-ubuntu' },
        taints: [],
        requirements: [],
        resources: { requests: { storage: '120Gi' } },
      },
      status,
    });
    const ours = { 'kaito.sh/workspace': 'gpu-a', 'kaito.sh/workspacenamespace': 'team' };
    const moved = { 'kaito.sh/workspace': 'gpu-b', 'kaito.sh/workspacenamespace': 'team' };
    const cases: [string, ObjectEvent<NodeClaim>, string[], boolean][] = [
      ['added', add(claim(ours)), ['team/gpu-a'], true],
      ['deleted', del(claim(ours)), ['team/gpu-a'], true],
      ['name label without namespace label', add(claim({ 'kaito.sh/workspace': 'gpu-a' })), [], true],
      ['relabelled: old and new workspace', update(claim(ours), claim(moved, {}, '2')), ['team/gpu-b', 'team/gpu-a'], true],
      [
        'only lastPodEventTime moved',
        update(claim(ours, { lastPodEventTime: '2026-01-01T00:00:00Z' }), claim(ours, { lastPodEventTime: '2026-01-01T00:01:00Z' }, '2')),
        ['team/gpu-a'],
        false,
      ],
      ['Ready flipped', update(claim(ours), claim(ours, { conditions: [{ type: 'Ready', status: 'True' }] }, '2')), ['team/gpu-a'], true],
    ];
    for (const [name, e, keys, changed] of cases) {
      assert.deepEqual(claimToWorkspace(e), keys, name);
      assert.equal(claimChanged(e), changed, `${name}: claimChanged`);
    }
  });

  it('configMapToWorkspaces: the inference config (or the default template) or the tuning config of workspaces in the namespace', () => {
    const map = configMapToWorkspaces(workspaces);
    const cases: [string, KubernetesObject, string[]][] = [
      ["an inference workspace's own config", obj('team', 'my-config'), ['team/gpu-a']],
      ['the default inference template: workspaces naming none', obj('team', 'inference-params-template'), ['team/gpu-b']],
      ["the method's tuning template", obj('team', 'qlora-params-template'), ['team/tune']],
      ["a tuning workspace's own config", obj('team', 'my-tuning'), ['team/tune-own']],
      ['the lora template: the workspace with its own config does not read it', obj('team', 'lora-params-template'), []],
      ['another namespace', obj('other', 'my-config'), []],
      ['unrelated', obj('team', 'kube-root-ca.crt'), []],
    ];
    for (const [name, o, want] of cases) assert.deepEqual(sorted(map(add(o))), want, name);
  });

  it('secretToWorkspaces: the workspaces whose runtime-downloaded preset reads that Secret', () => {
    const map = secretToWorkspaces(workspaces);
    const cases: [string, KubernetesObject, string[]][] = [
      // phi-3-mini-4k-instruct is KAITO v0.12.0's catalog entry by default: its weights come from the hub too.
      ['hf in team: the presets that download at runtime', obj('team', 'hf'), ['team/gpu-a', 'team/gpu-b']],
      ['hf in other', obj('other', 'hf'), ['other/gpu-a']],
      ['another Secret', obj('team', 'registry'), []],
    ];
    for (const [name, o, want] of cases) assert.deepEqual(map(add(o)), want, name);
  });

  it('workspacesDecidingVolume: a StorageClass change wakes only preset workspaces without a StatefulSet', () => {
    const template = cacheOf(
      ...workspaces.list().map((w) => structuredClone(w) as WorkspaceObject),
      workspace('team', 'tpl', { resource: {}, inference: { template: { spec: { containers: [] } } } }),
    );
    const live = cacheOf<V1StatefulSet>({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta('team', 'gpu-b') });
    const map = workspacesDecidingVolume(template, live);
    assert.deepEqual(
      sorted(map(add({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: meta(undefined, 'kaito-local-nvme-disk'), provisioner: 'x' }))),
      ['other/gpu-a', 'team/gpu-a'],
      'gpu-b has its StatefulSet; tuning and templates never decide one',
    );
  });

  it('failedCreateWorkspace: a FailedCreate Event regarding a StatefulSet wakes the workspace controlling it', () => {
    const sts = (name: string, ownerKind: string): V1StatefulSet => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta('team', name, { ownerReferences: [{ apiVersion: 'kaito.sh/v1beta1', kind: ownerKind, name, uid: 'uid-owner', controller: true }] }),
    });
    const map = failedCreateWorkspace(cacheOf(sts('gpu-a', 'Workspace'), sts('web', 'Foo')));
    const event = (regarding?: { namespace: string; name: string }): EventsV1Event => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: meta('team', 'ev'),
      eventTime: new Date('2026-01-01T00:00:00Z'),
      reason: 'FailedCreate',
      ...(regarding ? { regarding: { kind: 'StatefulSet', ...regarding } } : {}),
    });
    const cases: [string, EventsV1Event, string[]][] = [
      ['our StatefulSet', event({ namespace: 'team', name: 'gpu-a' }), ['team/gpu-a']],
      ['a StatefulSet of another controller', event({ namespace: 'team', name: 'web' }), []],
      ['a StatefulSet not in the cache', event({ namespace: 'team', name: 'gone' }), []],
      ['no regarding', event(), []],
    ];
    for (const [name, e, want] of cases) assert.deepEqual(map(add(e)), want, name);
  });
});

describe('setupWorkspaceController wiring (fake API server)', { timeout: 15_000 }, () => {
  let server: FakeApiServer;
  let transport: KubeTransport;
  before(async () => {
    server = new FakeApiServer();
    transport = new KubeTransport(await server.start(), { qps: 1000, burst: 1000 });
  });
  after(async () => {
    transport.close();
    await server.stop();
  });

  const setup = (napOn: boolean) => {
    const client = new KubeClient(transport);
    const facts = defaultFacts();
    return setupWorkspaceController({
      client,
      recorder: new EventRecorder({ sink: { create: async () => {}, patchSeries: async () => {} } }),
      log: silentLogger,
      namespace: 'team',
      config: {
        featureGates: { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: !napOn },
        cloudProvider: facts.cloudProvider,
        presetRegistry: facts.presetRegistry,
        releaseNamespace: facts.releaseNamespace,
        nodeProvisioningTimeoutMs: 0,
      },
    });
  };

  it('one reflector per kind, namespaced kinds in the namespace, with the selectors and the metadata-only Secrets', async () => {
    server.missing.add(resourcePath(Resources.nodeClaims));
    server.collections.set(resourcePath(Resources.secrets, 'team'), [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: meta('team', 'hf', { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"HF_TOKEN":"c2VjcmV0"}}' } }),
      },
    ]);
    const w = setup(true);
    const ns = (t: typeof Resources.pods) => resourcePath(t, 'team');
    const want: [string, string | null, string | null][] = [
      [ns(Resources.workspaces), null, null],
      [ns(Resources.statefulSets), null, null],
      [ns(Resources.deployments), null, null],
      [ns(Resources.services), null, null],
      [ns(Resources.controllerRevisions), null, null],
      [ns(Resources.pods), 'kaito.sh/workspace', null],
      [ns(Resources.persistentVolumeClaims), 'kaito.sh/workspace', null],
      [resourcePath(Resources.persistentVolumes), null, null],
      [resourcePath(Resources.nodes), null, null],
      [resourcePath(Resources.storageClasses), null, null],
      [ns(Resources.configMaps), null, null],
      [ns(Resources.jobs), null, null],
      [ns(Resources.secrets), null, null],
      [ns(Resources.events), null, FAILED_CREATE_FIELD_SELECTOR],
      [resourcePath(Resources.nodeClaims), 'kaito.sh/workspace', null],
    ];
    assert.deepEqual(
      w.reflectors.map((r) => r.name),
      [
        'workspaces@team',
        'statefulsets@team',
        'deployments@team',
        'services@team',
        'controllerrevisions@team',
        'pods@team',
        'persistentvolumeclaims@team',
        'persistentvolumes',
        'nodes',
        'storageclasses',
        'configmaps@team',
        'jobs@team',
        'secrets@team',
        'endpointslices@team',
        'events@team',
        'nodeclaims',
      ],
    );
    assert.deepEqual(
      w.required.map((r) => r.name),
      w.reflectors.map((r) => r.name).slice(0, -1),
      'the NodeClaim watch is optional',
    );
    assert.ok(w.caches.nodeClaims);
    try {
      for (const r of w.reflectors) r.start();
      await until(() => w.required.every((r) => r.hasSynced) && server.lists.some((u) => u.pathname === resourcePath(Resources.nodeClaims)));
      for (const [path, label, field] of want) {
        const list = server.lists.find((u) => u.pathname === path);
        assert.ok(list, `listed ${path}`);
        assert.equal(list.searchParams.get('labelSelector'), label, `${path} labelSelector`);
        assert.equal(list.searchParams.get('fieldSelector'), field, `${path} fieldSelector`);
      }
      assert.deepEqual(w.caches.secrets.get('team', 'hf')?.metadata?.annotations, undefined, 'no annotation (nor value) of a Secret is held');
      const metadataOnly = [...server.listAccept].filter(([, accept]) => accept?.includes('PartialObjectMetadataList')).map(([p]) => p);
      assert.deepEqual(metadataOnly, [resourcePath(Resources.secrets, 'team')], 'only Secrets are listed as metadata');
    } finally {
      await Promise.all(w.reflectors.map((r) => r.stop()));
    }
  });

  it('without node auto-provisioning: no NodeClaim watch and no nodeClaims cache', () => {
    const w = setup(false);
    assert.equal(w.caches.nodeClaims, undefined);
    assert.equal(w.reflectors.length, 15);
    assert.equal(w.required.length, 15);
  });
});

it('an EndpointSlice event matters only when its serving pods move (a new, empty slice wakes nobody)', () => {
  const slice = (...pods: string[]) => ({
    metadata: { name: 's', namespace: 'ns' },
    addressType: 'IPv4',
    endpoints: pods.map((name) => ({ addresses: [], targetRef: { kind: 'Pod', name }, conditions: { serving: true } })),
  });
  assert.equal(servingChanged({ type: 'add', obj: slice() }), false);
  assert.equal(servingChanged({ type: 'add', obj: slice('ws-0') }), true);
  assert.equal(servingChanged({ type: 'delete', obj: slice('ws-0') }), true);
  assert.equal(servingChanged({ type: 'update', old: slice('ws-0'), obj: slice('ws-0') }), false);
  assert.equal(servingChanged({ type: 'update', old: slice('ws-0'), obj: slice('ws-s1a2b3-0') }), true);
});
