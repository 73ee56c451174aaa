// The operator image's files (src/cli/image-files.ts, what image/build.sh copies), checked without
// building the image: the local-only parts stay out, and what stays in is enough for the CLI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { imageFiles, sourcesOf } from '../../src/cli/image-files.js';
import { localCommands } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const files = imageFiles(sourcesOf(ROOT));

describe('image files', () => {
  it('leave out the simcluster, the demo, the local commands, source maps and this list', () => {
    assert.deepEqual(localCommands().sort(), ['demo', 'simcluster']);
    const out = files.filter((f) => /^dist\/src\/(simcluster|demo)\/|^dist\/src\/cli\/commands\/(simcluster|demo)\.js$|\.map$|image-files/.test(f));
    assert.deepEqual(out, []);
    for (const kept of [
      'dist/src/cli/main.js',
      'dist/src/cli/commands/run.js',
      'dist/src/cli/commands/diff.js',
      'dist/src/manager/node-flags.js',
      'dist/src/manager/manager.js',
    ]) {
      assert.ok(files.includes(kept), kept);
    }
  });

  it('map sources to their compiled files, whatever is left in dist', () => {
    assert.deepEqual(
      imageFiles([
        'api/crd.ts',
        'builders/gojson/generate-k8s-types.mjs',
        'demo/run.ts',
        'simcluster/provisioner/main.ts',
        'cli/commands/demo.ts',
        'cli/commands/crd.ts',
        'x.d.ts',
      ]),
      ['dist/src/api/crd.js', 'dist/src/cli/commands/crd.js'],
    );
  });

  it('import only one another (main.js names the local commands, loaded on demand)', () => {
    const kept = new Set(files);
    const dangling: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const [, spec] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s*)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
        const target = relative(ROOT, join(ROOT, dirname(f), spec!));
        if (kept.has(target)) continue;
        if (f === 'dist/src/cli/main.js' && localCommands().some((c) => target === `dist/src/cli/commands/${c}.js`)) continue;
        dangling.push(`${f} → ${target}`);
      }
    }
    assert.deepEqual(dangling, []);
  });

  describe('are enough for the CLI', () => {
    const app = join(mkdtempSync(join(tmpdir(), 'kaito-ts-image-files-')), 'app');
    after(() => rmSync(dirname(app), { recursive: true, force: true }));
    mkdirSync(app);
    for (const f of ['package.json', 'bin', ...files]) cpSync(join(ROOT, f), join(app, f), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
    const cli = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        execFile(process.execPath, [join(app, 'bin', 'kaito-ts.js'), ...args], { env: { PATH: process.env.PATH ?? '' } }, (err, stdout, stderr) => {
          resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
        });
      });

    it('--version, crd and run --help (which loads the whole operator)', async () => {
      assert.match((await cli('--version')).stdout, /^kaito-ts \d+\.\d+\.\d+/);
      assert.match((await cli('crd')).stdout, /kind: CustomResourceDefinition/);
      const run = await cli('run', '--help');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^Usage: kaito-ts run/);
    });

    it('a local command is named as absent, in one line', async () => {
      const r = await cli('simcluster', 'status');
      assert.equal(r.code, 2);
      assert.equal(
        r.stderr,
        'kaito-ts: "simcluster" is not in this installation (the operator image has no local cluster); run it from a checkout or the npm package\n',
      );
    });
  });
});
