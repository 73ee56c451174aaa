import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BENCH_LABEL, NAP_NODE_LABEL, napPools, planWorkspaces, poolsForPlan, workspaceManifest } from '../../../bench/plan.js';
import { parseNodePools } from '../../../src/simcluster/nodes.js';

// The real default node file: the benchmark derives its pools from it.
const base = parseNodePools(readFileSync(new URL('../../../../simcluster/nodes.yaml', import.meta.url), 'utf8'));

describe('planWorkspaces', () => {
  it('mixes NVMe and non-NVMe pools 2:2:1 and cycles three presets', () => {
    const plan = planWorkspaces(10, base);
    assert.deepEqual(
      plan.map((w) => w.pool),
      ['a100', 'a10', 'h100', 'a100', 'a10', 'a100', 'a10', 'h100', 'a100', 'a10'],
    );
    assert.deepEqual(
      plan.slice(0, 4).map((w) => w.preset),
      ['phi-4-mini-instruct', 'mistral-7b-instruct', 'qwen2.5-coder-7b-instruct', 'phi-4-mini-instruct'],
    );
    assert.deepEqual(
      plan.slice(0, 3).map((w) => [w.name, w.instanceType, w.nvme]),
      [
        ['ws-0000', 'Standard_NC24ads_A100_v4', true],
        ['ws-0001', 'Standard_NV36ads_A10_v5', false],
        ['ws-0002', 'Standard_NC80adis_H100_v5', true],
      ],
    );
  });
  it('--hf-models: the first workspaces name a Hugging Face repo of their own, the rest keep the preset cycle', () => {
    const plan = planWorkspaces(5, base, 2);
    assert.deepEqual(
      plan.map((w) => w.preset),
      ['kaito-ts-bench/qwen3-0.6b-0000', 'kaito-ts-bench/qwen3-0.6b-0001', 'qwen2.5-coder-7b-instruct', 'phi-4-mini-instruct', 'mistral-7b-instruct'],
    );
  });
  it('gives unique names up to N = 1000', () => {
    const names = planWorkspaces(1000, base).map((w) => w.name);
    assert.equal(new Set(names).size, 1000);
    assert.equal(names[999], 'ws-0999');
  });
  it('fails clearly when the node file lacks a pool', () => {
    assert.throws(
      () =>
        planWorkspaces(
          3,
          base.filter((p) => p.name !== 'h100'),
        ),
      /no pool "h100"/,
    );
  });
});

describe('poolsForPlan', () => {
  it('sizes each pool to its workspaces, one NVMe volume per node', () => {
    const pools = poolsForPlan(base, planWorkspaces(200, base));
    assert.deepEqual(
      pools.map((p) => [p.name, p.count, p.nvme?.volumes]),
      [
        ['a100', 80, 1],
        ['h100', 40, 1],
        ['a10', 80, undefined],
      ],
    );
    assert.equal(
      pools.reduce((s, p) => s + p.count, 0),
      200,
    );
    // GPU facts stay those of the node file.
    assert.deepEqual(pools[1]?.gpu, base[1]?.gpu);
  });
});

describe('workspaceManifest', () => {
  it('is KAITO v0.8.0 YAML with no spec wrapper, selecting the pool, without instanceType (BYO)', () => {
    const [w] = planWorkspaces(1, base);
    assert.ok(w);
    assert.deepEqual(workspaceManifest(w, 'ns1', 'run1'), {
      apiVersion: 'kaito.sh/v1beta1',
      kind: 'Workspace',
      metadata: { name: 'ws-0000', namespace: 'ns1', labels: { [BENCH_LABEL]: 'run1' } },
      resource: { labelSelector: { matchLabels: { 'kaito.sh/sim-pool': 'a100' } } },
      inference: { preset: { name: 'phi-4-mini-instruct' } },
    });
  });
  it('names the SKU and a label no node has yet under node auto-provisioning, one per workspace and run', () => {
    const plan = planWorkspaces(3, base);
    const resources = plan.map((w) => workspaceManifest(w, 'ns1', 'run1', 'nap').resource);
    assert.deepEqual(resources, [
      { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: { [NAP_NODE_LABEL]: 'run1-ws-0000' } } },
      { instanceType: 'Standard_NV36ads_A10_v5', labelSelector: { matchLabels: { [NAP_NODE_LABEL]: 'run1-ws-0001' } } },
      { instanceType: 'Standard_NC80adis_H100_v5', labelSelector: { matchLabels: { [NAP_NODE_LABEL]: 'run1-ws-0002' } } },
    ]);
    // Label values stay within Kubernetes' 63 characters for the largest plan and a base-36 run id.
    const last = planWorkspaces(1000, base).at(-1);
    assert.ok(last);
    const value = workspaceManifest(last, 'ns', Date.now().toString(36), 'nap').resource.labelSelector?.matchLabels?.[NAP_NODE_LABEL] ?? '';
    assert.match(value, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
  });
});

