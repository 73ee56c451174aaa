// Reading standard `status.conditions` of built-in objects (Pods, Nodes, …): one helper for all.

interface WithConditions {
  status?: { conditions?: ReadonlyArray<{ type: string; status: string }> };
}

/** True when the object reports condition `type` with status "True". */
export function hasTrueCondition(obj: WithConditions | undefined, type: string): boolean {
  return obj?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

/** Pod or Node `Ready=True`. */
export const isReady = (obj: WithConditions | undefined): boolean => hasTrueCondition(obj, 'Ready');
