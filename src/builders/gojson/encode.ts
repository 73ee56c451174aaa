// Emulates Go's encoding/json for a value decoded into a known Go struct, so hashes computed over
// "the Go object as JSON" match KAITO byte for byte. Rules reproduced:
//  * struct fields in Go declaration order, never sorted; fields unknown to the Go type are dropped
//    (Go's decoder drops them before KAITO ever encodes);
//  * `omitempty` drops "", 0, false, nil pointers, nil/empty slices and maps — but never a non-pointer
//    struct (emitted, `{}` when empty; a zero Quantity is "0", a zero IntOrString 0);
//  * `omitzero` drops a zero value (apimachinery v0.34 tags ObjectMeta.creationTimestamp so);
//  * without `omitempty` a nil slice/map/pointer is `null`;
//  * quantities in Go's canonical form (`1000m` → `1`, see catalog/quantity-canonical.ts), times as
//    RFC 3339 in UTC, whole seconds (metav1.Time);
//  * map keys sorted; `<`, `>`, `&`, U+2028, U+2029 escaped as \u003c, \u003e, \u0026, \u2028, \u2029.
import { canonicalQuantity } from '../../catalog/quantity-canonical.js';
import { K8S_STRUCTS, type GoField } from './k8s-types.js';
import { isoSeconds } from '../../runtime/timestamps.js';

export type GoStructTable = Readonly<Record<string, readonly GoField[]>>;

const HTML_UNSAFE: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A JSON string literal as Go writes it (HTML-safe escaping). */
export function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => HTML_UNSAFE[c] ?? c);
}

function isNil(v: unknown): boolean {
  return v === undefined || v === null;
}

/** Go types that are structs in Go though encoded as scalars: omitempty never drops them. */
const SCALAR_STRUCTS = new Set(['time', 'quantity', 'intOrString']);

/** Go's `isEmptyValue` for a field of the given type, applied before encoding. */
function isEmpty(v: unknown, type: string, structs: GoStructTable): boolean {
  if (isNil(v)) {
    // A nil non-pointer struct is still a (zero) struct, which omitempty never drops.
    return !(type in structs) && !SCALAR_STRUCTS.has(type);
  }
  if (type.startsWith('*')) return false;
  if (type.startsWith('[]')) return Array.isArray(v) && v.length === 0;
  if (type.startsWith('map:')) return typeof v === 'object' && Object.keys(v as object).length === 0;
  if (type in structs || SCALAR_STRUCTS.has(type)) return false;
  if (type === 'string' || type === 'bytes') return v === '';
  if (type === 'number') return Number(v) === 0;
  if (type === 'bool') return v === false;
  return false;
}

function encodeNumber(v: unknown): string {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? String(n) : '0';
}

function encodeStruct(v: unknown, fields: readonly GoField[], structs: GoStructTable): string {
  const obj = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const [name, type, omitempty, omitzero] of fields) {
    const value = obj[name];
    if (omitempty && isEmpty(value, type, structs)) continue;
    if (omitzero && type === 'time' && (isNil(value) || value === '')) continue;
    parts.push(`${goString(name)}:${encodeGo(value, type, structs)}`);
  }
  return `{${parts.join(',')}}`;
}

/** metav1.Time's MarshalJSON: UTC, whole seconds. Text that is not a time is kept (Go would refuse it). */
function rfc3339(v: unknown): string {
  const date = v instanceof Date ? v : new Date(String(v));
  return Number.isNaN(date.getTime()) ? String(v) : isoSeconds(date);
}

/** Encodes `v` as Go would after decoding it into a value of Go type `type` (see k8s-types.ts). */
export function encodeGo(v: unknown, type: string, structs: GoStructTable = K8S_STRUCTS): string {
  if (type.startsWith('*')) return isNil(v) ? 'null' : encodeGo(v, type.slice(1), structs);
  const fields = structs[type];
  if (fields) return encodeStruct(v, fields, structs);
  if (type.startsWith('[]')) {
    if (!Array.isArray(v)) return 'null';
    return `[${v.map((e) => encodeGo(e, type.slice(2), structs)).join(',')}]`;
  }
  if (type.startsWith('map:')) {
    if (isNil(v) || typeof v !== 'object') return 'null';
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, e]) => `${goString(k)}:${encodeGo(e, type.slice(4), structs)}`).join(',')}}`;
  }
  switch (type) {
    case 'string':
    case 'bytes':
      return goString(isNil(v) ? '' : String(v));
    case 'quantity':
      return goString(isNil(v) ? '0' : (canonicalQuantity(v as string | number) ?? String(v)));
    case 'number':
      return encodeNumber(v);
    case 'bool':
      return v === true ? 'true' : 'false';
    case 'intOrString':
      return typeof v === 'number' || isNil(v) ? encodeNumber(v ?? 0) : goString(String(v));
    case 'time':
      return isNil(v) || v === '' ? 'null' : goString(rfc3339(v));
    case 'raw':
      return isNil(v) ? 'null' : JSON.stringify(v);
    default:
      throw new Error(`gojson: no encoding for Go type ${type}`);
  }
}

/** What `json.NewEncoder(w).Encode(v)` writes: the encoding plus a newline. */
export function encodeGoDocument(v: unknown, type: string, structs: GoStructTable = K8S_STRUCTS): string {
  return `${encodeGo(v, type, structs)}\n`;
}
