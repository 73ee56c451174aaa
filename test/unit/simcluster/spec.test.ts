// Pure parts of the bed: versions, node pools, Node and PV manifests, component command lines, kubeconfigs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { components } from '../../../src/simcluster/components.js';
import { envLines } from '../../../src/simcluster/cluster.js';
import { adminKubeconfig, tokenKubeconfig } from '../../../src/simcluster/kubeconfig.js';
import { binDirFor, DEFAULT_PORTS, karpenterBinDirFor, kedaBinDirFor, layoutFor, parseVersions, shiftPorts } from '../../../src/simcluster/layout.js';
import { loadNodePools, nodeManifests, NodeSpecError, parseNodePools, scalePools } from '../../../src/simcluster/nodes.js';
import { localPvManifests, NVME_STORAGE_CLASS, storageClassManifest } from '../../../src/simcluster/storage.js';

const layout = layoutFor({ KAITO_TS_CACHE: '/cache', KAITO_TS_SIMCLUSTER_DIR: '/state' });
const defaults = loadNodePools(layout.defaultNodesFile);

describe('versions and layout', () => {
  it('reads the pinned versions and keys the binary cache on them', () => {
    const v = parseVersions(
      '# pins\nK8S_VERSION=v1.36.3\n\nETCD_VERSION="v3.6.14"\nKWOK_VERSION=v0.8.0\nKARPENTER_VERSION=v1.6.2\nKARPENTER_KWOK_VERSION=v1.10.0\nKEDA_VERSION=v2.21.0\n',
    );
    assert.deepEqual(v, { k8s: 'v1.36.3', etcd: 'v3.6.14', kwok: 'v0.8.0', karpenter: 'v1.6.2', karpenterKwok: 'v1.10.0', keda: 'v2.21.0' });
    assert.equal(binDirFor(v, '/c'), '/c/simcluster/k8s-v1.36.3-etcd-v3.6.14-kwok-v0.8.0/bin');
    assert.equal(karpenterBinDirFor(v, '/c'), '/c/simcluster/karpenter-v1.10.0/bin');
    assert.equal(kedaBinDirFor(v, '/c'), '/c/simcluster/keda-v2.21.0/bin');
    assert.throws(() => parseVersions('K8S_VERSION=v1\nETCD_VERSION=v3\n'), /KWOK_VERSION is missing/);
    assert.throws(() => parseVersions('K8S_VERSION=v1\nETCD_VERSION=v3\nKWOK_VERSION=v0\n'), /KARPENTER_VERSION is missing/);
    assert.throws(() => parseVersions('K8S_VERSION=v1\nETCD_VERSION=v3\nKWOK_VERSION=v0\nKARPENTER_VERSION=v1\n'), /KARPENTER_KWOK_VERSION is missing/);
    assert.throws(
      () => parseVersions('K8S_VERSION=v1\nETCD_VERSION=v3\nKWOK_VERSION=v0\nKARPENTER_VERSION=v1\nKARPENTER_KWOK_VERSION=v1\n'),
      /KEDA_VERSION is missing/,
    );
  });

  it('follows the environment overrides', () => {
    assert.equal(layout.stateDir, '/state');
    assert.equal(layout.kubeconfigPath, '/state/admin.kubeconfig');
    assert.ok(layout.binDir.startsWith('/cache/simcluster/k8s-'));
    assert.equal(layoutFor({ KAITO_TS_SIM_PORT_OFFSET: '7' }).ports.apiserver, DEFAULT_PORTS.apiserver + 7);
    assert.deepEqual(Object.values(shiftPorts(DEFAULT_PORTS, 0)), Object.values(DEFAULT_PORTS));
  });
});

describe('node pools', () => {
  it('default set: 3 A100 and 1 H100 with NVMe, 2 A10 without', () => {
    const summary = defaults.map((p) => [p.name, p.count, p.instanceType, p.gpu.count, p.nvme !== undefined]);
    assert.deepEqual(summary, [
      ['a100', 3, 'Standard_NC24ads_A100_v4', 1, true],
      ['h100', 1, 'Standard_NC80adis_H100_v5', 2, true],
      ['a10', 2, 'Standard_NV36ads_A10_v5', 1, false],
    ]);
  });

  const bad: [string, string, RegExp][] = [
    ['no pools key', 'nodes: []', /top-level "pools:"/],
    ['bad name', 'pools: [{name: A_1, count: 1, instanceType: x, gpu: {product: p, count: 1, memoryMiB: 1}}]', /name must be a DNS label/],
    [
      'duplicate name',
      'pools: [{name: a, count: 1, instanceType: x, gpu: {product: p, count: 1, memoryMiB: 1}}, {name: a, count: 1, instanceType: x, gpu: {product: p, count: 1, memoryMiB: 1}}]',
      /used twice/,
    ],
    ['negative count', 'pools: [{name: a, count: -1, instanceType: x, gpu: {product: p, count: 1, memoryMiB: 1}}]', /count must be an integer/],
    ['no instance type', 'pools: [{name: a, count: 1, gpu: {product: p, count: 1, memoryMiB: 1}}]', /instanceType is required/],
    ['zero GPUs', 'pools: [{name: a, count: 1, instanceType: x, gpu: {product: p, count: 0, memoryMiB: 1}}]', /gpu needs/],
    ['nvme without size', 'pools: [{name: a, count: 1, instanceType: x, gpu: {product: p, count: 1, memoryMiB: 1}, nvme: {volumes: 2}}]', /nvme needs/],
  ];
  for (const [name, text, message] of bad) {
    it(`rejects ${name}`, () => {
      assert.throws(
        () => parseNodePools(text),
        (err) => err instanceof NodeSpecError && message.test(err.message),
      );
    });
  }

  it('scales a pool by name and refuses unknown pools', () => {
    assert.deepEqual(
      scalePools(defaults, { a10: 5 }).map((p) => p.count),
      [3, 1, 5],
    );
    assert.throws(() => scalePools(defaults, { v100: 1 }), /no node pool named "v100"/);
  });
});

