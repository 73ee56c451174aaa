// What the operator image (image/build.sh, the Dockerfile) takes of the build: the compiled sources
// without what only a checkout uses — the simulated cluster, the demo and the CLI commands that drive
// them — and without source maps. main.ts loads each command on demand, so the image's CLI runs
// without those modules. As a script, from the project root after `npm run build`:
//   node dist/src/cli/image-files.js    prints the files (dist/src/…), one a line; fails on a missing one
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localCommands } from './main.js';

/** Prefixes of paths under src/ that the image leaves out (this file too: it is build tooling). */
function localOnlySources(): string[] {
  return ['simcluster/', 'demo/', ...localCommands().map((c) => `cli/commands/${c}.ts`), 'cli/image-files.ts'];
}

/** The image's files for these sources (paths under src/, '/'-separated): the .js of each one kept, under dist/src/, sorted. */
export function imageFiles(sources: string[]): string[] {
  const skip = localOnlySources();
  return sources
    .filter((s) => s.endsWith('.ts') && !s.endsWith('.d.ts') && !skip.some((prefix) => s.startsWith(prefix)))
    .map((s) => `dist/src/${s.slice(0, -'.ts'.length)}.js`)
    .sort();
}

/** The sources of a checkout: every file under `root`/src, as paths under src/. */
export function sourcesOf(root: string): string[] {
  const dir = join(root, 'src');
  const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  return walk(dir).map((f) => relative(dir, f).split(sep).join('/'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  const files = imageFiles(sourcesOf(root));
  const missing = files.filter((f) => !existsSync(join(root, f)));
  if (missing.length) {
    process.stderr.write(`image-files: not built: ${missing.join(', ')} (run npm run build)\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(files.map((f) => `${f}\n`).join(''));
  }
}
