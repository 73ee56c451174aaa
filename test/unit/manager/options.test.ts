import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNC_PERIOD_MS, parseManagerOptions, type ManagerOptions } from '../../../src/manager/options.js';
import { DEFAULT_TIMINGS } from '../../../src/manager/leader-election.js';

const parse = (args: string[]) => parseManagerOptions(args, {}) as ManagerOptions;

describe('kaito-ts run: leader election timings and sync period', () => {
  it('defaults', () => {
    const o = parse([]);
    assert.deepEqual(o.leaderElectionTimings, DEFAULT_TIMINGS);
    assert.equal(o.syncPeriodMs, DEFAULT_SYNC_PERIOD_MS);
    assert.equal(DEFAULT_SYNC_PERIOD_MS, 36_000_000, "controller-runtime's 10 h");
  });

  const good: [string[], Partial<ManagerOptions>][] = [
    [['--sync-period', '30m'], { syncPeriodMs: 1_800_000 }],
    [['--sync-period=90s'], { syncPeriodMs: 90_000 }],
    [
      ['--leader-election-lease-duration', '15s', '--leader-election-renew-deadline', '10s', '--leader-election-retry-period', '2s'],
      { leaderElectionTimings: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } },
    ],
    [['--leader-election-lease-duration', '12s'], { leaderElectionTimings: { ...DEFAULT_TIMINGS, leaseDurationMs: 12_000 } }],
  ];
  for (const [args, want] of good) {
    it(args.join(' '), () => {
      const o = parse(args);
      for (const [k, v] of Object.entries(want)) assert.deepEqual(o[k as keyof ManagerOptions], v);
    });
  }

  const bad: [string[], RegExp][] = [
    [['--sync-period', '0'], /--sync-period must be a positive duration/],
    [['--sync-period', 'daily'], /--sync-period must be a positive duration/],
    [['--leader-election-lease-duration', '9.5s'], /whole seconds/],
    [['--leader-election-lease-duration', '6s'], /lease duration must exceed the renew deadline/],
    [['--leader-election-retry-period', '5s'], /renew deadline must exceed 1.2 × retry period/],
    [['--leader-election-renew-deadline', 'x'], /--leader-election-renew-deadline must be a positive duration/],
  ];
  for (const [args, want] of bad) {
    it(`refuses ${args.join(' ')}`, () => assert.throws(() => parse(args), want));
  }
});

describe('kaito-ts run: workers and released passes', () => {
  it('defaults: 5 workers, 50 released passes', () => {
    const o = parse([]);
    assert.equal(o.maxConcurrentReconciles, 5);
    assert.equal(o.maxReleasedPasses, 50);
  });
  it('--max-released-passes 0 turns releasing off; 20 sets it', () => {
    assert.equal(parse(['--max-released-passes', '0']).maxReleasedPasses, 0);
    assert.equal(parse(['--max-released-passes=20']).maxReleasedPasses, 20);
  });
  const bad: [string[], RegExp][] = [
    [['--max-released-passes=-1'], /--max-released-passes must be a whole number, got "-1"/],
    [['--max-released-passes', ''], /--max-released-passes must be a whole number/],
    [['--max-concurrent-reconciles', '0'], /--max-concurrent-reconciles must be a positive integer, got "0"/],
    [['--max-concurrent-reconciles', '2.5'], /--max-concurrent-reconciles must be a positive integer/],
  ];
  for (const [args, want] of bad) {
    it(`refuses ${args.join(' ')}`, () => assert.throws(() => parse(args), want));
  }
});

describe("KAITO v0.12.0's feature gates", () => {
  const chartDefault =
    'vLLM=true,disableNodeAutoProvisioning=false,gatewayAPIInferenceExtension=false,enableInferenceSetController=true,enableMIG=false,enableAccelerator=false,enableMultiRoleInferenceController=false,ModelMirror=false,ModelStreaming=false,enableBaseImageAutoUpgrade=false';
  it("its chart's default value is taken as is: the InferenceSet controller on, auto-provisioning on", () => {
    const o = parse(['--feature-gates', chartDefault]);
    assert.equal(o.featureGates.enableInferenceSetController, true);
    assert.equal(o.featureGates.disableNodeAutoProvisioning, false);
    assert.equal(o.featureGates.enableMIG, false);
  });
  it('`kaito-ts run` with an unimplemented gate set to true exits 2 with one line naming the gate and the docs section', async () => {
    const { main } = await import('../../../src/cli/main.js');
    const err: string[] = [];
    const out: string[] = [];
    const code = await main(['run', '--feature-gates', `${chartDefault},ModelMirror=true`], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    assert.equal(code, 2);
    assert.deepEqual(out, []);
    assert.equal(err.join('').trimEnd().split('\n').length, 1, err.join(''));
    assert.match(
      err.join(''),
      /--feature-gates: feature gate "ModelMirror" is not implemented by kaito-ts: it may only be false \(docs\/operations\.md#feature-gates\)/,
    );
  });
});
