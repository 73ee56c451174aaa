// The model-load simulation's pure parts: the delays spec, the cold/warm decision and the claim marks,
// the component and the supervisor's command lines.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { components, everyComponent, modelLoadOfArgs, supervisorCommand, type Component } from '../../../src/simcluster/components.js';
import { READY_AT_ANNOTATION } from '../../../src/simcluster/kwok-stages.js';
import { DEFAULT_PORTS, layoutFor } from '../../../src/simcluster/layout.js';
import {
  claimsOf,
  LOAD_KIND_ANNOTATION,
  loadKind,
  modelLoadStep,
  WEIGHTS_LOADED_ANNOTATION,
  type ModelLoadStep,
} from '../../../src/simcluster/model-load/model-load.js';
import {
  formatModelLoad,
  modelLoadArgs,
  parseModelLoad,
  parseModelLoadArgs,
  resolveModelLoad,
  type ModelLoadDelays,
} from '../../../src/simcluster/model-load/model-load-options.js';

describe('model-load delays', () => {
  const ok: [string, ModelLoadDelays][] = [
    ['cold=120,warm=20', { coldMs: 120_000, warmMs: 20_000 }],
    ['warm=8, cold=30', { coldMs: 30_000, warmMs: 8_000 }],
    ['cold=2m,warm=1500ms', { coldMs: 120_000, warmMs: 1_500 }],
    ['cold=0.5,warm=0', { coldMs: 500, warmMs: 0 }],
  ];
  for (const [spec, want] of ok) it(`parses ${spec}`, () => assert.deepEqual(parseModelLoad(spec, 'X'), want));

  const bad: [string, RegExp][] = [
    ['', /^X: an empty entry; expected cold=<seconds>,warm=<seconds> \(e\.g\. cold=120,warm=20\), got ""$/],
    ['1', /^X: unknown entry "1"/],
    ['true', /^X: unknown entry "true"/],
    ['cold=120', /^X: warm is missing/],
    ['warm=20', /^X: cold is missing/],
    ['cold=120,warm=20,', /^X: an empty entry/],
    ['cold=1,cold=2,warm=1', /^X: cold given twice/],
    ['cold=1,warm=-1', /^X: warm: "-1" is not a number of seconds/],
    ['cold=,warm=1', /^X: cold: "" is not a number of seconds/],
    ['cold=1,hot=1', /^X: unknown entry "hot=1"/],
    ['cold:1,warm:1', /^X: unknown entry "cold:1"/],
  ];
  for (const [spec, msg] of bad) {
    it(`refuses ${JSON.stringify(spec)} with one line`, () => {
      assert.throws(
        () => parseModelLoad(spec, 'X'),
        (err: Error) => msg.test(err.message) && !err.message.includes('\n'),
      );
    });
  }

  it('reads back what it prints', () => {
    for (const d of [
      { coldMs: 120_000, warmMs: 20_000 },
      { coldMs: 1_500, warmMs: 0 },
    ])
      assert.deepEqual(parseModelLoad(formatModelLoad(d), 'X'), d);
    assert.equal(formatModelLoad({ coldMs: 120_000, warmMs: 20_000 }), 'cold=2m,warm=20s');
  });

  it('the up option over KAITO_TS_SIM_MODEL_LOAD; unset or empty is off; a bad value names the variable', () => {
    assert.equal(resolveModelLoad({}), undefined);
    assert.equal(resolveModelLoad({ KAITO_TS_SIM_MODEL_LOAD: ' ' }), undefined);
    assert.deepEqual(resolveModelLoad({ KAITO_TS_SIM_MODEL_LOAD: 'cold=30,warm=8' }), { coldMs: 30_000, warmMs: 8_000 });
    assert.deepEqual(resolveModelLoad({ KAITO_TS_SIM_MODEL_LOAD: 'junk' }, { coldMs: 1, warmMs: 1 }), { coldMs: 1, warmMs: 1 });
    assert.throws(() => resolveModelLoad({ KAITO_TS_SIM_MODEL_LOAD: '1' }), /^Error: KAITO_TS_SIM_MODEL_LOAD: unknown entry "1"/);
  });

  it('the process flags round-trip', () => {
    const o = { coldMs: 30_000, warmMs: 8_000, kubeconfig: '/s/admin.kubeconfig', healthPort: 27251 };
    assert.deepEqual(modelLoadArgs(o), ['--kubeconfig=/s/admin.kubeconfig', '--model-load=cold=30s,warm=8s', '--health-port=27251']);
    assert.deepEqual(parseModelLoadArgs(modelLoadArgs(o)), o);
    assert.throws(() => parseModelLoadArgs(['--kubeconfig=/k']), /--model-load is required/);
    assert.throws(() => parseModelLoadArgs(['--model-load=cold=1,warm=1']), /--kubeconfig is required/);
  });
});

