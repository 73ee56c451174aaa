// Tuning workspaces on the real control plane. kwok's pod-complete stage turns a running Job pod into
// Succeeded; a failure is made on demand by writing a failed status to a pod that is not scheduled
// (kwok only acts on pods bound to its nodes). Bring-your-own nodes: the GPU count comes from the
// node labels.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { kubectl, uniqueName, waitFor } from '../harness.js';
import {
  applyWorkspace,
  conditionOf,
  getAll,
  getOne,
  getWorkspace,
  nodeNamesOf,
  pool,
  record,
  selectorFor,
  setUnschedulable,
  waitCondition,
  warningEvents,
  world,
} from '../support/operator.js';

function tuningWorkspace(name: string, selector: { matchLabels: Record<string, string> }, tuning: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    metadata: { name },
    resource: { labelSelector: selector },
    tuning: {
      preset: { name: 'phi-3-mini-128k-instruct' },
      method: 'qlora',
      input: { urls: ['https://example.com/data/train.parquet?download=true'] },
      output: { image: 'registry.example.com/adapters/phi-3:0.0.1', imagePushSecret: 'push-secret' },
      ...tuning,
    },
  };
}

async function jobPod(ns: string, job: string): Promise<V1Pod> {
  return waitFor(`a pod of Job ${job}`, async () => (await getAll<V1Pod>(ns, 'pods', `job-name=${job}`))[0]);
}

test('a tuning Job runs to Complete and the workspace says Succeeded; operator restarts during and after the Job create no second Job', async (t) => {
  const p = pool('a100', 1);
  const w = await world(t, { pools: [p] });
  const [node] = nodeNamesOf([p]);
  // Cordoned: the Job's pod waits unscheduled, so the first restart lands while the Job runs.
  await setUnschedulable(node!, true);
  const jobsSeen = await record<V1Job>(t, `/apis/batch/v1/namespaces/${w.ns}/jobs`);
  await applyWorkspace(w.ns, tuningWorkspace('tune', selectorFor(p)));
  // The push secret does not exist yet: reported, no Job; once created, the next look (≤ 30 s) goes on.
  const noSecret = await waitCondition(w.ns, 'tune', 'JobStarted', 'False', { reason: 'SecretNotFound' });
  assert.match(conditionOf(noSecret, 'JobStarted')?.message ?? '', /Secret push-secret named in tuning does not exist/);
  assert.equal(await getOne(w.ns, 'job', 'tune'), undefined);
  await waitFor('a Warning event about the secret', async () => (await warningEvents(w.ns, 'tune')).some((e) => e.reason === 'SecretNotFound'));
  await kubectl(['create', 'secret', 'docker-registry', 'push-secret', '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p'], {
    namespace: w.ns,
  });

  await waitCondition(w.ns, 'tune', 'JobStarted', 'False', { reason: 'WorkspaceTuningJobStatusPending', timeoutMs: 60_000 });
  // First "pending", then, once the scheduler has written PodScheduled=False, why.
  const pending = await waitFor('JobStarted naming the unscheduled pod', async () => {
    const ws = await getWorkspace(w.ns, 'tune');
    return /pod tune-\w+ is not scheduled \(Unschedulable\)/.test(conditionOf(ws, 'JobStarted')?.message ?? '') && ws;
  });
  assert.equal(pending.status?.state, 'Running');
  assert.equal(conditionOf(pending, 'WorkspaceSucceeded')?.reason, 'workspacePending');
  const job = await getOne<V1Job>(w.ns, 'job', 'tune');
  assert.ok(job);
  assert.equal(job.metadata?.annotations?.['workspace.kaito.io/revision'], '1');
  assert.equal(job.metadata?.ownerReferences?.[0]?.uid, pending.metadata.uid);
  assert.equal(job.spec?.template.spec?.initContainers?.at(-1)?.resources?.limits?.['nvidia.com/gpu'], '1', 'GPU count from the node labels (BYO)');

  // Restart while the Job is running: the new operator observes it and creates nothing.
  const op = await w.start();
  await waitFor('the restarted operator to reconcile the workspace', () => op.reconciles() > 0);
  await setUnschedulable(node!, false);

  const done = await waitCondition(w.ns, 'tune', 'WorkspaceSucceeded', 'True', { timeoutMs: 90_000 });
  assert.equal(conditionOf(done, 'WorkspaceSucceeded')?.reason, 'workspaceSucceeded');
  assert.equal(conditionOf(done, 'JobStarted')?.status, 'True');
  assert.equal(conditionOf(done, 'ResourceReady')?.status, 'True');
  assert.equal(done.status?.state, 'Succeeded');
  const finished = await getOne<V1Job>(w.ns, 'job', 'tune');
  assert.ok(
    finished?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'),
    'the Job itself says Complete',
  );
  assert.equal(finished?.metadata?.uid, job.metadata?.uid);

  // Restart after completion: the finished Job is not re-run.
  const op2 = await w.start();
  await waitFor('the second restarted operator to reconcile', () => op2.reconciles() > 0);
  const after = await getWorkspace(w.ns, 'tune');
  assert.equal(after?.status?.state, 'Succeeded');
  const added = jobsSeen.filter((e) => e.type === 'ADDED').map((e) => e.obj.metadata?.uid);
  assert.deepEqual(added, [job.metadata?.uid], 'exactly one Job was ever created');
  assert.equal((await getAll<V1Job>(w.ns, 'jobs')).length, 1);

  // Deletion: the default template copy made for it goes too (no other workspace uses it), the Job by GC.
  assert.ok(await getOne(w.ns, 'configmap', 'qlora-params-template'));
  await kubectl(['delete', 'workspace', 'tune', '--wait=true', '--timeout=60s'], { namespace: w.ns });
  await waitFor(
    'the template copy and the Job gone',
    async () => {
      const [cm, j] = await Promise.all([getOne(w.ns, 'configmap', 'qlora-params-template'), getOne(w.ns, 'job', 'tune')]);
      return cm === undefined && j === undefined;
    },
    { timeoutMs: 60_000 },
  );
});

