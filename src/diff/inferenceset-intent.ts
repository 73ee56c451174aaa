// What one pass of the InferenceSet controller would do on listed objects (`kaito-ts diff`) or a
// `--state` file (`kaito-ts render`): the controller's own plan (planInferenceSet), nothing decided here.
import type { KubernetesObject, V1ControllerRevision } from '@kubernetes/client-node';
import { INFERENCESET_KIND, type InferenceSet } from '../api/inferenceset-types.js';
import { LABEL_INFERENCESET_CREATED_BY, LABEL_REVISION_INFERENCESET_NAME } from '../api/labels.js';
import { checkSchema, applyDefaults, refusedOnCreate } from '../api/schema-check.js';
import { ALPHA_VERSION, GROUP, VERSION } from '../api/types.js';
import { inferenceSetCrd } from '../api/inferenceset-crd.js';
import type { ChildWorkspace, InferenceSetObject } from '../controllers/inferenceset/children.js';
import { planInferenceSet, type InferenceSetPlan } from '../controllers/inferenceset/plan.js';
import { describeAction } from '../controllers/shared/actions.js';
import type { DeepReadonly } from '../runtime/readonly.js';

export interface InferenceSetObjects {
  workspaces: readonly DeepReadonly<KubernetesObject>[];
  controllerRevisions: readonly DeepReadonly<V1ControllerRevision>[];
}

/** An InferenceSet read from a file: apiVersion, metadata.name, then the CRD's structural schema; CRD defaults applied. */
export function parseInferenceSet(value: unknown): InferenceSetObject {
  const o = value as { apiVersion?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const versions = [VERSION, ALPHA_VERSION].map((v) => `${GROUP}/${v}`);
  if (typeof o.apiVersion !== 'string' || !versions.includes(o.apiVersion))
    throw new Error(`apiVersion must be one of ${versions.join(', ')}, got ${JSON.stringify(o.apiVersion ?? null)}`);
  if (typeof o.metadata?.name !== 'string' || o.metadata.name === '') throw new Error('metadata.name is required');
  const version = inferenceSetCrd().spec.versions.find((v) => `${GROUP}/${v.name}` === o.apiVersion);
  const schema = version?.schema.openAPIV3Schema;
  if (!schema) throw new Error(`no schema for ${o.apiVersion}`);
  const is = applyDefaults(structuredClone(value), schema) as InferenceSet;
  const [first] = checkSchema(is, schema).filter(refusedOnCreate);
  if (first) throw new Error(`inferenceset ${o.metadata.name}: ${first.field}: ${first.message}`);
  return { ...is, metadata: { ...is.metadata, namespace: is.metadata.namespace ?? 'default' } };
}

/** The controller's first pass over `is` with these objects (no deletes or creates in flight). */
export function planInferenceSetOffline(is: InferenceSetObject, objects: InferenceSetObjects, o: { byo: boolean; now?: Date }): InferenceSetPlan {
  const ns = is.metadata.namespace;
  const name = is.metadata.name ?? '';
  const children = objects.workspaces.filter(
    (w) => w.kind !== INFERENCESET_KIND && w.metadata?.namespace === ns && w.metadata?.labels?.[LABEL_INFERENCESET_CREATED_BY] === name,
  ) as unknown as readonly DeepReadonly<ChildWorkspace>[];
  const revisions = objects.controllerRevisions.filter((r) => r.metadata?.namespace === ns && r.metadata?.labels?.[LABEL_REVISION_INFERENCESET_NAME] === name);
  return planInferenceSet({
    is,
    children,
    revisions,
    expectations: { pendingDeletes: new Set(), holdCreates: false },
    byo: o.byo,
    now: o.now ?? new Date(),
  });
}

/** The plan's actions on child Workspaces (creates, deletes, labels), one line each; `failure` when the pass would stop. */
export function childWorkspaceChanges(plan: InferenceSetPlan): { lines: string[]; failure?: string } {
  if (plan.failure) return { lines: [], failure: `stops with ${plan.failure.reason}: ${plan.failure.message}` };
  const lines = plan.actions
    .filter((a) => (a.kind === 'create' || a.kind === 'delete' || a.kind === 'patchLabels') && a.type.kind === 'Workspace')
    .map((a) => describeAction(a, 'inferenceset').replace(/^create Workspace (\S*)\/:/, (_, ns: string) => `create Workspace ${ns}/<generated>:`));
  return { lines };
}
