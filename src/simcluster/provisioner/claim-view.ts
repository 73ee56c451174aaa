// The NodeClaim as gpu-provisioner v0.3.8 reads it (karpenter.sh/v1), and the checks its launch
// makes before it asks Azure for an agent pool. Pure.
import type { KubernetesObject, V1Taint } from '@kubernetes/client-node';
import { tryParseQuantity } from '../../catalog/quantity.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export const WORKSPACE_LABEL = 'kaito.sh/workspace';
export const WORKSPACE_NAMESPACE_LABEL = 'kaito.sh/workspacenamespace';
export const RAGENGINE_LABEL = 'kaito.sh/ragengine';
export const TERMINATION_FINALIZER = 'karpenter.sh/termination';
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
/** gpu-provisioner names the AKS agent pool after the claim; AKS allows only this. */
export const AGENT_POOL_NAME = /^[a-z][a-z0-9]{0,11}$/;
/** Karpenter v1's launch message limit, raised from 300 by gpu-provisioner's patch. */
export const MAX_MESSAGE = 800;

export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface ClaimCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ClaimStatus {
  providerID?: string;
  nodeName?: string;
  imageID?: string;
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  conditions?: ClaimCondition[];
  lastPodEventTime?: string;
}

export interface NodeClaim extends KubernetesObject {
  spec?: {
    nodeClassRef?: { group?: string; kind?: string; name?: string };
    taints?: V1Taint[];
    startupTaints?: V1Taint[];
    requirements?: Requirement[];
    resources?: { requests?: Record<string, string> };
  };
  status?: ClaimStatus;
}

/**
 * gpu-provisioner's patched IsManaged: KAITO's claims, whatever their nodeClassRef, except those of
 * Karpenter's kwok provider (simcluster up --karpenter), which launches them itself.
 */
export function isKaitoClaim(claim: DeepReadonly<NodeClaim>): boolean {
  const labels = claim.metadata?.labels ?? {};
  if (claim.spec?.nodeClassRef?.group === 'karpenter.kwok.sh') return false;
  return WORKSPACE_LABEL in labels || RAGENGINE_LABEL in labels;
}

/** The VM size: the first value of the instance-type requirement (gpu-provisioner's `vmSize`). */
export function instanceTypeOf(claim: DeepReadonly<NodeClaim>): string | undefined {
  const req = claim.spec?.requirements?.find((r) => r.key === INSTANCE_TYPE_LABEL && r.operator === 'In');
  return req?.values?.[0];
}

/** The storage request in bytes (the OS disk size), or undefined when absent or unreadable. */
export function storageBytesOf(claim: DeepReadonly<NodeClaim>): number | undefined {
  const text = claim.spec?.resources?.requests?.storage;
  return text === undefined ? undefined : tryParseQuantity(String(text));
}

/** Why gpu-provisioner would refuse to launch this claim (its own messages), or undefined when it would go ahead. */
export function launchProblem(claim: DeepReadonly<NodeClaim>): string | undefined {
  const name = claim.metadata?.name ?? '';
  if (!AGENT_POOL_NAME.test(name)) {
    return `agentpool name(${name}) is invalid, must match regex pattern: ${AGENT_POOL_NAME.source}`;
  }
  if (instanceTypeOf(claim) === undefined) return 'nodeClaim spec has no requirement for instance type';
  const storage = storageBytesOf(claim);
  if (storage === undefined || storage <= 0) {
    return `storage request of nodeclaim(${name}) should be more than 0`;
  }
  return undefined;
}

/** How gpu-provisioner reports an Azure error from creating the agent pool. */
export function agentPoolError(claimName: string, cloudMessage: string): string {
  return `agentPool.BeginCreateOrUpdate for "${claimName}" failed: ${cloudMessage}`;
}

/** Karpenter truncates launch errors; gpu-provisioner keeps 800 characters. */
export function truncateMessage(message: string): string {
  return message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 3)}...`;
}
