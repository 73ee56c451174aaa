// KAITO v0.12's own NodePool generator against ours: no cluster, but KAITO built from source with our
// render harness (bash simcluster/build-kaito.sh v0.12.0 → bin/kaito-render). Each workspace goes
// through both; every differing field is listed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNodeClassConfig, type NodeClassFlags } from '../../src/api/node-class-config.js';
import type { Workspace } from '../../src/api/types.js';
import { buildNodeClass, buildNodePool, karpenterNodeAffinity, nodePoolNameOf, resolveNodeClassName } from '../../src/builders/nodepool.js';
import type { NodeClaim } from '../../src/builders/nodeclaim.js';
import { firstProvisioningState } from '../../src/controllers/workspace/karpenter-plan.js';
import { runKaitoRender } from './support/kaito-render.js';

interface Rendered {
  configError?: string;
  nodeClassNames: string[];
  defaultName: string;
  nodeClasses: object[];
  workspaces: { name: string; nodePool?: object; error?: string; nodeSelector: object[] }[];
  provisioningStates: { found: boolean; reason: string; message: string }[];
}

function kaito(input: object): Rendered {
  return runKaitoRender([], input) as Rendered;
}

/** Every leaf where the two differ, as `path: ours ≠ kaito`. */
function differences(ours: unknown, theirs: unknown, path = ''): string[] {
  if (typeof ours === 'object' && ours !== null && typeof theirs === 'object' && theirs !== null && Array.isArray(ours) === Array.isArray(theirs)) {
    const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
    return [...keys].flatMap((k) => differences((ours as Record<string, unknown>)[k], (theirs as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return JSON.stringify(ours) === JSON.stringify(theirs) ? [] : [`${path || '.'}: ours ${JSON.stringify(ours)} ≠ KAITO ${JSON.stringify(theirs)}`];
}

function assertSame(ours: unknown, theirs: unknown, what: string): void {
  const diff = differences(JSON.parse(JSON.stringify(ours ?? null)), theirs ?? null);
  assert.deepEqual(diff, [], `${what}:\n  ${diff.join('\n  ')}`);
}

function ws(
  name: string,
  namespace: string,
  o: { labels?: Record<string, string>; annotations?: Record<string, string>; matchLabels?: Record<string, string> } = {},
): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name, namespace, ...(o.labels ? { labels: o.labels } : {}), ...(o.annotations ? { annotations: o.annotations } : {}) },
    resource: { count: 1, instanceType: 'Standard_NC24ads_A100_v4', labelSelector: { matchLabels: o.matchLabels ?? { apps: 'llm' } } },
    inference: { preset: { name: 'phi-4-mini-instruct' } },
  };
}

const AZURE: NodeClassFlags = {
  group: 'karpenter.azure.com',
  kind: 'AKSNodeClass',
  version: 'v1beta1',
  resourceName: 'aksnodeclasses',
  nodeClasses: JSON.stringify([
    { name: 'image-family-ubuntu', default: true, spec: { imageFamily: 'Ubuntu', osDiskSizeGB: 300 } },
    { name: 'image-family-azure-linux', spec: { imageFamily: 'AzureLinux' } },
  ]),
};
const AWS: NodeClassFlags = {
  group: 'karpenter.k8s.aws',
  kind: 'EC2NodeClass',
  version: 'v1',
  resourceName: 'ec2nodeclasses',
  nodeClasses: JSON.stringify([{ name: 'gpu', default: true, spec: { amiSelectorTerms: [{ alias: 'al2023@latest' }] } }]),
};

const WORKSPACES: [string, Workspace, number][] = [
  ['plain', ws('phi', 'default'), 1],
  ['long names (>63 characters: truncated with a hash)', ws('workspace-with-an-even-longer-name-than-usual', 'namespace-with-a-fairly-long-name'), 2],
  ['exactly 63 characters', ws('b'.repeat(31), 'a'.repeat(31)), 1],
  [
    'labelSelector with reserved keys (stripped)',
    ws('sel', 'team-a', {
      matchLabels: {
        apps: 'llm',
        'kaito.sh/workspace': 'x',
        'kaito.sh/workspacenamespace': 'y',
        'karpenter.kaito.sh/workspace-name': 'z',
        'karpenter.kaito.sh/inferenceset': 'w',
        'kaito.sh/ragengine': 'r',
      },
    }),
    1,
  ],
  ['only reserved keys in the selector', ws('sel2', 'team-a', { matchLabels: { 'kaito.sh/workspace': 'x' } }), 1],
  ['InferenceSet member', ws('set1-0', 'team-b', { labels: { 'inferenceset.kaito.sh/created-by': 'set1' } }), 3],
  ['annotation-selected node class', ws('al', 'default', { annotations: { 'kaito.sh/node-class-name': 'image-family-azure-linux' } }), 1],
  ['unknown node class (error)', ws('bad', 'default', { annotations: { 'kaito.sh/node-class-name': 'custom' } }), 1],
];

for (const [flagsName, flags] of [
  ['Azure group', AZURE],
  ['AWS group', AWS],
] as const) {
  test(`NodePools, NodeClasses and node selectors equal KAITO v0.12.0's (${flagsName})`, () => {
    const theirs = kaito({ flags, workspaces: WORKSPACES.map(([, workspace, replicas]) => ({ workspace, replicas })) });
    const parsed = parseNodeClassConfig(flags);
    assert.ok(parsed.ok && theirs.configError === undefined, `${parsed.ok ? '' : parsed.message} / ${theirs.configError}`);
    const cfg = parsed.config;
    assertSame({ names: cfg.nodeClassNames, default: cfg.defaultName }, { names: theirs.nodeClassNames, default: theirs.defaultName }, 'node-class config');
    assertSame(
      cfg.nodeClasses.map((e) => buildNodeClass(cfg, e)),
      theirs.nodeClasses,
      'NodeClass objects',
    );
    for (const [i, [name, workspace, replicas]] of WORKSPACES.entries()) {
      const got = theirs.workspaces[i]!;
      assert.equal(nodePoolNameOf(workspace), got.name, `${name}: NodePool name`);
      assertSame(karpenterNodeAffinity(workspace), got.nodeSelector, `${name}: node selector`);
      const resolved = resolveNodeClassName(workspace, cfg);
      if (!resolved.ok) {
        assert.equal(resolved.message, got.error, `${name}: error`);
        continue;
      }
      assert.equal(got.error, undefined, `${name}: KAITO refused it: ${got.error}`);
      assertSame(buildNodePool(workspace, replicas, cfg, resolved.name), got.nodePool, `${name}: NodePool`);
    }
  });
}

const BAD_FLAGS: [string, string | undefined][] = [
  ['missing', undefined],
  ['no entries', '[]'],
  ['several defaults', '[{"name":"b","default":true},{"name":"a","default":true}]'],
  ['none default', '[{"name":"a"}]'],
  ['duplicate', '[{"name":"a","default":true},{"name":"a"}]'],
  ['empty name', '[{"default":true}]'],
  ['invalid name', '[{"name":"Not_Valid","default":true}]'],
  ['name too long', JSON.stringify([{ name: 'a'.repeat(254), default: true }])],
];
test("node-class flag errors equal KAITO v0.12.0's ParseNodeClasses", () => {
  for (const [name, raw] of BAD_FLAGS) {
    const flags = { ...AZURE, nodeClasses: raw ?? '' };
    const ours = parseNodeClassConfig(flags);
    const theirs = kaito({ flags, workspaces: [] });
    assert.equal(ours.ok ? undefined : ours.message, theirs.configError, name);
  }
});

const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message });
function claim(name: string, conditions: ReturnType<typeof cond>[], deleting = false): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: {}, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' as unknown as Date } : {}) },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'x' },
      taints: [],
      requirements: [],
      resources: { requests: { storage: '0' } },
    },
    status: { conditions: conditions.map((c) => ({ ...c, lastTransitionTime: '2026-01-01T00:00:00Z' })) },
  };
}
const LAUNCH = cond('Launched', 'False', 'LaunchFailed', 'creating instance: InsufficientCapacity');
const AWAIT = cond('Registered', 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation');
const CLAIM_LISTS: [string, NodeClaim[]][] = [
  ['none', []],
  ['no message', [claim('a', [cond('Launched', 'False', 'X', '')])]],
  ['launch error', [claim('a', [LAUNCH])]],
  ['awaiting only', [claim('a', [AWAIT])]],
  ['awaiting, then a later real error', [claim('a', [AWAIT]), claim('b', [cond('Initialized', 'False', 'NotInitialized', 'GPU not found')])]],
  ['deleting claim skipped', [claim('a', [LAUNCH], true), claim('b', [AWAIT])]],
  ['long message cut', [claim('a', [cond('Launched', 'False', 'LaunchFailed', 'é'.repeat(200))])]],
];
test("FirstNodeClaimProvisioningState equals KAITO v0.12.0's", () => {
  const theirs = kaito({ flags: AZURE, workspaces: [], nodeClaimLists: CLAIM_LISTS.map(([, l]) => l) });
  for (const [i, [name, list]] of CLAIM_LISTS.entries()) {
    const ours = firstProvisioningState(list);
    assertSame(
      ours ? { found: true, reason: ours.reason, message: ours.message } : { found: false, reason: '', message: '' },
      theirs.provisioningStates[i],
      name,
    );
  }
});
