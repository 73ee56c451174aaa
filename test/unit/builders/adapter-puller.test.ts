// The adapter puller: the image reference normalised as KAITO normalises it (expected values from KAITO's
// own code run with `go run`: reference.ParseDockerRef of github.com/distribution/reference v0.6.0, with
// crypto/sha256 linked as in KAITO's binary), and kaito-ts's own script, run in /bin/sh against a stand-in
// skopeo (and against the real one where it is installed). Where KAITO's source tree is on the machine
// (test/unit/support/kaito-source.ts), KAITO v0.8.0's script runs through the same cases: same copies,
// same files in the same places, same failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pullerScript } from '../../../src/builders/adapter-puller.js';
import { normalizeImageRef } from '../../../src/builders/adapters.js';
import { kaitoPullerScript, skipOutsideCi } from '../support/kaito-source.js';

const DIGEST = 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const IMAGE = normalizeImageRef('registry.example/adapters/one:1');

test('normalizeImageRef: as reference.ParseDockerRef, the written text when it does not parse', () => {
  const cases: [image: string, want: string][] = [
    ['alpine', 'docker.io/library/alpine:latest'],
    ['alpine:3.19', 'docker.io/library/alpine:3.19'],
    ['user/repo', 'docker.io/user/repo:latest'],
    ['docker.io/alpine', 'docker.io/library/alpine:latest'],
    ['index.docker.io/user/repo:1', 'docker.io/user/repo:1'],
    ['fake.kaito.com/kaito-image:0.0.1', 'fake.kaito.com/kaito-image:0.0.1'],
    ['localhost/foo', 'localhost/foo:latest'],
    ['localhost:5000/foo/bar:v1', 'localhost:5000/foo/bar:v1'],
    ['[::1]:5000/foo:bar', '[::1]:5000/foo:bar'],
    ['example.com:5000', 'docker.io/library/example.com:5000'],
    ['Foo/bar', 'Foo/bar:latest'],
    ['a__b/c--d/e.f:tag.1-x', 'docker.io/a__b/c--d/e.f:tag.1-x'],
    [`repo@${DIGEST}`, `docker.io/library/repo@${DIGEST}`],
    [`repo:tag@${DIGEST}`, `docker.io/library/repo@${DIGEST}`],
    // Not references: kept as written.
    ['foo/Bar', 'foo/Bar'],
    ['UPPER', 'UPPER'],
    ['!bad', '!bad'],
    ['a___b', 'a___b'],
    ['repo@sha256:0123', 'repo@sha256:0123'],
    ['repo@md5:0123456789abcdef0123456789abcdef', 'repo@md5:0123456789abcdef0123456789abcdef'],
    [DIGEST.slice(7), DIGEST.slice(7)],
  ];
  for (const [image, want] of cases) assert.equal(normalizeImageRef(image), want, image);
});

test('pullerScript: the image and directory as single-quoted shell words, then the three steps', () => {
  const script = pullerScript(IMAGE, '/mnt/adapter/one');
  const lines = script.split('\n');
  assert.deepEqual(lines.slice(0, 3), ['set -eu', "image='registry.example/adapters/one:1'", "target='/mnt/adapter/one'"]);
  // 1. the copy: anonymous, then each mounted docker config (symlinks followed).
  assert.match(script, /fetch\(\) \{ skopeo copy --dest-decompress "\$@" "docker:\/\/\$image" "dir:\$work\/layout"; \}/);
  assert.match(script, /find -L "\$configs" -type f/);
  assert.match(script, /fetch --authfile="\$authfile"/);
  // 2. the layers, in the manifest's order; 3. /data to the adapter directory.
  assert.match(script, /skopeo inspect --format '\{\{range \.Layers\}\}\{\{println \.\}\}\{\{end\}\}' "dir:\$work\/layout"/);
  assert.match(script, /tar -x -f "\$work\/layout\/\$\{digest#\*:\}" -C "\$work\/rootfs"/);
  assert.match(script, /mv -f "\$work\/rootfs\/data" "\$target"/);
  // A quote in a value cannot end the word (KAITO pastes values between quotes as they are).
  assert.match(pullerScript("it's", '/d'), /^image='it'\\''s'$/m);
});

test("pullerScript is kaito-ts's own text: no licence header, no line of KAITO's script", (t) => {
  const ours = pullerScript(IMAGE, '/mnt/adapter/one');
  assert.doesNotMatch(ours, /Copyright|License|KAITO/i);
  const theirs = kaitoPullerScript(IMAGE, '/mnt/adapter/one');
  if (theirs === undefined) return skipOutsideCi(t);
  // Lines of a few words (`done`, `fi`, `break`) say nothing; every longer line is ours.
  const significant = (s: string) =>
    new Set(
      s
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.length > 8),
    );
  const shared = [...significant(ours)].filter((l) => significant(theirs).has(l));
  assert.deepEqual(shared, []);
});

