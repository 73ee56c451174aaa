import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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

  it('the launcher starts with them and NODE_OPTIONS as the chart sets it', () => {
    const bin = join(import.meta.dirname, '..', '..', '..', '..', 'bin', 'kaito-ts.js');
    const out = execFileSync(process.execPath, [bin, '--help'], { env: { ...process.env, NODE_OPTIONS: '--max-semi-space-size=2 --jitless' }, encoding: 'utf8' });
    assert.match(out, /run the Workspace operator/);
  });
});
