// KAITO v0.12.0's render harness (test/kaito-render, built inside KAITO's tree by
// `bash simcluster/build-kaito.sh v0.12.0`): where it is, and one run of it with JSON in and out.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const KAITO_RENDER =
  process.env.KAITO_RENDER_BIN ?? join(process.env.KAITO_TS_CACHE ?? join(homedir(), '.cache', 'kaito-ts'), 'kaito-v0.12.0', 'bin', 'kaito-render');

/** `kaito-render [mode]` with `input` on stdin; its stdout parsed. Fails with how to build it when it is missing. */
export function runKaitoRender(args: string[], input: object): unknown {
  assert.ok(
    existsSync(KAITO_RENDER),
    `KAITO v0.12.0's render harness is missing at ${KAITO_RENDER}: build it with \`bash simcluster/build-kaito.sh v0.12.0\` (or set KAITO_RENDER_BIN)`,
  );
  const r = spawnSync(KAITO_RENDER, args, { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `kaito-render ${args.join(' ')} failed (exit ${r.status}): ${r.stderr}${r.error ? String(r.error) : ''}`);
  return JSON.parse(r.stdout) as unknown;
}

/**
 * The same run without blocking this process: for a harness that reads a server this process serves
 * (the stand-in hub), with `env` added to this process's environment.
 */
export async function runKaitoRenderAsync(args: string[], input: object, env: NodeJS.ProcessEnv): Promise<unknown> {
  assert.ok(existsSync(KAITO_RENDER), `KAITO v0.12.0's render harness is missing at ${KAITO_RENDER}: build it with \`bash simcluster/build-kaito.sh v0.12.0\``);
  const child = spawn(KAITO_RENDER, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.end(JSON.stringify(input));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  assert.equal(status, 0, `kaito-render ${args.join(' ')} failed (exit ${status}): ${Buffer.concat(err).toString('utf8')}`);
  return JSON.parse(Buffer.concat(out).toString('utf8')) as unknown;
}
