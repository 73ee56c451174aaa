// HTTP probes of a single-node inference server (spec §5.6): /health on port 5000.
import type { V1Probe } from '@kubernetes/client-node';
import { VLLM_PORT } from './distributed.js';

function health(initialDelaySeconds: number): V1Probe {
  return { httpGet: { path: '/health', port: VLLM_PORT }, initialDelaySeconds, periodSeconds: 10 };
}

/** Ten minutes before the first liveness check: loading weights takes a while. */
export function livenessProbe(): V1Probe {
  return health(600);
}

export function readinessProbe(): V1Probe {
  return health(30);
}
