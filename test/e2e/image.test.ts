// The operator image as a container runtime would run it: the OCI layout from `npm run image` is
// unpacked with umoci, its root is bind-mounted read-only, and the image's Entrypoint runs under
// chroot as the image's User. `--version` answers, and `run` reconciles a workspace to InferenceReady.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bed, waitFor } from './harness.js';
import { applyWorkspace, pool, selectorFor, waitReady, world } from './support/operator.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const OUT = join(ROOT, 'dist', 'image');

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: ROOT, env, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    });
  });
}

/** The tag this checkout builds; the image is built once and reused while the tag matches. */
async function ensureImage(): Promise<string> {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const sha = (await sh('git', ['rev-parse', '--short=12', 'HEAD'])).trim();
  const tag = `${version}-g${sha}`;
  const tagFile = join(OUT, 'tag');
  if (!existsSync(tagFile) || !readFileSync(tagFile, 'utf8').trim().endsWith(`:${tag}`)) await sh('bash', [join(ROOT, 'image', 'build.sh')]);
  return tag;
}

interface ImageConfig {
  config: { User?: string; Entrypoint?: string[]; Env?: string[]; WorkingDir?: string };
}

function blob(digest: string): Buffer {
  return readFileSync(join(OUT, 'oci', 'blobs', ...digest.split(':')));
}

function imageConfig(tag: string): ImageConfig {
  const index = JSON.parse(readFileSync(join(OUT, 'oci', 'index.json'), 'utf8')) as { manifests: { digest: string; annotations?: Record<string, string> }[] };
  const entry = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag);
  assert.ok(entry, `tag ${tag} in the OCI index`);
  const manifest = JSON.parse(blob(entry.digest).toString()) as { config: { digest: string } };
  return JSON.parse(blob(manifest.config.digest).toString()) as ImageConfig;
}

/**
 * The image's entrypoint with `args`, as its User, in a private mount namespace where the rootfs is
 * read-only and `hostDir` (if any) is bind-mounted read-only on /tmp.
 */
function runInImage(rootfs: string, cfg: ImageConfig, args: string[], hostDir?: string, extraEnv: Record<string, string> = {}) {
  const user = cfg.config.User ?? '';
  // Host tools run with the host's PATH; the entrypoint gets the image's environment back.
  const script = [
    'set -e',
    'IMAGE_PATH=$PATH',
    'PATH=/usr/sbin:/usr/bin:/sbin:/bin',
    'CHROOT=$(command -v chroot)',
    'mount --bind "$0" "$0"',
    'mount -o remount,bind,ro "$0"',
    ...(hostDir ? ['mount --bind "$1" "$0/tmp"', 'mount -o remount,bind,ro "$0/tmp"', 'shift'] : []),
    `PATH=$IMAGE_PATH exec "$CHROOT" --userspec=${user} "$0" "$@"`,
  ].join('\n');
  const env = Object.fromEntries((cfg.config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const child = spawn(
    'unshare',
    ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, rootfs, ...(hostDir ? [hostDir] : []), ...(cfg.config.Entrypoint ?? []), ...args],
    {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => void (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => void (output += d.toString()));
  return { child, output: () => output };
}

test(
  'image: entrypoint under chroot, non-root, read-only root: --version, then run reconciles a workspace to InferenceReady',
  { timeout: 600_000 },
  async (t) => {
    const tag = await ensureImage();
    const version = tag.slice(0, tag.indexOf('-g'));
    // The docker-archive names both tags (what `docker load` reads).
    const archive = join(OUT, `kaito-ts-${version}.tar`);
    const manifest = JSON.parse(await sh('tar', ['-xOf', archive, 'manifest.json'])) as { RepoTags: string[]; Layers: string[] }[];
    assert.equal(manifest.length, 1);
    assert.deepEqual(manifest[0]!.RepoTags.map((r) => r.slice(r.lastIndexOf(':') + 1)).sort(), [version, tag].sort());

    const cfg = imageConfig(tag);
    assert.equal(cfg.config.User, '65532:65532');
    const nodeFlags = readFileSync(join(ROOT, 'image', 'node-flags'), 'utf8')
      .trim()
      .split(/\s+/);
    assert.deepEqual(cfg.config.Entrypoint, ['/usr/local/bin/node', ...nodeFlags, '/app/bin/kaito-ts.js']);

    const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-image-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    await sh('umoci', ['unpack', '--image', `${join(OUT, 'oci')}:${tag}`, join(dir, 'bundle')]);
    const rootfs = join(dir, 'bundle', 'rootfs');

    const v = runInImage(rootfs, cfg, ['--version']);
    const [code] = (await once(v.child, 'exit')) as [number | null];
    assert.equal(code, 0, v.output());
    assert.equal(v.output(), `kaito-ts ${version}\n`);

    // A kubeconfig with the material inline, readable by the image's user, on the image's /tmp.
    const b = await bed();
    const w = await world(t, { pools: [pool('a10', 1)], operator: false });
    const kube = join(dir, 'kube');
    mkdirSync(kube, { mode: 0o755 });
    writeFileSync(join(kube, 'config'), inlineKubeconfig(b.kubeconfigPath), { mode: 0o644 });
    chmodSync(dir, 0o755);
    const op = runInImage(
      rootfs,
      cfg,
      [
        'run',
        '--kubeconfig',
        '/tmp/config',
        '--namespace',
        w.ns,
        '--feature-gates',
        'disableNodeAutoProvisioning=true',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
      ],
      kube,
      { CLOUD_PROVIDER: 'azure' },
    );
    const exited = once(op.child, 'exit');
    t.after(() => void op.child.kill('SIGKILL'));

    const pid = op.child.pid!;
    const status = await waitFor(
      'operator process running as its image user',
      () => {
        const s = readFileSync(`/proc/${pid}/status`, 'utf8');
        return /^Uid:\s+65532\s/m.test(s) ? s : undefined;
      },
      { timeoutMs: 30_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\noperator output:\n${op.output().slice(-4000)}`);
    });
    assert.match(status, /^Gid:\s+65532\s/m);
    const rootMount = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
      .split('\n')
      .find((l) => l.split(' ')[4] === '/');
    assert.match(rootMount?.split(' ')[5] ?? '', /^ro\b/, `root mounted read-only: ${rootMount}`);

    await applyWorkspace(w.ns, {
      metadata: { name: 'imaged' },
      resource: { labelSelector: selectorFor(w.pools[0]!) },
      inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
    });
    await waitReady(w.ns, 'imaged', 120_000).catch((err: Error) => {
      throw new Error(`${err.message}\noperator output:\n${op.output().slice(-4000)}`);
    });
    op.child.kill('SIGTERM');
    const [exit] = (await exited) as [number | null];
    assert.equal(exit, 0, `graceful exit; output:\n${op.output().slice(-4000)}`);
  },
);

/** The simcluster admin kubeconfig with its certificate files inlined (the chroot cannot see them). */
function inlineKubeconfig(path: string): string {
  const text = readFileSync(path, 'utf8');
  return text.replace(
    /^(\s*)(certificate-authority|client-certificate|client-key): (.+)$/gm,
    (_m, indent: string, key: string, file: string) => `${indent}${key}-data: ${readFileSync(file.trim()).toString('base64')}`,
  );
}
