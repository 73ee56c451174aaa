// Import this FIRST in a test file that needs KEDA: a private cluster (private-cluster.ts) whose `bed()`
// starts KEDA's operator and metrics server too. Private, because KEDA's metrics server takes the
// external.metrics.k8s.io APIService that the shared cluster's own adapter serves to other tests.
// The file's `after` calls `stopPrivateCluster`; its first test calls `requireKedaBuilt`.
import { stopPrivateCluster } from './private-cluster.js';
import { missingKedaOutputs } from '../../../src/simcluster/binaries.js';
import { KEDA_ENV } from '../../../src/simcluster/cluster.js';
import { layoutFor } from '../../../src/simcluster/layout.js';

process.env[KEDA_ENV] = '1';

export { stopPrivateCluster };

/** A test run never builds KEDA (8–16 min on 2 cores): CI builds it first (.ci/run); missing, the test fails and says what to run. */
export function requireKedaBuilt(): void {
  const l = layoutFor();
  const missing = missingKedaOutputs(l);
  if (missing.length > 0)
    throw new Error(
      `KEDA is not built (${missing.join(', ')} missing in ${l.kedaBinDir}): run \`bash simcluster/build-keda.sh\` once (8–16 min on 2 cores the first time)`,
    );
}
