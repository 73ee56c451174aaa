// The adapter puller is KAITO v0.8.0's: same normalised image reference, same script bytes. Expected
// values come from KAITO's own code run with `go run`: reference.ParseDockerRef of
// github.com/distribution/reference v0.6.0 (with crypto/sha256 linked, as in KAITO's binary) and
// pkg/workspace/image/puller.sh rendered by text/template.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullerScript } from '../../../src/builders/adapter-puller.js';
import { normalizeImageRef } from '../../../src/builders/adapters.js';

const DIGEST = 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

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

test('pullerScript: byte-identical to KAITO v0.8.0 (SHA-256 of the rendered script)', () => {
  const cases: [image: string, dir: string, sha256: string][] = [
    ['alpine', '/mnt/adapter/a', '1e3a05beab47186f9b5ccd1ff43d457e718d39787d3a89100580b7b850a1b8df'],
    ['fake.kaito.com/kaito-image:0.0.1', '/mnt/adapter/adapterA', 'adffb66c940be2fe39ec55d0d3a6a83ce718146cc6c3d9da171a36f3ad15d465'],
    [`repo@${DIGEST}`, '/mnt/adapter/x', 'a3b93cb78b32fb09f9a67cd55e50d1e45621b38c9e29af13b42ba6e2151e7d5a'],
  ];
  for (const [image, dir, sha256] of cases) {
    assert.equal(
      createHash('sha256')
        .update(pullerScript(normalizeImageRef(image), dir))
        .digest('hex'),
      sha256,
      image,
    );
  }
});

test('pullerScript runs: anonymous pull refused, the mounted docker config works, /data lands in the adapter directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'puller-'));
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  const dest = join(root, 'adapter', 'one');
  mkdirSync(bin);
  mkdirSync(join(home, '.docker', 'config.d', 'one-inference-adapter'), { recursive: true });
  mkdirSync(join(root, 'adapter'));
  writeFileSync(join(home, '.docker', 'config.d', 'one-inference-adapter', 'secret.json'), '{}');
  // A layer tarball holding data/adapter_config.json, served by a stub skopeo that needs --authfile.
  mkdirSync(join(root, 'image', 'data'), { recursive: true });
  writeFileSync(join(root, 'image', 'data', 'adapter_config.json'), '{"r":8}');
  execFileSync('tar', ['-cf', join(root, 'layer.tar'), '-C', join(root, 'image'), 'data']);
  const calls = join(root, 'calls');
  writeFileSync(
    join(bin, 'skopeo'),
    [
      '#!/bin/sh',
      `echo "$*" >> ${calls}`,
      'case "$1" in',
      `  copy) case "$*" in *--authfile=*) ;; *) exit 1;; esac; out=$(echo "$*" | sed 's/.* dir://'); mkdir -p "$out"; cp ${join(root, 'layer.tar')} "$out/abc123";;`,
      '  inspect) echo "abc123 ";;',
      'esac',
    ].join('\n'),
  );
  chmodSync(join(bin, 'skopeo'), 0o755);
  execFileSync('/bin/sh', ['-c', pullerScript(normalizeImageRef('registry.example/adapters/one:1'), dest)], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home },
    stdio: 'pipe',
  });
  assert.equal(readFileSync(join(dest, 'adapter_config.json'), 'utf8'), '{"r":8}');
  const log = readFileSync(calls, 'utf8').trim().split('\n');
  assert.equal(log.length, 3, log.join('\n'));
  assert.match(log[0]!, /^copy --dest-decompress docker:\/\/registry\.example\/adapters\/one:1 dir:/);
  assert.match(log[1]!, /--authfile=.*secret\.json docker:\/\//);
  assert.ok(existsSync(dest));
});
