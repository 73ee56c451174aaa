// Import this FIRST in a test file that needs Karpenter: a private cluster (private-cluster.ts) whose
// `bed()` starts Karpenter's kwok provider too. Private, because Karpenter's CRDs replace KAITO v0.8.0's
// stricter NodeClaim CRD, which the shared cluster keeps, and its nodes would show in other tests'
// node lists. The file's `after` calls `stopPrivateCluster`.
import { stopPrivateCluster } from './private-cluster.js';
import { KARPENTER_ENV } from '../../../src/simcluster/cluster.js';

process.env[KARPENTER_ENV] = '1';

export { stopPrivateCluster };

/** The operator in Karpenter mode against the kwok provider's NodeClass. */
export const KARPENTER_ARGS = [
  '--node-provisioner=karpenter',
  '--karpenter-node-class-group=karpenter.kwok.sh',
  '--karpenter-node-class-kind=KWOKNodeClass',
  '--karpenter-node-class-version=v1alpha1',
  '--karpenter-node-class-resource-name=kwoknodeclasses',
  '--karpenter-node-classes=[{"name":"default","default":true,"spec":{}}]',
];
