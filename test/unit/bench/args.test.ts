import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BenchArgsError, parseBenchArgs } from '../../../bench/args.js';

describe('parseBenchArgs', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(parseBenchArgs(['--workspaces', '50']), {
      workspaces: 50,
      controllers: ['kaito-ts', 'kaito-v0.8.0'],
      qps: 30,
      burst: 50,
      idleSeconds: 60,
      timeoutSeconds: 3600,
      removeNodes: false,
      sharedCluster: false,
      kcmQps: 300,
      podReadyDelaySeconds: 0,
    });
  });
  it('takes every flag', () => {
    const o = parseBenchArgs([
      '--workspaces=200', '--json', 'out.json', '--controllers', 'kaito-v0.8.0, kaito-ts', '--qps', '100', '--burst', '200',
      '--idle-seconds', '0', '--timeout-seconds', '900', '--remove-nodes', '--shared-cluster', '--node-options=--cpu-prof', '--kcm-qps', '0', '--kaito-ts-flags=--max-concurrent-reconciles=20', '--pod-ready-delay', '0',
    ]);
    assert.deepEqual(o, {
      workspaces: 200, json: 'out.json', controllers: ['kaito-v0.8.0', 'kaito-ts'], qps: 100, burst: 200,
      idleSeconds: 0, timeoutSeconds: 900, removeNodes: true, sharedCluster: true, nodeOptions: '--cpu-prof', kaitoTsFlags: '--max-concurrent-reconciles=20', kcmQps: 0, podReadyDelaySeconds: 0,
    });
  });
  it('takes a pod-ready delay on the benchmark cluster', () => {
    const o = parseBenchArgs(['--workspaces', '50', '--pod-ready-delay', '30']);
    assert.equal(o === 'help' ? -1 : o.podReadyDelaySeconds, 30);
  });
  it('answers help', () => assert.equal(parseBenchArgs(['--help']), 'help'));

  const bad: Array<[string[], RegExp]> = [
    [[], /--workspaces is required/],
    [['--workspaces', '0'], /--workspaces must be an integer >= 1, got "0"/],
    [['--workspaces', '1.5'], /integer/],
    [['--workspaces=-3'], /integer/],
    [['--workspaces', 'ten'], /integer/],
    [['--workspaces', '5', '--controllers', 'kaito'], /unknown controller "kaito" \(known: kaito-ts, kaito-v0.8.0\)/],
    [['--workspaces', '5', '--controllers', ','], /--controllers is empty/],
    [['--workspaces', '5', '--controllers', 'kaito-ts,kaito-ts'], /twice/],
    [['--workspaces', '5', '--json', ''], /--json needs a file name/],
    [['--workspaces', '5', '--qps', '0'], /--qps must be an integer >= 1/],
    [['--workspaces', '5', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['--workspaces', '5', 'extra'], /positional/],
    [['--workspaces', '5', '--shared-cluster', '--pod-ready-delay', '30'], /needs the benchmark cluster/],
  ];
  for (const [argv, message] of bad) {
    it(`refuses ${JSON.stringify(argv)}`, () => {
      assert.throws(() => parseBenchArgs(argv), (err: unknown) => err instanceof BenchArgsError && message.test(err.message));
    });
  }
});
