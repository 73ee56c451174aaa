// The README opens with the two commands a new machine runs, and CI runs exactly what the README says:
// its install line for OS packages, then its test command. Nothing else may build in .ci/run, so a
// build step the README lacks fails here, not on a user's fresh machine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The commands of the README's first code block, without their comments. */
function firstBlock(): string[] {
  const block = /```bash\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

/** The README's one install line for the OS packages the tests need. */
function installLine(): string {
  const line = /^(apt-get update[^\n`]*)$/m.exec(readme)?.[1];
  assert.ok(line, 'the README has no install line that starts with `apt-get update`');
  return line;
}

/** The lines .ci/run executes (comments, blank lines and shell setup left out). */
function ciCommands(): string[] {
  return ci
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !/^(set |cd |export |trap )/.test(l));
}

test('the README opens with exactly two commands: the demo and the test command', () => {
  assert.deepEqual(firstBlock(), ['npm ci && npm run demo', 'npm ci && npm test']);
});

test('.ci/run runs the README install line, then the README test command, and nothing else', () => {
  assert.deepEqual(ciCommands(), [installLine(), 'npm ci && npm test']);
});

test('the install line names every OS package simcluster/build-all.sh checks for', () => {
  const script = readFileSync(join(ROOT, 'simcluster', 'build-all.sh'), 'utf8');
  const checked = /^for pair in (.*); do$/m.exec(script)?.[1] ?? '';
  const packages = checked.split(' ').map((pair) => pair.split(':')[1]!);
  assert.ok(packages.length >= 4, `build-all.sh checks ${packages.join(', ')}`);
  for (const p of packages) assert.match(installLine(), new RegExp(`\\b${p}\\b`), `${p} is checked but not in the README's install line`);
});

test('npm test builds every component first, then lints, builds and runs both suites', () => {
  assert.match(pkg.scripts.test!, /^bash simcluster\/build-all\.sh && npm run lint && npm run build && npm run test:unit && npm run test:e2e$/);
});
