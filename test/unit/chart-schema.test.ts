// The chart's values schema stays in step with values.yaml and the operator's feature gates.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { FEATURE_GATE_NAMES } from '../../src/api/feature-gates.js';

const CHART = join(import.meta.dirname, '..', '..', '..', 'charts', 'kaito-ts');
const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as { properties: Record<string, { properties?: Record<string, unknown> }> };
const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;

test('every top-level value has a schema entry and every schema entry a default', () => {
  assert.deepEqual(Object.keys(values).sort(), Object.keys(schema.properties).sort());
});

test("the schema names exactly the operator's feature gates", () => {
  assert.deepEqual(Object.keys(schema.properties.featureGates?.properties ?? {}).sort(), [...FEATURE_GATE_NAMES].sort());
});
