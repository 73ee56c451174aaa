// Runs the downloader's script in a real shell with a stub `oras`, pointed at a temp dir instead of
// /workspace/weights: the first start pulls, a restart with the same volume does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { weightsDownloader } from '../../../src/builders/pod-spec.js';
import { mustPreset } from '../catalog/fixtures.js';

test('weights downloader: pulls once, skips on restart with the same artifact, pulls again for another', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weights-'));
  const bin = join(dir, 'bin');
  const volume = join(dir, 'volume');
  execFileSync('mkdir', ['-p', bin, volume]);
  const calls = join(dir, 'calls');
  writeFileSync(join(bin, 'oras'), `#!/bin/sh\necho "$@" >> ${calls}\n`);
  chmodSync(join(bin, 'oras'), 0o755);
  const run = (tag: string) => {
    const c = weightsDownloader({ ...mustPreset('phi-4-mini-instruct'), tag }, 'reg');
    assert.deepEqual(c.command?.slice(0, 2), ['/bin/sh', '-c']);
    const script = c.command[2]!.replaceAll('/workspace/weights', volume);
    execFileSync('/bin/sh', ['-c', script], { env: { PATH: `${bin}:/usr/bin:/bin` } });
  };
  run('0.2.0');
  run('0.2.0');
  assert.equal(readFileSync(calls, 'utf8').trim().split('\n').length, 1, 'second start of the same artifact did not pull');
  run('0.3.0');
  assert.equal(readFileSync(calls, 'utf8').trim().split('\n').length, 2, 'a new artifact is pulled');
  assert.ok(existsSync(join(volume, '.kaito-ts-weights')));
  assert.equal(readFileSync(join(volume, '.kaito-ts-weights'), 'utf8').trim(), 'reg/kaito-phi-4-mini-instruct:0.3.0');
});
