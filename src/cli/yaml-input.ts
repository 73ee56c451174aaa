// Multi-document YAML from a file the CLI reads, with bounds that keep the `yaml` package linear and
// its stack shallow on hostile input. What the package does unbounded, measured on this machine
// (docs/operations.md, "Bad input"): ~1 KiB of heap and ~10 µs per node, error recovery that keeps
// going to the end of a broken file, a duplicate-key check quadratic in a map's size (50,000 keys:
// 24 s), and recursion that dies natively (exit 134) past a few hundred nesting levels. So: a cheap
// count of the structure before the parser runs, the nesting depth read off the parser's tree before
// it is composed, the first error ends the parse, duplicate keys found with a Set, aliases capped.
import { Composer, isMap, isPair, isScalar, Parser, type CST, type Document, type ParsedNode } from 'yaml';
import { CliError } from './command-io.js';
import { inputName, lineColumn } from './input.js';

/** Lines, flow indicators, block indicators, tags, anchors and aliases: a bound on the nodes (and the parser's tokens) of a file. */
export const MAX_YAML_NODES = 10_000;
export const MAX_YAML_DEPTH = 64;
export const MAX_YAML_DOCUMENTS = 500;
/** Nodes an alias may stand for in a document, the `yaml` package's own default, stated. */
export const MAX_YAML_ALIAS_COUNT = 100;

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

const isBlank = (c: number) => c === SPACE || c === TAB || c === NL || c === CR || Number.isNaN(c);
/** `---` or `...` at the start of a line, alone or followed by a blank. */
const docMarkerAt = (text: string, i: number) => (text.startsWith('---', i) || text.startsWith('...', i)) && isBlank(text.charCodeAt(i + 3));

const deeper = (name: string, line: number) =>
  new CliError(`${name}: YAML nested deeper than ${MAX_YAML_DEPTH} levels (line ${line}), the limit for an input file`);

/**
 * One pass over the characters, before the parser sees them: the node count (an upper bound: an
 * indicator inside a quoted string counts too), the documents, and a first look at the nesting (flow
 * brackets, block indicators opening a line as in "- - - a"); the parser's tree gives the exact depth afterwards.
 */
function checkStructure(text: string, name: string): void {
  let nodes = 1;
  let line = 1;
  let documents = docMarkerAt(text, 0) ? 1 : 0;
  let flowDepth = 0;
  let lineIndicators = 0;
  let leading = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (leading && c !== SPACE && c !== TAB && c !== 0x2d && c !== 0x3a && c !== 0x3f) leading = false;
    switch (c) {
      case NL:
        nodes++;
        line++;
        lineIndicators = 0;
        leading = true;
        if (docMarkerAt(text, i + 1) && ++documents > MAX_YAML_DOCUMENTS)
          throw new CliError(`${name}: more than ${MAX_YAML_DOCUMENTS} YAML documents, the limit for an input file`);
        break;
      case 0x5b: // [
      case 0x7b: // {
        nodes++;
        if (++flowDepth > MAX_YAML_DEPTH) throw deeper(name, line);
        break;
      case 0x5d: // ]
      case 0x7d: // }
        nodes++;
        flowDepth = Math.max(0, flowDepth - 1);
        break;
      case 0x2c: // ,
        nodes++;
        break;
      case 0x2d: // -
      case 0x3a: // :
      case 0x3f: // ?
        if (!isBlank(text.charCodeAt(i + 1))) leading = false;
        else {
          nodes++;
          if (leading && ++lineIndicators > MAX_YAML_DEPTH) throw deeper(name, line);
        }
        break;
      case 0x21: // ! tag
      case 0x26: // & anchor
      case 0x2a: // * alias
        if (isBlank(text.charCodeAt(i - 1))) nodes++;
        break;
    }
  }
  if (nodes > MAX_YAML_NODES)
    throw new CliError(
      `${name}: more than ${MAX_YAML_NODES} YAML nodes (lines, keys, list items, flow entries, tags, anchors, aliases), the limit for an input file`,
    );
}

