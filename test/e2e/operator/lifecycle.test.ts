// A workspace's life on the real control plane: a spec change (adapters) rolls a new revision with
// the selective update, a converged reconcile writes nothing, deletion leaves nothing behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1ControllerRevision, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION, LABEL_REVISION_WORKSPACE_NAME, WORKSPACE_FINALIZER } from '../../../src/api/labels.js';
import type { WorkspaceObject } from '../../../src/controllers/workspace/context.js';
import { kubectl, waitFor } from '../harness.js';
import {
  applyWorkspace,
  assertNoWritesWhenTouched,
  getAll,
  getOne,
  getWorkspace,
  pool,
  record,
  selectorFor,
  waitReady,
  waitRolledOut,
  world,
} from '../support/operator.js';

const adapter = (name: string, strength?: string) => ({ source: { name, image: `registry.example/adapters/${name}:1` }, ...(strength ? { strength } : {}) });

test("adapter change: new ControllerRevision, revision annotation bumped, selective update keeps the user's label, annotation, sidecar and image", async (t) => {
  const w = await world(t, { pools: [pool('a100', 1)] });
  const sel = selectorFor(w.pools[0]!);
  // transformers: vLLM has no per-adapter strength, and the strength is what reaches the env. phi-4 is in
  // KAITO v0.12's transformers table (phi-4-mini-instruct, as v0.12 maps it by default, is not).
  const spec = (adapters: unknown[]) => ({
    metadata: { name: 'phi4', annotations: { 'kaito.sh/runtime': 'transformers' } },
    resource: { labelSelector: sel },
    inference: { preset: { name: 'phi-4' }, adapters },
  });
  await applyWorkspace(w.ns, spec([adapter('one')]));
  const v1 = await waitReady(w.ns, 'phi4');
  assert.equal(v1.metadata.annotations?.[ANNOTATION_REVISION], '1');
  const sts1 = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi4');
  assert.ok(sts1);
  const main = sts1.spec?.template.spec?.containers[0]?.name ?? '';
  assert.deepEqual(
    sts1.spec?.template.spec?.initContainers?.map((c) => c.name).filter((n) => n.startsWith('puller-')),
    ['puller-one'],
  );

  // A user customises the StatefulSet with kubectl (another field manager).
  await kubectlPatch(w.ns, 'phi4', {
    metadata: { labels: { 'team.example/owner': 'alice' }, annotations: { 'team.example/note': 'keep me' } },
    spec: {
      template: {
        spec: {
          containers: [
            { name: main, image: 'registry.example/custom-vllm:7' },
            { name: 'user-sidecar', image: 'registry.example/sidecar:1' },
          ],
        },
      },
    },
  });
  await waitReady(w.ns, 'phi4');

  await applyWorkspace(w.ns, spec([adapter('one'), adapter('two', '0.5')]));
  const v2 = await waitRolledOut(w.ns, 'phi4', 2);
  assert.notEqual(v2.metadata.annotations?.['workspace.kaito.io/hash'], v1.metadata.annotations?.['workspace.kaito.io/hash']);
  const revisions = await getAll<V1ControllerRevision>(w.ns, 'controllerrevisions', `${LABEL_REVISION_WORKSPACE_NAME}=phi4`);
  assert.deepEqual(revisions.map((r) => r.revision).sort(), [1, 2]);

  const sts2 = await getOne<V1StatefulSet>(w.ns, 'statefulset', 'phi4');
  assert.ok(sts2);
  assert.equal(sts2.metadata?.uid, sts1.metadata?.uid, 'updated in place, not recreated');
  assert.equal(sts2.metadata?.annotations?.[ANNOTATION_REVISION], '2');
  const pod = sts2.spec?.template.spec;
  // What KAITO updates changed: init containers, volumes, the main container's env.
  assert.deepEqual(
    pod?.initContainers?.map((c) => c.name).filter((n) => n.startsWith('puller-')),
    ['puller-one', 'puller-two'],
  );
  const mainC = pod?.containers.find((c) => c.name === main);
  assert.ok(
    mainC?.env?.some((e) => e.name === 'two' && e.value === '0.5'),
    `adapter strength env, got ${JSON.stringify(mainC?.env)}`,
  );
  // What the user did survived.
  assert.equal(sts2.metadata?.labels?.['team.example/owner'], 'alice');
  assert.equal(sts2.metadata?.annotations?.['team.example/note'], 'keep me');
  assert.ok(
    pod?.containers.some((c) => c.name === 'user-sidecar' && c.image === 'registry.example/sidecar:1'),
    'sidecar kept',
  );
  assert.equal(mainC?.image, 'registry.example/custom-vllm:7', 'user image kept');
});

test('a converged workspace: a forced reconcile makes zero API writes', async (t) => {
  const w = await world(t, { pools: [pool('a10', 1)] });
  await applyWorkspace(w.ns, {
    metadata: { name: 'quiet' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
  });
  await waitReady(w.ns, 'quiet');
  await assertNoWritesWhenTouched(w.op!, w.ns, 'quiet');
});

test('deletion leaves nothing: StatefulSet, Services, ControllerRevisions, claims gone, finalizer removed, workspace gone', async (t) => {
  const w = await world(t, { pools: [pool('a100', 1)] });
  const history = await record<WorkspaceObject>(t, `/apis/kaito.sh/v1beta1/namespaces/${w.ns}/workspaces`);
  await applyWorkspace(w.ns, {
    metadata: { name: 'gone' },
    resource: { labelSelector: selectorFor(w.pools[0]!) },
    inference: { preset: { name: 'phi-4-mini-instruct' } },
  });
  const ws = await waitReady(w.ns, 'gone');
  assert.ok(ws.metadata.finalizers?.includes(WORKSPACE_FINALIZER));
  assert.equal((await getAll(w.ns, 'pvc')).length, 1);

  await kubectlDelete(w.ns, 'workspace/gone');
  await waitFor('workspace gone', async () => (await getWorkspace(w.ns, 'gone')) === undefined, { timeoutMs: 30_000 });
  const deleting = history.find((e) => e.obj.status?.conditions?.some((c) => c.type === 'WorkspaceDeleting' && c.status === 'True'));
  assert.ok(deleting, 'WorkspaceDeleting=True was reported before the finalizer was removed');
  await waitFor('DELETED watch event', () => history.some((e) => e.type === 'DELETED'));

  // Garbage collection and the StatefulSet claim retention policy (whenDeleted: Delete) finish the job.
  const left = await waitFor(
    'children gone',
    async () => {
      const kinds = ['statefulsets', 'services', 'controllerrevisions', 'pvc', 'pods', 'configmaps'];
      const found = (await Promise.all(kinds.map(async (k) => (await getAll(w.ns, k)).map((o) => `${k}/${o.metadata?.name}`)))).flat();
      // kube-root-ca.crt is the namespace's own ConfigMap.
      const ours = found.filter((n) => n !== 'configmaps/kube-root-ca.crt');
      return ours.length === 0 ? ours : undefined;
    },
    { timeoutMs: 45_000 },
  );
  assert.deepEqual(left, []);
});

async function kubectlPatch(ns: string, name: string, body: unknown): Promise<void> {
  await kubectl(['patch', 'statefulset', name, '--type=strategic', '-p', JSON.stringify(body)], { namespace: ns });
}

async function kubectlDelete(ns: string, ref: string): Promise<void> {
  await kubectl(['delete', ref, '--wait=false'], { namespace: ns });
}