describe('napPools', () => {
  it('makes no node up front but keeps every pool (the provisioner reads SKU shapes from them)', () => {
    const pools = napPools(base);
    assert.deepEqual(
      pools.map((p) => [p.name, p.count]),
      [
        ['a100', 0],
        ['h100', 0],
        ['a10', 0],
      ],
    );
    assert.deepEqual(
      pools.map((p) => p.instanceType),
      base.map((p) => p.instanceType),
    );
  });
});

describe('expectedVolume', () => {
  it('is the SKU rule for both controllers under auto-provisioning, emptyDir for KAITO on BYO nodes', async () => {
    const { CONTROLLERS } = await import('../../../bench/controllers.js');
    const plan = planWorkspaces(3, base); // A100 (NVMe), A10, H100 (NVMe)
    const kinds = (id: 'kaito-ts' | 'kaito-v0.8.0', sc: boolean, nap: boolean): string[] => plan.map((w) => CONTROLLERS[id].expectedVolume(w, sc, nap));
    const cases: Array<['kaito-ts' | 'kaito-v0.8.0', boolean, boolean, string[]]> = [
      ['kaito-ts', true, false, ['nvme', 'emptyDir', 'nvme']],
      ['kaito-ts', true, true, ['nvme', 'emptyDir', 'nvme']],
      ['kaito-ts', false, true, ['emptyDir', 'emptyDir', 'emptyDir']],
      ['kaito-v0.8.0', true, false, ['emptyDir', 'emptyDir', 'emptyDir']],
      ['kaito-v0.8.0', true, true, ['nvme', 'emptyDir', 'nvme']],
      ['kaito-v0.8.0', false, true, ['emptyDir', 'emptyDir', 'emptyDir']],
    ];
    for (const [id, sc, nap, want] of cases) assert.deepEqual(kinds(id, sc, nap), want, `${id} storageClass=${sc} nap=${nap}`);
  });
  it('turns auto-provisioning on or off through the feature gate', async () => {
    const { CONTROLLERS } = await import('../../../bench/controllers.js');
    const o = { kubeconfig: 'k', qps: 30, burst: 50, metricsAddress: 'm', probeAddress: 'p', releaseNamespace: 'r', projectRoot: '/x' };
    for (const id of ['kaito-ts', 'kaito-v0.8.0'] as const) {
      const gate = (nap: boolean): string | undefined => CONTROLLERS[id].launch({ ...o, nap }).args.find((a) => a.startsWith('--feature-gates='));
      assert.equal(gate(true), '--feature-gates=vLLM=true,disableNodeAutoProvisioning=false');
      assert.equal(gate(false), '--feature-gates=vLLM=true,disableNodeAutoProvisioning=true');
      assert.equal(CONTROLLERS[id].launch({ ...o, nap: true }).env.CLOUD_PROVIDER, 'azure');
    }
  });
});

describe('shippedNodeOptions', () => {
  it('reads the image entrypoint flags and the chart nodeOptions, so kaito-ts runs as deployed', async () => {
    const { shippedNodeOptions } = await import('../../../bench/controllers.js');
    const root = new URL('../../../../', import.meta.url).pathname;
    const { parse } = await import('yaml');
    const { readFileSync } = await import('node:fs');
    const chart = parse(readFileSync(`${root}charts/kaito-ts/values.yaml`, 'utf8')) as { nodeOptions?: string };
    const image = readFileSync(`${root}image/node-flags`, 'utf8').trim().split(/\s+/);
    assert.deepEqual(shippedNodeOptions(root), [...image, ...(chart.nodeOptions ?? '').split(/\s+/).filter((w) => w !== '')]);
    assert.ok(image.includes('--jitless') && image.includes('--no-expose-wasm'));
    assert.ok(shippedNodeOptions(root).every((w) => w.startsWith('--')));
    assert.deepEqual(shippedNodeOptions('/nonexistent'), []);
  });
});