test('a failing tuning Job reports Failed with the pod, container, exit code and message', async (t) => {
  const p = pool('a100', 1);
  const w = await world(t, { pools: [p] });
  const [node] = nodeNamesOf([p]);
  await setUnschedulable(node!, true);
  await applyWorkspace(w.ns, tuningWorkspace('broken', selectorFor(p), { method: 'lora', output: { volumeSource: { emptyDir: {} } } }));
  const pod = await jobPod(w.ns, 'broken');
  const trainer = { name: 'broken', image: 'mcr.microsoft.com/aks/kaito/kaito-base:0.1.1', imageID: '', ready: false, restartCount: 0 };
  const status = {
    phase: 'Failed',
    containerStatuses: [
      {
        ...trainer,
        state: { terminated: { exitCode: 1, reason: 'Error', message: 'Traceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory' } },
      },
    ],
  };
  await kubectl(['patch', 'pod', pod.metadata?.name ?? '', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })], { namespace: w.ns });

  const failed = await waitCondition(w.ns, 'broken', 'WorkspaceSucceeded', 'False', { reason: 'workspaceFailed', timeoutMs: 60_000 });
  const message = conditionOf(failed, 'WorkspaceSucceeded')?.message ?? '';
  t.diagnostic(message);
  assert.match(message, /job .*\/broken failed \(BackoffLimitExceeded/);
  assert.match(message, /container broken exited with code 1 \(Error\): torch\.OutOfMemoryError: CUDA out of memory$/);
  assert.equal(conditionOf(failed, 'JobStarted')?.reason, 'WorkspaceTuningJobStatusFailed');
  assert.equal(failed.status?.state, 'Failed');
  await waitFor('a Warning event naming the failure', async () =>
    (await warningEvents(w.ns, 'broken')).some((e) => e.reason === 'TuningJobFailed' && /exit/.test(e.note)),
  );
  assert.equal((await getAll<V1Job>(w.ns, 'jobs')).length, 1, 'no retry Job');
});

