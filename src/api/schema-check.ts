// A small structural validator for the OpenAPI v3 schemas of CRDs, enough to check example and
// rendered Workspaces against the generated CRD in unit tests and in `kaito-ts render`. It does NOT
// evaluate CEL (`x-kubernetes-validations`); the e2e tests on the real API server cover those.
// Unknown fields are errors (what `kubectl apply` reports with server-side strict field validation),
// except under `x-kubernetes-preserve-unknown-fields` and in root `metadata` (ObjectMeta is checked
// by the API server itself, not by the CRD schema).
import type { OpenApiSchema } from './openapi-schema.js';

export interface SchemaError {
  /** Dotted path, e.g. `inference.adapters[0].strength`. */
  field: string;
  message: string;
  /** `type`: the value has the wrong JSON type (string where an object is declared...). */
  kind?: 'type';
  /** With `kind: 'type'`: the JSON type found (`null`, `string`, `integer`...). */
  got?: string;
  /** A failed CEL rule: its expression (cel-rules.ts). */
  rule?: string;
}

/** The message of a field the schema does not declare (strict field validation). */
export const NOT_DECLARED = 'field not declared in schema';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

function checkType(value: unknown, schema: OpenApiSchema): string | undefined {
  if (schema['x-kubernetes-int-or-string']) {
    return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'string'
      ? undefined
      : `Invalid value: "${typeName(value)}": must be an integer or a string`;
  }
  const want = schema.type;
  if (!want) return undefined;
  const got = typeName(value);
  const ok = want === 'number' ? got === 'number' || got === 'integer' : got === want;
  return ok ? undefined : `Invalid value: "${got}": must be of type ${want}`;
}

function checkScalar(value: unknown, schema: OpenApiSchema): string[] {
  const errors: string[] = [];
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    errors.push(`Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (typeof value === 'string') {
    const runes = [...value].length;
    if (schema.maxLength !== undefined && runes > schema.maxLength) {
      errors.push(`Too long: may not be more than ${schema.maxLength} bytes`);
    }
    if (schema.minLength !== undefined && runes < schema.minLength) {
      errors.push(`Invalid value: ${JSON.stringify(value)}: should be at least ${schema.minLength} chars long`);
    }
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      errors.push(`Invalid value: ${JSON.stringify(value)}: should match '${schema.pattern}'`);
    }
    if (schema.format === 'date-time' && !DATE_TIME.test(value)) {
      errors.push(`Invalid value: ${JSON.stringify(value)}: must be a date-time (RFC 3339)`);
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      errors.push(`Invalid value: ${value}: should be greater than or equal to ${schema.minimum}`);
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      errors.push(`Invalid value: ${value}: should be less than or equal to ${schema.maximum}`);
    }
    if (schema.format === 'int32' && (value < INT32.min || value > INT32.max)) {
      errors.push(`Invalid value: ${value}: out of int32 range`);
    }
  }
  return errors;
}

function walk(value: unknown, schema: OpenApiSchema, path: string, isRoot: boolean, out: SchemaError[]): void {
  const field = path || '<root>';
  const typeError = checkType(value, schema);
  if (typeError) {
    out.push({ field, message: typeError, kind: 'type', got: typeName(value) });
    return;
  }
  for (const message of checkScalar(value, schema)) out.push({ field, message });

  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      out.push({ field, message: `Too many: ${value.length}: must have at most ${schema.maxItems} items` });
    }
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      out.push({ field, message: `Invalid value: ${value.length}: must have at least ${schema.minItems} items` });
    }
    if (schema['x-kubernetes-list-type'] === 'map' && schema['x-kubernetes-list-map-keys']) {
      const keys = schema['x-kubernetes-list-map-keys'];
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const key = JSON.stringify(keys.map((k) => (isPlainObject(item) ? item[k] : undefined)));
        if (seen.has(key)) out.push({ field: `${path}[${i}]`, message: `Duplicate value: ${key}` });
        seen.add(key);
      });
    }
    if (schema.items) value.forEach((item, i) => walk(item, schema.items as OpenApiSchema, `${path}[${i}]`, false, out));
    return;
  }

  if (!isPlainObject(value)) return;
  const props = schema.properties ?? {};
  if (schema.maxProperties !== undefined && Object.keys(value).length > schema.maxProperties) {
    out.push({ field, message: `Too many: ${Object.keys(value).length}: must have at most ${schema.maxProperties} items` });
  }
  for (const name of schema.required ?? []) {
    if (value[name] === undefined) out.push({ field: join(path, name), message: 'Required value' });
  }
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue; // absent in JSON
    const childPath = join(path, key);
    const childSchema = props[key];
    if (childSchema) {
      // ObjectMeta carries far more than the CRD declares; only the declared bits are checked.
      const lenient = isRoot && key === 'metadata';
      walk(child, lenient ? { ...childSchema, 'x-kubernetes-preserve-unknown-fields': true } : childSchema, childPath, false, out);
    } else if (typeof schema.additionalProperties === 'object') {
      walk(child, schema.additionalProperties, childPath, false, out);
    } else if (!preserve && schema.additionalProperties !== true) {
      out.push({ field: childPath, message: NOT_DECLARED });
    }
  }
}

/**
 * Whether the API server refuses an object on create for this error: any error but one inside
 * `status` that is not about its shape (status is dropped on create; only its typed form must build).
 */
export function refusedOnCreate(e: SchemaError): boolean {
  const inStatus = e.field === 'status' || e.field.startsWith('status.') || e.field.startsWith('status[');
  return !inStatus || e.kind === 'type' || e.message === NOT_DECLARED;
}

/** Structural errors of `value` against `schema`; empty when it conforms. */
export function checkSchema(value: unknown, schema: OpenApiSchema): SchemaError[] {
  const out: SchemaError[] = [];
  walk(value, schema, '', true, out);
  return out;
}

/**
 * A copy of `value` with the schema's `default`s filled in where a field is absent or null, the way the
 * API server defaults an object on write (e.g. `resource.count: 1`, `accessMode: public`), before it
 * validates it.
 */
export function applyDefaults<T>(value: T, schema: OpenApiSchema): T {
  return fill(value as Json, schema) as T;
}

function fill(value: Json, schema: OpenApiSchema): Json {
  if (Array.isArray(value)) return schema.items ? value.map((v) => fill(v, schema.items as OpenApiSchema)) : value;
  if (!isPlainObject(value)) return value;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) {
    const child = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    out[k] = child ? fill(v, child) : v;
  }
  for (const [k, child] of Object.entries(schema.properties ?? {})) {
    // A null there is defaulted too (the API server prunes a null it may not keep before defaulting).
    if ((out[k] === undefined || out[k] === null) && child.default !== undefined) out[k] = structuredClone(child.default) as Json;
  }
  return out;
}
