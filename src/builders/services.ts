// The two Services of every inference workspace (spec §4.8): the main one routes to pod 0 (the only pod
// running the API server when distributed); the headless one gives pods stable DNS names for Ray.
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { ANNOTATION_ENABLE_LB, ENABLE_LB_VALUE, LABEL_STATEFULSET_POD_NAME, LABEL_WORKSPACE_NAME } from '../api/labels.js';
import type { Decision, Workspace } from '../api/types.js';
import { KV_EVENTS_PORT, KV_EVENTS_PORT_NAME, RAY_PORT, VLLM_PORT } from './distributed.js';
import { headlessServiceName, ownedMeta, workspaceName } from './meta.js';

export const DASHBOARD_PORT = 8265;

export function serviceType(ws: Workspace): 'LoadBalancer' | 'ClusterIP' {
  return ws.metadata.annotations?.[ANNOTATION_ENABLE_LB] === ENABLE_LB_VALUE ? 'LoadBalancer' : 'ClusterIP';
}

export function serviceTypeDecision(ws: Workspace): Decision {
  const type = serviceType(ws);
  return {
    topic: 'serviceType',
    choice: type,
    reason: type === 'LoadBalancer' ? `annotation ${ANNOTATION_ENABLE_LB}=${ENABLE_LB_VALUE}` : `no ${ANNOTATION_ENABLE_LB}=${ENABLE_LB_VALUE} annotation`,
  };
}

export interface MainServiceOptions {
  /**
   * The workspace's pods are KAITO v0.12's vLLM pods (a catalog or Hugging Face id, vLLM runtime):
   * publish their KV-cache event port too. Legacy names and templates keep KAITO v0.8.0's three ports.
   */
  kvEvents?: boolean;
}

/**
 * KAITO v0.12's `kv-events` Service port: only on a ClusterIP Service, since the ZMQ stream has no
 * authentication and a LoadBalancer would publish it outside the cluster.
 */
function kvEventsPort(ws: Workspace, o: MainServiceOptions): V1ServicePort[] {
  return o.kvEvents && serviceType(ws) === 'ClusterIP'
    ? [{ name: KV_EVENTS_PORT_NAME, protocol: 'TCP', port: KV_EVENTS_PORT, targetPort: KV_EVENTS_PORT }]
    : [];
}

export function mainService(ws: Workspace, o: MainServiceOptions = {}): V1Service {
  const name = workspaceName(ws);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ownedMeta(ws, name),
    spec: {
      type: serviceType(ws),
      selector: { [LABEL_WORKSPACE_NAME]: name, [LABEL_STATEFULSET_POD_NAME]: `${name}-0` },
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: VLLM_PORT },
        { name: 'ray', protocol: 'TCP', port: RAY_PORT, targetPort: RAY_PORT },
        { name: 'dashboard', protocol: 'TCP', port: DASHBOARD_PORT, targetPort: DASHBOARD_PORT },
        ...kvEventsPort(ws, o),
      ],
      publishNotReadyAddresses: true,
    },
  };
}

/** Whether a Service (desired or live) lists the `kv-events` port. */
export function hasKvEventsPort(svc: { spec?: { ports?: readonly { name?: string }[] } } | undefined): boolean {
  return svc?.spec?.ports?.some((p) => p.name === KV_EVENTS_PORT_NAME) ?? false;
}

/** The Service without its `kv-events` port. */
export function withoutKvEventsPort(svc: V1Service): V1Service {
  return { ...svc, spec: { ...svc.spec, ports: svc.spec?.ports?.filter((p) => p.name !== KV_EVENTS_PORT_NAME) } };
}

export function headlessService(ws: Workspace): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ownedMeta(ws, headlessServiceName(ws)),
    spec: {
      clusterIP: 'None',
      selector: { [LABEL_WORKSPACE_NAME]: workspaceName(ws) },
      ports: [],
      publishNotReadyAddresses: true,
    },
  };
}
