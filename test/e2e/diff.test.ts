// `kaito-ts diff` against the real control plane: a converged workspace diffs to nothing (exit 0);
// a Service port and the StatefulSet's replicas changed behind the operator's back show up field by
// field (exit 1); the dry-run writes nothing; a missing workspace is one line and exit 2.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import type { V1Service } from '@kubernetes/client-node';
import { bed, kubectl } from './harness.js';
import { applyWorkspace, CLI_PATH, getOne, pool, selectorFor, waitReady, world } from './support/operator.js';

async function diff(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = await bed();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_PATH, 'diff', '--kubeconfig', b.kubeconfigPath, '--feature-gates', 'disableNodeAutoProvisioning=true', ...args],
      (err, stdout, stderr) => {
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

test(
  'kaito-ts diff: converged → exit 0; a drifted Service port and StatefulSet replicas → the fields, exit 1; nothing written',
  { timeout: 300_000 },
  async (t) => {
    const w = await world(t, { pools: [pool('a10', 1)] });
    await applyWorkspace(w.ns, {
      metadata: { name: 'differ' },
      resource: { labelSelector: selectorFor(w.pools[0]!) },
      inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
    });
    await waitReady(w.ns, 'differ');
    // The operator would repair drift at once; diff is about what it *would* do, so it is stopped.
    await w.op?.stop();

    const clean = await diff(['-n', w.ns]);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /^workspace .*\/differ:$/m);
    assert.match(clean.stdout, /StatefulSet .*\/differ: no change/);
    assert.match(clean.stdout, /Service .*\/differ: no change/);
    assert.match(clean.stdout, /Service .*\/differ-headless: no change/);
    assert.match(clean.stdout, /ControllerRevision .*: no change/);
    assert.match(clean.stdout, /0 of 1 workspace\(s\) would change/);

    const svc = await getOne<V1Service>(w.ns, 'service', 'differ');
    const port = svc?.spec?.ports?.findIndex((p) => p.name === 'http') ?? -1;
    assert.ok(port >= 0, 'the main Service has an http port');
    const target = svc?.spec?.ports?.[port]?.targetPort;
    await kubectl(
      ['patch', 'service', 'differ', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: `/spec/ports/${port}/targetPort`, value: 6000 }])],
      { namespace: w.ns },
    );
    await kubectl(['scale', 'statefulset', 'differ', '--replicas=0'], { namespace: w.ns });
    const before = await getOne<V1Service>(w.ns, 'service', 'differ');

    const drifted = await diff([w.ns === 'default' ? '' : '-n', w.ns, 'differ'].filter(Boolean));
    assert.equal(drifted.code, 1, drifted.stdout + drifted.stderr);
    assert.match(drifted.stdout, /Service .*\/differ: would change/);
    assert.ok(drifted.stdout.includes(`~ spec.ports[name=http].targetPort: 6000 → ${JSON.stringify(target)}`), drifted.stdout);
    assert.match(drifted.stdout, /StatefulSet .*\/differ: would change\n\s+~ spec\.replicas: 0 → 1/);
    assert.match(drifted.stdout, /Service .*\/differ-headless: no change/);
    assert.match(drifted.stdout, /1 of 1 workspace\(s\) would change/);
    const after = await getOne<V1Service>(w.ns, 'service', 'differ');
    assert.equal(after?.metadata?.resourceVersion, before?.metadata?.resourceVersion, 'a dry-run writes nothing');

    const missing = await diff(['-n', w.ns, 'nosuch']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, `kaito-ts: workspace ${w.ns}/nosuch not found\n`);
  },
);
