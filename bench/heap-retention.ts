// Heap retained (after a full GC) for the benchmark's own workspaces and nodes (bring-your-own pools,
// one node per workspace): what a first reconcile pass holds while its deferred writes wait (a released
// pass, docs/runtime.md: the snapshot it read and the plan it made), and what the workspace cache holds
// per converged workspace, as parsed from the API server and stored through its transform.
// Run: npm run build && node --expose-gc dist/bench/heap-retention.js [N]   (N: workspaces, default 1000)
import { cachesFromObjects, readSnapshot } from '../src/controllers/workspace/snapshot.js';
import { leanObject, leanWorkspace } from '../src/controllers/workspace/cache-transforms.js';
import { planWorkspace } from '../src/controllers/workspace/plan.js';
import { operatorConfigOf } from '../src/controllers/workspace/context.js';
import { DEFAULT_FEATURE_GATES } from '../src/api/feature-gates.js';
import { defaultFacts } from '../src/builders/facts.js';
import { layoutFor } from '../src/simcluster/layout.js';
import { loadNodePools, nodeManifests } from '../src/simcluster/nodes.js';
import { planWorkspaces, poolsForPlan, workspaceManifest } from './plan.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('heap-retention: run with node --expose-gc');
  process.exit(2);
}
const n = Number(process.argv[2] ?? 1000);
if (!Number.isInteger(n) || n < 1) {
  console.error(`heap-retention: N must be a positive integer, got "${process.argv[2]}"`);
  process.exit(2);
}

const pools = loadNodePools(layoutFor().defaultNodesFile);
const plan = planWorkspaces(n, pools);
const nodes = nodeManifests(poolsForPlan(pools, plan), 'v1.36.3').map((node) => ({
  ...node,
  status: { ...node.status, conditions: [{ type: 'Ready', status: 'True' }] },
}));
const workspaces = plan.map((w, i) => {
  const ws = workspaceManifest(w, 'bench', 'retention');
  return { ...ws, metadata: { ...ws.metadata, uid: `uid-${i}`, resourceVersion: '1', generation: 1 } };
});
const caches = cachesFromObjects([...workspaces, ...nodes]);
// The benchmark's operator flags: bring-your-own nodes (--feature-gates=vLLM=true,disableNodeAutoProvisioning=true).
const config = operatorConfigOf(defaultFacts({ featureGates: { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: true } }), 1_800_000);
const snapshotOf = (ws: (typeof workspaces)[number]) =>
  readSnapshot(ws, { caches, config, fieldManager: 'kaito-ts', now: new Date(0), provisioningCrdInstalled: () => false });

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const kib = (bytes: number) => (bytes / 1024).toFixed(1);

planWorkspace(snapshotOf(workspaces[0]!)); // load and warm every module before measuring
const before = heapAfterGc();
const snapshots = workspaces.map(snapshotOf);
const withSnapshots = heapAfterGc();
const plans = snapshots.map((s) => planWorkspace(s));
const withPlans = heapAfterGc();
const sent = plans[0]!.actions.map((a) => (a.kind === 'apply' || a.kind === 'create' ? `${a.kind} ${a.type.kind}` : a.kind));
console.log(`${n} workspaces on ${nodes.length} nodes; a first pass sends: ${sent.join(', ')}`);
console.log(`retained per pass: snapshot ${kib((withSnapshots - before) / n)} KiB, plan ${kib((withPlans - withSnapshots) / n)} KiB`);
console.log(`held by 50 released passes (the default bound): ${kib(((withPlans - before) / n) * 50)} KiB`);
if (snapshots.length + plans.length !== 2 * n) throw new Error('unreachable: keeps both lists alive until here');

// Each workspace converged: its first pass's status, as the server would return it (JSON text).
const converged = workspaces.map((ws, i) => {
  const status = plans[i]!.actions.find((a) => a.kind === 'status');
  return JSON.stringify({ ...ws, status: status?.kind === 'status' ? status.status : {} });
});
snapshots.length = 0;
plans.length = 0;
const stored = (transform: (o: object) => object) => {
  const start = heapAfterGc();
  const kept = converged.map((text) => transform(JSON.parse(text) as object));
  const bytes = heapAfterGc() - start;
  return kept.length === n ? bytes / n : NaN;
};
const first = JSON.parse(converged[0]!) as { status?: { workerNodes?: string[] } };
console.log(`a converged workspace lists ${first.status?.workerNodes?.length ?? 0} worker nodes (its pool's)`);
console.log(`cached per workspace: ${kib(stored(leanWorkspace))} KiB (stored without shared node names: ${kib(stored(leanObject))} KiB)`);
