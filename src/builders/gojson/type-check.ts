// Where a JSON value does not fit a known Go type: the places Go's encoding/json refuses ("cannot
// unmarshal string into Go struct field PodTemplateSpec.spec of type v1.PodSpec"). KAITO decodes every
// Workspace into its Go types, so a value listed here is one KAITO cannot read either; kaito-ts refuses
// it in validation (src/api/validation.ts) instead of letting a builder trip over it. `null` fits every
// type (Go leaves the zero value). Deliberately lenient where Go is lenient: any JSON number fits a Go
// number (the table does not tell int from float), and quantities are not parsed here.
import type { GoStructTable } from './encode.js';
import { K8S_STRUCTS } from './k8s-types.js';

export interface GoTypeMismatch {
  /** Dotted path below the checked value, e.g. `spec.containers[0].ports`; empty for the value itself. */
  path: string;
  /** What the Go type needs, e.g. `an object (PodSpec)`. */
  want: string;
  /** The JSON type found: string, number, boolean, array or object. */
  got: string;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

const SCALARS: Record<string, { want: string; fits: (v: unknown) => boolean }> = {
  string: { want: 'a string', fits: (v) => typeof v === 'string' },
  bytes: { want: 'a string (base64)', fits: (v) => typeof v === 'string' },
  time: { want: 'a string (RFC 3339 time)', fits: (v) => typeof v === 'string' },
  number: { want: 'a number', fits: (v) => typeof v === 'number' },
  bool: { want: 'a boolean', fits: (v) => typeof v === 'boolean' },
  quantity: { want: 'a quantity (string or number)', fits: (v) => typeof v === 'string' || typeof v === 'number' },
  intOrString: { want: 'an integer or a string', fits: (v) => typeof v === 'string' || typeof v === 'number' },
  raw: { want: 'any JSON value', fits: () => true },
};

function walk(v: unknown, type: string, structs: GoStructTable, path: string, out: GoTypeMismatch[]): void {
  if (v === null || v === undefined) return;
  const bare = type.replace(/^\*+/, '');
  const fields = structs[bare];
  if (fields) {
    if (!isObject(v)) {
      out.push({ path, want: `an object (${bare})`, got: jsonType(v) });
      return;
    }
    const types = new Map(fields.map(([name, t]) => [name, t]));
    for (const [key, value] of Object.entries(v)) {
      const t = types.get(key);
      if (t !== undefined) walk(value, t, structs, join(path, key), out); // unknown keys: Go drops them (prune.ts)
    }
    return;
  }
  if (bare.startsWith('[]')) {
    if (!Array.isArray(v)) {
      out.push({ path, want: 'an array', got: jsonType(v) });
      return;
    }
    v.forEach((e, i) => walk(e, bare.slice(2), structs, `${path}[${i}]`, out));
    return;
  }
  if (bare.startsWith('map:')) {
    if (!isObject(v)) {
      out.push({ path, want: 'an object (a map)', got: jsonType(v) });
      return;
    }
    for (const [k, e] of Object.entries(v)) walk(e, bare.slice(4), structs, `${path}[${k}]`, out);
    return;
  }
  const scalar = SCALARS[bare];
  if (scalar && !scalar.fits(v)) out.push({ path, want: scalar.want, got: jsonType(v) });
}

/** Every place `value` does not fit Go type `type` (a K8S_STRUCTS name such as `PodTemplateSpec`), in document order. */
export function goTypeMismatches(value: unknown, type: string, structs: GoStructTable = K8S_STRUCTS): GoTypeMismatch[] {
  const out: GoTypeMismatch[] = [];
  walk(value, type, structs, '', out);
  return out;
}
