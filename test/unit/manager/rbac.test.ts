import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compare, NODE_CLASS_PLACEHOLDER, permKey, repoRoot, rulePermissions, scanPermissions, type Permission } from './rbac-scan.js';

const root = repoRoot();
const rules = (file: string) => parse(readFileSync(join(root, 'charts/kaito-ts/files', file), 'utf8')) as Parameters<typeof rulePermissions>[0];
const scan = scanPermissions(root);
/** The NodeClass rule the template renders from karpenterProviders (its verbs, read from the template itself). */
const nodeClassRule = () => {
  const template = readFileSync(join(root, 'charts/kaito-ts/templates/rbac.yaml'), 'utf8');
  const verbs = /resources: \[\{\{ \$provider\.resourceName \| quote \}\}\]\s*\n\s*verbs: (\[.*\])/.exec(template)?.[1];
  assert.ok(verbs, 'templates/rbac.yaml has no NodeClass rule');
  return [{ apiGroups: [NODE_CLASS_PLACEHOLDER.group], resources: [NODE_CLASS_PLACEHOLDER.plural], verbs: JSON.parse(verbs) as string[] }];
};
// Karpenter mode's rules are granted only with nodeProvisioner=karpenter; the code holds both modes.
const granted = () => {
  const sets = [rules('clusterrole-rules.yaml'), rules('karpenter-rules.yaml'), nodeClassRule(), rules('lease-rules.yaml')].map((r) =>
    rulePermissions(r as Parameters<typeof rulePermissions>[0]),
  );
  return { permissions: sets.flatMap((x) => x.permissions), wildcards: sets.flatMap((x) => x.wildcards) };
};

test('the scan covers the operator process and attributes every client call', () => {
  for (const f of [
    'src/manager/leader-election.ts',
    'src/controllers/workspace/reconciler.ts',
    'src/runtime/reflector.ts',
    'src/runtime/events.ts',
    'src/runtime/status.ts',
  ]) {
    assert.ok(scan.files.includes(f), `${f} not in the import closure of the manager`);
  }
  assert.ok(!scan.files.some((f) => f.startsWith('src/simcluster/')), 'the simcluster tooling is not part of the operator');
  assert.deepEqual(scan.unclassified, [], 'client calls the scan cannot attribute to a resource');
  const keys = new Set(scan.permissions.map(permKey));
  // Spot checks that the scan sees through each kind of call path.
  for (const k of [
    'kaito.sh|workspaces|watch', // reflector via a row of setup.ts's ControllerBuilder table
    'kaito.sh|workspaces/status|patch', // writeStatusIfChanged
    'apps|statefulsets|create', // server-side apply may create
    'events.k8s.io|events|patch', // event series
    'coordination.k8s.io|leases|patch', // leader election
    'core|secrets|get',
    'kaito.sh|workspaces/finalizers|update', // blockOwnerDeletion owner references
  ])
    assert.ok(keys.has(k), `scan misses ${k}`);
});

test('the chart grants exactly what the code uses: nothing missing, nothing unused, no wildcards', () => {
  const g = granted();
  assert.deepEqual(g.wildcards, []);
  const { missing, unused } = compare(scan.permissions, g.permissions);
  assert.deepEqual(missing, [], 'the operator calls these but the chart does not grant them');
  assert.deepEqual(unused, [], 'the chart grants these but the operator never uses them');
});

test('the comparison catches a verb removed from, or added to, the role', () => {
  const g = granted().permissions;
  const without = g.filter((p) => permKey(p) !== 'apps|statefulsets|delete');
  assert.deepEqual(compare(scan.permissions, without).missing, ['apps|statefulsets|delete']);
  const extra: Permission[] = [...g, { group: '', resource: 'secrets', verb: 'delete' }];
  assert.deepEqual(compare(scan.permissions, extra).unused, ['core|secrets|delete']);
});

test('the Lease Role limits get/patch to kaito-ts-leader', () => {
  const lease = rules('lease-rules.yaml') as { resourceNames?: string[]; verbs?: string[] }[];
  for (const r of lease) {
    if (r.verbs?.includes('create')) assert.equal(r.resourceNames, undefined, 'create cannot be limited by name');
    else assert.deepEqual(r.resourceNames, ['kaito-ts-leader']);
  }
});

test('the chart ships the CRD byte for byte', () => {
  for (const f of ['kaito.sh_workspaces.yaml', 'kaito.sh_inferencesets.yaml']) {
    assert.equal(readFileSync(join(root, 'charts/kaito-ts/crds', f), 'utf8'), readFileSync(join(root, 'config/crd', f), 'utf8'));
  }
});
