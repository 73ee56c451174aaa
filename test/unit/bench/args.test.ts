import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BenchArgsError, parseBenchArgs } from '../../../bench/args.js';

describe('parseBenchArgs', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(parseBenchArgs(['--workspaces', '50']), {
      scenario: 'create',
      workspaces: 50,
      controllers: ['kaito-ts', 'kaito-v0.8.0'],
      qps: 30,
      burst: 50,
      idleSeconds: 60,
      timeoutSeconds: 3600,
      removeNodes: false,
      sharedCluster: false,
      keepCluster: false,
      kcmQps: 300,
      podReadyDelaySeconds: 0,
      mode: 'byo',
      provisionDelaySeconds: 1,
      devicePluginDelaySeconds: 1,
      hfModels: 0,
      restart: false,
    });
  });
  it('takes every flag', () => {
    const o = parseBenchArgs([
      '--workspaces=200',
      '--json',
      'out.json',
      '--controllers',
      'kaito-v0.8.0, kaito-ts',
      '--qps',
      '100',
      '--burst',
      '200',
      '--idle-seconds',
      '0',
      '--timeout-seconds',
      '900',
      '--remove-nodes',
      '--shared-cluster',
      '--keep-cluster',
      '--node-options=--cpu-prof',
      '--kcm-qps',
      '0',
      '--kaito-ts-flags=--max-concurrent-reconciles=20',
      '--pod-ready-delay',
      '0',
    ]);
    assert.deepEqual(o, {
      scenario: 'create',
      workspaces: 200,
      json: 'out.json',
      controllers: ['kaito-v0.8.0', 'kaito-ts'],
      qps: 100,
      burst: 200,
      idleSeconds: 0,
      timeoutSeconds: 900,
      removeNodes: true,
      sharedCluster: true,
      keepCluster: true,
      nodeOptions: '--cpu-prof',
      kaitoTsFlags: '--max-concurrent-reconciles=20',
      kcmQps: 0,
      podReadyDelaySeconds: 0,
      mode: 'byo',
      provisionDelaySeconds: 1,
      devicePluginDelaySeconds: 1,
      hfModels: 0,
      restart: false,
    });
  });
  const napCases: Array<[string[], { mode: string; provisionDelaySeconds: number; devicePluginDelaySeconds: number; podReadyDelaySeconds: number }]> = [
    [['--mode', 'nap'], { mode: 'nap', provisionDelaySeconds: 1, devicePluginDelaySeconds: 1, podReadyDelaySeconds: 0 }],
    [
      ['--mode=nap', '--provision-delay', '30', '--pod-ready-delay', '30'],
      { mode: 'nap', provisionDelaySeconds: 30, devicePluginDelaySeconds: 1, podReadyDelaySeconds: 30 },
    ],
    [
      ['--mode', 'nap', '--provision-delay', '0', '--device-plugin-delay', '12'],
      { mode: 'nap', provisionDelaySeconds: 0, devicePluginDelaySeconds: 12, podReadyDelaySeconds: 0 },
    ],
    [['--mode', 'byo'], { mode: 'byo', provisionDelaySeconds: 1, devicePluginDelaySeconds: 1, podReadyDelaySeconds: 0 }],
    [
      ['--mode', 'karpenter', '--provision-delay', '30', '--pod-ready-delay', '30'],
      { mode: 'karpenter', provisionDelaySeconds: 30, devicePluginDelaySeconds: 1, podReadyDelaySeconds: 30 },
    ],
  ];
  for (const [argv, want] of napCases) {
    it(`takes ${argv.join(' ')}`, () => {
      const o = parseBenchArgs(['--workspaces', '5', ...argv]);
      assert.notEqual(o, 'help');
      if (o === 'help') return;
      assert.deepEqual(
        {
          mode: o.mode,
          provisionDelaySeconds: o.provisionDelaySeconds,
          devicePluginDelaySeconds: o.devicePluginDelaySeconds,
          podReadyDelaySeconds: o.podReadyDelaySeconds,
        },
        want,
      );
    });
  }
  it('takes a pod-ready delay on the benchmark cluster', () => {
    const o = parseBenchArgs(['--workspaces', '50', '--pod-ready-delay', '30']);
    assert.equal(o === 'help' ? -1 : o.podReadyDelaySeconds, 30);
  });
  it('runs kaito-ts and KAITO v0.12.0 in karpenter mode unless told otherwise', () => {
    const o = parseBenchArgs(['--workspaces', '5', '--mode', 'karpenter']);
    assert.deepEqual(o === 'help' ? [] : o.controllers, ['kaito-ts', 'kaito-v0.12.0']);
    const one = parseBenchArgs(['--workspaces', '5', '--mode', 'karpenter', '--controllers', 'kaito-v0.12.0']);
    assert.deepEqual(one === 'help' ? [] : one.controllers, ['kaito-v0.12.0']);
  });
  it('answers help', () => assert.equal(parseBenchArgs(['--help']), 'help'));

  it('--scenario update: one workspace, the model-load defaults, a spare node, one update, no idle window', () => {
    const o = parseBenchArgs(['--scenario', 'update']);
    assert.notEqual(o, 'help');
    if (o === 'help') return;
    assert.equal(o.scenario, 'update');
    assert.equal(o.workspaces, 1);
    assert.equal(o.idleSeconds, 0);
    assert.equal(o.mode, 'byo');
    assert.deepEqual(o.controllers, ['kaito-ts', 'kaito-v0.8.0', 'kaito-v0.12.0']);
    assert.deepEqual(o.update, { coldLoadSeconds: 120, warmLoadSeconds: 20, spareNode: true, repeat: 1, kaitoRepeat: 1 });
  });
  it('--scenario update takes its own flags', () => {
    const o = parseBenchArgs([
      '--scenario=update',
      '--cold-load',
      '60',
      '--warm-load=10',
      '--no-spare-node',
      '--repeat',
      '5',
      '--update-strategy',
      'Surge',
      '--idle-seconds',
      '30',
      '--controllers',
      'kaito-ts',
    ]);
    assert.notEqual(o, 'help');
    if (o === 'help') return;
    assert.deepEqual(o.update, { coldLoadSeconds: 60, warmLoadSeconds: 10, spareNode: false, repeat: 5, kaitoRepeat: 5, strategy: 'Surge' });
    assert.equal(o.idleSeconds, 30);
    assert.deepEqual(o.controllers, ['kaito-ts']);
  });
  it('--repeat-kaito gives KAITO fewer updates than kaito-ts', () => {
    const o = parseBenchArgs(['--scenario', 'update', '--repeat', '5', '--repeat-kaito', '2']);
    assert.deepEqual(o === 'help' ? undefined : [o.update?.repeat, o.update?.kaitoRepeat], [5, 2]);
  });
  it('--scenario create is the default and the same as no --scenario', () => {
    assert.deepEqual(parseBenchArgs(['--scenario', 'create', '--workspaces', '5']), parseBenchArgs(['--workspaces', '5']));
  });

  const bad: Array<[string[], RegExp]> = [
    [[], /--workspaces is required/],
    [['--workspaces', '0'], /--workspaces must be an integer >= 1, got "0"/],
    [['--workspaces', '1.5'], /integer/],
    [['--workspaces=-3'], /integer/],
    [['--workspaces', 'ten'], /integer/],
    [['--workspaces', '5', '--controllers', 'kaito'], /unknown controller "kaito" \(known: kaito-ts, kaito-v0.8.0, kaito-v0.12.0\)/],
    [['--workspaces', '5', '--controllers', ','], /--controllers is empty/],
    [['--workspaces', '5', '--controllers', 'kaito-ts,kaito-ts'], /twice/],
    [['--workspaces', '5', '--json', ''], /--json needs a file name/],
    [['--workspaces', '5', '--qps', '0'], /--qps must be an integer >= 1/],
    [['--workspaces', '5', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['--workspaces', '5', 'extra'], /positional/],
    [['--workspaces', '5', '--shared-cluster', '--pod-ready-delay', '30'], /needs the benchmark cluster/],
    [['--workspaces', '5', '--mode', 'auto'], /--mode must be one of byo, nap, karpenter, got "auto"/],
    [['--workspaces', '5', '--provision-delay', '30'], /--provision-delay needs --mode nap or karpenter/],
    [['--workspaces', '5', '--mode', 'byo', '--device-plugin-delay', '3'], /--device-plugin-delay needs --mode nap or karpenter/],
    [['--workspaces', '5', '--mode', 'nap', '--shared-cluster'], /--mode nap needs the benchmark cluster/],
    [['--workspaces', '5', '--mode', 'karpenter', '--shared-cluster'], /--mode karpenter needs the benchmark cluster/],
    [['--workspaces', '5', '--mode', 'karpenter', '--controllers', 'kaito-ts,kaito-v0.8.0'], /kaito-v0.8.0 has no karpenter mode/],
    [['--workspaces', '5', '--mode', 'nap', '--provision-delay', '1.5'], /--provision-delay must be an integer >= 0/],
    [['--workspaces', '5', '--mode', 'nap', '--device-plugin-delay=-1'], /--device-plugin-delay must be an integer >= 0/],
    [['--scenario', 'rollout'], /--scenario must be one of create, update, inferenceset, got "rollout"/],
    [['--workspaces', '5', '--repeat', '3'], /--repeat needs --scenario update/],
    [['--workspaces', '5', '--no-spare-node'], /--no-spare-node needs --scenario update/],
    [['--workspaces', '5', '--cold-load', '60'], /--cold-load needs --scenario update/],
    [['--scenario', 'update', '--workspaces', '5'], /one workspace per controller/],
    [['--scenario', 'update', '--mode', 'nap'], /bring-your-own nodes only/],
    [['--scenario', 'update', '--shared-cluster'], /needs the benchmark cluster/],
    [['--scenario', 'update', '--pod-ready-delay', '30'], /--cold-load and --warm-load/],
    [['--scenario', 'update', '--cold-load', '0'], /--cold-load must be an integer >= 1/],
    [['--scenario', 'update', '--repeat', '0'], /--repeat must be an integer >= 1/],
    [['--scenario', 'update', '--update-strategy', 'RollingUpdate'], /--update-strategy must be one of Surge, SurgeIfCapacity, Recreate/],
    [['--workspaces', '5', '--hf-models', '6', '--controllers', 'kaito-ts'], /--hf-models 6 is more than --workspaces 5/],
    [['--workspaces', '5', '--hf-models', '2'], /kaito-v0.8.0 knows no Hugging Face ids/],
    [['--scenario', 'inferenceset', '--hf-models', '2', '--controllers', 'kaito-ts'], /--hf-models needs --scenario create/],
    [['--scenario', 'update', '--restart'], /--restart needs --scenario create/],
    [['--scenario', 'inferenceset', '--restart'], /--restart needs --scenario create/],
  ];
  it('--restart: the create scenario, every controller', () => {
    const o = parseBenchArgs(['--workspaces', '20', '--restart']);
    assert.ok(o !== 'help');
    assert.equal(o.restart, true);
  });
  it('--hf-models N: kaito-ts alone, N of the workspaces', () => {
    const o = parseBenchArgs(['--workspaces', '20', '--hf-models', '10', '--controllers', 'kaito-ts']);
    assert.ok(o !== 'help');
    assert.equal(o.hfModels, 10);
  });
  for (const [argv, message] of bad) {
    it(`refuses ${JSON.stringify(argv)}`, () => {
      assert.throws(
        () => parseBenchArgs(argv),
        (err: unknown) => err instanceof BenchArgsError && message.test(err.message),
      );
    });
  }
});
