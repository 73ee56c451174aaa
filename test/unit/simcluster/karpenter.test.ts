// The pure parts of the simcluster's Karpenter mode: the instance types file, the simulated device
// plugin's patch and volumes, the CRD source annotation, and how the mode is asked for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { supportedSkus } from '../../../src/catalog/gpu-skus.js';
import { karpenterWanted } from '../../../src/simcluster/cluster.js';
import { CRD_DIGEST_ANNOTATION, CRD_SOURCE_ANNOTATION, crdFromFile } from '../../../src/simcluster/crds.js';
import { devicePluginStep, isKarpenterKwokNode, karpenterNvmeVolumes, KARPENTER_PV_LABEL } from '../../../src/simcluster/karpenter/device-plugin.js';
import { kwokInstanceTypes, SIM_ZONE } from '../../../src/simcluster/karpenter/instance-types.js';
import { readyStatus } from '../../../src/simcluster/karpenter/node-class.js';
import { layoutFor } from '../../../src/simcluster/layout.js';
import { GPU_RESOURCE, loadNodePools } from '../../../src/simcluster/nodes.js';
import { skuFacts } from '../../../src/simcluster/provisioner/node.js';

const pools = loadNodePools(layoutFor({}).defaultNodesFile);

describe('Karpenter instance types', () => {
  const types = kwokInstanceTypes(pools);

  it('offers every Azure SKU of the catalog once, with its GPUs', () => {
    assert.deepEqual(
      types.map((t) => t.name),
      supportedSkus('azure'),
    );
    const a100 = types.find((t) => t.name === 'Standard_NC24ads_A100_v4');
    assert.deepEqual(a100?.resources, { cpu: '24', memory: '220Gi', 'ephemeral-storage': '1Ti', pods: '110', [GPU_RESOURCE]: '1' });
    assert.equal(types.find((t) => t.name === 'Standard_ND96isr_H100_v5')?.resources[GPU_RESOURCE], '8');
  });

  it('writes offerings the way kwok decodes them: Price, Available and Requirements with the zone and capacity type', () => {
    for (const t of types) {
      assert.equal(t.offerings.length, 1);
      const [o] = t.offerings;
      assert.ok((o?.Price ?? 0) > 0);
      assert.deepEqual(o?.Requirements, [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: [SIM_ZONE] },
      ]);
      assert.equal(t.architecture, 'amd64');
      assert.deepEqual(t.operatingSystems, ['linux']);
    }
    // More GPUs cost more, so Karpenter's cheapest pick is stable.
    const price = (n: string): number => types.find((t) => t.name === n)?.offerings[0]?.Price ?? 0;
    assert.ok(price('Standard_NC96ads_A100_v4') > price('Standard_NC24ads_A100_v4'));
  });
});

function kwokNode(over: Partial<{ capacity: Record<string, string>; allocatable: Record<string, string>; labels: Record<string, string> }> = {}): V1Node {
  return {
    metadata: {
      name: 'sad-wozniak-123',
      uid: 'u-1',
      creationTimestamp: new Date(0),
      labels: { 'karpenter.kwok.sh/kwoknodeclass': 'default', 'kubernetes.io/hostname': 'gpu-abcde', ...over.labels },
    },
    spec: { providerID: 'kwok://sad-wozniak-123' },
    status: { capacity: over.capacity ?? { cpu: '1' }, allocatable: over.allocatable ?? { cpu: '23900m', [GPU_RESOURCE]: '1' } },
  };
}

