// Evaluates a CRD schema's CEL rules (`x-kubernetes-validations`) on an object the way the API server
// does on create: every rule of every schema node whose value is present, `self` bound to that value,
// integer fields as CEL ints. The rules are the generator's own (crd.ts, inferenceset-crd.ts), read
// from the schema at run time, so a rule added there is checked here with no other change. Transition
// rules (`oldSelf`) only run on update and are skipped. The evaluator is @marcbachmann/cel-js; its
// `matches` uses JavaScript's RegExp where the API server uses RE2 (same result for the patterns of
// these CRDs, except `\s` also matching Unicode spaces in the cron rule).
import { Environment } from '@marcbachmann/cel-js';
import type { CelRule, OpenApiSchema } from './openapi-schema.js';
import type { SchemaError } from './schema-check.js';

type Program = (context: Record<string, unknown>) => unknown;

const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
const programs = new Map<string, Program>();

export function compileCel(expression: string): Program {
  let program = programs.get(expression);
  if (!program) programs.set(expression, (program = env.parse(expression) as unknown as Program));
  return program;
}

/** Whether a rule compares with the stored object: those run on update only. */
export const isTransitionRule = (rule: CelRule): boolean => /\boldSelf\b/.test(rule.rule);

/** The first line of an evaluation error (the library appends the expression with a caret). */
const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();

/** `value` as CEL sees it under `schema`: JSON integers of integer fields become CEL ints (bigint). */
export function celValue(value: unknown, schema: OpenApiSchema | undefined): unknown {
  if (value === null || value === undefined || !schema) return value;
  if (schema.type === 'integer' && typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map((v) => celValue(v, schema.items));
  if (typeof value !== 'object') return value;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) out[k] = celValue(v, schema.properties?.[k] ?? additional);
  }
  return out;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** The field the API server names: the node's path plus the rule's fieldPath (`.source.name`). */
function fieldOf(path: string, rule: CelRule): string {
  const suffix = rule.fieldPath?.replace(/^\./, '') ?? '';
  return suffix ? join(path, suffix) : path || '<root>';
}

function evaluate(rule: CelRule, self: unknown, path: string): SchemaError | undefined {
  let ok: unknown;
  try {
    ok = compileCel(rule.rule)({ self });
  } catch (err) {
    return { field: fieldOf(path, rule), message: `Invalid value: ${firstLine(err)}: rule ${rule.rule}`, rule: rule.rule };
  }
  if (ok === true) return undefined;
  let message = rule.message ?? `failed rule: ${rule.rule}`;
  if (rule.messageExpression) {
    try {
      const text = compileCel(rule.messageExpression)({ self });
      if (typeof text === 'string' && text.trim() !== '') message = text;
    } catch {
      // The API server falls back to `message` when the expression fails.
    }
  }
  return { field: fieldOf(path, rule), message, rule: rule.rule };
}

function walk(value: unknown, schema: OpenApiSchema, path: string, out: SchemaError[]): void {
  if (value === null || value === undefined) return;
  const rules = (schema['x-kubernetes-validations'] ?? []).filter((r) => !isTransitionRule(r));
  if (rules.length > 0) {
    const self = celValue(value, schema);
    for (const rule of rules) {
      const error = evaluate(rule, self, path);
      if (error) out.push(error);
    }
  }
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => walk(item, schema.items!, `${path}[${i}]`, out));
    return;
  }
  if (typeof value !== 'object') return;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childSchema = schema.properties?.[key] ?? additional;
    if (childSchema) walk(child, childSchema, join(path, key), out);
  }
}

/**
 * Every CEL rule of `schema` that `value` fails, with the field and the rule's message (its
 * messageExpression evaluated when it has one). `value` should already conform to the schema's
 * structure and carry its defaults, as on the API server, which evaluates rules after both.
 */
export function celErrors(value: unknown, schema: OpenApiSchema): SchemaError[] {
  const out: SchemaError[] = [];
  walk(value, schema, '', out);
  return out;
}
