// What read-only caches cost: deepFreeze per stored object, structuredClone per reconcile pass.
// Run: npm run build && node dist/bench/cache-freeze.js
import { buildWorkspace } from '../src/builders/workspace.js';
import { defaultFacts } from '../src/builders/facts.js';
import { deepFreeze } from '../src/runtime/cache.js';
import { parseAllDocuments } from 'yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function perCall(label: string, n: number, make: () => unknown, op: (o: unknown) => void): void {
  const inputs = Array.from({ length: n }, make);
  const t0 = performance.now();
  for (const o of inputs) op(o);
  const us = ((performance.now() - t0) * 1000) / n;
  console.log(`${label}: ${us.toFixed(1)} µs per object (${n} objects, ${JSON.stringify(make()).length} bytes of JSON each)`);
}

const root = join(import.meta.dirname, '..', '..');
const ws = parseAllDocuments(readFileSync(join(root, 'examples', 'llama-3.1-8b-instruct.yaml'), 'utf8'))[0]!.toJS() as Parameters<typeof buildWorkspace>[0];
const built = buildWorkspace({ ...ws, metadata: { ...ws.metadata, namespace: 'ns', uid: 'u' } }, defaultFacts());
if (!built.ok) throw new Error(JSON.stringify(built.problems));
const sts = built.objects.statefulSet;
const N = 20_000;
for (const [name, obj] of [
  ['Workspace', ws],
  ['StatefulSet', sts],
] as const) {
  perCall(
    `${name} structuredClone (the reconciler's copy)`,
    N,
    () => structuredClone(obj),
    (o) => structuredClone(o),
  );
  perCall(
    `${name} deepFreeze (on cache store)`,
    N,
    () => structuredClone(obj),
    (o) => deepFreeze(o),
  );
}
