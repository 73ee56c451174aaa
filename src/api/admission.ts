// What kube-apiserver answers when a kaito.sh Workspace or InferenceSet is created with strict field
// validation (`kubectl apply --server-side`), decided offline from the CRDs kaito-ts generates: the
// served apiVersions, the metadata rules (object-meta.ts), the structural schema with unknown fields
// refused (schema-check.ts), the schema defaults, then every CEL rule (cel-rules.ts). Admission
// webhooks, quotas and the state of the cluster are not part of it.
import { celErrors } from './cel-rules.js';
import { workspaceCrd, type CustomResourceDefinition } from './crd.js';
import { inferenceSetCrd } from './inferenceset-crd.js';
import { objectMetaErrors } from './object-meta.js';
import type { OpenApiSchema } from './openapi-schema.js';
import { applyDefaults, checkSchema, refusedOnCreate, type SchemaError } from './schema-check.js';

export interface AdmissionVerdict {
  /** The kind the document claims (Workspace, InferenceSet), or undefined when it claims neither. */
  kind?: string;
  /** Empty: the API server accepts the document. */
  errors: SchemaError[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

let crds: CustomResourceDefinition[] | undefined;
/** Both CRDs as the generator emits them now (built once: they are pure). */
const servedCrds = (): CustomResourceDefinition[] => (crds ??= [workspaceCrd(), inferenceSetCrd()]);

/** The schema kube-apiserver validates `apiVersion`/`kind` against, or why there is none. */
export function servedSchema(apiVersion: unknown, kind: unknown): { schema: OpenApiSchema } | { error: SchemaError } {
  const crd = servedCrds().find((c) => c.spec.names.kind === kind);
  if (!crd) return { error: { field: 'kind', message: `Unsupported value: ${JSON.stringify(kind ?? null)}: not a kind of kaito.sh` } };
  const served = crd.spec.versions.filter((v) => v.served);
  const version = served.find((v) => `${crd.spec.group}/${v.name}` === apiVersion);
  if (!version) {
    const names = served.map((v) => `${crd.spec.group}/${v.name}`).join(', ');
    return {
      error: { field: 'apiVersion', message: `Unsupported value: ${JSON.stringify(apiVersion ?? null)}: ${crd.spec.names.kind} is served as ${names}` },
    };
  }
  return { schema: version.schema.openAPIV3Schema };
}

/**
 * The API server's answer to creating `doc` (one Workspace or InferenceSet, as written in a file):
 * every problem found, in the order the API server checks (a stage with problems stops the later ones,
 * as a type error there stops the CEL rules). `status` only needs the schema's shape: it is dropped on create.
 */
export function admit(doc: unknown): AdmissionVerdict {
  if (!isObject(doc)) return { errors: [{ field: '<root>', message: 'must be an object' }] };
  const kind = typeof doc.kind === 'string' ? doc.kind : undefined;
  const found = servedSchema(doc.apiVersion, doc.kind);
  if ('error' in found) return { kind, errors: [found.error] };
  const { status, ...object } = doc;
  const meta = objectMetaErrors(object.metadata, { nameRule: 'dns1123Subdomain', namespaced: true });
  if (meta.length > 0) return { kind, errors: meta };
  const statusShape = statusShapeErrors(status, found.schema.properties?.status);
  if (statusShape.length > 0) return { kind, errors: statusShape };
  // Defaults first, as the API server decodes: a null where a default is declared becomes that default.
  const defaulted = applyDefaults(object, found.schema);
  const structural = checkSchema(defaulted, found.schema);
  if (structural.length > 0) return { kind, errors: structural };
  return { kind, errors: celErrors(defaulted, found.schema) };
}

/**
 * `status` is dropped on create, but server-side apply first builds a typed object of the whole
 * document: a field the schema does not declare, or a value of the wrong type, is refused there.
 */
function statusShapeErrors(status: unknown, schema: OpenApiSchema | undefined): SchemaError[] {
  if (status === undefined || status === null || !schema) return [];
  return checkSchema({ status }, { type: 'object', properties: { status: schema } }).filter(refusedOnCreate);
}
