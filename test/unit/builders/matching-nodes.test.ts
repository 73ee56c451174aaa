import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Node } from '@kubernetes/client-node';
import { knownNodeNames, matchingNodes, readyMatchingNodes, sortedNames } from '../../../src/builders/facts.js';
import { objectNamed, perFrozenList } from '../../../src/runtime/memo.js';
import type { Workspace } from '../../../src/api/types.js';

const node = (name: string, labels: Record<string, string>, ready = true): V1Node => ({
  metadata: { name, labels },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const ws = (matchLabels: Record<string, string>): Workspace => ({
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'w' },
  resource: { labelSelector: { matchLabels } },
});

describe('matchingNodes', () => {
  const nodes = Object.freeze([node('c', { pool: 'a100', zone: '1' }), node('a', { pool: 'a100', zone: '2' }, false), node('b', { pool: 'a10' })]);
  const cases: Array<[string, Record<string, string>, string[], string[]]> = [
    ['every matchLabels entry, sorted by name', { pool: 'a100' }, ['a', 'c'], ['c']],
    ['two entries', { pool: 'a100', zone: '1' }, ['c'], ['c']],
    ['no node matches', { pool: 'h100' }, [], []],
    ['an empty selector matches every node', {}, ['a', 'b', 'c'], ['b', 'c']],
  ];
  for (const [name, labels, want, ready] of cases)
    it(name, () => {
      assert.deepEqual(
        matchingNodes(ws(labels), nodes).map((n) => n.metadata?.name),
        want,
      );
      assert.deepEqual(
        readyMatchingNodes(ws(labels), nodes).map((n) => n.metadata?.name),
        ready,
      );
    });

  it('is memoized by the list and the labels: the same frozen answer for the same list, a fresh one for another', () => {
    const first = matchingNodes(ws({ pool: 'a100' }), nodes);
    assert.equal(matchingNodes(ws({ pool: 'a100' }), nodes), first);
    assert.ok(Object.isFrozen(first));
    assert.notEqual(matchingNodes(ws({ pool: 'a10' }), nodes), first);
    // A new list (the cache changed) is matched anew, never answered from the old one.
    const changed = [...nodes, node('d', { pool: 'a100' })];
    assert.deepEqual(
      matchingNodes(ws({ pool: 'a100' }), changed).map((n) => n.metadata?.name),
      ['a', 'c', 'd'],
    );
  });
});

describe('node lookups kept per frozen list', () => {
  const hosted = (name: string, hostname: string): V1Node => ({ metadata: { name, labels: { 'kubernetes.io/hostname': hostname } } });
  const nodes = Object.freeze([node('b', {}), hosted('a', 'a-host'), node('c', {}, false)]);

  it('finds nodes by name and knows names and hostname labels', () => {
    assert.equal(objectNamed(nodes, 'a')?.metadata?.name, 'a');
    assert.equal(objectNamed(nodes, 'a-host'), undefined);
    assert.equal(objectNamed(nodes, undefined), undefined);
    assert.deepEqual([...knownNodeNames(nodes)].sort(), ['a', 'a-host', 'b', 'c']);
    assert.deepEqual(sortedNames(nodes), ['a', 'b', 'c']);
  });

  it('builds each answer once per frozen list, and afresh for a list that may still change', () => {
    assert.equal(knownNodeNames(nodes), knownNodeNames(nodes));
    assert.equal(sortedNames(nodes), sortedNames(nodes));
    assert.equal(readyMatchingNodes(ws({}), nodes), readyMatchingNodes(ws({}), nodes));
    const open = [...nodes];
    const before = knownNodeNames(open);
    open.push(node('d', {}));
    assert.notEqual(knownNodeNames(open), before);
    assert.ok(knownNodeNames(open).has('d'));
    assert.equal(objectNamed(open, 'd')?.metadata?.name, 'd');
    assert.equal(objectNamed(open, 'e'), undefined);
  });

  it('answers the first of two objects with one name, in a frozen list and in one that is not', () => {
    const twice = [node('x', {}), node('x', {}, false)];
    assert.equal(objectNamed(twice, 'x'), twice[0]);
    assert.equal(objectNamed(Object.freeze([...twice]), 'x'), twice[0]);
  });
});

describe('perFrozenList', () => {
  it('derives once per frozen list, every time for a list that is not frozen', () => {
    let calls = 0;
    const length = perFrozenList((list: readonly number[]) => (calls++, list.length));
    const frozen = Object.freeze([1, 2, 3]);
    assert.equal(length(frozen), 3);
    assert.equal(length(frozen), 3);
    assert.equal(calls, 1);
    const open = [1, 2];
    assert.equal(length(open), 2);
    open.push(3);
    assert.equal(length(open), 3);
    assert.equal(calls, 3);
  });
});
