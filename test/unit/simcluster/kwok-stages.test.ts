// The kwok Stages variants: the bench's pod-ready delay and the model-load simulation's Stages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { MODEL_LOAD_STAGE, READY_AT_ANNOTATION, withModelLoadStages, withPodReadyDelay } from '../../../src/simcluster/kwok-stages.js';

interface StageDoc {
  metadata: { name: string };
  spec: {
    selector?: { matchExpressions?: { key: string; operator: string; values?: string[] }[] };
    delay?: unknown;
    next?: unknown;
    resourceRef?: unknown;
  };
}

const parse = (text: string): StageDoc[] => parseAllDocuments(text).map((d) => d.toJS() as StageDoc);

// The shape of build.sh's file: node Stages, then kwok v0.8.0's fast pod-ready (selector as upstream), then pod-delete.
const stages = [
  'apiVersion: kwok.x-k8s.io/v1alpha1',
  'kind: Stage',
  'metadata:',
  '  name: node-initialize',
  'spec:',
  '  resourceRef: {apiGroup: v1, kind: Node}',
  '---',
  'apiVersion: kwok.x-k8s.io/v1alpha1',
  'kind: Stage',
  'metadata:',
  '  name: pod-ready',
  'spec:',
  '  resourceRef:',
  '    apiGroup: v1',
  '    kind: Pod',
  '  selector:',
  '    matchExpressions:',
  "    - key: '.metadata.deletionTimestamp'",
  "      operator: 'DoesNotExist'",
  "    - key: '.status.phase'",
  "      operator: 'In'",
  '      values:',
  "      - 'Pending'",
  '  next:',
  '    statusTemplate: |',
  '      conditions: []',
  '---',
  'apiVersion: kwok.x-k8s.io/v1alpha1',
  'kind: Stage',
  'metadata:',
  '  name: pod-delete',
  'spec:',
  '  resourceRef: {apiGroup: v1, kind: Pod}',
  '',
].join('\n');

const stock = parse(stages);

describe('withPodReadyDelay', () => {
  it('delays only the pod-ready Stage and keeps the rest', () => {
    const out = parse(withPodReadyDelay(stages, 30_000));
    assert.deepEqual(
      out.map((d) => d.metadata.name),
      ['node-initialize', 'pod-ready', 'pod-delete'],
    );
    assert.deepEqual(out[1]?.spec.delay, { durationMilliseconds: 30000 });
    assert.equal(out[0]?.spec.delay, undefined);
    assert.deepEqual(out[1]?.spec.next, { statusTemplate: 'conditions: []\n' });
  });
  it('refuses stages without pod-ready', () => {
    assert.throws(() => withPodReadyDelay(stages.split('---')[0] ?? '', 1000), /no pod-ready Stage/);
  });
});

describe('withModelLoadStages', () => {
  const out = parse(withModelLoadStages(stages));
  const byName = (name: string): StageDoc => {
    const d = out.find((x) => x.metadata.name === name);
    assert.ok(d, name);
    return d;
  };
  const label = '.metadata.labels["kaito.sh/workspace"]';
  const readyAt = `.metadata.annotations["${READY_AT_ANNOTATION}"]`;

  it('adds the model-load Stage right after pod-ready and keeps every other Stage as it was', () => {
    assert.deepEqual(
      out.map((d) => d.metadata.name),
      ['node-initialize', 'pod-ready', MODEL_LOAD_STAGE, 'pod-delete'],
    );
    assert.deepEqual(out[0], stock[0]);
    assert.deepEqual(out[3], stock[2]);
  });

  it('stock pod-ready no longer matches pods with the workspace label; nothing else in it changes', () => {
    const ready = byName('pod-ready');
    const before = stock[1];
    assert.deepEqual(ready.spec.selector?.matchExpressions, [...(before?.spec.selector?.matchExpressions ?? []), { key: label, operator: 'DoesNotExist' }]);
    assert.deepEqual({ ...ready.spec, selector: undefined }, { ...before?.spec, selector: undefined });
  });

  it('the model-load Stage: pod-ready selector plus the label and ready-at, its next status, the delay read from ready-at', () => {
    const load = byName(MODEL_LOAD_STAGE);
    assert.deepEqual(load.spec.selector?.matchExpressions, [
      ...(stock[1]?.spec.selector?.matchExpressions ?? []),
      { key: label, operator: 'Exists' },
      { key: readyAt, operator: 'Exists' },
    ]);
    assert.deepEqual(load.spec.next, stock[1]?.spec.next);
    assert.deepEqual(load.spec.resourceRef, stock[1]?.spec.resourceRef);
    assert.deepEqual(load.spec.delay, { durationFrom: { jq: { expression: readyAt } } });
  });

  it('prints one document per Stage, each after a --- marker', () => {
    const text = withModelLoadStages(stages);
    assert.equal(text.split(/^---$/m).length, 4);
    assert.equal(parseAllDocuments(text).length, 4);
  });

  it('refuses stages without pod-ready', () => {
    assert.throws(() => withModelLoadStages(stages.split('---')[0] ?? ''), /no pod-ready Stage/);
  });
});
