// Hostile and malformed inputs for `kaito-ts render`, generated (nothing of this size is committed).
// Shared by the measured test (render-bad-input.test.ts) and the table in docs/operations.md.
import { MAX_INPUT_BYTES } from '../../../src/cli/input.js';
import { MAX_RENDERED } from '../../../src/cli/render-input.js';
import { MAX_YAML_DOCUMENTS, MAX_YAML_NODES } from '../../../src/cli/yaml-input.js';

const MB = 1_000_000;
/** Just under the size limit. */
const UNDER = MAX_INPUT_BYTES - 1024;
/** Lines of `key: value` (two nodes each) just under the node limit. */
const UNDER_NODES = Math.floor(MAX_YAML_NODES / 2) - 100;

/** `unit` repeated to exactly `size` bytes. */
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Deterministic bytes (a linear congruential generator), so a failure reproduces. */
function garbage(size: number, seed = 42): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

export const WORKSPACE = `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: phi
resource:
  instanceType: Standard_NC24ads_A100_v4
  labelSelector:
    matchLabels:
      apps: phi
inference:
  preset:
    name: phi-4-mini-instruct
`;

function utf16(text: string, bom: boolean, bigEndian: boolean): Buffer {
  const le = Buffer.from((bom ? '\uFEFF' : '') + text, 'utf16le');
  if (bigEndian) for (let i = 0; i + 1 < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return le;
}

function utf32le(text: string): Buffer {
  const out = Buffer.alloc(text.length * 4);
  for (let i = 0; i < text.length; i++) out.writeUInt32LE(text.charCodeAt(i), i * 4);
  return out;
}

/** A billion-laughs document: each level's list names the previous one's anchor ten times. */
function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i <= levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\n`;
}

export interface BadInput {
  name: string;
  /** The file's bytes (given as -f FILE, or on standard input with `stdin`). */
  bytes: () => Buffer | string;
  stdin?: true;
  /** The one stderr line, after "kaito-ts: <input>: ". */
  message: RegExp;
}

const LOG_LINE = '2026-01-01T00:00:00Z INFO reconciled workspace default/x in 12ms: ok\n';
const MALFORMED = 'kind: Workspace\n  bad: [\n metadata: {name: x\n- a\n  : b\n';

/** Every case exits 2 with one line on stderr naming the input. */
export const BAD_INPUTS: BadInput[] = [
  // Past the size limit: refused before they are read.
  { name: '5 MB of malformed YAML-like text', bytes: () => fill(MALFORMED, 5 * MB), message: /^larger than 1 MiB \(5000000 bytes\)/ },
  { name: '5 MB of log-like text', bytes: () => fill(LOG_LINE, 5 * MB), message: /^larger than 1 MiB/ },
  { name: 'a single 10 MB line', bytes: () => `k: ${fill('x', 10 * MB)}\n`, message: /^larger than 1 MiB/ },
  { name: '10 MB of tiny documents', bytes: () => fill('---\na: 1\n', 10 * MB), message: /^larger than 1 MiB/ },
  { name: '10 MB on standard input', bytes: () => fill('a: 1\n', 10 * MB), stdin: true, message: /^larger than 1 MiB, the limit/ },
  // Under the size limit, past a structure limit: refused before the parser runs.
  { name: '1 MB of malformed YAML-like text', bytes: () => fill(MALFORMED, UNDER), message: /^(more than 10000 YAML nodes|YAML nested deeper than 64 levels)/ },
  { name: '1 MB of log-like text', bytes: () => fill(LOG_LINE, UNDER), message: /^more than 10000 YAML nodes/ },
  { name: '1 MB of badly indented maps', bytes: () => fill('a:\n  b: 1\n c: 2\n', UNDER), message: /^more than 10000 YAML nodes/ },
  { name: '1 MB of tiny documents', bytes: () => fill('---\na: 1\n', UNDER), message: /^more than 500 YAML documents/ },
  { name: '1 MB unclosed flow sequence', bytes: () => `[${fill('a, ', UNDER)}`, message: /^more than 10000 YAML nodes/ },
  { name: '1 MB of tags on one line', bytes: () => fill('!t ', UNDER), message: /^more than 10000 YAML nodes/ },
  {
    name: 'deeply nested flow sequences (10,000 levels)',
    bytes: () => `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`,
    message: /^YAML nested deeper than 64 levels \(line 1\)/,
  },
  { name: 'deeply nested flow maps, unclosed', bytes: () => '{a: '.repeat(5_000), message: /^YAML nested deeper than 64 levels/ },
  { name: 'deeply nested block sequences on one line', bytes: () => `${'- '.repeat(5_000)}a\n`, message: /^YAML nested deeper than 64 levels/ },
  // Under every count limit: the parser runs, bounded by the depth of its tree and the first error.
  {
    name: 'deeply nested block maps (150 indentation levels)',
    bytes: () => Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}k:\n`).join(''),
    message: /^YAML nested deeper than 64 levels \(line 65\)/,
  },
  {
    name: `log-like text (${UNDER_NODES} lines)`,
    bytes: () => LOG_LINE.repeat(UNDER_NODES),
    message: /^invalid YAML at line 2, column 1: duplicate key "2026-01-01T00:00:00Z INFO/,
  },
  { name: 'a single 1 MB line', bytes: () => `k: ${fill('x', UNDER)}\n`, message: /^document 1 has no kind/ },
  { name: 'a 1 MB key', bytes: () => `${fill('k', UNDER)}: v\n`, message: /^invalid YAML at line 1, column 1: / },
  { name: 'a 1 MB double-quoted scalar of words', bytes: () => `k: "${fill('a ', UNDER)}"\n`, message: /^document 1 has no kind/ },
  { name: 'a 1 MB single-quoted scalar of quotes', bytes: () => `k: '${fill("''", UNDER)}'\n`, message: /^document 1 has no kind/ },
  { name: 'a 1 MB double-quoted scalar of escapes', bytes: () => `k: "${fill('\\x41', UNDER)}"\n`, message: /^document 1 has no kind/ },
  {
    name: `a map of ${UNDER_NODES} keys`,
    bytes: () => Array.from({ length: UNDER_NODES }, (_, i) => `key${i}: value ${i}\n`).join(''),
    message: /^document 1 has no kind/,
  },
  { name: `a sequence of ${UNDER_NODES} items`, bytes: () => '- item\n'.repeat(UNDER_NODES), message: /^document 1 is a list, not a Kubernetes object/ },
  { name: `${MAX_YAML_DOCUMENTS} tiny documents`, bytes: () => '---\na: 1\n'.repeat(MAX_YAML_DOCUMENTS), message: /^document 1 has no kind/ },
  {
    name: `${MAX_RENDERED + 1} Workspaces`,
    bytes: () => Array.from({ length: MAX_RENDERED + 1 }, (_, i) => `---\n${WORKSPACE.replace('name: phi', `name: phi-${i}`)}`).join(''),
    message: /^more than 100 Workspaces and InferenceSets/,
  },
  {
    name: 'a duplicate key',
    bytes: () => WORKSPACE.replace('  name: phi\n', '  name: phi\n  name: other\n'),
    message: /^invalid YAML at line 5, column 3: duplicate key "name"$/,
  },
  { name: 'a billion-laughs alias bomb', bytes: () => aliasBomb(9), message: /^YAML aliases expand to too many nodes/ },
  // Encodings.
  {
    name: 'Latin-1 bytes in a name',
    bytes: () => Buffer.from(WORKSPACE.replace('name: phi', 'name: caf\u00e9'), 'latin1'),
    message: /^not UTF-8 \(byte 0xE9 at line 4, column 12\)/,
  },
  {
    name: 'UTF-16 with a byte order mark',
    bytes: () => utf16(WORKSPACE, true, false),
    message: /^the text is UTF-16 \(little-endian, with a byte order mark\), not UTF-8/,
  },
  { name: 'UTF-16 big-endian without a byte order mark', bytes: () => utf16(WORKSPACE, false, true), message: /^the text is UTF-16 \(big-endian\), not UTF-8/ },
  { name: 'UTF-32', bytes: () => utf32le(WORKSPACE), message: /^the text is UTF-32 \(little-endian\), not UTF-8/ },
  { name: 'NUL bytes in a YAML file', bytes: () => WORKSPACE.replace('apps: phi', 'apps: p\u0000hi'), message: /^a NUL byte at line 9, column 14/ },
  { name: '1 MB of binary garbage', bytes: () => garbage(MB), message: /^(not UTF-8|control character|a NUL byte|the text is UTF)/ },
  {
    name: 'binary garbage on standard input',
    bytes: () => garbage(64 * 1024, 7),
    stdin: true,
    message: /^(not UTF-8|control character|a NUL byte|the text is UTF)/,
  },
  // Well-formed YAML, not a workspace.
  { name: 'an empty file', bytes: () => '', message: /^no Workspace or InferenceSet found$/ },
  { name: 'a plain string', bytes: () => 'hello world\n', message: /^document 1 is a string, not a Kubernetes object/ },
  {
    name: 'a spec: wrapper',
    bytes: () =>
      WORKSPACE.replace(/^(resource:|inference:| {2})/gm, '  $1')
        .replace(/^ {2}resource:/m, 'spec:\n  resource:')
        .replace(/^ {4}name: phi$/m, '  name: phi'),
    message: /^workspace phi: refused by the API server: spec: KAITO's Workspace has no spec: resource, inference and tuning go at the top level/,
  },
  {
    name: 'neither inference nor tuning',
    bytes: () => WORKSPACE.replace(/^inference:[\s\S]*/m, ''),
    message: /^workspace default\/phi: refused by the API server: has neither inference nor tuning/,
  },
];
