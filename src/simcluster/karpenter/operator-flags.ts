// The operator's Karpenter-mode flags for this cluster's Karpenter (its kwok provider): the demo,
// the tests and the benchmark start kaito-ts (and KAITO v0.12, which takes the same flag names) with
// these. Both create the NodeClass from --karpenter-node-classes when it is missing, so its spec (e.g.
// the benchmark's nodeRegistrationDelay) is theirs to write.
export const KWOK_NODE_CLASS = 'default';

export function kwokNodeClassFlags(nodeClassSpec: Record<string, unknown> = {}): string[] {
  return [
    '--node-provisioner=karpenter',
    '--karpenter-node-class-group=karpenter.kwok.sh',
    '--karpenter-node-class-kind=KWOKNodeClass',
    '--karpenter-node-class-version=v1alpha1',
    '--karpenter-node-class-resource-name=kwoknodeclasses',
    `--karpenter-node-classes=${JSON.stringify([{ name: KWOK_NODE_CLASS, default: true, spec: nodeClassSpec }])}`,
  ];
}

export const KWOK_NODE_CLASS_FLAGS: readonly string[] = Object.freeze(kwokNodeClassFlags());
