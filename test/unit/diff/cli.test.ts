import assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) }, out, err };
}

const bad: { args: string[]; message: RegExp }[] = [
  { args: ['--bogus'], message: /Unknown option '--bogus'/ },
  { args: ['a', 'b'], message: /at most one WORKSPACE, got a b/ },
  { args: ['--kubeconfig', '/nonexistent/kubeconfig'], message: /kubeconfig not found: \/nonexistent\/kubeconfig/ },
  { args: ['--kubeconfig', '/nonexistent/kubeconfig', '--feature-gates', 'nope=true'], message: /nope/ },
];

for (const c of bad) {
  test(`diff ${c.args.join(' ')}: exit 2, one line, nothing on stdout`, async () => {
    const io = capture();
    assert.equal(await main(['diff', ...c.args], io.io), 2);
    assert.deepEqual(io.out, []);
    const err = io.err.join('');
    assert.equal(err.trim().split('\n').length, 1, err);
    assert.match(err, c.message);
  });
}

test('diff --help and --version exit 0', async () => {
  const help = capture();
  assert.equal(await main(['diff', '--help'], help.io), 0);
  assert.match(help.out.join(''), /Exit status: 0 nothing would change, 1 something would, 2/);
  const version = capture();
  assert.equal(await main(['--version'], version.io), 0);
  assert.match(version.out.join(''), /^kaito-ts \d+\.\d+\.\d+\n$/);
});