test('the API server refuses bad tuning workspaces at apply (CEL), and tuning cannot be added or removed', async (t) => {
  const w = await world(t, { operator: false });
  const sel = { matchLabels: { 'kaito.sh/sim-pool': 'none' } };
  const cases: { what: string; ws: Record<string, unknown>; message: RegExp }[] = [
    {
      what: 'a preset that cannot be tuned',
      ws: tuningWorkspace('untunable', sel, { preset: { name: 'mistral-7b-instruct' } }),
      message: /preset mistral-7b-instruct does not support tuning; tunable presets: falcon-7b/,
    },
    { what: 'an unknown preset', ws: tuningWorkspace('unknown', sel, { preset: { name: 'phi-9' } }), message: /Unsupported tuning preset name phi-9/ },
    { what: 'a method that is neither lora nor qlora', ws: tuningWorkspace('method', sel, { method: 'full' }), message: /invalid value: full: Method/ },
    {
      what: 'two input sources',
      ws: tuningWorkspace('two', sel, { input: { urls: ['https://x/y'], image: 'r.io/d:1' } }),
      message: /Exactly one of URLs, Volume, or Image must be specified/,
    },
    {
      what: 'an image without a push secret',
      ws: tuningWorkspace('nosecret', sel, { output: { image: 'r.io/o:1' } }),
      message: /Must specify imagePushSecret with destination image/,
    },
    {
      what: 'an input image that does not parse',
      ws: tuningWorkspace('upper', sel, { input: { image: 'kaito.azurecr.io/INPUT:0.0.0' } }),
      message: /Unable to parse input image reference: invalid reference format/,
    },
    {
      what: 'an input name that is not a DNS label',
      ws: tuningWorkspace('badname', sel, { input: { name: 'Bad_Name', image: 'r.io/d:1' } }),
      message: /lowercase RFC 1123 label/,
    },
    {
      what: 'more than one node',
      ws: { ...tuningWorkspace('multi', sel), resource: { count: 2, labelSelector: sel } },
      message: /Tuning does not currently support multinode configurations/,
    },
  ];
  for (const c of cases) {
    await assert.rejects(applyWorkspace(w.ns, c.ws), c.message, c.what);
    assert.equal(await getWorkspace(w.ns, String((c.ws.metadata as { name: string }).name)), undefined, `${c.what}: nothing stored`);
  }
  await applyWorkspace(w.ns, tuningWorkspace('ok', sel));
  await applyWorkspace(w.ns, { metadata: { name: 'inf' }, resource: { labelSelector: sel }, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } });
  const toggles: [string, string, RegExp][] = [
    ['ok', `{"tuning":null,"inference":{"preset":{"name":"phi-3-mini-4k-instruct"}}}`, /Tuning field cannot be toggled once set/],
    ['inf', `{"inference":null,"tuning":${JSON.stringify(tuningWorkspace('x', sel).tuning)}}`, /Inference field cannot be toggled once set/],
    ['ok', '{"tuning":{"preset":{"name":"phi-4"}}}', /Preset cannot be changed/],
    ['ok', '{"tuning":{"method":"lora"}}', /Method cannot be changed/],
  ];
  for (const [name, patch, message] of toggles) {
    await assert.rejects(kubectl(['patch', 'workspace', name, '--type=merge', '-p', patch], { namespace: w.ns }), message, patch);
  }
  // Only the case of the method: allowed, as in KAITO.
  await kubectl(['patch', 'workspace', 'ok', '--type=merge', '-p', '{"tuning":{"method":"QLoRA"}}'], { namespace: w.ns });
});

