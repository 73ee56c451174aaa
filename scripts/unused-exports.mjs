#!/usr/bin/env node
// Lists dead exports of src/: named by no other file (src, test, bench, bin) and used nowhere in their
// own file either. (An export used only in its own file is kept: often a type of a public signature.)
// A word match, no type analysis: a name reused elsewhere hides a dead export, never the reverse.
// Exit 1 when any are found. Run: node scripts/unused-exports.mjs [--all] (--all: also the
// exports used only in their own file).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const walk = (dir) => readdirSync(dir).flatMap((f) => {
  const p = join(dir, f);
  return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts|js|mjs)$/.test(f) && !f.endsWith('.d.ts') ? [p] : [];
});
const files = ['src', 'test', 'bench', 'bin'].flatMap((d) => walk(join(root, d)));
const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const DECL = /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;

const all = process.argv.includes('--all');
const unused = [];
for (const f of files.filter((p) => relative(root, p).startsWith('src/') && p.endsWith('.ts'))) {
  for (const [, name] of text.get(f).matchAll(DECL)) {
    const word = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`, 'g');
    if ([...text].some(([other, t]) => other !== f && t.match(word))) continue;
    const ownUses = text.get(f).match(word).length - 1;
    if (ownUses === 0 || all) unused.push(`${relative(root, f)}: ${name}${ownUses ? ' (used in its own file only)' : ''}`);
  }
}
for (const u of unused) console.log(u);
console.error(`${unused.length} export(s) named nowhere else`);
process.exit(unused.length ? 1 : 0);
