// LabelSelector → flat map, as apimachinery's metav1.LabelSelectorAsMap: matchLabels plus every
// `In` expression with exactly one value. The CRD already refuses anything else; this is what the
// controller uses for node listing, affinity and NodeClaim labels (so single-value `In` expressions
// are honoured, unlike KAITO which validates them and then ignores them, W25).
import type { V1LabelSelector } from '@kubernetes/client-node';
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