const NOW = Date.parse('2026-03-01T10:00:00.000Z');
const DELAYS: ModelLoadDelays = { coldMs: 30_000, warmMs: 8_000 };
const LOADED = { [WEIGHTS_LOADED_ANNOTATION]: '2026-03-01T09:00:00.000Z' };

function claim(name: string, annotations?: Record<string, string>): V1PersistentVolumeClaim {
  return { metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) } };
}

interface PodShape {
  label?: boolean;
  node?: string;
  ready?: boolean;
  readySince?: string;
  phase?: string;
  annotations?: Record<string, string>;
  deleting?: boolean;
  volumes?: NonNullable<V1Pod['spec']>['volumes'];
}

function pod(s: PodShape = {}): V1Pod {
  return {
    metadata: {
      name: 'ws-0',
      namespace: 'ns',
      uid: 'u1',
      labels: s.label === false ? { app: 'x' } : { 'kaito.sh/workspace': 'ws', app: 'x' },
      ...(s.annotations ? { annotations: s.annotations } : {}),
      ...(s.deleting ? { deletionTimestamp: new Date(NOW) } : {}),
    },
    spec: {
      containers: [{ name: 'main', image: 'x' }],
      ...(s.node === '' ? {} : { nodeName: s.node ?? 'gpu-a100-0' }),
      volumes: s.volumes ?? [{ name: 'model-weights-volume', persistentVolumeClaim: { claimName: 'model-weights-volume-ws-0' } }],
    },
    status: {
      phase: s.phase ?? 'Pending',
      ...(s.ready ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: (s.readySince ?? '2026-03-01T10:00:30Z') as unknown as Date }] } : {}),
    },
  };
}

const cold = (): ModelLoadStep => ({
  action: 'load',
  kind: 'cold',
  delayMs: 30_000,
  annotations: { [READY_AT_ANNOTATION]: '2026-03-01T10:00:30.000Z', [LOAD_KIND_ANNOTATION]: 'cold' },
});
const warm = (): ModelLoadStep => ({
  action: 'load',
  kind: 'warm',
  delayMs: 8_000,
  annotations: { [READY_AT_ANNOTATION]: '2026-03-01T10:00:08.000Z', [LOAD_KIND_ANNOTATION]: 'warm' },
});