test('an input edit reruns training as revision 2 once the old Job is gone; deletion removes the Job and the owned config copy', async (t) => {
  const p = pool('a100', 1);
  const w = await world(t, { pools: [p] });
  // A relative output_dir: the trainer gets an owned copy saying /mnt/adapter, where the volume is mounted.
  const training = 'training_config:\n  QuantizationConfig:\n    load_in_4bit: false\n  TrainingArguments:\n    output_dir: adapter\n';
  await kubectl(['create', 'configmap', 'my-training', `--from-literal=training_config.yaml=${training}`], { namespace: w.ns });
  const jobsSeen = await record<V1Job>(t, `/apis/batch/v1/namespaces/${w.ns}/jobs`);
  await applyWorkspace(w.ns, tuningWorkspace('edit', selectorFor(p), { method: 'lora', config: 'my-training', output: { volumeSource: { emptyDir: {} } } }));
  await waitCondition(w.ns, 'edit', 'WorkspaceSucceeded', 'True', { timeoutMs: 90_000 });
  const copy = await getOne<{ data?: Record<string, string>; metadata?: { ownerReferences?: { kind: string }[] } }>(w.ns, 'configmap', 'edit-training-config');
  assert.match(copy?.data?.['training_config.yaml'] ?? '', /output_dir: \/mnt\/adapter/);
  assert.equal(copy?.metadata?.ownerReferences?.[0]?.kind, 'Workspace');
  const first = await getOne<V1Job>(w.ns, 'job', 'edit');
  assert.equal(first?.spec?.template.spec?.containers[0]?.volumeMounts?.find((m) => m.name === 'results-volume')?.mountPath, '/mnt/adapter');

  await kubectl(
    ['patch', 'workspace', 'edit', '--type=merge', '-p', JSON.stringify({ tuning: { input: { urls: ['https://example.com/data/other.parquet'] } } })],
    { namespace: w.ns },
  );
  const rerun = await waitCondition(w.ns, 'edit', 'WorkspaceSucceeded', 'True', { timeoutMs: 90_000 });
  assert.equal(rerun.metadata.annotations?.['workspace.kaito.io/revision'], '2');
  const second = await getOne<V1Job>(w.ns, 'job', 'edit');
  assert.equal(second?.metadata?.annotations?.['workspace.kaito.io/revision'], '2');
  assert.notEqual(second?.metadata?.uid, first?.metadata?.uid);
  assert.match(second?.spec?.template.spec?.initContainers?.find((c) => c.name === 'data-downloader')?.env?.[0]?.value ?? '', /other\.parquet/);
  // The new Job was created only after the old one was deleted.
  const firstGone = jobsSeen.find((e) => e.type === 'DELETED' && e.obj.metadata?.uid === first?.metadata?.uid);
  const secondAdded = jobsSeen.find((e) => e.type === 'ADDED' && e.obj.metadata?.uid === second?.metadata?.uid);
  assert.ok(firstGone && secondAdded && firstGone.rv < secondAdded.rv, 'old Job deleted before the new one was created');

  await kubectl(['delete', 'workspace', 'edit', '--wait=true', '--timeout=60s'], { namespace: w.ns });
  await waitFor(
    'the Job and the owned config copy garbage-collected',
    async () => {
      const [job, cm] = await Promise.all([getOne(w.ns, 'job', 'edit'), getOne(w.ns, 'configmap', 'edit-training-config')]);
      return job === undefined && cm === undefined;
    },
    { timeoutMs: 60_000 },
  );
  assert.ok(await getOne(w.ns, 'configmap', 'my-training'), "the user's ConfigMap stays");
});

test('node auto-provisioning: the operator makes one NodeClaim, the Job runs on its node, deletion removes the claim', async (t) => {
  const w = await world(t, { operator: false });
  await w.start(['--feature-gates', 'disableNodeAutoProvisioning=false']);
  const selector = { matchLabels: { apps: uniqueName('tune-nap') } };
  await applyWorkspace(w.ns, {
    ...tuningWorkspace('nap', selector, { output: { volumeSource: { emptyDir: {} } } }),
    resource: { instanceType: 'Standard_NC24ads_A100_v4', labelSelector: selector },
  });
  const done = await waitCondition(w.ns, 'nap', 'WorkspaceSucceeded', 'True', { timeoutMs: 180_000 });
  assert.equal(conditionOf(done, 'NodeClaimsReady')?.status, 'True');
  assert.equal(done.status?.state, 'Succeeded');
  const claims = JSON.parse(
    await kubectl(['get', 'nodeclaims.karpenter.sh', '-l', `kaito.sh/workspace=nap,kaito.sh/workspacenamespace=${w.ns}`, '-o', 'json']),
  ) as { items: { metadata: { name: string }; status?: { nodeName?: string } }[] };
  assert.equal(claims.items.length, 1, 'one NodeClaim for a tuning workspace');
  const [pod] = await getAll<V1Pod>(w.ns, 'pods', 'job-name=nap');
  assert.equal(pod?.spec?.nodeName, claims.items[0]?.status?.nodeName, "the Job's pod ran on the claim's node");

  await kubectl(['delete', 'workspace', 'nap', '--wait=true', '--timeout=120s'], { namespace: w.ns });
  const left = JSON.parse(
    await kubectl(['get', 'nodeclaims.karpenter.sh', '-l', `kaito.sh/workspace=nap,kaito.sh/workspacenamespace=${w.ns}`, '-o', 'json']),
  ) as { items: unknown[] };
  assert.equal(left.items.length, 0, 'the NodeClaim is gone with the workspace');
});

