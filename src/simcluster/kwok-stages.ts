// Variants of kwok's Stages file (the stock one build.sh copies next to the kwok binary): each takes the
// YAML text and gives another, keeping every other document as it was. Pure: text in, text out.
import { parseAllDocuments, type Document } from 'yaml';
import { WORKSPACE_LABEL } from './provisioner/claim-view.js';

/** Set by the model-load simulation on a workspace pod: when (RFC 3339) kwok may turn it Ready. */
export const READY_AT_ANNOTATION = 'sim.kaito-ts.io/ready-at';

/** The Stage that turns workspace pods Ready at their `ready-at` time (the stock pod-ready skips them). */
export const MODEL_LOAD_STAGE = 'pod-ready-model-load';

/** A kwok JQ key for a label or annotation, e.g. `.metadata.labels["kaito.sh/workspace"]`. */
const metadataKey = (field: 'labels' | 'annotations', name: string): string => `.metadata.${field}[${JSON.stringify(name)}]`;

type Stage = Document;

/** Parses the stages, lets `edit` change or add documents, and prints them back in order. */
function editStages(stagesYaml: string, edit: (docs: Stage[], find: (name: string) => Stage) => Stage[]): string {
  const docs = parseAllDocuments(stagesYaml) as Stage[];
  const find = (name: string): Stage => {
    const d = docs.find((x) => x.getIn(['kind']) === 'Stage' && x.getIn(['metadata', 'name']) === name);
    if (!d) throw new Error(`the kwok stages have no ${name} Stage`);
    return d;
  };
  const out = edit(docs, find);
  // A document parsed after a `---` prints its own marker; give one to any that does not.
  return out.map((d, i) => (i === 0 || d.toString().startsWith('---') ? d.toString() : `---\n${d.toString()}`)).join('');
}

/**
 * kwok's Stages with a delay before a pod turns Ready: the time a real inference pod spends pulling its
 * image and loading the model. KAITO v0.8.0 holds one of its 5 workers per workspace for that long.
 */
export function withPodReadyDelay(stagesYaml: string, delayMs: number): string {
  return editStages(stagesYaml, (docs, find) => {
    find('pod-ready').setIn(['spec', 'delay'], { durationMilliseconds: delayMs });
    return docs;
  });
}

/**
 * kwok's Stages for the model-load simulation: the stock pod-ready no longer matches workspace pods
 * (label `kaito.sh/workspace`); a copy of it, `pod-ready-model-load`, matches them once they carry the
 * `sim.kaito-ts.io/ready-at` annotation and waits until that time (kwok reads an RFC 3339 value minus
 * now as the delay; a time already past plays at once). Every other Stage is kept as it was.
 */
export function withModelLoadStages(stagesYaml: string): string {
  return editStages(stagesYaml, (docs, find) => {
    const ready = find('pod-ready');
    const modelLoad = ready.clone();
    const selector = ['spec', 'selector', 'matchExpressions'];
    ready.addIn(selector, { key: metadataKey('labels', WORKSPACE_LABEL), operator: 'DoesNotExist' });
    modelLoad.setIn(['metadata', 'name'], MODEL_LOAD_STAGE);
    modelLoad.addIn(selector, { key: metadataKey('labels', WORKSPACE_LABEL), operator: 'Exists' });
    modelLoad.addIn(selector, { key: metadataKey('annotations', READY_AT_ANNOTATION), operator: 'Exists' });
    modelLoad.setIn(['spec', 'delay'], { durationFrom: { jq: { expression: metadataKey('annotations', READY_AT_ANNOTATION) } } });
    const at = docs.indexOf(ready);
    return [...docs.slice(0, at + 1), modelLoad, ...docs.slice(at + 1)];
  });
}
