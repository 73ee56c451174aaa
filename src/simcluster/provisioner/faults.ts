// Faults tests inject at run time, without restarting the provisioner: annotations on a NodeClaim,
// or ConfigMaps in the `kaito-ts-sim` namespace that match claims by SKU, claim name or workspace.
// Pure: the caller passes the claim and the ConfigMaps from its cache.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { parseDuration } from '../../runtime/duration.js';
import { instanceTypeOf, WORKSPACE_LABEL, WORKSPACE_NAMESPACE_LABEL, type NodeClaim } from './claim-view.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export const FAULT_NAMESPACE = 'kaito-ts-sim';
const ANNOTATION_PREFIX = 'sim.kaito-ts.io/';

/** Fault keys: the ConfigMap data key, or the annotation `sim.kaito-ts.io/<key>`. */
export const FaultKey = {
  /** Launch fails with this message (quota, SKU unavailable, auth…). */
  launchError: 'launch-error',
  /** The VM starts but its node never joins: launch times out and is retried. */
  neverRegister: 'never-register',
  /** The node turns NotReady (kwok's chaos Stage) while the fault holds. */
  notReady: 'not-ready',
  /** NodeRepair for this claim after this duration instead of --repair-after (e.g. `5s`). */
  repairAfter: 'repair-after',
} as const;

/** ConfigMap keys that select claims; a ConfigMap with none of them matches nothing. */
export const MatchKey = {
  instanceType: 'instance-type',
  nodeClaim: 'nodeclaim',
  /** `<namespace>/<name>` of the workspace, from the claim's kaito.sh labels. */
  workspace: 'workspace',
} as const;

export interface Faults {
  launchError?: string;
  neverRegister: boolean;
  notReady: boolean;
  repairAfterMs?: number;
  /** Where each fault came from (`annotation`, `configmap <name>`), for logs and messages. */
  sources: string[];
}

const isTrue = (v: string | undefined): boolean => v !== undefined && ['true', 'yes', '1'].includes(v.trim().toLowerCase());

/** True when the ConfigMap names at least one selector and every selector it names matches the claim. */
export function configMapMatches(cm: DeepReadonly<V1ConfigMap>, claim: DeepReadonly<NodeClaim>): boolean {
  const data = cm.data ?? {};
  const labels = claim.metadata?.labels ?? {};
  const checks: [string | undefined, string | undefined][] = [
    [data[MatchKey.instanceType], instanceTypeOf(claim)],
    [data[MatchKey.nodeClaim], claim.metadata?.name],
    [data[MatchKey.workspace], `${labels[WORKSPACE_NAMESPACE_LABEL] ?? ''}/${labels[WORKSPACE_LABEL] ?? ''}`],
  ];
  const named = checks.filter(([want]) => want !== undefined);
  return named.length > 0 && named.every(([want, have]) => want?.trim() === have);
}

/** The faults that apply to a claim: its own annotations first, then matching ConfigMaps in name order. */
export function faultsFor(claim: DeepReadonly<NodeClaim>, configMaps: readonly DeepReadonly<V1ConfigMap>[]): Faults {
  const out: Faults = { neverRegister: false, notReady: false, sources: [] };
  const layers: [string, Record<string, string>][] = [];
  const annotations = claim.metadata?.annotations ?? {};
  const fromAnnotations = Object.fromEntries(
    Object.entries(annotations)
      .filter(([k]) => k.startsWith(ANNOTATION_PREFIX))
      .map(([k, v]) => [k.slice(ANNOTATION_PREFIX.length), v]),
  );
  if (Object.keys(fromAnnotations).length > 0) layers.push(['annotation', fromAnnotations]);
  const sorted = [...configMaps].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const cm of sorted) if (configMapMatches(cm, claim)) layers.push([`configmap ${FAULT_NAMESPACE}/${cm.metadata?.name ?? ''}`, cm.data ?? {}]);
  for (const [source, data] of layers) {
    let used = false;
    const message = data[FaultKey.launchError];
    if (out.launchError === undefined && message !== undefined && message.trim() !== '') {
      out.launchError = message.trim();
      used = true;
    }
    if (!out.neverRegister && isTrue(data[FaultKey.neverRegister])) out.neverRegister = used = true;
    if (!out.notReady && isTrue(data[FaultKey.notReady])) out.notReady = used = true;
    const repair = data[FaultKey.repairAfter];
    if (out.repairAfterMs === undefined && repair !== undefined) {
      try {
        out.repairAfterMs = parseDuration(repair);
        used = true;
      } catch {
        // a bad duration is no fault: the flag's value applies
      }
    }
    if (used) out.sources.push(source);
  }
  return out;
}
