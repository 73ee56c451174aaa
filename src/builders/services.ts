// The two Services of every inference workspace (spec §4.8): the main one routes to pod 0 (the only pod
// running the API server when distributed); the headless one gives pods stable DNS names for Ray.
import type { V1Service } from '@kubernetes/client-node';
import { ANNOTATION_ENABLE_LB, ENABLE_LB_VALUE, LABEL_STATEFULSET_POD_NAME, LABEL_WORKSPACE_NAME } from '../api/labels.js';
import type { Decision, Workspace } from '../api/types.js';
import { RAY_PORT, VLLM_PORT } from './distributed.js';
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

export function mainService(ws: Workspace): V1Service {
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
      ],
      publishNotReadyAddresses: true,
    },
  };
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