describe('simulated device plugin for Karpenter nodes', () => {
  const facts = skuFacts('Standard_NC24ads_A100_v4', pools);
  assert.ok(facts);

  it('knows Karpenter kwok nodes by the node class label and the kwok providerID', () => {
    assert.equal(isKarpenterKwokNode(kwokNode()), true);
    assert.equal(isKarpenterKwokNode({ ...kwokNode(), spec: { providerID: 'azure:///x' } }), false);
    assert.equal(isKarpenterKwokNode({ metadata: { name: 'gpu-a100-0' }, spec: { providerID: 'kwok://gpu-a100-0' } }), false);
  });

  it('waits for the delay, then patches the instance capacity and the GPUs into allocatable; nothing once there', () => {
    assert.deepEqual(devicePluginStep(kwokNode(), facts, 500, 2000), { action: 'wait', ms: 1500 });
    const step = devicePluginStep(kwokNode(), facts, 2000, 2000);
    assert.deepEqual(step, {
      action: 'patch',
      status: { capacity: { cpu: '24', memory: '220Gi', 'ephemeral-storage': '1Ti', pods: '110', [GPU_RESOURCE]: '1' }, allocatable: { [GPU_RESOURCE]: '1' } },
    });
    const done = kwokNode({ capacity: step.action === 'patch' ? (step.status.capacity ?? {}) : {} });
    assert.deepEqual(devicePluginStep(done, facts, 2000, 2000), { action: 'none' });
    // A Stage that wrote the old capacity back gets the patch again.
    assert.equal(devicePluginStep(kwokNode({ capacity: { cpu: '24' } }), facts, 9000, 2000).action, 'patch');
  });

  it('makes NVMe volumes pinned to the hostname label (the NodeClaim name) and owned by the node', () => {
    const pvs = karpenterNvmeVolumes(kwokNode(), facts);
    assert.equal(pvs.length, 4);
    const [pv] = pvs;
    assert.equal(pv?.metadata?.name, 'nvme-sad-wozniak-123-0');
    assert.equal(pv?.metadata?.labels?.[KARPENTER_PV_LABEL], 'sad-wozniak-123');
    assert.deepEqual(pv?.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'sad-wozniak-123', uid: 'u-1' }]);
    assert.deepEqual(pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values, ['gpu-abcde']);
    const a10 = skuFacts('Standard_NV36ads_A10_v5', pools);
    assert.ok(a10);
    assert.deepEqual(karpenterNvmeVolumes(kwokNode(), a10), []);
  });
});

describe('KWOKNodeClass readiness', () => {
  const now = new Date('2026-12-01T10:00:00.123Z');

  it('sets Ready=True (what the CRD default says) on a class without status, keeping other conditions', () => {
    assert.deepEqual(readyStatus({ metadata: { name: 'default', generation: 1 } }, now), {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-12-01T10:00:00Z', observedGeneration: 1 }],
    });
    const other = { type: 'Other', status: 'False', reason: 'X', message: 'y', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const out = readyStatus({ metadata: { name: 'default', generation: 2 }, status: { conditions: [other] } }, now);
    assert.deepEqual(
      out?.conditions.map((c) => c.type),
      ['Other', 'Ready'],
    );
  });

  it('writes nothing when Ready=True for the current generation; a new generation keeps the transition time', () => {
    const ready = { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 };
    assert.equal(readyStatus({ metadata: { name: 'd', generation: 1 }, status: { conditions: [ready] } }, now), undefined);
    const bumped = readyStatus({ metadata: { name: 'd', generation: 2 }, status: { conditions: [ready] } }, now);
    assert.equal(bumped?.conditions[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(bumped?.conditions[0]?.observedGeneration, 2);
  });
});

describe('Karpenter mode switches', () => {
  it('is asked for by the flag, else KAITO_TS_SIM_KARPENTER', () => {
    assert.equal(karpenterWanted({}), false);
    assert.equal(karpenterWanted({ KAITO_TS_SIM_KARPENTER: '1' }), true);
    assert.equal(karpenterWanted({ KAITO_TS_SIM_KARPENTER: 'true' }), true);
    assert.equal(karpenterWanted({ KAITO_TS_SIM_KARPENTER: '0' }), false);
    assert.equal(karpenterWanted({ KAITO_TS_SIM_KARPENTER: '1' }, false), false);
  });

  it('stamps each installed CRD with the module it came from', () => {
    const crd = crdFromFile('metadata:\n  name: nodeclaims.karpenter.sh\n  annotations:\n    a: b\nspec: {}\n', 'sigs.k8s.io/karpenter@v1.10.0');
    const { [CRD_DIGEST_ANNOTATION]: digest, ...rest } = crd.metadata?.annotations ?? {};
    assert.deepEqual(rest, { a: 'b', [CRD_SOURCE_ANNOTATION]: 'sigs.k8s.io/karpenter@v1.10.0' });
    assert.match(digest ?? '', /^[0-9a-f]{16}$/);
  });
});