test('a Job or config copy the workspace does not own is reported and left untouched', async (t) => {
  const p = pool('a10', 1);
  const w = await world(t, { pools: [p] });
  const foreignJob = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'taken' },
    spec: { template: { spec: { restartPolicy: 'Never', nodeSelector: { none: 'none' }, containers: [{ name: 'c', image: 'busybox' }] } } },
  };
  await kubectl(['apply', '-f', '-'], { namespace: w.ns, input: JSON.stringify(foreignJob) });
  const before = await getOne<V1Job>(w.ns, 'job', 'taken');
  await applyWorkspace(w.ns, tuningWorkspace('taken', selectorFor(p), { output: { volumeSource: { emptyDir: {} } } }));
  const taken = await waitCondition(w.ns, 'taken', 'WorkspaceSucceeded', 'False', { reason: 'workspaceFailed' });
  assert.match(conditionOf(taken, 'WorkspaceSucceeded')?.message ?? '', /Job .*\/taken exists and is not controlled by this workspace/);

  // The owned training-config copy's name is taken by a user ConfigMap.
  const training = 'training_config:\n  QuantizationConfig:\n    load_in_4bit: true\n  TrainingArguments:\n    output_dir: out\n';
  await kubectl(['create', 'configmap', 'cfg', `--from-literal=training_config.yaml=${training}`], { namespace: w.ns });
  await kubectl(['create', 'configmap', 'copy-training-config', '--from-literal=mine=yes'], { namespace: w.ns });
  await applyWorkspace(w.ns, tuningWorkspace('copy', selectorFor(p), { config: 'cfg', output: { volumeSource: { emptyDir: {} } } }));
  const copy = await waitCondition(w.ns, 'copy', 'WorkspaceSucceeded', 'False', { reason: 'workspaceFailed' });
  assert.match(conditionOf(copy, 'WorkspaceSucceeded')?.message ?? '', /ConfigMap .*\/copy-training-config exists and is not controlled by this workspace/);
  await waitFor('Warning events for both', async () => (await warningEvents(w.ns, 'taken')).length > 0 && (await warningEvents(w.ns, 'copy')).length > 0);

  // The Job controller keeps writing the Job's status (its pod Pending): untouched means no field of ours, nothing else changed.
  const after = await getOne<V1Job>(w.ns, 'job', 'taken');
  assert.equal(after?.metadata?.uid, before?.metadata?.uid, 'the foreign Job is the same object');
  assert.deepEqual(
    { spec: after?.spec, labels: after?.metadata?.labels, annotations: after?.metadata?.annotations, owners: after?.metadata?.ownerReferences },
    { spec: before?.spec, labels: before?.metadata?.labels, annotations: before?.metadata?.annotations, owners: before?.metadata?.ownerReferences },
    'the foreign Job is untouched',
  );
  assert.ok(!after?.metadata?.managedFields?.some((f) => f.manager === 'kaito-ts'), 'no kaito-ts field on the foreign Job');
  const cm = await getOne<{ data?: Record<string, string>; metadata?: { managedFields?: { manager?: string }[] } }>(w.ns, 'configmap', 'copy-training-config');
  assert.deepEqual(cm?.data, { mine: 'yes' });
  assert.ok(!cm?.metadata?.managedFields?.some((f) => f.manager === 'kaito-ts'), 'no kaito-ts field on the user ConfigMap');
  assert.equal(await getOne(w.ns, 'job', 'copy'), undefined, 'no Job made from a config it could not write');
});
