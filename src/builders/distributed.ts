// Multi-node vLLM (spec §5.4, §5.6): pod 0 starts the Ray head and the API server, the other pods join
// as Ray workers; each pod learns its index from the StatefulSet's pod-index label via the downward API.
import type { V1EnvVar, V1Probe } from '@kubernetes/client-node';
import { LABEL_POD_INDEX } from '../api/labels.js';
import type { Preset, Runtime } from '../catalog/types.js';
import { renderFlags } from './command.js';

export const RAY_PORT = 6379;
export const VLLM_PORT = 5000;
/** vLLM's KV-cache events (ZMQ), announced by KAITO v0.12's pods and main Service. */
export const KV_EVENTS_PORT = 5557;
export const KV_EVENTS_PORT_NAME = 'kv-events';
const HEALTH_CHECK = 'python3 /workspace/vllm/multi-node-health-check.py';

/** One vLLM server spread over several nodes: a distributed-capable preset, vLLM and more than one node. */
export function isDistributed(preset: Preset, runtime: Runtime, numNodes: number): boolean {
  return preset.supportDistributedInference && runtime === 'vllm' && numNodes > 1;
}

export function podIndexEnv(): V1EnvVar {
  return { name: 'POD_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${LABEL_POD_INDEX}']` } } };
}

/** `if pod 0: ray leader; vllm server; else: ray worker` as one shell string. */
export function multiNodeCommand(preset: Preset, numNodes: number, leaderAddress: string, server: string): string {
  const leader = renderFlags(preset.vllm.rayLeaderBaseCommand ?? '', [
    ['ray_cluster_size', String(numNodes)],
    ['ray_port', String(RAY_PORT)],
  ]);
  const worker = renderFlags(preset.vllm.rayWorkerBaseCommand ?? '', [
    ['ray_address', leaderAddress],
    ['ray_port', String(RAY_PORT)],
  ]);
  return `if [ "\${POD_INDEX}" = "0" ]; then ${leader}; ${server}; else ${worker}; fi`;
}

function execProbe(args: string): V1Probe['exec'] {
  return { command: ['/bin/sh', '-c', `${HEALTH_CHECK} ${args}`] };
}

/** Liveness follows the Ray job on the leader; workers fail with it so the whole group restarts. */
export function distributedLivenessProbe(leaderAddress: string): V1Probe {
  return {
    exec: execProbe(`liveness --leader-address=${leaderAddress} --ray-port=${RAY_PORT}`),
    initialDelaySeconds: 60,
    periodSeconds: 10,
    timeoutSeconds: 5,
    failureThreshold: 1,
    terminationGracePeriodSeconds: 1,
  };
}

/** Readiness asks the leader's API server for /health; as a startup probe it may fail for `startupFailures` periods. */
export function distributedReadinessProbe(leaderAddress: string, startupFailures = 1): V1Probe {
  return {
    exec: execProbe(`readiness --leader-address=${leaderAddress} --vllm-port=${VLLM_PORT}`),
    periodSeconds: 10,
    timeoutSeconds: 1,
    failureThreshold: startupFailures,
  };
}
