// metav1.LabelSelector semantics (matchLabels AND matchExpressions), used by the cache and by
// anything that selects nodes or pods without a server round trip.
import type { V1LabelSelector } from '@kubernetes/client-node';

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
