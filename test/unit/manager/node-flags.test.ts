import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeV8Flags } from '../../../src/manager/node-flags.js';

describe('runtime V8 flags', () => {
  const cases: [string, string[], string[]][] = [
    ['no node flags', [], ['--optimize-for-size']],
    ['other flags only', ['--max-semi-space-size=2', '--inspect'], ['--optimize-for-size']],
    ['the command line opts out', ['--no-optimize-for-size'], []],
    ['the command line already sets it (underscore spelling)', ['--optimize_for_size'], []],
  ];
  for (const [name, execArgv, want] of cases) it(name, () => assert.deepEqual(runtimeV8Flags(execArgv), want));

  it('the launcher starts with them and the image entrypoint flags, with nothing on stderr', () => {
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    const flags = readFileSync(join(root, 'image', 'node-flags'), 'utf8')
      .trim()
      .split(/\s+/);
    const run = spawnSync(process.execPath, [...flags, join(root, 'bin', 'kaito-ts.js'), '--help'], { encoding: 'utf8' });
    assert.match(run.stdout, /run the Workspace operator/);
    assert.equal(run.stderr, '', 'no V8 warning (e.g. --jitless without --no-expose-wasm)');
  });
});
