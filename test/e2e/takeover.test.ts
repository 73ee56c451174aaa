// The takeover runs (bench/takeover.ts, docs/takeover.md) as CI tests: KAITO's own controller, built from
// its source tree by `bash simcluster/build-kaito.sh <tag>`, brings workspaces to InferenceReady on a
// private cluster (ports +3000 unless KAITO_TS_TAKEOVER_PORT_OFFSET), is stopped, `kaito-ts diff` must exit 0, and kaito-ts takes over with no
// pod restarted and no StatefulSet, Service, ControllerRevision (or, in Karpenter mode, NodePool, NodeClaim
// or node) re-created or changed; then a spec change rolls one adopted StatefulSet to kaito-ts's own pod
// template, whole. The runs share that cluster's state folder, so they run one after another.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const SCRIPT = join(import.meta.dirname, '..', '..', 'bench', 'takeover.js');

function takeover(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const runs: [string, string[]][] = [
  ['KAITO v0.8.0, bring-your-own nodes', ['--from', 'kaito-v0.8.0']],
  ['KAITO v0.12.0, bring-your-own nodes', ['--from', 'kaito-v0.12.0', '--mode', 'byo']],
  ['KAITO v0.12.0, Karpenter NodePools', ['--from', 'kaito-v0.12.0', '--mode', 'karpenter']],
];

describe('takeover from a running KAITO', { concurrency: 1 }, () => {
  for (const [title, args] of runs) {
    it(`${title}: kaito-ts diff exits 0 and kaito-ts changes no child`, async () => {
      const r = await takeover(args);
      const report = `${r.stdout}\n--- stderr (last 3000 characters) ---\n${r.stderr.slice(-3000)}`;
      assert.equal(r.code, 0, `takeover ${args.join(' ')} exited ${r.code}:\n${report}`);
      assert.match(r.stdout, /kaito-ts diff before the switch \(kaito-v[\d.]+ (running|stopped)\): exit 0;/, report);
      assert.match(r.stdout, /^PASS: no pod restarted or re-created/m, report);
      assert.doesNotMatch(r.stdout, /^FAIL:/m, report);
      assert.match(r.stdout, /^PASS: StatefulSet \S+ revision \d+ → \d+: kaito-ts's own template whole/m, report);
      // The spec change kept every served name answering, on the same or a newer engine (a FAIL line otherwise).
      assert.match(r.stdout, /^PASS: StatefulSet .*; served names \S.* → \S.*, image \S+ → \S+$/m, report);
      if (args.includes('karpenter')) assert.match(r.stdout, /^PASS: no NodePool rewritten/m, report);
      if (args.includes('kaito-v0.12.0')) {
        // KAITO's own chart, its webhooks served; the switch as docs/takeover.md writes it, ending with helm uninstall.
        assert.match(r.stdout, /^kaito-ts check before the switch: exit 1, \d+ finding\(s\)/m, report);
        assert.match(r.stdout, /^ {2}ValidatingWebhookConfiguration validation\.inferenceset\.kaito\.sh: failurePolicy Fail/m, report);
        assert.match(r.stdout, /^ {2}CustomResourceDefinition inferencesets\.kaito\.sh: `helm uninstall` of release kaito-workspace deletes it/m, report);
        assert.match(r.stdout, /^before step c, KAITO stopped, webhooks in place: a Workspace create \(server dry run\) is refused/m, report);
        assert.match(r.stdout, /^step g: .* — done$/m, report);
        assert.match(r.stdout, /^PASS: no pod restarted or re-created; no Workspace, .* \(after helm uninstall kaito-workspace\)$/m, report);
        assert.match(r.stdout, /^PASS: InferenceSets phi3-set, phi3-set-alpha: no child Workspace created or deleted, spec unchanged/m, report);
        assert.match(r.stdout, /^PASS: writes accepted after the switch through kaito\.sh\/v1alpha1 and v1beta1: /m, report);
      }
    });
  }
});
