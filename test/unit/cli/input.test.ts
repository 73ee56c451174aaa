// The bounded reader's rules as tables, in process (render-bad-input.test.ts runs them as a child
// process, with time and memory).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { decodeInput, MAX_INPUT_BYTES, readInputBytes } from '../../../src/cli/input.js';
import { MAX_YAML_DEPTH, parseYamlDocuments } from '../../../src/cli/yaml-input.js';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

describe('decodeInput', () => {
  const text = 'kind: Workspace\n';
  const cases: [string, Buffer, string | RegExp][] = [
    ['plain UTF-8', Buffer.from(text), text],
    ['a UTF-8 byte order mark is dropped', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), text],
    ['non-ASCII UTF-8 is kept', Buffer.from('name: café ✓\n'), 'name: café ✓\n'],
    ['UTF-16 LE with a mark', Buffer.from(`\uFEFF${text}`, 'utf16le'), /^f: the text is UTF-16 \(little-endian, with a byte order mark\), not UTF-8/],
    ['UTF-16 BE with a mark', Buffer.from(Buffer.from(`\uFEFF${text}`, 'utf16le').swap16()), /^f: the text is UTF-16 \(big-endian, with a byte order mark\)/],
    ['UTF-16 LE without a mark', Buffer.from(text, 'utf16le'), /^f: the text is UTF-16 \(little-endian\)/],
    ['UTF-32 BE with a mark', Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x6b]), /^f: the text is UTF-32 \(big-endian, with a byte order mark\)/],
    ['UTF-32 BE without a mark', Buffer.from([0, 0, 0, 0x6b, 0, 0, 0, 0x69]), /^f: the text is UTF-32 \(big-endian\)/],
    [
      'Latin-1',
      Buffer.from('a: 1\nname: caf\u00e9\n', 'latin1'),
      'f: not UTF-8 (byte 0xE9 at line 2, column 10): save it as UTF-8, e.g. iconv -f latin1 -t utf-8',
    ],
    ['a truncated character at the end', Buffer.from([0x61, 0xe2, 0x82]), /^f: not UTF-8 \(byte 0xE2 at line 1, column 2\)/],
    [
      'a NUL byte mid-file (not the wide pattern)',
      Buffer.from('kind: Workspace\nname: a\u0000b\n'),
      'f: a NUL byte at line 2, column 8: not a text file (YAML allows no control characters but tab and line breaks)',
    ],
    ['an escape character', Buffer.from('a: \u001b[31m\n'), /^f: control character 0x1B at line 1, column 4/],
    ['tabs and CRLF are text', Buffer.from('a:\tb\r\n'), 'a:\tb\r\n'],
  ];
  for (const [name, bytes, want] of cases)
    it(name, () => {
      if (want instanceof RegExp)
        assert.match(
          refusal(() => decodeInput(bytes, 'f')),
          want,
        );
      else if (want.startsWith('f: '))
        assert.equal(
          refusal(() => decodeInput(bytes, 'f')),
          want,
        );
      else assert.equal(decodeInput(bytes, 'f'), want);
    });
});

describe('readInputBytes', () => {
  it('standard input up to the limit is read; one byte more is refused without reading the rest', async () => {
    const exact = Buffer.alloc(MAX_INPUT_BYTES, 0x61);
    assert.equal((await readInputBytes('-', 'x', Readable.from([exact.subarray(0, 1000), exact.subarray(1000)]))).length, MAX_INPUT_BYTES);
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled++;
        yield Buffer.alloc(64 * 1024);
      }
    }
    await assert.rejects(readInputBytes('-', 'x', endless()), { message: 'standard input: larger than 1 MiB, the limit for an input file' });
    assert.equal(pulled, 17, 'stops at the first chunk past the limit');
  });
});

describe('parseYamlDocuments', () => {
  const cases: [string, string, unknown[] | RegExp][] = [
    ['documents and a List flattened, empty documents dropped', 'a: 1\n---\n---\nkind: List\nitems: [{b: 2}, {c: 3}]\n', [{ a: 1 }, { b: 2 }, { c: 3 }]],
    ['an alias within the limit', 'x: &a {k: v}\ny: *a\n', [{ x: { k: 'v' }, y: { k: 'v' } }]],
    [
      'nesting at the limit',
      `${'['.repeat(MAX_YAML_DEPTH)}${']'.repeat(MAX_YAML_DEPTH)}\n`,
      [JSON.parse(`${'['.repeat(MAX_YAML_DEPTH)}${']'.repeat(MAX_YAML_DEPTH)}`)],
    ],
    ['one level more', `${'['.repeat(MAX_YAML_DEPTH + 1)}${']'.repeat(MAX_YAML_DEPTH + 1)}\n`, /^f: YAML nested deeper than 64 levels \(line 1\)/],
    // Quoted closing brackets fool the character pass; the parser's tree still has the real depth.
    [
      'depth hidden from the character pass',
      `${'[ "]", '.repeat(MAX_YAML_DEPTH + 1)}${']'.repeat(MAX_YAML_DEPTH + 1)}\n`,
      /^f: YAML nested deeper than 64 levels \(line 1\)/,
    ],
    ['the first error, with its line', 'a: 1\nb: [\nc: 2\n', /^f: invalid YAML at line 3, column 1: /],
    ['duplicate keys in a nested map', 'a:\n  b: 1\n  c: 2\n  b: 3\n', /^f: invalid YAML at line 4, column 3: duplicate key "b"$/],
    ['the same key in two maps is fine', '- b: 1\n- b: 2\n', [[{ b: 1 }, { b: 2 }]]],
    [
      'a Jinja template in a block scalar is text',
      'data:\n  t: |\n    {% for m in messages %}{{ m.content }}{% endfor %}\n',
      [{ data: { t: '{% for m in messages %}{{ m.content }}{% endfor %}\n' } }],
    ],
  ];
  for (const [name, text, want] of cases)
    it(name, () => {
      if (want instanceof RegExp)
        assert.match(
          refusal(() => parseYamlDocuments(text, 'f')),
          want,
        );
      else assert.deepEqual(parseYamlDocuments(text, 'f'), want);
    });
});