test("test data: KAITO v0.8.0's script as read from its source renders as Go renders it (SHA-256 of Go's output)", (t) => {
  const cases: [image: string, dir: string, sha256: string][] = [
    ['alpine', '/mnt/adapter/a', '1e3a05beab47186f9b5ccd1ff43d457e718d39787d3a89100580b7b850a1b8df'],
    ['fake.kaito.com/kaito-image:0.0.1', '/mnt/adapter/adapterA', 'adffb66c940be2fe39ec55d0d3a6a83ce718146cc6c3d9da171a36f3ad15d465'],
    [`repo@${DIGEST}`, '/mnt/adapter/x', 'a3b93cb78b32fb09f9a67cd55e50d1e45621b38c9e29af13b42ba6e2151e7d5a'],
  ];
  if (kaitoPullerScript('x', '/x') === undefined) return skipOutsideCi(t);
  for (const [image, dir, sha256] of cases) {
    const script = kaitoPullerScript(normalizeImageRef(image), dir)!;
    assert.equal(createHash('sha256').update(script).digest('hex'), sha256, image);
    assert.notEqual(pullerScript(normalizeImageRef(image), dir), script);
  }
});

// ---------------------------------------------------------------------------------------------
// Running the scripts. A stand-in `skopeo` (a Node script) serves one image from a prepared `dir:`
// layout: `copy` succeeds anonymously or only with one auth file, as the case says, and logs its
// arguments; `inspect --format` answers the two templates the scripts use from the layout's manifest.

interface Layer {
  files: Record<string, string>;
  /** Not a tar archive. */
  broken?: boolean;
}
interface Case {
  name: string;
  layers: Layer[];
  /** Whether an anonymous copy succeeds; else the auth file whose path ends so does. */
  anonymous: boolean;
  authOk?: string;
  /** Docker config files, as the kubelet projects a Secret: symlinks into a timestamped directory. */
  configs?: string[];
  want: { ok: boolean; files?: Record<string, string>; copies: number };
}

const STAND_IN = `
const fs = require('node:fs');
const path = require('node:path');
const [verb, ...args] = process.argv.slice(2);
const root = process.env.STUB_ROOT;
const policy = JSON.parse(fs.readFileSync(path.join(root, 'policy.json'), 'utf8'));
fs.appendFileSync(path.join(root, 'calls'), [verb, ...args].join(' ') + '\\n');
const last = args[args.length - 1];
if (verb === 'copy') {
  const auth = args.find((a) => a.startsWith('--authfile='));
  const ok = auth ? !!policy.authOk && auth.endsWith(policy.authOk) : policy.anonymous;
  if (!ok) { process.stderr.write('unauthorized\\n'); process.exit(1); }
  fs.cpSync(path.join(root, 'source'), last.slice('dir:'.length), { recursive: true });
} else if (verb === 'inspect') {
  const format = args[args.indexOf('--format') + 1];
  const layers = JSON.parse(fs.readFileSync(path.join(last.slice('dir:'.length), 'manifest.json'), 'utf8')).layers.map((l) => l.digest);
  if (format === '{{ range .Layers }}{{ slice . 7 }} {{ end }}') process.stdout.write(layers.map((d) => d.slice(7) + ' ').join(''));
  else if (format === '{{range .Layers}}{{println .}}{{end}}') process.stdout.write(layers.map((d) => d + '\\n').join(''));
  else { process.stderr.write('stand-in skopeo: unknown format ' + format + '\\n'); process.exit(2); }
} else process.exit(2);
`;

