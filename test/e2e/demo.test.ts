// `kaito-ts demo --exit` as a user runs it (a child process), then the API objects it leaves behind:
// every sample workspace InferenceReady=True for its current generation, legacy Deployments gone.
// The demo works in its own namespace (kaito-demo) with an operator scoped to it, so it can run
// next to the other e2e files; it reuses the running cluster and leaves it up.
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { findCondition } from '../../src/api/workspace-conditions.js';
import { ConditionType } from '../../src/api/labels.js';
import type { Workspace } from '../../src/api/types.js';
import { DEMO_NAMESPACE, loadSamples, samplesDir } from '../../src/demo/samples.js';
import { layoutFor } from '../../src/simcluster/layout.js';
import { bed, isNotFound } from './harness.js';

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

test('npm run demo: every sample workspace InferenceReady, the legacy Deployment migrated', { timeout: 600_000 }, async () => {
  const { kc } = await bed();
  const samples = loadSamples(samplesDir(layoutFor().projectRoot));
  assert.ok(samples.legacy.length >= 1, 'the samples include a legacy Deployment to migrate');

  const run = await runCli(['demo', '--exit', '--timeout', '300'], 540_000);
  assert.equal(run.code, 0, `demo exited ${run.code}\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr}`);
  assert.match(run.stdout, new RegExp(`All ${samples.workspaces.length} workspaces InferenceReady=True`));
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
});

test('demo refuses bad flags with one line and exit 2', async () => {
  const run = await runCli(['demo', '--timeout', 'soon'], 30_000);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, 'kaito-ts: --timeout must be a positive number of seconds, got "soon"\n');
});
