// `kaito-ts demo --exit` as a user runs it (a child process), then the API objects it leaves behind:
// every sample workspace InferenceReady=True for its current generation, legacy Deployments gone, the
// InferenceSet back at its replicas. A watch on the namespace's workspaces, started before the demo,
// shows what the scale did: both children InferenceReady at once, then the extra one deleted.
// The demo works in its own namespace (kaito-demo) with an operator scoped to it, so it can run
// next to the other e2e files; it reuses the running cluster and leaves it up.
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { findCondition } from '../../src/api/workspace-conditions.js';
import { ConditionType, LABEL_INFERENCESET_CREATED_BY } from '../../src/api/labels.js';
import type { InferenceSet } from '../../src/api/inferenceset-types.js';
import type { Workspace } from '../../src/api/types.js';
import { DEMO_NAMESPACE, loadSamples, samplesDir } from '../../src/demo/samples.js';
import { layoutFor } from '../../src/simcluster/layout.js';
import { bed, isNotFound } from './harness.js';
import { installCrd, record, type Recorded } from './support/operator.js';

function runCli(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = layoutFor().projectRoot;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'kaito-ts.js'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const inferenceReady = (ws: Workspace): boolean => {
  const c = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
  return c?.status === 'True' && c.observedGeneration === ws.metadata.generation;
};

/**
 * Replays the watch of the set's children (by owner UID: the reset deletes an earlier run's): the most
 * children InferenceReady at the same moment, and the children deleted.
 */
function replayChildren(events: Recorded<Workspace>[], setUid: string): { mostReadyAtOnce: string[]; deleted: string[]; seen: string[] } {
  const live = new Map<string, Workspace>();
  const seen = new Set<string>();
  const deleted: string[] = [];
  let mostReadyAtOnce: string[] = [];
  for (const e of events) {
    if (!e.obj.metadata.ownerReferences?.some((o) => o.uid === setUid)) continue;
    const name = e.obj.metadata.name ?? '';
    seen.add(name);
    if (e.type === 'DELETED') {
      live.delete(name);
      deleted.push(name);
    } else live.set(name, e.obj);
    const ready = [...live.values()].filter((ws) => inferenceReady(ws) && !ws.metadata.deletionTimestamp).map((ws) => ws.metadata.name ?? '');
    if (ready.length > mostReadyAtOnce.length) mostReadyAtOnce = ready;
  }
  return { mostReadyAtOnce, deleted, seen: [...seen] };
}

test(
  'npm run demo: every sample workspace InferenceReady, the legacy Deployment migrated, the InferenceSet scaled to 2 and back',
  { timeout: 600_000 },
  async (t) => {
    const { kc } = await bed();
    const samples = loadSamples(samplesDir(layoutFor().projectRoot));
    assert.ok(samples.legacy.length >= 1, 'the samples include a legacy Deployment to migrate');
    const [sample] = samples.inferenceSets;
    assert.ok(sample, 'the samples include an InferenceSet');
    const setName = sample.metadata.name ?? '';
    const from = sample.spec.replicas ?? 1;

    // The CRDs first (the demo applies the same ones), so the watch can start before the demo does.
    await installCrd();
    const events = await record<Workspace>(t, `/apis/kaito.sh/v1beta1/namespaces/${DEMO_NAMESPACE}/workspaces`);

    const run = await runCli(['demo', '--exit', '--timeout', '300'], 540_000);
    assert.equal(run.code, 0, `demo exited ${run.code}\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr}`);
    const total = samples.workspaces.length + from;
    assert.match(run.stdout, new RegExp(`All ${total} workspaces InferenceReady=True`));
    assert.match(
      run.stdout,
      new RegExp(`\\$ kubectl -n ${DEMO_NAMESPACE} scale inferenceset/${setName} --replicas=${from + 1}\ninferenceset.kaito.sh/${setName} scaled\n`),
    );
    assert.match(
      run.stdout,
      new RegExp(`\\$ kubectl -n ${DEMO_NAMESPACE} scale inferenceset/${setName} --replicas=${from}\ninferenceset.kaito.sh/${setName} scaled\n`),
    );
    assert.match(run.stdout, new RegExp(`Done: all ${total} workspaces InferenceReady=True, inferenceset/${setName} scaled ${from} → ${from + 1} → ${from}`));
    assert.match(run.stdout, /kubectl -n kaito-demo get workspaces,sts,svc,pvc,pods/);
    // The operator's logs go to a file, never to the terminal.
    assert.doesNotMatch(run.stdout + run.stderr, /"level":\d+/);

    const custom = kc.makeApiClient(CustomObjectsApi);
    for (const sample of samples.workspaces) {
      const name = sample.metadata.name ?? '';
      const ws = (await custom.getNamespacedCustomObject({
        group: 'kaito.sh',
        version: 'v1beta1',
        namespace: DEMO_NAMESPACE,
        plural: 'workspaces',
        name,
      })) as Workspace;
      const cond = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
      assert.equal(cond?.status, 'True', `${name}: InferenceReady is ${cond?.status} (${cond?.reason}: ${cond?.message})`);
      assert.equal(cond?.observedGeneration, ws.metadata.generation, `${name}: condition is for the current generation`);
    }
    const apps = kc.makeApiClient(AppsV1Api);
    for (const legacy of samples.legacy) {
      const name = legacy.metadata?.name ?? '';
      await assert.rejects(
        apps.readNamespacedDeployment({ namespace: DEMO_NAMESPACE, name }),
        (err: unknown) => isNotFound(err),
        `legacy Deployment ${name} is gone`,
      );
      const sts = await apps.readNamespacedStatefulSet({ namespace: DEMO_NAMESPACE, name });
      assert.equal(sts.status?.readyReplicas, sts.spec?.replicas, `${name}: the StatefulSet that replaced it serves`);
    }

    // The InferenceSet: back at its replicas, its one child serving; the watch saw the rest.
    const is = (await custom.getNamespacedCustomObject({
      group: 'kaito.sh',
      version: 'v1beta1',
      namespace: DEMO_NAMESPACE,
      plural: 'inferencesets',
      name: setName,
    })) as InferenceSet;
    assert.equal(is.spec.replicas, from);
    assert.equal(is.status?.readyReplicas, from);
    const children = (
      (await custom.listNamespacedCustomObject({
        group: 'kaito.sh',
        version: 'v1beta1',
        namespace: DEMO_NAMESPACE,
        plural: 'workspaces',
        labelSelector: `${LABEL_INFERENCESET_CREATED_BY}=${setName}`,
      })) as { items: Workspace[] }
    ).items;
    assert.equal(children.length, from, `children now: ${children.map((c) => c.metadata.name).join(', ')}`);
    for (const c of children) assert.ok(inferenceReady(c), `${c.metadata.name} InferenceReady`);

    const replay = replayChildren(events, is.metadata.uid ?? '');
    assert.equal(
      replay.mostReadyAtOnce.length,
      from + 1,
      `children InferenceReady at once: ${replay.mostReadyAtOnce.join(', ')} (seen: ${replay.seen.join(', ')})`,
    );
    assert.equal(replay.deleted.length, 1, `children deleted: ${replay.deleted.join(', ')}`);
    const [gone] = replay.deleted;
    assert.ok(replay.mostReadyAtOnce.includes(gone!), 'the deleted child was one of the serving ones');
    assert.ok(!children.some((c) => c.metadata.name === gone), 'the deleted child is not listed');
    await assert.rejects(
      custom.getNamespacedCustomObject({ group: 'kaito.sh', version: 'v1beta1', namespace: DEMO_NAMESPACE, plural: 'workspaces', name: gone! }),
      (err: unknown) => isNotFound(err),
    );
    assert.match(run.stdout, new RegExp(`${gone} deleted`));
  },
);

test('demo refuses bad flags with one line and exit 2', async () => {
  const run = await runCli(['demo', '--timeout', 'soon'], 30_000);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, 'kaito-ts: --timeout must be a positive number of seconds, got "soon"\n');
});
