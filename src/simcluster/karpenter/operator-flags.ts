// The operator's Karpenter-mode flags for this cluster's Karpenter (its kwok provider): the demo,
// the tests and the benchmark start kaito-ts (and KAITO v0.12) with these.
export const KWOK_NODE_CLASS_FLAGS: readonly string[] = Object.freeze([
  '--node-provisioner=karpenter',
  '--karpenter-node-class-group=karpenter.kwok.sh',
  '--karpenter-node-class-kind=KWOKNodeClass',
  '--karpenter-node-class-version=v1alpha1',
  '--karpenter-node-class-resource-name=kwoknodeclasses',
  '--karpenter-node-classes=[{"name":"default","default":true,"spec":{}}]',
]);
