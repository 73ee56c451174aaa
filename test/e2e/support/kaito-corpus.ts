// Every Workspace and InferenceSet document of KAITO's own examples and docs at one version: the YAML
// files under examples/, and the YAML blocks (```yaml fences, and heredocs in shell blocks) of the
// Markdown under website/docs/ and docs/. The tree comes from KAITO_SRC or ../shared/kaito-src
// (kaito-source.ts), extracted from the archive when it is not unpacked.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kaitoTree } from '../../unit/support/kaito-source.js';

export interface CorpusDoc {
  /** e.g. `kaito-v0.12.0 examples`. */
  source: string;
  /** File (and block) the document comes from, for messages. */
  origin: string;
  doc: Record<string, unknown>;
}

export interface KaitoCorpus {
  docs: CorpusDoc[];
  /** YAML blocks or files that did not parse (placeholders, elisions): not documents anyone can apply. */
  unparsable: number;
}

const KINDS = new Set(['Workspace', 'InferenceSet']);
const FOLDERS = ['examples', 'website/docs', 'docs'];

function files(dir: string, suffixes: readonly string[]): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && suffixes.some((s) => e.name.endsWith(s)))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The fenced YAML blocks of a Markdown text, and the heredocs (`<<EOF` … `EOF`) of its shell blocks. */
export function yamlBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^[ \t]*```([A-Za-z]*)[^\n]*\n([\s\S]*?)^[ \t]*```/gm;
  for (const m of markdown.matchAll(fence)) {
    const [, lang = '', body = ''] = m;
    if (lang === 'yaml' || lang === 'yml') blocks.push(body);
    else if (lang === '' || lang === 'bash' || lang === 'sh' || lang === 'shell') {
      for (const h of body.matchAll(/<<\s*['"]?(\w+)['"]?[^\n]*\n([\s\S]*?)^\s*\1\s*$/gm)) blocks.push(h[2] ?? '');
      if (lang === '' && /^kind:\s*(Workspace|InferenceSet)\s*$/m.test(body)) blocks.push(body);
    }
  }
  return blocks;
}

/** The Workspace/InferenceSet documents of one YAML text; `bad` counts texts that do not parse. */
function documentsOf(text: string): { docs: Record<string, unknown>[]; bad: boolean } {
  // Markdown indents blocks inside lists: dedent by the first line's indentation.
  const indent = /^[ \t]*/.exec(text.split('\n').find((l) => l.trim() !== '') ?? '')?.[0].length ?? 0;
  const dedented = indent
    ? text
        .split('\n')
        .map((l) => l.slice(Math.min(indent, /^[ \t]*/.exec(l)![0].length)))
        .join('\n')
    : text;
  const out: Record<string, unknown>[] = [];
  for (const d of parseAllDocuments(dedented)) {
    if (d.errors.length > 0) return { docs: out, bad: true };
    const value: unknown = d.toJS();
    const items = (value as { kind?: string; items?: unknown[] } | null)?.kind === 'List' ? ((value as { items: unknown[] }).items ?? []) : [value];
    for (const v of items) {
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && KINDS.has(String((v as { kind?: unknown }).kind))) out.push(v as Record<string, unknown>);
    }
  }
  return { docs: out, bad: false };
}

/** KAITO's documents at `version` (e.g. `v0.12.0`), or undefined when its tree is not on this machine. */
export function kaitoCorpus(version: string): KaitoCorpus | undefined {
  const tree = kaitoTree(version, FOLDERS);
  if (!tree) return undefined;
  try {
    return readCorpus(version, tree.root);
  } finally {
    tree.done();
  }
}

function readCorpus(version: string, root: string): KaitoCorpus {
  const docs: CorpusDoc[] = [];
  let unparsable = 0;
  for (const file of files(join(root, 'examples'), ['.yaml', '.yml'])) {
    const { docs: found, bad } = documentsOf(readFileSync(file, 'utf8'));
    if (bad) unparsable++;
    found.forEach((doc, i) => docs.push({ source: `kaito-${version} examples`, origin: `${relative(root, file)}#${i}`, doc }));
  }
  for (const file of [...files(join(root, 'website', 'docs'), ['.md', '.mdx']), ...files(join(root, 'docs'), ['.md'])]) {
    for (const [b, block] of yamlBlocks(readFileSync(file, 'utf8')).entries()) {
      if (!/kind:\s*(Workspace|InferenceSet)/.test(block)) continue;
      const { docs: found, bad } = documentsOf(block);
      if (bad) unparsable++;
      found.forEach((doc, i) => docs.push({ source: `kaito-${version} docs`, origin: `${relative(root, file)} block ${b}#${i}`, doc }));
    }
  }
  return { docs, unparsable };
}
