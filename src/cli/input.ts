// The bytes of a file the CLI reads (`render -f`, `render --state`), or of standard input for `-`:
// bounded before anything is read whole, and decoded as strict UTF-8. Every refusal is a CliError
// (exit 2) naming the file, one line; the YAML on top is parsed by ./yaml-input.ts.
import { open } from 'node:fs/promises';
import { CliError } from './command-io.js';

/**
 * Input files above this are refused unread: KAITO's examples are a few KiB, a ConfigMap holds at most
 * 1 MiB, and the YAML parser's cost grows with the size (docs/operations.md, "Bad input").
 */
export const MAX_INPUT_BYTES = 1024 * 1024;
export const MAX_INPUT_LABEL = '1 MiB';

/** `-` names standard input. */
export const STDIN = '-';

/** How a file is named in messages: standard input has no path. */
export const inputName = (path: string): string => (path === STDIN ? 'standard input' : path);

const tooLarge = (path: string, size?: number) =>
  new CliError(`${inputName(path)}: larger than ${MAX_INPUT_LABEL}${size === undefined ? '' : ` (${size} bytes)`}, the limit for an input file`);

/** Reads at most MAX_INPUT_BYTES + 1 bytes of a stream: one byte more says it is too large. */
async function readBounded(chunks: AsyncIterable<Uint8Array>, path: string): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > MAX_INPUT_BYTES) throw tooLarge(path);
    parts.push(chunk);
  }
  return Buffer.concat(parts, total);
}

/** A regular file's size is known before reading; pipes, devices and /proc files are read up to the limit. */
async function readFileBounded(path: string, what: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new CliError(`cannot read ${what} ${path}: ${why}`);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new CliError(`cannot read ${what} ${path}: is a directory`);
    if (stat.isFile() && stat.size > MAX_INPUT_BYTES) throw tooLarge(path, stat.size);
    return await readBounded(handle.createReadStream({ autoClose: false }), path);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read ${what} ${path}: ${(err as Error).message}`);
  } finally {
    await handle.close();
  }
}

/** The bytes of `path`, or of `stdin` (process.stdin, touched only then) when it is `-`. */
export async function readInputBytes(path: string, what: string, stdin?: AsyncIterable<Uint8Array>): Promise<Buffer> {
  return path === STDIN ? readBounded(stdin ?? process.stdin, path) : readFileBounded(path, what);
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** Whether the bytes at `phase` (mod `step`) of the first 64 are all NUL and the others are not: ASCII text in a wide encoding. */
function nulPattern(b: Buffer, step: number, phase: number): boolean {
  const n = Math.min(b.length, 64) - (Math.min(b.length, 64) % step);
  if (n < step) return false;
  for (let i = 0; i < n; i++) if ((i % step === phase) !== (b[i] !== 0)) return false;
  return true;
}

/** UTF-16/32 by their byte order mark, else by the NUL bytes ASCII text has in them (YAML 1.2, 5.2). */
function wideEncoding(b: Buffer): string | undefined {
  const starts = (...prefix: number[]) => prefix.every((byte, i) => b[i] === byte);
  if (starts(0x00, 0x00, 0xfe, 0xff)) return 'UTF-32 (big-endian, with a byte order mark)';
  if (starts(0xff, 0xfe, 0x00, 0x00)) return 'UTF-32 (little-endian, with a byte order mark)';
  if (starts(0xfe, 0xff)) return 'UTF-16 (big-endian, with a byte order mark)';
  if (starts(0xff, 0xfe)) return 'UTF-16 (little-endian, with a byte order mark)';
  if (nulPattern(b, 4, 3)) return 'UTF-32 (big-endian)';
  if (nulPattern(b, 4, 0)) return 'UTF-32 (little-endian)';
  if (nulPattern(b, 2, 1)) return 'UTF-16 (big-endian)';
  if (nulPattern(b, 2, 0)) return 'UTF-16 (little-endian)';
  return undefined;
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

const hex = (byte: number | undefined) => `0x${(byte ?? 0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Where strict decoding failed: the first U+FFFD of a lenient decode (its prefix is valid UTF-8, so its byte length is the offset). */
function invalidUtf8(bytes: Buffer, path: string): CliError {
  const lenient = bytes.toString('utf8');
  const index = lenient.indexOf('\uFFFD');
  const at = index === -1 ? undefined : lineColumn(lenient, index);
  const where = at ? `byte ${hex(bytes[Buffer.byteLength(lenient.slice(0, index))])} at line ${at.line}, column ${at.column}` : 'a truncated character';
  return new CliError(`${inputName(path)}: not UTF-8 (${where}): save it as UTF-8, e.g. iconv -f latin1 -t utf-8`);
}

/**
 * Strict UTF-8 text of an input file: a UTF-8 byte order mark is dropped; UTF-16 and UTF-32, NUL
 * bytes, control characters YAML does not allow, and bytes that are not UTF-8 (Latin-1) are refused
 * by name rather than decoded into U+FFFD inside object names.
 */
export function decodeInput(bytes: Buffer, path: string): string {
  const wide = wideEncoding(bytes);
  if (wide) throw new CliError(`${inputName(path)}: the text is ${wide}, not UTF-8: save it as UTF-8, e.g. iconv -f utf-16 -t utf-8`);
  const body = UTF8_BOM.every((b, i) => bytes[i] === b) ? bytes.subarray(UTF8_BOM.length) : bytes;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw invalidUtf8(body, path);
  }
  // YAML's printable set: no C0 control other than tab, LF and CR, no DEL (binary data lands here).
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  const control = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/.exec(text);
  if (control) {
    const { line, column } = lineColumn(text, control.index);
    const code = control[0].charCodeAt(0);
    throw new CliError(
      `${inputName(path)}: ${code === 0 ? 'a NUL byte' : `control character ${hex(code)}`} at line ${line}, column ${column}: not a text file (YAML allows no control characters but tab and line breaks)`,
    );
  }
  return text;
}

/** The text of an input file or of standard input, bounded and strictly decoded. */
export async function readInputText(path: string, what: string, stdin?: AsyncIterable<Uint8Array>): Promise<string> {
  return decodeInput(await readInputBytes(path, what, stdin), path);
}
