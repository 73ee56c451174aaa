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

/** KAITO v0.12: no delay (the startup probe covers the load), three failures. */
export function livenessProbeV012(): V1Probe {
  return { httpGet: { path: '/health', port: VLLM_PORT }, periodSeconds: 10, failureThreshold: 3 };
}

export function readinessProbe(): V1Probe {
  return health(30);
}

/** Probe period while the model loads; the window is period × failureThreshold. */
export const STARTUP_PERIOD_SECONDS = 10;

/** Failures allowed so the startup window covers `timeoutSeconds` (KAITO v0.10: ceil(timeout / 10 s)). */
export function startupFailureThreshold(timeoutSeconds: number): number {
  return Math.ceil(timeoutSeconds / STARTUP_PERIOD_SECONDS);
}

/**
 * KAITO v0.10's startup probe: liveness and readiness start only once /health answers, so a model
 * still loading is never killed by liveness, for up to the preset's readiness timeout.
 */
export function startupProbe(timeoutSeconds: number): V1Probe {
  return { httpGet: { path: '/health', port: VLLM_PORT }, periodSeconds: STARTUP_PERIOD_SECONDS, failureThreshold: startupFailureThreshold(timeoutSeconds) };
}
