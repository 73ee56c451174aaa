// Pure parts of the simulated gpu-provisioner: launch checks, node shape, faults, claim status, flags.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap, V1Node } from '@kubernetes/client-node';
import { components } from '../../../src/simcluster/components.js';
import { layoutFor } from '../../../src/simcluster/layout.js';
import { loadNodePools } from '../../../src/simcluster/nodes.js';
import { faultsFor } from '../../../src/simcluster/provisioner/faults.js';
import { launchedNode, nodeHas, nodeNameFor, nvmeVolumes, providerIdFor, registrationPatch, skuFacts } from '../../../src/simcluster/provisioner/node.js';
import { instanceTypeOf, isKaitoClaim, launchProblem, truncateMessage, type NodeClaim } from '../../../src/simcluster/provisioner/claim-view.js';
import { DEFAULT_DELAYS, parseProvisionerArgs, provisionerArgs, resolveDelays } from '../../../src/simcluster/provisioner/provisioner-options.js';
import { statusChanged, wantedStatus, type Phase } from '../../../src/simcluster/provisioner/claim-status.js';

const layout = layoutFor({ KAITO_TS_CACHE: '/cache', KAITO_TS_SIMCLUSTER_DIR: '/state' });
const pools = loadNodePools(layout.defaultNodesFile);

/** KAITO v0.8.0's NodeClaim for an Azure workspace (reference node-provisioning.md §2). */
function kaitoClaim(
  over: { name?: string; sku?: string | null; storage?: string | null; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): NodeClaim {
  const sku = over.sku === undefined ? 'Standard_NC24ads_A100_v4' : over.sku;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: over.name ?? 'ws0a1b2c3d4',
      uid: 'uid-1',
      creationTimestamp: new Date('2026-01-01T00:00:00Z'),
      labels: over.labels ?? { 'karpenter.sh/nodepool': 'kaito', 'kaito.sh/workspace': 'phi', 'kaito.sh/workspacenamespace': 'team-a' },
      annotations: over.annotations ?? { 'karpenter.sh/do-not-disrupt': 'true' },
    },
    spec: {
      nodeClassRef: { group: 'kaito.sh', kind: 'KaitoNodeClass', name: 'default' },
      taints: [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }],
      requirements: [
        { key: 'karpenter.sh/nodepool', operator: 'In', values: ['kaito'] },
        ...(sku === null ? [] : [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: [sku] }]),
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
      ],
      ...(over.storage === null ? {} : { resources: { requests: { storage: over.storage ?? '120Gi' } } }),
    },
  };
}

