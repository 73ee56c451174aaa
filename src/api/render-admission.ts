// The API server's answers as `kaito-ts render` reports them: one line naming the object and the
// field, worded so a reader (and the corpus test) can tell the API server's refusal from the operator's.
import { admit } from './admission.js';
import { INFERENCESET_KIND } from './inferenceset-types.js';
import { inferencePresetOf } from './resolved-workspace.js';
import { KIND, type Workspace } from './types.js';
import { parseWorkspace } from './validation.js';
import { objectRef, workloadErrors } from './workload-admission.js';

/** The words that open a refusal of the document itself. */
export const REFUSED_BY_API_SERVER = 'refused by the API server';
/** The words that open a refusal of an object render would print. */
export const CHILD_REFUSED_BY_API_SERVER = 'the API server would refuse';

/** A placeholder UID where the object's owner has none yet: offline, the owner is not stored, and the operator writes its real UID. */
export const OFFLINE_OWNER_UID = '00000000-0000-0000-0000-000000000000';

export function withOwnerUids<T>(object: T): T {
  const meta = (object as { metadata?: { ownerReferences?: { uid?: string }[] } }).metadata;
  if (!meta?.ownerReferences?.some((r) => !r.uid)) return object;
  const ownerReferences = meta.ownerReferences.map((r) => (r.uid ? r : { ...r, uid: OFFLINE_OWNER_UID }));
  return { ...object, metadata: { ...meta, ownerReferences } };
}

/** `<what>: refused by the API server: <field>: <message>` for the first problem of `doc`, or undefined. */
export function admissionProblem(doc: unknown, what: string): string | undefined {
  const [first] = admit(doc).errors;
  return first ? `${what}: ${REFUSED_BY_API_SERVER}: ${first.field}: ${first.message}` : undefined;
}

/** `<what>: the API server would refuse <Kind ns/name>: <field>: <message>` for the first object refused, or undefined. */
export function printedObjectsProblem(objects: readonly unknown[], what: string): string | undefined {
  for (const o of objects) {
    const [first] = workloadErrors(withOwnerUids(o));
    if (first) return `${what}: ${CHILD_REFUSED_BY_API_SERVER} ${objectRef(o)}: ${first.field}: ${first.message}`;
  }
  return undefined;
}

/**
 * The child Workspaces an InferenceSet render prints, as the operator will read them once created (the
 * name the API server generates, the CRD's defaults), for the Workspace checks. Children naming a
 * Hugging Face model outside the catalog are left out: render reads the hub for Workspaces only.
 */
export function childWorkspacesToCheck(objects: readonly unknown[]): Workspace[] {
  return objects.flatMap((o) => {
    const child = withOwnerUids(o as Workspace);
    if (child.kind !== KIND) return [];
    const meta = child.metadata;
    const ws = parseWorkspace({ ...child, metadata: { ...meta, name: meta.name ?? `${meta.generateName ?? ''}xxxxx` } });
    return ws.inference && inferencePresetOf(ws)?.kind === 'resolving' ? [] : [ws];
  });
}

/**
 * A Workspace or InferenceSet document as written in a file, before anything else reads it: the API
 * server's refusal in one line (`workspace ns/name: refused by the API server: field: message`), or
 * undefined. Documents of other kinds are not for this check.
 */
export function documentAdmissionProblem(doc: unknown): string | undefined {
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  if (o.kind !== KIND && o.kind !== INFERENCESET_KIND) return undefined;
  const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
  const ns = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : 'default';
  const what = `${o.kind.toLowerCase()} ${ns}/${name || '<no name>'}`;
  // `kubectl apply` addresses the object by name: a generateName alone is not enough for it.
  if (name === '') return `${what}: ${REFUSED_BY_API_SERVER}: metadata.name: Required value: apply needs a name`;
  return admissionProblem(doc, what);
}
