// How many replicas the StatefulSet asks for. KAITO asks for targetNodeCount whatever the cluster
// holds: a template with count 100000 got 100,000 pods and took kube-controller-manager down. With
// bring-your-own nodes the nodes are known, and every replica needs a node of its own, so the
// request is bounded by the nodes matching the label selector. Pure.

/** Upper bound on replicas: the matching nodes (any readiness, so a flapping node scales nothing) in BYO mode; none otherwise. */
export function replicaBound(byo: boolean, matchingNodes: number): number | undefined {
  return byo ? Math.max(1, matchingNodes) : undefined;
}

/**
 * Replicas to apply. Creation (`live` undefined): targetNodeCount within the bound. An existing
 * StatefulSet keeps its live value (a user's scale survives, as in KAITO) except that, with a bound,
 * it is raised towards the target as matching nodes appear. It is never lowered: that would delete
 * the highest ordinals, running pods, not the ones that lost their node.
 */
export function replicasFor(target: number, bound: number | undefined, live: number | undefined): number {
  const want = bound === undefined ? target : Math.min(target, bound);
  if (live === undefined) return want;
  return bound === undefined ? live : Math.max(live, want);
}

/** The ResourceReady problem while too few matching nodes hold the StatefulSet below the target (BYO), else undefined. */
export function replicaShortfall(target: number, byo: boolean, matchingNodes: number): { reason: string; message: string } | undefined {
  const bound = replicaBound(byo, matchingNodes);
  if (bound === undefined || bound >= target) return undefined;
  return {
    reason: 'InsufficientMatchingNodes',
    message: `targetNodeCount is ${target} but ${matchingNodes} node(s) match resource.labelSelector: the StatefulSet asks for at most ${bound} replica(s) and grows as matching nodes appear`,
  };
}
