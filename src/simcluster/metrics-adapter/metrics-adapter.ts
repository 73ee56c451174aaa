// The simcluster's external metrics adapter: what a metrics pipeline (Prometheus adapter, KEDA's
// metrics server) serves a real cluster under external.metrics.k8s.io, so kube-controller-manager's
// HPA controller can scale an InferenceSet on an external metric. Values come from a ConfigMap the
// tests write in the HPA's namespace (data: metric name → quantity). Pure: a request path in, an answer out.
// Simcluster only, never the product.

export const EXTERNAL_METRICS_GROUP = 'external.metrics.k8s.io';
export const EXTERNAL_METRICS_VERSION = 'v1beta1';
/** The ConfigMap, in the namespace the HPA asks about, whose data holds the metric values. */
export const METRIC_VALUES_CONFIGMAP = 'sim-external-metrics';

const GROUP_VERSION = `${EXTERNAL_METRICS_GROUP}/${EXTERNAL_METRICS_VERSION}`;
const BASE = `/apis/${GROUP_VERSION}`;
/** A metric name as the apiserver's path segments allow (what the ConfigMap can hold as a key). */
const METRIC_NAME = /^[A-Za-z0-9_.-]+$/;

export type MetricsRequest = { kind: 'health' } | { kind: 'discovery' } | { kind: 'metric'; namespace: string; metric: string } | { kind: 'unknown' };

/** What a GET of `path` (query string stripped or not) asks for. */
export function routeOf(path: string): MetricsRequest {
  const p = path.split('?')[0] ?? '';
  if (p === '/healthz' || p === '/readyz' || p === '/livez') return { kind: 'health' };
  if (p === BASE || p === `${BASE}/`) return { kind: 'discovery' };
  const [namespace, metric, ...more] = p.startsWith(`${BASE}/namespaces/`) ? p.slice(`${BASE}/namespaces/`.length).split('/') : [];
  if (namespace && metric && !more.length && METRIC_NAME.test(metric)) return { kind: 'metric', namespace: decodeURIComponent(namespace), metric };
  return { kind: 'unknown' };
}

export interface Answer {
  status: number;
  body: unknown;
}

/** The API resource list the aggregator's availability check and the HPA's discovery read. */
export function discovery(): Answer {
  return {
    status: 200,
    body: {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: GROUP_VERSION,
      resources: [{ name: 'externalmetrics', singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] }],
    },
  };
}

function status(code: number, reason: string, message: string): Answer {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code } };
}

/** The value list for `metric`, or a 404 the HPA reports as the reason it cannot scale. */
export function metricAnswer(namespace: string, metric: string, values: Readonly<Record<string, string>> | undefined, now: Date): Answer {
  const value = values?.[metric];
  if (value === undefined)
    return status(404, 'NotFound', `no value for external metric "${metric}" in namespace ${namespace} (ConfigMap ${METRIC_VALUES_CONFIGMAP})`);
  return {
    status: 200,
    body: {
      kind: 'ExternalMetricValueList',
      apiVersion: GROUP_VERSION,
      metadata: {},
      items: [{ metricName: metric, metricLabels: {}, timestamp: now.toISOString(), value: value.trim() }],
    },
  };
}

export function notFound(path: string): Answer {
  return status(404, 'NotFound', `the metrics adapter serves no ${path.split('?')[0]}`);
}