describe('the model-load step of a pod', () => {
  const weights = 'model-weights-volume-ws-0';
  const cases: [string, V1Pod, V1PersistentVolumeClaim[], ModelLoadStep][] = [
    ['a bound workspace pod on a fresh claim: cold', pod(), [claim(weights)], cold()],
    ['on a claim that held loaded weights: warm', pod(), [claim(weights, LOADED)], warm()],
    ['emptyDir only: cold', pod({ volumes: [{ name: 'w', emptyDir: {} }] }), [], cold()],
    ['no volume at all: cold', pod({ volumes: [] }), [], cold()],
    [
      'two claims, one loaded: cold',
      pod({
        volumes: [
          { name: 'a', persistentVolumeClaim: { claimName: 'a' } },
          { name: 'b', persistentVolumeClaim: { claimName: 'b' } },
        ],
      }),
      [claim('a', LOADED), claim('b')],
      cold(),
    ],
    [
      'a loaded claim beside an emptyDir: warm',
      pod({
        volumes: [
          { name: 'w', persistentVolumeClaim: { claimName: weights } },
          { name: 'shm', emptyDir: { medium: 'Memory' } },
        ],
      }),
      [claim(weights, LOADED)],
      warm(),
    ],
    [
      'a generic ephemeral volume is the claim <pod>-<volume> (new per pod: cold)',
      pod({ volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }] }),
      [claim('ws-0-scratch')],
      cold(),
    ],
    ['the claim not in the cache yet: wait', pod(), [], { action: 'wait', missing: [weights] }],
    ['not bound to a node yet: nothing', pod({ node: '' }), [claim(weights)], { action: 'none' }],
    ['already annotated: nothing (a restart keeps its time)', pod({ annotations: { [READY_AT_ANNOTATION]: 'x' } }), [claim(weights)], { action: 'none' }],
    ['no workspace label: nothing', pod({ label: false }), [claim(weights)], { action: 'none' }],
    ['terminating: nothing', pod({ deleting: true }), [claim(weights)], { action: 'none' }],
    ['Running but not Ready (a crash, written by a test): nothing', pod({ phase: 'Running' }), [claim(weights)], { action: 'none' }],
    ['Failed: nothing', pod({ phase: 'Failed' }), [claim(weights)], { action: 'none' }],
    [
      'Ready: its claims hold loaded weights since the Ready transition',
      pod({ ready: true, phase: 'Running' }),
      [claim(weights)],
      { action: 'mark-loaded', claims: [weights], loadedAt: '2026-03-01T10:00:30.000Z' },
    ],
    [
      'Ready with an unreadable transition time: now',
      pod({ ready: true, phase: 'Running', readySince: 'garbage' }),
      [claim(weights)],
      { action: 'mark-loaded', claims: [weights], loadedAt: '2026-03-01T10:00:00.000Z' },
    ],
    ['Ready, claim already marked: nothing', pod({ ready: true, phase: 'Running' }), [claim(weights, LOADED)], { action: 'none' }],
    [
      'Ready, only the unmarked claim',
      pod({
        ready: true,
        phase: 'Running',
        volumes: [
          { name: 'a', persistentVolumeClaim: { claimName: 'a' } },
          { name: 'b', persistentVolumeClaim: { claimName: 'b' } },
        ],
      }),
      [claim('a', LOADED), claim('b')],
      { action: 'mark-loaded', claims: ['b'], loadedAt: '2026-03-01T10:00:30.000Z' },
    ],
    ['Ready without claims (emptyDir): nothing', pod({ ready: true, phase: 'Running', volumes: [{ name: 'w', emptyDir: {} }] }), [], { action: 'none' }],
    ['Ready but terminating: nothing', pod({ ready: true, phase: 'Running', deleting: true }), [claim(weights)], { action: 'none' }],
  ];
  for (const [name, p, claims, want] of cases) {
    it(name, () => {
      const byName = new Map(claims.map((c) => [c.metadata?.name ?? '', c]));
      assert.deepEqual(
        modelLoadStep(p, (n) => byName.get(n), NOW, DELAYS),
        want,
      );
    });
  }

  it('lists each claim once', () => {
    const p = pod({
      volumes: [
        { name: 'a', persistentVolumeClaim: { claimName: 'c' } },
        { name: 'b', persistentVolumeClaim: { claimName: 'c' } },
      ],
    });
    assert.deepEqual(claimsOf(p), ['c']);
  });

  it('warm needs at least one claim, all loaded', () => {
    assert.equal(loadKind([]), 'cold');
    assert.equal(loadKind([claim('a', LOADED)]), 'warm');
    assert.equal(loadKind([claim('a', LOADED), claim('b')]), 'cold');
  });
});

