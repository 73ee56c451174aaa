// Import this FIRST in a test file that needs Karpenter: a private cluster (private-cluster.ts) whose
// `bed()` starts Karpenter's kwok provider too. Private, because Karpenter's CRDs replace KAITO v0.8.0's
// stricter NodeClaim CRD, which the shared cluster keeps, and its nodes would show in other tests'
// node lists. The file's `after` calls `stopPrivateCluster`.
import { stopPrivateCluster } from './private-cluster.js';
import { KARPENTER_ENV } from '../../../src/simcluster/cluster.js';
import { KWOK_NODE_CLASS_FLAGS } from '../../../src/simcluster/karpenter/operator-flags.js';

process.env[KARPENTER_ENV] = '1';

export { stopPrivateCluster };

/** The operator in Karpenter mode against the kwok provider's NodeClass. */
export const KARPENTER_ARGS = [...KWOK_NODE_CLASS_FLAGS];
