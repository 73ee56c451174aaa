// LabelSelector → flat map, as apimachinery's metav1.LabelSelectorAsMap: matchLabels plus every
// `In` expression with exactly one value. The CRD already refuses anything else; this is what the
// controller uses for node listing, affinity and NodeClaim labels (so single-value `In` expressions
// are honoured, unlike KAITO which validates them and then ignores them, W25).
import type { V1LabelSelector } from '@kubernetes/client-node';
import type { DeepReadonly } from '../runtime/readonly.js';
import {
  LABEL_KARPENTER_INFERENCESET,
  LABEL_KARPENTER_INFERENCESET_NAMESPACE,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
  LABEL_RAGENGINE_NAME,
  LABEL_RAGENGINE_NAMESPACE,
  LABEL_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAMESPACE,
} from './labels.js';
import { Msg } from './messages.js';

export type SelectorMap = Record<string, string>;

export function labelSelectorAsMap(selector: V1LabelSelector | undefined): { ok: true; map: SelectorMap } | { ok: false; message: string } {
  const map: SelectorMap = { ...(selector?.matchLabels ?? {}) };
  for (const expr of selector?.matchExpressions ?? []) {
    const values = expr.values ?? [];
    if (expr.operator !== 'In' || values.length !== 1) return { ok: false, message: Msg.labelSelectorFlat };
    map[expr.key] = values[0] as string;
  }
  return { ok: true, map };
}

/**
 * Keys KAITO's controllers stamp on their own NodeClaims, Nodes and NodePools (KAITO v0.12
 * reservedSelectorLabelKeys): a user selector naming them could target another workspace's nodes.
 */
export const RESERVED_SELECTOR_KEYS: ReadonlySet<string> = new Set([
  LABEL_WORKSPACE_NAME,
  LABEL_RAGENGINE_NAME,
  LABEL_WORKSPACE_NAMESPACE,
  LABEL_RAGENGINE_NAMESPACE,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
  LABEL_KARPENTER_INFERENCESET,
  LABEL_KARPENTER_INFERENCESET_NAMESPACE,
]);

/** KAITO v0.12 SanitizedMatchLabels: `matchLabels` without the reserved keys (expressions are not read). */
export function sanitizedMatchLabels(selector: DeepReadonly<V1LabelSelector> | undefined): SelectorMap {
  return Object.fromEntries(Object.entries(selector?.matchLabels ?? {}).filter(([k]) => !RESERVED_SELECTOR_KEYS.has(k)));
}