describe('Node manifests', () => {
  const nodes = nodeManifests(defaults, 'v1.36.3');

  it('one Node per pool member with the GPU discovery labels and the pool label', () => {
    assert.deepEqual(
      nodes.map((n) => n.metadata?.name),
      ['gpu-a100-0', 'gpu-a100-1', 'gpu-a100-2', 'gpu-h100-0', 'gpu-a10-0', 'gpu-a10-1'],
    );
    const h100 = nodes[3]?.metadata?.labels ?? {};
    assert.equal(h100['node.kubernetes.io/instance-type'], 'Standard_NC80adis_H100_v5');
    assert.equal(h100['kubernetes.io/hostname'], 'gpu-h100-0');
    assert.equal(h100['kubernetes.io/os'], 'linux');
    assert.equal(h100['nvidia.com/gpu.count'], '2');
    assert.equal(h100['nvidia.com/gpu.memory'], '96256');
    assert.equal(h100['kaito.sh/sim-pool'], 'h100');
    assert.equal(h100['kaito.sh/sim-nvme'], 'true');
    assert.equal(nodes[4]?.metadata?.labels?.['kaito.sh/sim-nvme'], 'false');
  });

  it('capacity and allocatable carry nvidia.com/gpu = the SKU GPU count; no taints', () => {
    for (const [i, n] of nodes.entries()) {
      const want = String(defaults.flatMap((p) => Array<number>(p.count).fill(p.gpu.count))[i]);
      assert.equal(n.status?.capacity?.['nvidia.com/gpu'], want);
      assert.equal(n.status?.allocatable?.['nvidia.com/gpu'], want);
      assert.equal(n.spec?.taints, undefined);
    }
  });

  it('gives every node its own InternalIP', () => {
    const ips = nodes.map((n) => n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address);
    assert.equal(new Set(ips).size, nodes.length);
  });
});

describe('NVMe storage', () => {
  it('is a no-provisioner, WaitForFirstConsumer class', () => {
    const sc = storageClassManifest();
    assert.equal(sc.metadata?.name, 'kaito-local-nvme-disk');
    assert.equal(sc.provisioner, 'kubernetes.io/no-provisioner');
    assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
  });

  it('puts 4 Retain PVs of at least 800Gi on each NVMe node, none on the A10s', () => {
    const pvs = localPvManifests(defaults);
    assert.equal(pvs.length, 4 * 4);
    for (const pv of pvs) {
      const node = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values?.[0] ?? '';
      assert.match(node, /^gpu-(a100|h100)-\d$/);
      assert.ok(pv.metadata?.name?.startsWith(`nvme-${node}-`));
      assert.equal(pv.spec?.storageClassName, NVME_STORAGE_CLASS);
      assert.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Retain');
      assert.ok(Number.parseInt(pv.spec?.capacity?.storage ?? '0', 10) >= 800 && pv.spec?.capacity?.storage?.endsWith('Gi'));
    }
  });
});

