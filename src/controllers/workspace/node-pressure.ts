// Kubelet resource-pressure conditions of nodes, as KAITO v0.12 reports them on NodesReady (a
// warning that leaves the status as it is) and as pod-problems.ts blames a not-ready pod on them.
import type { V1Node } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { perFrozenList } from '../../runtime/memo.js';

/** Display order as in KAITO (pkg/utils/nodes/nodes.go): disk, memory, PID. */
const PRESSURE_CONDITIONS = ['DiskPressure', 'MemoryPressure', 'PIDPressure'] as const;
export type PressureCondition = (typeof PRESSURE_CONDITIONS)[number];

/** The pressure conditions that are True on `node`, in display order. */
export function nodePressures(node: DeepReadonly<V1Node> | undefined): PressureCondition[] {
  return PRESSURE_CONDITIONS.filter((type) => node?.status?.conditions?.some((c) => c.type === type && c.status === 'True'));
}

/** `worker node(s) under resource pressure: a (DiskPressure); b (MemoryPressure, PIDPressure)`, or undefined. */
export const nodePressureWarning = perFrozenList((nodes: readonly DeepReadonly<V1Node>[]): string | undefined => {
  const details = nodes.flatMap((n) => {
    const pressures = nodePressures(n);
    return pressures.length ? [`${n.metadata?.name} (${pressures.join(', ')})`] : [];
  });
  return details.length ? `worker node(s) under resource pressure: ${details.join('; ')}` : undefined;
});
