// The switch of docs/takeover.md, executed by the takeover run from KAITO v0.12.0's chart: each step of
// the document as a bash script (bench/takeover-doc.ts), with the document's variables, kubectl, helm and
// a `kaito-ts` on the PATH; then the writes a user makes after the switch, through both API versions.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { KAITO_WEBHOOKS } from './takeover-chart.js';
import { A10, POOL, type TakeoverMode } from './takeover-plan.js';

export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

function bash(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<ScriptResult> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', `set -eo pipefail\n${script}`], { env, cwd, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

/** A folder with `kaito-ts` (this checkout's CLI), for the document's commands. */
export function kaitoTsShim(dir: string, projectRoot: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const cli = `"${process.execPath}" "${join(projectRoot, 'bin', 'kaito-ts.js')}"`;
  // As helm's post-renderer (step a re-renders KAITO's release), the run's own stand-ins follow, as at install.
  const standIns = `"${process.execPath}" "${join(projectRoot, 'dist', 'bench', 'chart-post-renderer.js')}"`;
  writeFileSync(
    join(bin, 'kaito-ts'),
    `#!/bin/bash\nset -o pipefail\nif [ "$1" = helm-keep ]; then ${cli} "$@" | ${standIns}; exit $?; fi\nexec ${cli} "$@"\n`,
  );
  chmodSync(join(bin, 'kaito-ts'), 0o755);
  return bin;
}

/** Runs the document's settings once and returns their values (NS, RELEASE, FLAGS). */
export async function evaluateSettings(settings: string, env: NodeJS.ProcessEnv, cwd: string): Promise<Record<string, string>> {
  const r = await bash(`${settings}\nprintf '%s\\0' "$NS" "$RELEASE" "$CHART" "$VERSION" "$FLAGS"`, env, cwd);
  if (r.code !== 0) throw new Error(`the settings of docs/takeover.md's switch failed (exit ${r.code}): ${r.stderr.trim()}`);
  const [NS = '', RELEASE = '', CHART = '', VERSION = '', FLAGS = ''] = r.stdout.split('\0');
  return { NS, RELEASE, CHART, VERSION, FLAGS: FLAGS.trim() };
}

export const runStep = bash;

/** Until knative (in KAITO's process) has given each webhook configuration its CA: then the API server calls it. */
export async function waitForKaitoWebhooks(kubectl: (args: string[]) => Promise<string>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await Promise.all(
      KAITO_WEBHOOKS.map(async (name) => {
        const o = JSON.parse(await kubectl(['get', 'validatingwebhookconfiguration', name, '-o', 'json']).catch(() => '{}')) as {
          webhooks?: { clientConfig?: { caBundle?: string } }[];
        };
        return !!o.webhooks?.[0]?.clientConfig?.caBundle;
      }),
    );
    if (ready.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`KAITO's webhooks ${KAITO_WEBHOOKS.join(', ')} got no CA bundle within ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A Workspace and an InferenceSet the run never keeps (server dry runs), in `version`. */
export function probeObjects(mode: TakeoverMode, version: string, namespace: string): { workspace: object; inferenceSet: object } {
  const resource =
    mode === 'karpenter' ? { instanceType: A10, labelSelector: { matchLabels: { apps: 'probe' } } } : { labelSelector: { matchLabels: { [POOL]: 'a10' } } };
  return {
    workspace: {
      apiVersion: `kaito.sh/${version}`,
      kind: 'Workspace',
      metadata: { name: `write-probe-${version}`, namespace },
      resource,
      inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
    },
    inferenceSet: {
      apiVersion: `kaito.sh/${version}`,
      kind: 'InferenceSet',
      metadata: { name: `write-probe-${version}`, namespace },
      spec: {
        replicas: 1,
        labelSelector: resource.labelSelector,
        template: { ...(mode === 'karpenter' ? { resource: { instanceType: A10 } } : {}), inference: { preset: { name: 'phi-3-mini-4k-instruct' } } },
      },
    },
  };
}

/**
 * After the switch a user writes both kinds through both versions: a create (server dry run: it passes
 * admission and the schema, nothing is kept) and an annotation of a live object. One line each.
 */
export async function writesThroughBothVersions(
  kubectl: (args: string[], stdin?: string) => Promise<string>,
  mode: TakeoverMode,
  namespace: string,
  live: { workspace: string; inferenceSet?: string },
): Promise<{ problems: string[]; passed: string[] }> {
  const problems: string[] = [];
  const passed: string[] = [];
  for (const version of ['v1alpha1', 'v1beta1']) {
    const probes = probeObjects(mode, version, namespace);
    const kinds: [string, object, string | undefined][] = [
      ['workspaces', probes.workspace, live.workspace],
      ['inferencesets', probes.inferenceSet, live.inferenceSet],
    ];
    for (const [plural, body, name] of kinds) {
      const what = `${plural}.${version}.kaito.sh`;
      await kubectl(['create', '--dry-run=server', '-o', 'name', '-f', '-'], JSON.stringify(body)).then(
        () => passed.push(`create ${what} (server dry run)`),
        (err: unknown) => problems.push(`create ${what} (server dry run) refused: ${(err as Error).message.split('\n')[0]}`),
      );
      if (!name) continue;
      await kubectl(['annotate', `${what}/${name}`, '-n', namespace, `kaito-ts.io/takeover-write=${version}`, '--overwrite']).then(
        () => passed.push(`annotate ${what}/${name}`),
        (err: unknown) => problems.push(`annotate ${what}/${name} refused: ${(err as Error).message.split('\n')[0]}`),
      );
    }
  }
  return { problems, passed };
}