describe('the model-load component', () => {
  const l = layoutFor({ KAITO_TS_SIMCLUSTER_DIR: '/tmp/sim-m', KAITO_TS_SIM_PORT_OFFSET: '2200' });
  const delays = { coldMs: 30_000, warmMs: 8_000 };

  it('runs only when asked for, after the provisioner, with its delays; kwok then reads the model-load Stages', () => {
    const without = components(l);
    assert.ok(!without.some((c) => c.name === 'model-load'));
    assert.ok(without.find((c) => c.name === 'kwok')?.args.includes(`--config=${l.binDir}/kwok-stages.yaml`));
    const all = components(l, { modelLoad: delays });
    assert.deepEqual(
      all.map((c) => c.name),
      ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok', 'gpu-provisioner', 'metrics-adapter', 'model-load'],
    );
    const m = all.at(-1);
    assert.equal(m?.binary, process.execPath);
    assert.match(m?.args[0] ?? '', /dist\/src\/simcluster\/model-load\/main\.js$/);
    assert.deepEqual(m?.args.slice(1), ['--kubeconfig=/tmp/sim-m/admin.kubeconfig', '--model-load=cold=30s,warm=8s', '--health-port=29451']);
    assert.deepEqual(m?.ports, [DEFAULT_PORTS.modelLoad + 2200]);
    assert.equal(m?.healthUrl, 'http://127.0.0.1:29451/healthz');
    assert.equal(m?.stale?.(m.args.slice(0)), false);
    assert.equal(m?.stale?.(['other/checkout/main.js', ...(m.args.slice(1) ?? [])]), false, 'another checkout, same flags');
    assert.equal(m?.stale?.([...(m.args ?? [])].map((a) => a.replace('warm=8s', 'warm=9s'))), true);
    assert.equal(modelLoadOfArgs(m?.args ?? []), 'cold=30s,warm=8s');
    assert.ok(all.find((c) => c.name === 'kwok')?.args.includes('--config=/tmp/sim-m/kwok-stages-model-load.yaml'));
  });

  it('restarts a kwok on other Stages once the simulation is asked for; without it, keeps the model-load Stages', () => {
    const state = mkdtempSync(join(tmpdir(), 'kaito-ts-model-load-'));
    const lt = layoutFor({ KAITO_TS_SIMCLUSTER_DIR: state });
    const stock = join(state, 'stock.yaml');
    for (const f of [stock, lt.modelLoadStagesPath]) writeFileSync(f, 'metadata:\n  name: node-not-ready\n');
    const kwok = (o: Parameters<typeof components>[1]): Component | undefined => components(lt, o).find((c) => c.name === 'kwok');
    assert.equal(kwok({ modelLoad: delays })?.stale?.([`--config=${stock}`]), true);
    assert.equal(kwok({ modelLoad: delays })?.stale?.([`--config=${lt.modelLoadStagesPath}`]), false);
    assert.equal(kwok({})?.stale?.([`--config=${lt.modelLoadStagesPath}`]), false);
    assert.equal(kwok({})?.stale?.([`--config=${stock}`]), false);
    rmSync(state, { recursive: true, force: true });
  });

  it('every component for down and status: every opt-in, distinct ports', () => {
    const names = everyComponent(l).map((c) => c.name);
    assert.ok(names.includes('model-load') && names.includes('karpenter') && names.includes('keda-operator') && names.includes('keda-adapter'));
    const ports = everyComponent(l).flatMap((c) => c.ports);
    assert.equal(new Set(ports).size, ports.length);
  });

  it('the supervisor gets the delays, so it restarts the simulation with them', () => {
    const cmd = supervisorCommand(l, 'etcd=1Gi', { modelLoad: delays });
    assert.deepEqual(cmd.args.slice(1), ['--state-dir=/tmp/sim-m', '--port-offset=2200', '--memory-limits=etcd=1Gi', '--model-load=cold=30s,warm=8s']);
  });
});
