// metav1.LabelSelector semantics (matchLabels AND matchExpressions), used by the cache and by
// anything that selects nodes or pods without a server round trip.
import type { V1Affinity, V1LabelSelector, V1NodeSelectorRequirement } from '@kubernetes/client-node';
import type { DeepReadonly } from './readonly.js';

export type Labels = Readonly<Record<string, string>> | undefined;

/** An empty selector matches everything; an absent (undefined) one matches nothing, as in Kubernetes. */
export function matchesSelector(selector: V1LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const value = l[e.key];
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new Error(`unknown label selector operator ${e.operator}`);
    }
  }
  return true;
}

/** What a requirement of a node selector term needs of the labels (Gt and Lt compare integers, as the scheduler does). */
function requirementMet(r: DeepReadonly<V1NodeSelectorRequirement>, labels: Readonly<Record<string, string>>): boolean {
  if (r.operator !== 'Gt' && r.operator !== 'Lt')
    return matchesSelector({ matchExpressions: [{ key: r.key, operator: r.operator, values: [...(r.values ?? [])] }] }, labels);
  const value = Number.parseInt(labels[r.key] ?? '', 10);
  const bound = Number.parseInt(r.values?.[0] ?? '', 10);
  if (Number.isNaN(value) || Number.isNaN(bound)) return false;
  return r.operator === 'Gt' ? value > bound : value < bound;
}

/**
 * Whether a pod's required node affinity admits a node of these labels: any term whose expressions all
 * hold (terms are ORed, expressions ANDed); no required affinity admits every node. Field terms are not
 * evaluated (they name nodes, not labels) and count as met.
 */
export function nodeAffinityAdmits(affinity: DeepReadonly<V1Affinity> | undefined, labels: Labels): boolean {
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  const l = labels ?? {};
  return terms.some((t) => (t.matchExpressions ?? []).every((r) => requirementMet(r, l)));
}
