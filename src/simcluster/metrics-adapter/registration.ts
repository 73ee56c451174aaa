// How the aggregation layer finds the metrics adapter, as a real cluster registers Prometheus
// adapter or KEDA: an APIService for external.metrics.k8s.io/v1beta1 backed by a Service. The
// adapter runs on the host, so the Service is an ExternalName for localhost: the aggregator then
// dials https://localhost:<port> and checks the adapter's certificate for <service>.<namespace>.svc.
import { readFileSync } from 'node:fs';
import type { KubeConfig, KubernetesObject, V1Service } from '@kubernetes/client-node';
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { EXTERNAL_METRICS_GROUP, EXTERNAL_METRICS_VERSION } from './metrics-adapter.js';

export const ADAPTER_SERVICE = { namespace: 'kube-system', name: 'sim-metrics-adapter' };
/** The names the adapter's serving certificate carries: what the aggregator verifies, and localhost. */
export const ADAPTER_DNS_NAMES = [`${ADAPTER_SERVICE.name}.${ADAPTER_SERVICE.namespace}.svc`, 'localhost'];
const FIELD_MANAGER = 'kaito-ts-simcluster';

export interface ServiceRef {
  namespace: string;
  name: string;
}

/**
 * The Service and the APIService, for the adapter on `port` behind `ref` (the simcluster's own by
 * default; KEDA's metrics server on a cluster with KEDA), trusted through the CA `caPem`. Pure.
 */
export function adapterRegistration(port: number, caPem: string, ref: ServiceRef = ADAPTER_SERVICE): KubernetesObject[] {
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { ...ref },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] },
  };
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${EXTERNAL_METRICS_VERSION}.${EXTERNAL_METRICS_GROUP}` },
    spec: {
      group: EXTERNAL_METRICS_GROUP,
      version: EXTERNAL_METRICS_VERSION,
      service: { ...ref, port },
      caBundle: Buffer.from(caPem).toString('base64'),
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
  };
  return [service, apiService];
}

/**
 * Applies both (server-side apply: a changed port, Service or CA is updated, an unchanged one is a no-op).
 * The APIService has one name per group-version, so the last registration wins.
 */
export async function registerMetricsAdapter(kc: KubeConfig, port: number, caFile: string, ref: ServiceRef = ADAPTER_SERVICE): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  for (const obj of adapterRegistration(port, readFileSync(caFile, 'utf8'), ref))
    await api.patch(obj, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
}
