import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Container, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../../../src/api/labels.js';
import { adoptableAsIs, atRevisionUpdate, selectiveUpdate } from '../../../src/controllers/workspace/selective-update.js';

function sts(p: { image: string; env: string; command: string; replicas: number; initImage: string; volume: string; tolerations?: string }): V1StatefulSet {
  return {
    metadata: { name: 'ws', annotations: { 'workspace.kaito.io/revision': '1' } },
    spec: {
      replicas: p.replicas,
      selector: { matchLabels: { 'kaito.sh/workspace': 'ws' } },
      serviceName: 'ws-headless',
      template: {
        metadata: { labels: { 'kaito.sh/workspace': 'ws' } },
        spec: {
          initContainers: [{ name: 'puller', image: p.initImage }],
          containers: [
            {
              name: 'ws',
              image: p.image,
              command: ['/bin/sh', '-c', p.command],
              env: [{ name: 'E', value: p.env }],
              volumeMounts: [{ name: p.volume, mountPath: '/x' }],
            },
          ],
          volumes: [{ name: p.volume, emptyDir: {} }],
          tolerations: [{ key: p.tolerations ?? 'gpu', operator: 'Exists' }],
        },
      },
    },
  };
}

test('only env, volume mounts, init containers and volumes follow the new revision', () => {
  const live = sts({ image: 'user-image', env: 'old', command: 'user-cmd', replicas: 3, initImage: 'old-init', volume: 'old-vol', tolerations: 'user-taint' });
  const desired = sts({ image: 'new-image', env: 'new', command: 'new-cmd', replicas: 2, initImage: 'new-init', volume: 'new-vol' });
  desired.metadata!.annotations!['workspace.kaito.io/revision'] = '2';
  const out = selectiveUpdate(desired, live);
  const pod = out.spec!.template.spec!;
  const main = pod.containers[0]!;
  assert.equal(out.metadata?.annotations?.['workspace.kaito.io/revision'], '2');
  assert.deepEqual(main.env, [{ name: 'E', value: 'new' }]);
  assert.equal(main.volumeMounts?.[0]?.name, 'new-vol');
  assert.equal(pod.initContainers?.[0]?.image, 'new-init');
  assert.equal(pod.volumes?.[0]?.name, 'new-vol');
  // kept from live
  assert.equal(main.image, 'user-image');
  assert.deepEqual(main.command, ['/bin/sh', '-c', 'user-cmd']);
  assert.equal(out.spec?.replicas, 3);
  assert.equal(pod.tolerations?.[0]?.key, 'user-taint');
});

test('a user sidecar in the live object is not claimed by our apply', () => {
  const live = sts({ image: 'i', env: 'e', command: 'c', replicas: 1, initImage: 'p', volume: 'v' });
  live.spec!.template.spec!.containers.push({ name: 'sidecar', image: 'user/sidecar' });
  const desired = sts({ image: 'i', env: 'e2', command: 'c', replicas: 1, initImage: 'p', volume: 'v' });
  const out = selectiveUpdate(desired, live);
  assert.deepEqual(
    out.spec!.template.spec!.containers.map((c) => c.name),
    ['ws'],
  );
});

test('adoptableAsIs: a KAITO template StatefulSet without the revision annotation is left alone only when nothing updatable differs', () => {
  const base = { image: 'img', env: 'e', command: 'c', replicas: 1, initImage: 'init', volume: 'v' };
  const template = { metadata: { name: 'ws', namespace: 'ns' }, resource: {}, inference: { template: { spec: { containers: [] } } } } as never;
  const preset = { metadata: { name: 'ws', namespace: 'ns' }, resource: {}, inference: { preset: { name: 'phi-4-mini-instruct' } } } as never;
  const kaitoMade = () => {
    const s = sts(base);
    delete s.metadata!.annotations!['workspace.kaito.io/revision'];
    return s;
  };
  const rows: [string, never, V1StatefulSet, V1StatefulSet, number, boolean][] = [
    ['template, same content, no annotation: adopted', template, sts(base), kaitoMade(), 1, true],
    ['template, env differs: written', template, sts({ ...base, env: 'new' }), kaitoMade(), 1, false],
    ['template, replicas differ: written', template, sts(base), kaitoMade(), 2, false],
    ['template, annotation present (ours): normal rule', template, sts(base), sts(base), 1, false],
    ['preset: never', preset, sts(base), kaitoMade(), 1, false],
    ['template, image differs (KAITO keeps the live image): adopted', template, sts({ ...base, image: 'other' }), kaitoMade(), 1, true],
  ];
  for (const [name, ws, desired, live, replicas, want] of rows) assert.equal(adoptableAsIs(ws, desired, live, replicas), want, name);
});

test("atRevisionUpdate: the live template's values for the keys of ours it has, none of the keys it lacks", () => {
  const container = (c: Partial<V1Container>): V1Container => ({ name: 'ws', image: 'img', ...c });
  const sts = (pod: { init: V1Container[]; main: V1Container; sidecar?: boolean }, replicas: number): V1StatefulSet => ({
    metadata: { name: 'ws', annotations: { [ANNOTATION_REVISION]: '1' } },
    spec: {
      replicas,
      selector: { matchLabels: { a: 'b' } },
      serviceName: 'ws-headless',
      template: {
        metadata: { labels: { a: 'b' } },
        spec: { initContainers: pod.init, containers: [pod.main, ...(pod.sidecar ? [{ name: 'sidecar', image: 'user/sidecar' }] : [])] },
      },
    },
  });
  const live = sts({ init: [container({ name: 'puller-a', args: ['theirs'] })], main: container({ env: [{ name: 'E', value: 'live' }] }), sidecar: true }, 1);
  const desired = sts(
    {
      init: [container({ name: 'puller-a', args: ['ours'] })],
      main: container({ env: [{ name: 'E', value: 'ours' }], startupProbe: { exec: { command: ['true'] } } }),
    },
    2,
  );
  const out = atRevisionUpdate(desired, live);
  const pod = out.spec!.template.spec!;
  assert.equal(out.spec?.replicas, 1, 'replicas are set by the plan, as live here');
  assert.deepEqual(pod.initContainers, [container({ name: 'puller-a', args: ['theirs'] })]);
  assert.deepEqual(pod.containers, [container({ env: [{ name: 'E', value: 'live' }] })], 'no startupProbe added, the sidecar not claimed');
  // A new revision: the selective update takes ours for the init containers, whole.
  assert.deepEqual(selectiveUpdate(desired, live).spec!.template.spec!.initContainers, [container({ name: 'puller-a', args: ['ours'] })]);
});
