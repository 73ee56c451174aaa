// What kube-apiserver checks in an object's `metadata` on create (apimachinery's ValidateObjectMeta, and
// the decoding into metav1.ObjectMeta under strict field validation): known fields of the right JSON
// types, a name or generateName, names, namespace, label keys and values, annotation keys and their
// total size, finalizer names and owner references. The name rule depends on the kind (`NameRule`).
import type { SchemaError } from './schema-check.js';
import { dns1035LabelProblem, dns1123LabelProblem, dns1123SubdomainProblem, labelValueProblem, qualifiedNameProblem } from './k8s-names.js';

export type NameRule = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label';

const NAME_RULES: Record<NameRule, (v: string) => string | undefined> = {
  dns1123Subdomain: dns1123SubdomainProblem,
  dns1123Label: dns1123LabelProblem,
  dns1035Label: dns1035LabelProblem,
};

/** metav1.ObjectMeta's JSON fields and their types. */
const FIELDS: Record<string, 'string' | 'integer' | 'stringMap' | 'stringList' | 'list' | 'time'> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'integer',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'integer',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'list',
  finalizers: 'stringList',
  managedFields: 'list',
};

/** The most an object's annotations may hold, keys and values together (apimachinery's TotalAnnotationSizeLimitB). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function typeProblem(value: unknown, kind: (typeof FIELDS)[string]): string | undefined {
  if (value === null) return undefined; // Go leaves the zero value
  const got = typeName(value);
  switch (kind) {
    case 'string':
    case 'time':
      return got === 'string' ? undefined : `Invalid value: "${got}": must be a string`;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : `Invalid value: "${got}": must be an integer`;
    case 'stringMap':
      if (!isObject(value)) return `Invalid value: "${got}": must be a map of strings`;
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && typeof v !== 'string') return `Invalid value: "${typeName(v)}" under key ${JSON.stringify(k)}: must be a string`;
      }
      return undefined;
    case 'stringList':
      if (!Array.isArray(value)) return `Invalid value: "${got}": must be a list of strings`;
      return value.every((v) => typeof v === 'string') ? undefined : 'Invalid value: must be a list of strings';
    case 'list':
      return Array.isArray(value) && value.every(isObject) ? undefined : `Invalid value: "${got}": must be a list of objects`;
  }
}

/** apimachinery checks a generateName as a name whose last two characters are `a` when it ends with '-'. */
const maskTrailingDash = (prefix: string): string => (prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix);

export interface ObjectMetaOptions {
  nameRule: NameRule;
  namespaced: boolean;
  /** The path of the metadata object in messages; `metadata` by default. */
  path?: string;
}

/** The first problems of `meta` as kube-apiserver reports them on create; empty when it would pass. */
export function objectMetaErrors(meta: unknown, o: ObjectMetaOptions): SchemaError[] {
  const path = o.path ?? 'metadata';
  if (!isObject(meta)) return [{ field: path, message: `Invalid value: "${typeName(meta)}": must be an object` }];
  const out: SchemaError[] = [];
  for (const [key, value] of Object.entries(meta)) {
    if (value === undefined) continue;
    const kind = FIELDS[key];
    if (!kind) out.push({ field: `${path}.${key}`, message: 'field not declared in schema' });
    else {
      const problem = typeProblem(value, kind);
      if (problem) out.push({ field: `${path}.${key}`, message: problem });
    }
  }
  if (out.length > 0) return out; // the rules below read the fields as typed
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const name = str(meta.name);
  const generateName = str(meta.generateName);
  const nameProblem = NAME_RULES[o.nameRule];
  if (name === '' && generateName === '') out.push({ field: `${path}.name`, message: 'Required value: name or generateName is required' });
  if (generateName !== '') {
    const problem = nameProblem(maskTrailingDash(generateName));
    if (problem) out.push({ field: `${path}.generateName`, message: `Invalid value: ${JSON.stringify(generateName)}: ${problem}` });
  }
  if (name !== '') {
    const problem = nameProblem(name);
    if (problem) out.push({ field: `${path}.name`, message: `Invalid value: ${JSON.stringify(name)}: ${problem}` });
  }
  const namespace = str(meta.namespace);
  if (o.namespaced && namespace !== '') {
    const problem = dns1123LabelProblem(namespace);
    if (problem) out.push({ field: `${path}.namespace`, message: `Invalid value: ${JSON.stringify(namespace)}: ${problem}` });
  }
  if (!o.namespaced && namespace !== '') out.push({ field: `${path}.namespace`, message: 'Forbidden: not allowed on this type' });
  out.push(...labelErrors(meta.labels, `${path}.labels`), ...annotationErrors(meta.annotations, `${path}.annotations`));
  for (const [i, f] of ((meta.finalizers as string[] | null) ?? []).entries()) {
    const problem = qualifiedNameProblem(f);
    if (problem) out.push({ field: `${path}.finalizers[${i}]`, message: `Invalid value: ${JSON.stringify(f)}: ${problem}` });
  }
  for (const [i, ref] of ((meta.ownerReferences as Record<string, unknown>[] | null) ?? []).entries()) {
    for (const key of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof ref[key] !== 'string' || ref[key] === '') out.push({ field: `${path}.ownerReferences[${i}].${key}`, message: 'Required value' });
    }
  }
  return out;
}

/** Label keys (qualified names) and values (at most 63 characters, alphanumeric at both ends). */
export function labelErrors(labels: unknown, path: string): SchemaError[] {
  if (!isObject(labels)) return [];
  const out: SchemaError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const keyProblem = qualifiedNameProblem(k);
    if (keyProblem) out.push({ field: path, message: `Invalid value: ${JSON.stringify(k)}: ${keyProblem}` });
    const value = typeof v === 'string' ? v : '';
    const valueProblem = labelValueProblem(value);
    if (valueProblem) out.push({ field: `${path}[${k}]`, message: `Invalid value: ${JSON.stringify(value)}: ${valueProblem}` });
  }
  return out;
}

/** Annotation keys (qualified names, compared in lower case) and the 256 KiB bound on keys and values together. */
export function annotationErrors(annotations: unknown, path: string): SchemaError[] {
  if (!isObject(annotations)) return [];
  const out: SchemaError[] = [];
  let bytes = 0;
  for (const [k, v] of Object.entries(annotations)) {
    const keyProblem = qualifiedNameProblem(k.toLowerCase());
    if (keyProblem) out.push({ field: path, message: `Invalid value: ${JSON.stringify(k)}: ${keyProblem}` });
    bytes += Buffer.byteLength(k) + Buffer.byteLength(typeof v === 'string' ? v : '');
  }
  if (bytes > ANNOTATIONS_MAX_BYTES) out.push({ field: path, message: `Too long: may not be more than ${ANNOTATIONS_MAX_BYTES} bytes` });
  return out;
}