/** Where a parsed document's tree first goes deeper than the limit (walked without recursion), if it does. */
function tooDeepAt(token: CST.Token): number | undefined {
  let first: number | undefined;
  const stack: [CST.Token | undefined, number][] = [[token, 0]];
  while (stack.length > 0) {
    const [t, depth] = stack.pop()!;
    if (!t) continue;
    if (depth > MAX_YAML_DEPTH) {
      first = Math.min(first ?? t.offset, t.offset);
      continue;
    }
    if (t.type === 'document') stack.push([t.value, depth]);
    else if ('items' in t) for (const item of t.items) stack.push([item.key as CST.Token | undefined, depth + 1], [item.value, depth + 1]);
  }
  return first;
}

class FirstYamlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const errorOffset = (source: unknown): number => {
  if (typeof source === 'number') return source;
  if (Array.isArray(source)) return Number(source[0]);
  return Number((source as { offset?: number }).offset ?? 0);
};

/** A Composer that stops at the first error instead of recovering to the end of the file. */
function stoppingComposer(): Composer {
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false });
  type OnError = (source: unknown, code: string, message: string, warning?: boolean) => void;
  const hooked = composer as unknown as { onError: OnError };
  const collect = hooked.onError;
  let first: FirstYamlError | undefined;
  hooked.onError = (source, code, message, warning) => {
    if (warning) return collect(source, code, message, warning);
    // The package catches what a collection throws and reports it again on the enclosing one: keep the first.
    first ??= new FirstYamlError(message, errorOffset(source));
    throw first;
  };
  return composer;
}

/** Every map's keys once: the `yaml` package's own check compares each key with all before it. */
function duplicateKey(doc: Document.Parsed<ParsedNode>): { key: string; offset: number } | undefined {
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop() as { items?: unknown[] } | null;
    if (!node || !Array.isArray(node.items)) continue;
    const seen = isMap(node) ? new Set<string>() : undefined;
    for (const item of node.items) {
      if (!isPair(item)) {
        stack.push(item);
        continue;
      }
      if (seen && isScalar(item.key)) {
        const key = String(item.key.value);
        if (seen.has(key)) return { key, offset: item.key.range?.[0] ?? 0 };
        seen.add(key);
      }
      stack.push(item.key, item.value);
    }
  }
  return undefined;
}

const invalid = (text: string, name: string, offset: number, message: string) => {
  const { line, column } = lineColumn(text, offset);
  return new CliError(`${name}: invalid YAML at line ${line}, column ${column}: ${message.split('\n')[0]}`);
};

/** Every non-empty document of a multi-document YAML; `kind: List` documents are flattened. */
export function parseYamlDocuments(text: string, path: string): unknown[] {
  const name = inputName(path);
  checkStructure(text, name);
  function* checkedTokens(): Generator<CST.Token> {
    for (const token of new Parser().parse(text)) {
      const deep = tooDeepAt(token);
      if (deep !== undefined) throw deeper(name, lineColumn(text, deep).line);
      yield token;
    }
  }
  const out: unknown[] = [];
  try {
    for (const doc of stoppingComposer().compose(checkedTokens())) {
      const [first] = doc.errors;
      if (first) throw new FirstYamlError(first.message, first.pos[0]);
      const dup = duplicateKey(doc);
      if (dup) throw new FirstYamlError(`duplicate key ${JSON.stringify(dup.key)}`, dup.offset);
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
      } catch (err) {
        // The package's alias check (a "billion laughs" document) throws a ReferenceError; anything else goes to the catch below.
        if (!(err instanceof ReferenceError)) throw err;
        throw new CliError(`${name}: YAML aliases expand to too many nodes (more than ${MAX_YAML_ALIAS_COUNT} per alias): ${err.message}`);
      }
      if (value === null || value === undefined) continue;
      const list = value as { kind?: string; items?: unknown[] };
      if (list.kind === 'List' && Array.isArray(list.items)) out.push(...list.items);
      else out.push(value);
    }
  } catch (err) {
    if (err instanceof FirstYamlError) throw invalid(text, name, err.offset, err.message);
    if (err instanceof CliError) throw err;
    // Whatever else the parser throws came from this file: still bad input, one line.
    throw new CliError(`${name}: YAML the parser cannot read: ${(err as Error).message.split('\n')[0]}`);
  }
  return out;
}