describe('which claims are adopted, and the launch checks', () => {
  const cases: [string, NodeClaim, boolean][] = [
    ['workspace claim', kaitoClaim(), true],
    ['ragengine claim', kaitoClaim({ labels: { 'kaito.sh/ragengine': 'r' } }), true],
    ['plain Karpenter claim', kaitoClaim({ labels: { 'karpenter.sh/nodepool': 'default' } }), false],
    [
      "a workspace claim of Karpenter's kwok provider (it launches those)",
      { ...kaitoClaim(), spec: { ...kaitoClaim().spec, nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' } } },
      false,
    ],
  ];
  for (const [what, claim, adopted] of cases) it(`${what}: adopted=${adopted}`, () => assert.equal(isKaitoClaim(claim), adopted));

  const problems: [string, NodeClaim, RegExp | undefined][] = [
    ['a valid claim', kaitoClaim(), undefined],
    ['a 12-character name', kaitoClaim({ name: 'ws0123456789' }), undefined],
    ['a 13-character name', kaitoClaim({ name: 'ws01234567890' }), /agentpool name\(ws01234567890\) is invalid, must match regex pattern/],
    ['a name with a dash', kaitoClaim({ name: 'ws-abc' }), /must match/],
    ['a name starting with a digit', kaitoClaim({ name: '1ws' }), /is invalid/],
    ['no instance-type requirement', kaitoClaim({ sku: null }), /nodeClaim spec has no requirement for instance type/],
    ['no storage request', kaitoClaim({ storage: null }), /storage request of nodeclaim\(ws0a1b2c3d4\) should be more than 0/],
    ['zero storage', kaitoClaim({ storage: '0' }), /storage request of nodeclaim\(ws0a1b2c3d4\) should be more than 0/],
    ['unreadable storage', kaitoClaim({ storage: 'lots' }), /storage request of nodeclaim\(ws0a1b2c3d4\) should be more than 0/],
  ];
  for (const [what, claim, expected] of problems) {
    it(`${what}: ${expected ? 'refused' : 'launches'}`, () => {
      const p = launchProblem(claim);
      if (expected) assert.match(p ?? '', expected);
      else assert.equal(p, undefined);
    });
  }

  it('reads the VM size from the first In value and truncates messages at 800 characters', () => {
    assert.equal(instanceTypeOf(kaitoClaim()), 'Standard_NC24ads_A100_v4');
    assert.equal(truncateMessage('x'.repeat(900)).length, 800);
    assert.equal(truncateMessage('short'), 'short');
  });
});

describe('SKU facts', () => {
  const cases: [string, Partial<ReturnType<typeof skuFacts>> | undefined][] = [
    [
      'Standard_NC24ads_A100_v4',
      { gpuCount: 1, gpuProduct: 'NVIDIA-A100-80GB-PCIe', gpuMemoryMiB: 81920, cpu: '24', memory: '220Gi', nvme: { volumes: 4, size: '1000Gi' } },
    ],
    ['Standard_NV36ads_A10_v5', { gpuCount: 1, gpuProduct: 'NVIDIA-A10', cpu: '36' }],
    [
      'Standard_NC96ads_A100_v4',
      { gpuCount: 4, gpuProduct: 'NVIDIA-A100', gpuMemoryMiB: 81920, cpu: '96', memory: '768Gi', nvme: { volumes: 1, size: '1000Gi' } },
    ],
    ['Standard_D4s_v3', undefined],
  ];
  for (const [sku, want] of cases) {
    it(`${sku}`, () => {
      const facts = skuFacts(sku, pools);
      if (want === undefined) return assert.equal(facts, undefined);
      for (const [k, v] of Object.entries(want)) assert.deepEqual(facts?.[k as keyof typeof facts], v, k);
      if (!('nvme' in want)) assert.equal(facts?.nvme, undefined);
    });
  }
});

describe('the node a launch creates', () => {
  const claim = kaitoClaim();
  const facts = skuFacts('Standard_NC24ads_A100_v4', pools);
  assert.ok(facts);
  const node = launchedNode({ claim, facts, clusterName: 'kaito-ts-sim', kubeletVersion: 'v1.36.3' });
  const labels = node.metadata?.labels ?? {};

  it('is an AKS agent-pool node that kwok drives', () => {
    assert.match(node.metadata?.name ?? '', /^aks-ws0a1b2c3d4-\d{8}-vmss000000$/);
    assert.equal(node.metadata?.name, nodeNameFor('ws0a1b2c3d4', 'kaito-ts-sim'));
    assert.equal(node.metadata?.annotations?.['kwok.x-k8s.io/node'], 'fake');
    assert.match(
      node.spec?.providerID ?? '',
      /^azure:\/\/\/subscriptions\/[0-9-]+\/resourceGroups\/mc_[^/]+\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/aks-ws0a1b2c3d4-\d{8}-vmss\/virtualMachines\/0$/,
    );
    assert.equal(node.spec?.providerID, providerIdFor('ws0a1b2c3d4', 'kaito-ts-sim'));
    assert.deepEqual(node.spec?.taints, [{ key: 'sku', value: 'gpu', effect: 'NoSchedule' }]);
  });

  const expected: [string, string][] = [
    ['kaito.sh/workspace', 'phi'],
    ['kaito.sh/workspacenamespace', 'team-a'],
    ['karpenter.sh/nodepool', 'kaito'],
    ['kaito.sh/machine-type', 'gpu'],
    ['kaito.sh/creation-timestamp', '2026-01-01T00-00-00Z'],
    ['agentpool', 'ws0a1b2c3d4'],
    ['kubernetes.azure.com/agentpool', 'ws0a1b2c3d4'],
    ['kubernetes.azure.com/cluster', 'MC_kaito-ts-sim_kaito-ts-sim_sim'],
    ['node.kubernetes.io/instance-type', 'Standard_NC24ads_A100_v4'],
    ['beta.kubernetes.io/instance-type', 'Standard_NC24ads_A100_v4'],
    ['kubernetes.io/os', 'linux'],
    ['nvidia.com/gpu.present', 'true'],
    ['nvidia.com/gpu.product', 'NVIDIA-A100-80GB-PCIe'],
    ['nvidia.com/gpu.count', '1'],
    ['nvidia.com/gpu.memory', '81920'],
  ];
  for (const [key, value] of expected) it(`label ${key}=${value}`, () => assert.equal(labels[key], value));

  it('has CPU, memory and the OS disk but no GPU until the device plugin runs', () => {
    assert.deepEqual(node.status?.capacity, { cpu: '24', memory: '220Gi', 'ephemeral-storage': '120Gi', pods: '110' });
    assert.deepEqual(node.status?.allocatable, node.status?.capacity);
  });

  it('registration syncs the claim onto the node, and is a no-op once there', () => {
    const patch = registrationPatch(claim, node, { initialized: false, notReadyFault: false });
    assert.equal(patch.metadata?.labels?.['karpenter.sh/registered'], 'true');
    assert.equal(patch.metadata?.labels?.['karpenter.sh/initialized'], undefined);
    assert.deepEqual(patch.metadata?.finalizers, ['karpenter.sh/termination']);
    assert.deepEqual(
      patch.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid]),
      [['NodeClaim', 'ws0a1b2c3d4', 'uid-1']],
    );
    assert.equal(patch.metadata?.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
    assert.equal(nodeHas(node, patch), false);
    const registered: V1Node = { ...node, metadata: { ...node.metadata, ...patch.metadata, labels: { ...labels, ...patch.metadata?.labels } } };
    assert.equal(nodeHas(registered, patch), true);
    assert.equal(nodeHas(registered, registrationPatch(claim, node, { initialized: true, notReadyFault: false })), false);
    assert.equal(registrationPatch(claim, node, { initialized: true, notReadyFault: true }).metadata?.labels?.['node-not-ready.stage.kwok.x-k8s.io'], 'true');
  });

  it('NVMe SKUs get local PVs pinned to the node, others none', () => {
    const pvs = nvmeVolumes('ws0a1b2c3d4', node.metadata?.name ?? '', facts);
    assert.equal(pvs.length, 4);
    for (const pv of pvs) {
      assert.equal(pv.spec?.storageClassName, 'kaito-local-nvme-disk');
      assert.equal(pv.metadata?.labels?.['kaito.sh/sim-nodeclaim'], 'ws0a1b2c3d4');
      assert.deepEqual(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values, [node.metadata?.name]);
    }
    const a10 = skuFacts('Standard_NV36ads_A10_v5', pools);
    assert.ok(a10);
    assert.deepEqual(nvmeVolumes('ws1', 'n', a10), []);
  });
});

describe('fault selection', () => {
  const cm = (name: string, data: Record<string, string>): V1ConfigMap => ({ metadata: { name }, data });
  const quota = 'QuotaExceeded: Operation could not be completed as it results in exceeding approved standardNCADSA100v4Family Cores quota';
  const cases: [string, NodeClaim, V1ConfigMap[], { launchError?: string; neverRegister: boolean; notReady: boolean; repairAfterMs?: number }][] = [
    ['nothing injected', kaitoClaim(), [], { neverRegister: false, notReady: false }],
    [
      'SKU-wide launch error',
      kaitoClaim(),
      [cm('q', { 'instance-type': 'Standard_NC24ads_A100_v4', 'launch-error': quota })],
      { launchError: quota, neverRegister: false, notReady: false },
    ],
    ['other SKU', kaitoClaim(), [cm('q', { 'instance-type': 'Standard_NC96ads_A100_v4', 'launch-error': quota })], { neverRegister: false, notReady: false }],
    ['by claim name', kaitoClaim(), [cm('n', { nodeclaim: 'ws0a1b2c3d4', 'never-register': 'true' })], { neverRegister: true, notReady: false }],
    ['by workspace', kaitoClaim(), [cm('w', { workspace: 'team-a/phi', 'not-ready': 'true' })], { neverRegister: false, notReady: true }],
    ['workspace in another namespace', kaitoClaim(), [cm('w', { workspace: 'team-b/phi', 'not-ready': 'true' })], { neverRegister: false, notReady: false }],
    [
      'every named selector must match',
      kaitoClaim(),
      [cm('w', { workspace: 'team-a/phi', nodeclaim: 'other', 'not-ready': 'true' })],
      { neverRegister: false, notReady: false },
    ],
    ['a ConfigMap without selector matches nothing', kaitoClaim(), [cm('all', { 'launch-error': 'boom' })], { neverRegister: false, notReady: false }],
    [
      'an annotation on the claim',
      kaitoClaim({ annotations: { 'sim.kaito-ts.io/launch-error': 'SkuNotAvailable: gone' } }),
      [],
      { launchError: 'SkuNotAvailable: gone', neverRegister: false, notReady: false },
    ],
    [
      'the annotation wins over a ConfigMap',
      kaitoClaim({ annotations: { 'sim.kaito-ts.io/launch-error': 'mine' } }),
      [cm('a', { nodeclaim: 'ws0a1b2c3d4', 'launch-error': 'theirs' })],
      { launchError: 'mine', neverRegister: false, notReady: false },
    ],
    [
      'a per-claim repair delay',
      kaitoClaim({ annotations: { 'sim.kaito-ts.io/repair-after': '5s' } }),
      [],
      { neverRegister: false, notReady: false, repairAfterMs: 5000 },
    ],
    ['a bad repair delay is ignored', kaitoClaim({ annotations: { 'sim.kaito-ts.io/repair-after': 'soon' } }), [], { neverRegister: false, notReady: false }],
    ['"false" is no fault', kaitoClaim({ annotations: { 'sim.kaito-ts.io/not-ready': 'false' } }), [], { neverRegister: false, notReady: false }],
  ];
  for (const [what, claim, cms, want] of cases) {
    it(what, () => {
      const { sources: _s, ...got } = faultsFor(claim, cms);
      assert.deepEqual(got, want);
    });
  }
  it('names where a fault came from', () => {
    assert.deepEqual(faultsFor(kaitoClaim(), [cm('q', { nodeclaim: 'ws0a1b2c3d4', 'launch-error': 'x' })]).sources, ['configmap kaito-ts-sim/q']);
  });
});

describe('claim status', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:01:00Z');
  const launched = (registered: boolean, nodeReady: boolean): Phase => ({
    kind: 'launched',
    providerID: 'azure:///x',
    capacity: { cpu: '24' },
    allocatable: { cpu: '24' },
    ...(registered ? { nodeName: 'aks-n' } : {}),
    registered,
    nodeReady,
  });
  const cases: [string, Phase, Record<string, [string, string]>][] = [
    ['waiting', { kind: 'waiting' }, { Launched: ['Unknown', 'AwaitingReconciliation'], Ready: ['Unknown', 'UnhealthyDependents'] }],
    [
      'launch failed',
      { kind: 'launchFailed', message: 'QuotaExceeded' },
      { Launched: ['Unknown', 'LaunchFailed'], Registered: ['Unknown', 'AwaitingReconciliation'], Ready: ['Unknown', 'UnhealthyDependents'] },
    ],
    [
      'launched, not registered',
      launched(false, false),
      { Launched: ['True', 'Launched'], Registered: ['Unknown', 'NodeNotFound'], Ready: ['Unknown', 'UnhealthyDependents'] },
    ],
    [
      'registered, node not Ready',
      launched(true, false),
      { Registered: ['True', 'Registered'], Initialized: ['Unknown', 'NodeNotReady'], Ready: ['Unknown', 'UnhealthyDependents'] },
    ],
    [
      'ready',
      launched(true, true),
      { Launched: ['True', 'Launched'], Registered: ['True', 'Registered'], Initialized: ['True', 'Initialized'], Ready: ['True', 'Ready'] },
    ],
  ];
  for (const [what, phase, want] of cases) {
    it(what, () => {
      const s = wantedStatus(undefined, phase, t0);
      for (const [type, [status, reason]] of Object.entries(want)) {
        const c = s.conditions?.find((x) => x.type === type);
        assert.deepEqual([c?.status, c?.reason], [status, reason], type);
      }
      assert.equal(s.conditions?.length, 4);
    });
  }

  it('keeps the message of a launch failure and the node name once registered', () => {
    assert.equal(
      wantedStatus(undefined, { kind: 'launchFailed', message: 'QuotaExceeded: no cores' }, t0).conditions?.find((c) => c.type === 'Launched')?.message,
      'QuotaExceeded: no cores',
    );
    const ready = wantedStatus(undefined, launched(true, true), t0);
    assert.deepEqual([ready.nodeName, ready.providerID], ['aks-n', 'azure:///x']);
    assert.equal(ready.conditions?.find((c) => c.type === 'Ready')?.message, '');
    assert.equal(
      wantedStatus(undefined, launched(false, false), t0).conditions?.find((c) => c.type === 'Ready')?.message,
      'Registered=Unknown, Initialized=Unknown',
    );
  });

  it('an unchanged phase is no change (times kept); a new phase is one', () => {
    const first = wantedStatus(undefined, launched(true, true), t0);
    const again = wantedStatus({ ...first, lastPodEventTime: t1.toISOString() }, launched(true, true), t1);
    assert.equal(statusChanged({ ...first, lastPodEventTime: t1.toISOString() }, again), false);
    const notReady = wantedStatus(first, launched(true, false), t1);
    assert.equal(statusChanged(first, notReady), true);
    assert.equal(notReady.conditions?.find((c) => c.type === 'Launched')?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(notReady.conditions?.find((c) => c.type === 'Initialized')?.lastTransitionTime, '2026-01-01T00:01:00Z');
  });
});

describe('provisioner flags', () => {
  it('environment over defaults, explicit over both', () => {
    assert.deepEqual(resolveDelays({}), DEFAULT_DELAYS);
    const d = resolveDelays({ KAITO_TS_SIM_LAUNCH_DELAY: '30s', KAITO_TS_SIM_REPAIR_AFTER: '1m' }, { repairAfterMs: 5000 });
    assert.deepEqual([d.launchDelayMs, d.devicePluginDelayMs, d.repairAfterMs], [30_000, 1_000, 5_000]);
  });

  it('what up passes is what the process reads', () => {
    const o = { ...DEFAULT_DELAYS, launchDelayMs: 30_000, devicePluginDelayMs: 1500, kubeconfig: '/k', clusterName: 'c', healthPort: 27248 };
    assert.deepEqual(parseProvisionerArgs(provisionerArgs(o)), o);
    assert.throws(() => parseProvisionerArgs(['--launch-delay=1s']), /--kubeconfig is required/);
  });

  it('is a simcluster component, restarted only when its flags change', () => {
    const c = components(layout).find((x) => x.name === 'gpu-provisioner');
    assert.ok(c?.stale);
    assert.equal(c.healthUrl, `http://127.0.0.1:${layout.ports.provisioner}/healthz`);
    assert.ok(c.args[0]?.endsWith('dist/src/simcluster/provisioner/main.js'));
    assert.equal(c.stale(['/elsewhere/dist/src/simcluster/provisioner/main.js', ...c.args.slice(1)]), false);
    const slower = components(layout, { delays: { ...DEFAULT_DELAYS, launchDelayMs: 30_000 } }).find((x) => x.name === 'gpu-provisioner');
    assert.equal(c.stale(slower?.args ?? []), true);
  });
});
