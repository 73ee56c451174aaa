import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discovery, metricAnswer, METRIC_VALUES_CONFIGMAP, notFound, routeOf } from '../../../src/simcluster/metrics-adapter/metrics-adapter.js';
import { adapterRegistration, ADAPTER_DNS_NAMES, ADAPTER_SERVICE } from '../../../src/simcluster/metrics-adapter/registration.js';

test('metrics adapter routes: health, discovery, one namespaced metric; anything else is unknown', () => {
  const cases: [string, ReturnType<typeof routeOf>][] = [
    ['/healthz', { kind: 'health' }],
    ['/apis/external.metrics.k8s.io/v1beta1', { kind: 'discovery' }],
    ['/apis/external.metrics.k8s.io/v1beta1?timeout=32s', { kind: 'discovery' }],
    ['/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a/queue_depth?labelSelector=', { kind: 'metric', namespace: 'team-a', metric: 'queue_depth' }],
    ['/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a/bad%20name', { kind: 'unknown' }],
    ['/apis/external.metrics.k8s.io/v1beta1/namespaces/team-a', { kind: 'unknown' }],
    ['/apis/custom.metrics.k8s.io/v1beta1/namespaces/team-a/x', { kind: 'unknown' }],
    ['/openapi/v2', { kind: 'unknown' }],
  ];
  for (const [path, want] of cases) assert.deepEqual(routeOf(path), want, path);
});

test('metrics adapter answers: the value from the ConfigMap, a 404 Status naming the ConfigMap when it has none', () => {
  const now = new Date('2026-12-02T10:00:00Z');
  const ok = metricAnswer('team-a', 'queue_depth', { queue_depth: ' 30 ', other: '1' }, now);
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, {
    kind: 'ExternalMetricValueList',
    apiVersion: 'external.metrics.k8s.io/v1beta1',
    metadata: {},
    items: [{ metricName: 'queue_depth', metricLabels: {}, timestamp: '2026-12-02T10:00:00.000Z', value: '30' }],
  });
  for (const values of [undefined, {}, { other: '1' }] as (Record<string, string> | undefined)[]) {
    const missing = metricAnswer('team-a', 'queue_depth', values, now);
    assert.equal(missing.status, 404);
    assert.match((missing.body as { message: string }).message, new RegExp(`queue_depth.*team-a.*${METRIC_VALUES_CONFIGMAP}`));
  }
  assert.equal(notFound('/openapi/v3?x').status, 404);
  const list = discovery().body as { groupVersion: string; resources: { namespaced: boolean; verbs: string[] }[] };
  assert.equal(list.groupVersion, 'external.metrics.k8s.io/v1beta1');
  assert.deepEqual(
    list.resources.map((r) => [r.namespaced, r.verbs]),
    [[true, ['get']]],
  );
});

test('metrics adapter registration: an ExternalName Service for localhost and an APIService trusting the cluster CA', () => {
  const [service, apiService] = adapterRegistration(27253, 'PEM') as [
    { spec: { type: string; externalName: string; ports: { port: number }[] } },
    { metadata: { name: string }; spec: { service: { namespace: string; name: string; port: number }; caBundle: string; insecureSkipTLSVerify?: boolean } },
  ];
  assert.deepEqual([service.spec.type, service.spec.externalName, service.spec.ports[0]?.port], ['ExternalName', 'localhost', 27253]);
  assert.equal(apiService.metadata.name, 'v1beta1.external.metrics.k8s.io');
  assert.deepEqual(apiService.spec.service, { ...ADAPTER_SERVICE, port: 27253 });
  assert.equal(Buffer.from(apiService.spec.caBundle, 'base64').toString(), 'PEM');
  assert.equal(apiService.spec.insecureSkipTLSVerify, undefined, 'the adapter certificate is verified');
  // The aggregator checks the certificate for <service>.<namespace>.svc.
  assert.ok(ADAPTER_DNS_NAMES.includes(`${ADAPTER_SERVICE.name}.${ADAPTER_SERVICE.namespace}.svc`));
});
