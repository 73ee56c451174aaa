// KAITO v0.12.0's render harness (test/kaito-render, built inside KAITO's tree by
// `bash simcluster/build-kaito.sh v0.12.0`): where it is, and one run of it with JSON in and out.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