function tarOf(files: Record<string, string>, scratch: string): Buffer {
  const dir = mkdtempSync(join(scratch, 'layer-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  const out = spawnSync('tar', ['-cf', '-', '-C', dir, ...Object.keys(files)], { maxBuffer: 1 << 24 });
  assert.equal(out.status, 0, String(out.stderr));
  return out.stdout;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A fresh home, stand-in skopeo and image for `c`; runs `script` and reports what it did. */
function run(c: Case, script: (dir: string) => string) {
  const root = mkdtempSync(join(tmpdir(), 'puller-'));
  try {
    const bin = join(root, 'bin');
    const home = join(root, 'home');
    const source = join(root, 'source');
    mkdirSync(bin);
    mkdirSync(join(root, 'adapter'));
    mkdirSync(source);
    mkdirSync(join(root, 'tmp'));
    writeFileSync(join(bin, 'skopeo'), `#!${process.execPath}\n${STAND_IN}`);
    chmodSync(join(bin, 'skopeo'), 0o755);
    writeFileSync(join(root, 'policy.json'), JSON.stringify({ anonymous: c.anonymous, authOk: c.authOk }));
    const digests = c.layers.map((l) => {
      const blob = l.broken ? Buffer.from('not a tar archive') : tarOf(l.files, root);
      const hex = sha256(blob);
      writeFileSync(join(source, hex), blob);
      return `sha256:${hex}`;
    });
    writeFileSync(join(source, 'manifest.json'), JSON.stringify({ schemaVersion: 2, layers: digests.map((digest) => ({ digest })) }));
    writeFileSync(join(source, 'version'), 'Directory Transport Version: 1.1\n');
    for (const config of c.configs ?? []) {
      const mount = join(home, '.docker', 'config.d', config.split('/')[0]!);
      const file = config.split('/')[1]!;
      mkdirSync(join(mount, '..2026_12_01_00_00_00.1'), { recursive: true });
      writeFileSync(join(mount, '..2026_12_01_00_00_00.1', file), '{}');
      symlinkSync('..2026_12_01_00_00_00.1', join(mount, '..data'));
      symlinkSync(join('..data', file), join(mount, file));
    }
    const dest = join(root, 'adapter', 'one');
    const r = spawnSync('/bin/sh', ['-c', script(dest)], {
      // The scripts' temporary directories (mktemp -d) go with the rest.
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, STUB_ROOT: root, TMPDIR: join(root, 'tmp') },
      encoding: 'utf8',
    });
    const files: Record<string, string> = {};
    const walk = (dir: string, prefix: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name), `${prefix}${e.name}/`);
        else files[`${prefix}${e.name}`] = readFileSync(join(dir, e.name), 'utf8');
      }
    };
    if (existsSync(dest)) walk(dest, '');
    const calls = existsSync(join(root, 'calls')) ? readFileSync(join(root, 'calls'), 'utf8').replaceAll(root, '<root>').trim().split('\n') : [];
    return { status: r.status, stderr: r.stderr, files: existsSync(dest) ? files : undefined, calls };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const ADAPTER = { 'data/adapter_config.json': '{"r":8}', 'data/adapter_model.safetensors': 'weights' };
const CASES: Case[] = [
  { name: 'a public image: one anonymous copy', layers: [{ files: ADAPTER }], anonymous: true, want: { ok: true, files: ADAPTER, copies: 1 } },
  {
    name: 'a private image: the anonymous copy refused, the second mounted config works',
    layers: [{ files: ADAPTER }],
    anonymous: false,
    authOk: 'b.json',
    configs: ['a-inference-adapter/a.json', 'b-inference-adapter/b.json'],
    // find -L meets each file three times (the symlink, ..data, the timestamped directory) in the
    // directory's order, so only the bounds are fixed; both scripts try the same files in the same order.
    want: { ok: true, files: ADAPTER, copies: -1 },
  },
  {
    name: 'no copy succeeds: fails, nothing in the adapter directory',
    layers: [{ files: ADAPTER }],
    anonymous: false,
    configs: ['a-inference-adapter/a.json'],
    want: { ok: false, copies: 4 },
  },
  { name: 'no docker config mounted: one anonymous try, fails', layers: [{ files: ADAPTER }], anonymous: false, want: { ok: false, copies: 1 } },
  {
    name: "layers in the manifest's order: the later one wins",
    layers: [{ files: { 'data/adapter_config.json': 'old', 'data/kept': 'k' } }, { files: { 'data/adapter_config.json': 'new' } }],
    anonymous: true,
    want: { ok: true, files: { 'data/adapter_config.json': 'new', 'data/kept': 'k' }, copies: 1 },
  },
  { name: 'an image without /data: fails', layers: [{ files: { 'etc/x': 'x' } }], anonymous: true, want: { ok: false, copies: 1 } },
  {
    name: 'a layer that is not a tar archive: fails',
    layers: [{ files: ADAPTER }, { files: {}, broken: true }],
    anonymous: true,
    want: { ok: false, copies: 1 },
  },
];

/** `data/x` of the image is `x` in the adapter directory. */
const inTarget = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([k, v]) => [k.replace(/^data\//, ''), v]));

for (const c of CASES) {
  test(`pullerScript runs: ${c.name}`, (t) => {
    const ours = run(c, (dir) => pullerScript(IMAGE, dir));
    assert.equal(ours.status === 0, c.want.ok, ours.stderr);
    assert.deepEqual(ours.files, c.want.files && inTarget(c.want.files));
    const copies = ours.calls.filter((l) => l.startsWith('copy '));
    if (c.want.copies >= 0) assert.equal(copies.length, c.want.copies, ours.calls.join('\n'));
    else assert.ok(copies.length >= 2 && copies.length <= 7, ours.calls.join('\n'));
    assert.match(copies[0] ?? '', /^copy --dest-decompress docker:\/\/registry\.example\/adapters\/one:1 dir:<root>\/tmp\/\S+\/layout$/);
    for (const l of copies.slice(1))
      assert.match(l, /^copy --dest-decompress --authfile=<root>\/home\/\.docker\/config\.d\/\S+\.json docker:\/\/\S+ dir:\S+\/layout$/);
    if (c.want.ok) assert.match(copies.at(-1)!, c.authOk ? new RegExp(`${c.authOk}\\b`) : /^copy --dest-decompress docker/);
    const kaito = (dir: string) => kaitoPullerScript(IMAGE, dir);
    if (kaito('/x') === undefined) return t.diagnostic("KAITO's source tree is not on this machine: its script is not run");
    const theirs = run(c, (dir) => kaito(dir)!);
    assert.equal(theirs.status === 0, ours.status === 0, `KAITO's script: ${theirs.stderr}`);
    assert.deepEqual(theirs.files, ours.files, "KAITO's script leaves the same files");
    const strip = (calls: string[]) => calls.map((l) => l.replace(/dir:\S+\/layout/, 'dir:LAYOUT').replace(/ --format .* dir:/, ' dir:'));
    assert.deepEqual(strip(theirs.calls), strip(ours.calls), "KAITO's script copies and inspects the same way");
  });
}

test('pullerScript with the real skopeo: an OCI image copied with --dest-decompress, its layers unpacked from the dir: layout', (t) => {
  const real = spawnSync('skopeo', ['--version'], { encoding: 'utf8' });
  if (real.status !== 0) return t.skip('skopeo is not installed');
  const root = mkdtempSync(join(tmpdir(), 'puller-real-'));
  try {
    // An OCI layout with two gzip layers, served for docker://<image> by a wrapper that refuses
    // anonymous copies.
    const layout = join(root, 'oci');
    mkdirSync(join(layout, 'blobs', 'sha256'), { recursive: true });
    const blob = (b: Buffer | string, mediaType: string) => {
      const hex = sha256(b);
      writeFileSync(join(layout, 'blobs', 'sha256', hex), b);
      return { mediaType, digest: `sha256:${hex}`, size: Buffer.byteLength(b) };
    };
    const tars = [tarOf({ 'data/adapter_config.json': 'old', 'data/kept': 'k' }, root), tarOf({ 'data/adapter_config.json': '{"r":8}' }, root)];
    const layers = tars.map((b) => blob(gzipSync(b), 'application/vnd.oci.image.layer.v1.tar+gzip'));
    const config = blob(
      JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: tars.map((b) => `sha256:${sha256(b)}`) } }),
      'application/vnd.oci.image.config.v1+json',
    );
    const manifest = blob(
      JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config, layers }),
      'application/vnd.oci.image.manifest.v1+json',
    );
    writeFileSync(
      join(layout, 'index.json'),
      JSON.stringify({ schemaVersion: 2, manifests: [{ ...manifest, annotations: { 'org.opencontainers.image.ref.name': '1' } }] }),
    );
    writeFileSync(join(layout, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    const bin = join(root, 'bin');
    mkdirSync(bin);
    const skopeo = spawnSync('sh', ['-c', 'command -v skopeo'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      join(bin, 'skopeo'),
      `#!${process.execPath}
const { spawnSync } = require('node:child_process');
const args = process.argv.slice(2);
if (args[0] === 'copy' && !args.some((a) => a.startsWith('--authfile='))) { process.stderr.write('unauthorized\\n'); process.exit(1); }
const mapped = args.filter((a) => !a.startsWith('--authfile=')).map((a) => (a.startsWith('docker://') ? ${JSON.stringify(`oci:${layout}:1`)} : a));
const r = spawnSync(${JSON.stringify(skopeo)}, ['--insecure-policy', ...mapped], { stdio: 'inherit' });
process.exit(r.status ?? 1);
`,
    );
    chmodSync(join(bin, 'skopeo'), 0o755);
    const home = join(root, 'home');
    mkdirSync(join(home, '.docker', 'config.d', 'one-inference-adapter'), { recursive: true });
    writeFileSync(join(home, '.docker', 'config.d', 'one-inference-adapter', 'pull.json'), '{}');
    const scripts: [string, (dir: string) => string | undefined][] = [
      ['ours', (dir) => pullerScript(IMAGE, dir)],
      ["KAITO's", (dir) => kaitoPullerScript(IMAGE, dir)],
    ];
    for (const [who, script] of scripts) {
      const dest = join(root, who === 'ours' ? 'ours' : 'kaito');
      const text = script(dest);
      if (text === undefined) continue;
      const r = spawnSync('/bin/sh', ['-c', text], { env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, TMPDIR: root }, encoding: 'utf8' });
      assert.equal(r.status, 0, `${who}: ${r.stderr}`);
      assert.equal(readFileSync(join(dest, 'adapter_config.json'), 'utf8'), '{"r":8}', who);
      assert.equal(readFileSync(join(dest, 'kept'), 'utf8'), 'k', who);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
