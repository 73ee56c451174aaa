// Import this FIRST in a test file that kills control-plane components (or needs a cluster shaped
// differently, see karpenter-cluster.ts): it points the harness (bed, kubectl, world, spawnOperator)
// at a private cluster (own state folder under /tmp, every port moved), never at the shared one other
// engineers' tests run on. The file's `after` calls `stopPrivateCluster`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { down } from '../../../src/simcluster/cluster.js';
import { freePortOffset } from '../../../src/simcluster/free-ports.js';

const root = mkdtempSync(join(tmpdir(), 'kaito-ts-faults-'));
process.env.KAITO_TS_SIMCLUSTER_DIR = join(root, 'state');
// 2000–2899, and only ports free now: clear of the bench cluster (+1000) and other second clusters.
process.env.KAITO_TS_SIM_PORT_OFFSET = String(await freePortOffset(2000, 2900));
// The whole cluster goes at the end: no per-test namespace and node clean-up (it waits on finalizers).
process.env.KAITO_TS_KEEP_NAMESPACES = '1';

export async function stopPrivateCluster(): Promise<void> {
  await down();
  rmSync(root, { recursive: true, force: true });
}
