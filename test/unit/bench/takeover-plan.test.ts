import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareKarpenter,
  parseTakeoverArgs,
  servingProblems,
  takeoverWorkspaces,
  type KarpenterObjectState,
  type KarpenterSnapshot,
} from '../../../bench/takeover-plan.js';

const state = (o: Partial<KarpenterObjectState> = {}): KarpenterObjectState => ({
  uid: 'u1',
  resourceVersion: '10',
  generation: 1,
  body: { metadata: { name: 'p' }, spec: { replicas: 3 } },
  managers: ['workspace:Update'],
  ...o,
});
const snap = (o: Partial<KarpenterSnapshot> = {}): KarpenterSnapshot => ({
  nodePools: new Map([['ns-llama', state()]]),
  nodeClaims: new Map([['ns-llama-abcde', state({ generation: 1, body: { spec: {} }, nodeName: 'n1' })]]),
  nodes: new Map([['n1', state({ generation: undefined, body: { spec: {} } })]]),
  nodeClasses: new Map([['default', state({ body: { spec: {} } })]]),
  ...o,
});

describe('parseTakeoverArgs', () => {
  it('defaults to KAITO v0.8.0 with bring-your-own nodes', () => assert.deepEqual(parseTakeoverArgs([]), { from: 'kaito-v0.8.0', mode: 'byo' }));
  it('takes KAITO v0.12.0 in Karpenter mode', () =>
    assert.deepEqual(parseTakeoverArgs(['--from', 'kaito-v0.12.0', '--mode', 'karpenter']), { from: 'kaito-v0.12.0', mode: 'karpenter' }));
  it('refuses Karpenter mode from v0.8.0 and unknown values', () => {
    assert.throws(() => parseTakeoverArgs(['--mode', 'karpenter']), /kaito-v0.8.0 has no Karpenter mode/);
    assert.throws(() => parseTakeoverArgs(['--from', 'kaito-ts']), /--from must be/);
    assert.throws(() => parseTakeoverArgs(['--mode', 'nap']), /--mode must be/);
  });
});

describe('takeoverWorkspaces', () => {
  it('Karpenter mode: an NVMe preset, the 3-node llama with its secret, a template, a tuning workspace; each with an instanceType and a label of its own', () => {
    const ws = takeoverWorkspaces('karpenter');
    assert.deepEqual(
      ws.map((w) => w.metadata.name),
      ['phi4-a100', 'llama-70b', 'template-nginx', 'tuning-qlora'],
    );
    for (const w of ws) {
      const r = w.resource as { instanceType?: string; labelSelector: { matchLabels: Record<string, string> } };
      assert.ok(r.instanceType);
      assert.deepEqual(r.labelSelector.matchLabels, { apps: w.metadata.name });
    }
    assert.deepEqual((ws[1]?.inference as { preset: unknown }).preset, { name: 'llama-3.3-70b-instruct', presetOptions: { modelAccessSecret: 'hf-token' } });
  });
  it('bring-your-own mode from KAITO v0.12.0 adds a catalog id, a generic Hugging Face id, and a 3-node group', () => {
    const names = (from: 'kaito-v0.8.0' | 'kaito-v0.12.0') =>
      takeoverWorkspaces('byo', from).map((w) => (w.inference as { preset?: { name: string } } | undefined)?.preset?.name ?? (w.tuning ? 'tuning' : undefined));
    assert.deepEqual(names('kaito-v0.8.0'), ['phi-3-mini-4k-instruct', 'phi-4-mini-instruct', undefined]);
    assert.deepEqual(names('kaito-v0.12.0'), [
      'microsoft/Phi-4-mini-instruct',
      'Qwen/Qwen3-8B',
      'llama-3.3-70b-instruct',
      'phi-3-mini-4k-instruct',
      'phi-4-mini-instruct',
      undefined,
    ]);
    const group = takeoverWorkspaces('byo', 'kaito-v0.12.0').find((w) => w.metadata.name === 'llama-70b-group');
    assert.equal((group?.resource as { count?: number }).count, 3);
  });
  it('bring-your-own mode: no instanceType; the A10 preset with two adapters, one behind a pull secret', () => {
    const ws = takeoverWorkspaces('byo');
    for (const w of ws) assert.equal((w.resource as { instanceType?: string }).instanceType, undefined);
    const adapters = (ws.find((w) => w.metadata.name === 'preset-a10')?.inference as { adapters?: { source: { name: string; imagePullSecrets?: string[] } }[] })
      .adapters;
    assert.deepEqual(
      adapters?.map((a) => [a.source.name, a.source.imagePullSecrets ?? []]),
      [
        ['public-lora', []],
        ['private-lora', ['adapter-pull']],
      ],
    );
  });
});

