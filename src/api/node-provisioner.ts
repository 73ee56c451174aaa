// `--node-provisioner` (KAITO v0.11+): who makes GPU nodes. The flag and the older feature gate
// `disableNodeAutoProvisioning` say the same thing twice, so they are kept in step here, once.
import type { FeatureGates } from './feature-gates.js';

export const NODE_PROVISIONERS = ['azure-gpu-provisioner', 'karpenter', 'byo'] as const;
export type NodeProvisioner = (typeof NODE_PROVISIONERS)[number];
export const DEFAULT_NODE_PROVISIONER: NodeProvisioner = 'azure-gpu-provisioner';

export interface ResolvedProvisioner {
  provisioner: NodeProvisioner;
  featureGates: FeatureGates;
  /** Set when the flag overrode a gate that said otherwise (KAITO overrides silently). */
  warning?: string;
}

/**
 * The flag wins when given, and sets the gate as KAITO does (byo → disabled, otherwise enabled).
 * Without the flag the gate decides, so a v0.8.0 install with the gate on keeps bring-your-own nodes.
 */
export function resolveNodeProvisioner(flag: string | undefined, gates: FeatureGates, gateExplicit: boolean): ResolvedProvisioner {
  if (flag === undefined) {
    return { provisioner: gates.disableNodeAutoProvisioning ? 'byo' : DEFAULT_NODE_PROVISIONER, featureGates: gates };
  }
  if (!(NODE_PROVISIONERS as readonly string[]).includes(flag)) {
    throw new Error(`--node-provisioner must be one of ${NODE_PROVISIONERS.join('|')}, got "${flag}"`);
  }
  const provisioner = flag as NodeProvisioner;
  const disable = provisioner === 'byo';
  if (gates.disableNodeAutoProvisioning === disable) return { provisioner, featureGates: gates };
  const featureGates = Object.freeze({ ...gates, disableNodeAutoProvisioning: disable });
  return gateExplicit
    ? { provisioner, featureGates, warning: `--node-provisioner=${provisioner} overrides --feature-gates disableNodeAutoProvisioning=${!disable}` }
    : { provisioner, featureGates };
}
