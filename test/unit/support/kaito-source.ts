// Test data only: files of KAITO's own source tree (github.com/kaito-project/kaito, Apache-2.0), read
// when a test runs, so that tests can hold what a KAITO-made object looks like without KAITO's text
// living in this repository. The tree is $KAITO_SRC or ../shared/kaito-src (as simcluster/build-kaito.sh):
// an archive kaito-<version>.tar.gz or a directory kaito-<version>/. Absent: undefined, and the
// test that needs it is skipped.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const SOURCE = process.env.KAITO_SRC ?? join(ROOT, '..', 'shared', 'kaito-src');

/** The text of `path` in KAITO's tree at `version`, or undefined when the tree is not on this machine. */
export function kaitoFile(version: string, path: string): string | undefined {
  const dir = join(SOURCE, `kaito-${version}`);
  if (existsSync(join(dir, path))) return readFileSync(join(dir, path), 'utf8');
  const archive = join(SOURCE, `kaito-${version}.tar.gz`);
  if (!existsSync(archive)) return undefined;
  try {
    return execFileSync('tar', ['-xzOf', archive, `kaito-${version}/${path}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/**
 * A directory of KAITO's tree at `version` on disk (`examples`): the unpacked tree's, or unpacked from the
 * archive into a fresh temporary directory; undefined when the tree is not on this machine.
 */
export function kaitoDir(version: string, path: string): string | undefined {
  const dir = join(SOURCE, `kaito-${version}`, path);
  if (existsSync(dir)) return dir;
  const archive = join(SOURCE, `kaito-${version}.tar.gz`);
  if (!existsSync(archive)) return undefined;
  const into = mkdtempSync(join(tmpdir(), `kaito-${version}-`));
  execFileSync('tar', ['-xzf', archive, '-C', into, `kaito-${version}/${path}`], { stdio: 'ignore' });
  return join(into, `kaito-${version}`, path);
}

/**
 * The init container script KAITO v0.8.0 writes for an adapter: pkg/workspace/image/puller.sh as its
 * text/template renders it (the two values filled in, the raw-string action around the script body
 * reduced to its text). `imageRef` is the already normalised reference.
 */
export function kaitoPullerScript(imageRef: string, volDir: string): string | undefined {
  const template = kaitoFile('v0.8.0', 'pkg/workspace/image/puller.sh');
  return template?.replace('{{ .imgRef }}', imageRef).replace('{{ .volDir }}', volDir).replace('{{`', '').replace('`}}', '');
}

/** Without KAITO's tree a test is skipped on a developer's machine, and fails in CI (which always has it). */
export function skipOutsideCi(t: { skip(message: string): void }): void {
  if (process.env.CI) throw new Error(`KAITO's source tree is needed in CI: not found at ${SOURCE} (set KAITO_SRC)`);
  t.skip(`KAITO's source tree is not on this machine (${SOURCE}; set KAITO_SRC)`);
}