describe('compareKarpenter', () => {
  it('nothing changed: no problem, no note', () => assert.deepEqual(compareKarpenter(snap(), snap()), { problems: [], notes: [] }));
  it('a status-only write is a note naming the managers', () => {
    const after = snap({ nodePools: new Map([['ns-llama', state({ resourceVersion: '11', managers: ['karpenter:Update/status', 'workspace:Update'] })]]) });
    const r = compareKarpenter(snap(), after);
    assert.deepEqual(r.problems, []);
    assert.match(
      r.notes[0] ?? '',
      /NodePool ns-llama: resourceVersion 10 → 11 \(no metadata or spec change\); field managers workspace:Update → karpenter:Update\/status workspace:Update/,
    );
  });
  it('a rewritten pool, a replaced claim and node are problems', () => {
    const after = snap({
      nodePools: new Map([['ns-llama', state({ resourceVersion: '12', generation: 2, body: { metadata: { name: 'p' }, spec: { replicas: 4 } } })]]),
      nodeClaims: new Map([['ns-llama-fghij', state({ nodeName: 'n2' })]]),
      nodes: new Map([['n1', state({ uid: 'u2', generation: undefined, body: { spec: {} } })]]),
    });
    const r = compareKarpenter(snap(), after);
    assert.deepEqual(r.problems, [
      'NodePool ns-llama: generation 1 → 2',
      'NodePool ns-llama changed: ~ spec.replicas: 3 → 4',
      'NodeClaim ns-llama-abcde is gone',
      'NodeClaim ns-llama-fghij is new',
      'Node n1 was re-created (uid u1 → u2)',
    ]);
  });
});

describe('servingProblems: what a spec change after the takeover did to clients', () => {
  const base = (tag: string) => `mcr.microsoft.com/aks/kaito/kaito-base:${tag}`;
  const cases: [string, { servedNames: string[]; image: string }, { servedNames: string[]; image: string }, RegExp[]][] = [
    ['unchanged', { servedNames: ['phi-3'], image: base('0.5.0') }, { servedNames: ['phi-3'], image: base('0.5.0') }, []],
    [
      'v0.8 → v0.12 engine, old name carried',
      { servedNames: ['mistral-7b-instruct'], image: base('0.1.1') },
      { servedNames: ['mistral-7b-instruct-v0.3', 'mistral-7b-instruct'], image: base('0.5.0') },
      [],
    ],
    [
      'a name lost',
      { servedNames: ['mistral-7b-instruct'], image: base('0.1.1') },
      { servedNames: ['mistral-7b-instruct-v0.3'], image: base('0.5.0') },
      [/mistral-7b-instruct no longer answer/],
    ],
    ['an older engine', { servedNames: ['a'], image: base('0.5.0') }, { servedNames: ['a'], image: base('0.1.1') }, [/not the same or a newer engine/]],
    ['0.5.0 → 0.10.0 is newer', { servedNames: ['a'], image: base('0.5.0') }, { servedNames: ['a'], image: base('0.10.0') }, []],
    ['another image entirely', { servedNames: ['a'], image: 'nginx:1.27' }, { servedNames: ['a'], image: 'nginx:1.28' }, [/not the same or a newer engine/]],
  ];
  for (const [name, before, after, want] of cases)
    it(name, () => {
      const got = servingProblems(before, after);
      assert.equal(got.length, want.length, got.join('; '));
      want.forEach((re, i) => assert.match(got[i]!, re));
    });
});