describe('component command lines', () => {
  const list = components(layout);

  it('starts etcd, apiserver, controller-manager, scheduler, kwok, the GPU provisioner and the metrics adapter on distinct loopback ports', () => {
    assert.deepEqual(
      list.map((c) => c.name),
      ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok', 'gpu-provisioner', 'metrics-adapter'],
    );
    const ports = list.flatMap((c) => c.ports);
    assert.equal(new Set(ports).size, ports.length);
    const ours = ['gpu-provisioner', 'metrics-adapter'];
    for (const c of list) assert.equal(c.binary, ours.includes(c.name) ? process.execPath : join(layout.binDir, c.name));
    for (const c of list) assert.ok(!c.args.join(' ').includes('0.0.0.0'), `${c.name} binds loopback only`);
  });

  it('runs the aggregation layer: a front-proxy client pair of its own CA; an apiserver without it is restarted once', () => {
    const api = list.find((c) => c.name === 'kube-apiserver');
    const args = api?.args ?? [];
    for (const flag of [
      `--requestheader-client-ca-file=${join(layout.pkiDir, 'front-proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy-client',
      `--proxy-client-cert-file=${join(layout.pkiDir, 'front-proxy-client.crt')}`,
      `--proxy-client-key-file=${join(layout.pkiDir, 'front-proxy-client.key')}`,
    ])
      assert.ok(args.includes(flag), flag);
    assert.equal(api?.stale?.(args), false);
    assert.equal(api?.stale?.(args.filter((a) => !a.startsWith('--proxy-client'))), true);
    const kcm = list.find((c) => c.name === 'kube-controller-manager');
    assert.ok(kcm?.args.includes('--horizontal-pod-autoscaler-sync-period=3s'));
    assert.equal(kcm?.stale?.(kcm.args.filter((a) => !a.startsWith('--horizontal-pod-autoscaler'))), true);
    const adapter = list.find((c) => c.name === 'metrics-adapter');
    assert.equal(adapter?.healthUrl, `https://127.0.0.1:${layout.ports.metricsAdapter}/healthz`);
    assert.ok(adapter?.args.includes(`--cert=${join(layout.pkiDir, 'metrics-adapter.crt')}`));
  });

  it('runs the apiserver with RBAC and the loopback advertise address', () => {
    const args = list.find((c) => c.name === 'kube-apiserver')?.args ?? [];
    for (const flag of [
      '--authorization-mode=Node,RBAC',
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      `--secure-port=${layout.ports.apiserver}`,
    ]) {
      assert.ok(args.includes(flag), flag);
    }
  });

  it('gives kwok the stages next to the binaries and every node to manage', () => {
    const args = list.find((c) => c.name === 'kwok')?.args ?? [];
    assert.ok(args.includes(`--config=${join(layout.binDir, 'kwok-stages.yaml')}`));
    assert.ok(args.includes('--manage-all-nodes=true'));
  });

  it('adds Karpenter only when asked: flags for everything but the kubeconfig, its own ports and cache folder', () => {
    assert.ok(!list.some((c) => c.name === 'karpenter'));
    const all = components(layout, { karpenter: true });
    const k = all.at(-1);
    assert.equal(k?.name, 'karpenter');
    assert.equal(k?.binary, join(layout.karpenterBinDir, 'karpenter-kwok'));
    assert.deepEqual(k?.env, { KUBECONFIG: layout.kubeconfigPath });
    for (const flag of [
      '--disable-leader-election=true',
      '--feature-gates=StaticCapacity=true',
      `--instance-types-file-path=${layout.instanceTypesPath}`,
      `--health-probe-port=${layout.ports.karpenterHealth}`,
      `--metrics-port=${layout.ports.karpenterMetrics}`,
    ]) {
      assert.ok(k?.args.includes(flag), flag);
    }
    assert.equal(k?.healthUrl, `http://127.0.0.1:${layout.ports.karpenterHealth}/readyz`);
    const ports = all.flatMap((c) => c.ports);
    assert.equal(new Set(ports).size, ports.length);
    assert.equal(k?.stale?.(k.args), false);
    assert.equal(k?.stale?.(k.args.filter((a) => !a.startsWith('--feature-gates'))), true);
    const shifted = components(layoutFor({ KAITO_TS_SIM_PORT_OFFSET: '3000' }), { karpenter: true }).at(-1);
    assert.deepEqual(shifted?.ports, [DEFAULT_PORTS.karpenterHealth + 3000, DEFAULT_PORTS.karpenterMetrics + 3000]);
  });
});

describe('kubeconfigs and env', () => {
  it('admin uses the client certificate, token users the token and namespace', () => {
    type Kc = {
      clusters: [{ cluster: { server: string } }];
      users: [{ user: unknown }];
      contexts: [{ context: { namespace?: string } }];
      'current-context': string;
    };
    const admin = parse(adminKubeconfig({ server: 'https://127.0.0.1:1', caFile: '/ca', certFile: '/c', keyFile: '/k' })) as Kc;
    assert.equal(admin.clusters[0].cluster.server, 'https://127.0.0.1:1');
    assert.deepEqual(admin.users[0].user, { 'client-certificate': '/c', 'client-key': '/k' });
    const tok = parse(tokenKubeconfig({ server: 'https://x', caFile: '/ca', user: 'u', token: 't0k', namespace: 'ns' })) as Kc;
    assert.deepEqual(tok.users[0].user, { token: 't0k' });
    assert.equal(tok.contexts[0].context.namespace, 'ns');
    assert.equal(tok['current-context'], 'u');
  });

  it('env prints eval-able exports with quoted paths', () => {
    const l = { ...layout, kubeconfigPath: "/it's/kc", binDir: '/b in' };
    assert.equal(envLines(l), `export KUBECONFIG='/it'\\''s/kc'\nexport PATH='/b in':"$PATH"\n`);
  });
});
