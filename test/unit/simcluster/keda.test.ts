// KEDA's command lines on a cluster with it: loopback listeners inside the cluster's port range, the
// gRPC link between its two processes, its certificates from the cluster's PKI, the supervisor flag.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { components, everyComponent, supervisorCommand } from '../../../src/simcluster/components.js';
import { KEDA_ADAPTER_SERVICE, kedaAdapterArgs, kedaOperatorArgs } from '../../../src/simcluster/keda/keda.js';
import { DEFAULT_PORTS, layoutFor } from '../../../src/simcluster/layout.js';
import { adapterRegistration } from '../../../src/simcluster/metrics-adapter/registration.js';

const l = layoutFor({ KAITO_TS_CACHE: '/cache', KAITO_TS_SIMCLUSTER_DIR: '/tmp/sim-k', KAITO_TS_SIM_PORT_OFFSET: '2300' });
const flag = (args: string[], name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

describe('KEDA on the simcluster', () => {
  it('runs only when asked for, after every other component, the operator before its metrics server', () => {
    assert.ok(!components(l).some((c) => c.name.startsWith('keda')));
    const names = components(l, { keda: true }).map((c) => c.name);
    assert.deepEqual(names.slice(-2), ['keda-operator', 'keda-adapter']);
  });

  it('binds every listener of the operator on 127.0.0.1 at ports moved by the offset', () => {
    const args = kedaOperatorArgs(l);
    assert.equal(flag(args, 'health-probe-bind-address'), `127.0.0.1:${DEFAULT_PORTS.kedaOperatorHealth + 2300}`);
    assert.equal(flag(args, 'metrics-bind-address'), `127.0.0.1:${DEFAULT_PORTS.kedaOperatorMetrics + 2300}`);
    assert.equal(flag(args, 'metrics-service-bind-address'), `127.0.0.1:${DEFAULT_PORTS.kedaMetricsService + 2300}`);
    assert.equal(flag(args, 'leader-elect'), 'false');
    assert.equal(flag(args, 'enable-cert-rotation'), 'false');
    assert.equal(flag(args, 'cert-dir'), '/tmp/sim-k/keda-certs');
    assert.equal(flag(args, 'kubeconfig'), '/tmp/sim-k/admin.kubeconfig');
  });

  it('points the metrics server at the operator over loopback and serves with the pair it dials with', () => {
    const args = kedaAdapterArgs(l);
    assert.equal(flag(args, 'metrics-service-address'), flag(kedaOperatorArgs(l), 'metrics-service-bind-address'));
    assert.equal(flag(args, 'bind-address'), '127.0.0.1');
    assert.equal(flag(args, 'secure-port'), String(DEFAULT_PORTS.kedaAdapter + 2300));
    assert.equal(flag(args, 'port'), String(DEFAULT_PORTS.kedaAdapterMetrics + 2300));
    assert.equal(flag(args, 'tls-cert-file'), '/tmp/sim-k/keda-certs/tls.crt');
    assert.equal(flag(args, 'cert-dir'), flag(kedaOperatorArgs(l), 'cert-dir'));
    for (const k of ['kubeconfig', 'lister-kubeconfig', 'authentication-kubeconfig', 'authorization-kubeconfig'])
      assert.equal(flag(args, k), '/tmp/sim-k/admin.kubeconfig', k);
  });

  it('gives both the namespaces KEDA reads from its environment, and checks their ports before start', () => {
    const [operator, adapter] = components(l, { keda: true }).slice(-2);
    for (const c of [operator, adapter]) {
      assert.deepEqual(c?.env, { WATCH_NAMESPACE: '', POD_NAMESPACE: 'keda', KEDA_CLUSTER_OBJECT_NAMESPACE: 'keda' });
      assert.equal(c?.binary.startsWith('/cache/simcluster/keda-v'), true);
      assert.equal(c?.stale?.(c.args), false);
      assert.equal(c?.stale?.([...c.args, '--extra']), true);
    }
    assert.equal(operator?.ports.length, 3);
    assert.equal(adapter?.ports.length, 2);
    const all = everyComponent(l).flatMap((c) => c.ports);
    assert.equal(new Set(all).size, all.length);
  });

  it('registers the external metrics APIService to KEDA, verified with the cluster CA', () => {
    const [service, apiService] = adapterRegistration(27256, 'PEM', KEDA_ADAPTER_SERVICE) as [
      { metadata: { namespace: string; name: string }; spec: { externalName: string } },
      { metadata: { name: string }; spec: { service: unknown; caBundle: string; insecureSkipTLSVerify?: boolean } },
    ];
    assert.deepEqual(service.metadata, { namespace: 'keda', name: 'keda-metrics-apiserver' });
    assert.equal(service.spec.externalName, 'localhost');
    assert.equal(apiService.metadata.name, 'v1beta1.external.metrics.k8s.io');
    assert.deepEqual(apiService.spec.service, { namespace: 'keda', name: 'keda-metrics-apiserver', port: 27256 });
    assert.equal(apiService.spec.caBundle, Buffer.from('PEM').toString('base64'));
    assert.equal(apiService.spec.insecureSkipTLSVerify, undefined);
  });

  it('tells the supervisor, so it restarts KEDA too', () => {
    assert.ok(supervisorCommand(l, 'etcd=1Gi', { keda: true }).args.includes('--keda'));
    assert.ok(!supervisorCommand(l, 'etcd=1Gi').args.includes('--keda'));
  });
});
