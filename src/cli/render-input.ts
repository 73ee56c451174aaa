// What `kaito-ts render` reads: the `-f` file as `kubectl apply -f` takes it (the kaito.sh objects are
// rendered; the ConfigMaps, Secrets... beside them are cluster state once applied), and the `--state`
// file, merged. Both through the bounded reader (./input.ts, ./yaml-input.ts).
import type { KubernetesObject } from '@kubernetes/client-node';
import { STATE_KINDS } from '../builders/facts.js';
import { workspaceNamespace } from '../builders/meta.js';
import { INFERENCESET_KIND } from '../api/inferenceset-types.js';
import { GROUP, KIND, type Workspace } from '../api/types.js';
import { parseWorkspace } from '../api/validation.js';
import type { InferenceSetObject } from '../controllers/inferenceset/children.js';
import { parseInferenceSet } from '../diff/inferenceset-intent.js';
import { documentAdmissionProblem, REFUSED_BY_API_SERVER } from '../api/render-admission.js';
import { CliError } from './command-io.js';
import { inputName, readInputText, STDIN } from './input.js';
import { parseYamlDocuments } from './yaml-input.js';

/** Workspaces and InferenceSets one render takes (each costs a few ms of builders and output: 1,000 took 3 s). */
export const MAX_RENDERED = 100;

export interface RenderInputs {
  workspaces: Workspace[];
  inferenceSets: InferenceSetObject[];
  /** `--state`, then the other documents of `-f` (which replace a `--state` object of the same kind, namespace and name). */
  stateObjects: unknown[];
}

const isObject = (d: unknown): d is KubernetesObject & Record<string, unknown> => typeof d === 'object' && d !== null && !Array.isArray(d);
const describe = (d: unknown) => (d === null ? 'null' : Array.isArray(d) ? 'a list' : `a ${typeof d}`);
const groupOf = (apiVersion: unknown) => (typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

/** kaito.sh objects (and anything calling itself a Workspace or InferenceSet) are rendered; parse errors name them. */
const rendered = (d: KubernetesObject) => groupOf(d.apiVersion) === GROUP || d.kind === KIND || d.kind === INFERENCESET_KIND;
const stateKind = (d: KubernetesObject) => (STATE_KINDS as readonly string[]).includes(d.kind ?? '');
const objectKey = (d: unknown) => {
  const o = d as KubernetesObject;
  return `${o.kind}/${o.metadata?.namespace ?? 'default'}/${o.metadata?.name ?? ''}`;
};

/** `--state` objects, replaced or joined by the state documents of `-f` (applied after, as kubectl would). */
function mergeState(fromState: unknown[], fromFile: unknown[]): unknown[] {
  const replaced = new Set(fromFile.map(objectKey));
  return [...fromState.filter((o) => !replaced.has(objectKey(o))), ...fromFile];
}

function parseOne<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new CliError(`${name}: ${(err as Error).message}`);
  }
}

/** The API server's answer to the document as `kubectl apply` would send it (schema, CEL rules, metadata). */
function admit(doc: unknown, name: string): void {
  const refused = documentAdmissionProblem(doc);
  if (refused) throw new CliError(`${name}: ${refused}`);
}

function toWorkspace(doc: Record<string, unknown>, name: string): Workspace {
  const meta = (doc.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  // The API server refuses both (an undeclared field, a CEL rule); said in the user's terms, before the schema's "resource is required".
  if (doc.kind === KIND && groupOf(doc.apiVersion) === GROUP && 'spec' in doc)
    throw new CliError(
      `${name}: workspace ${String(meta.name)}: ${REFUSED_BY_API_SERVER}: spec: KAITO's Workspace has no spec: resource, inference and tuning go at the top level, beside metadata`,
    );
  if (doc.kind === KIND && doc.inference === undefined && doc.tuning === undefined)
    throw new CliError(
      `${name}: workspace ${typeof meta.namespace === 'string' ? meta.namespace : 'default'}/${String(meta.name)}: ${REFUSED_BY_API_SERVER}: has neither inference nor tuning: a Workspace needs one of them at the top level (inference to serve a model, tuning to fine-tune one)`,
    );
  admit(doc, name);
  const ws = parseOne(name, () => parseWorkspace(doc));
  return { ...ws, metadata: { ...ws.metadata, namespace: workspaceNamespace(ws) } };
}

/** The documents of `-f`: what is rendered, what becomes state, what is only warned about. */
export function splitManifest(docs: unknown[], path: string, warn: (line: string) => void): Omit<RenderInputs, 'stateObjects'> & { state: unknown[] } {
  const name = inputName(path);
  const workspaces: Workspace[] = [];
  const inferenceSets: InferenceSetObject[] = [];
  const state: unknown[] = [];
  for (const [i, doc] of docs.entries()) {
    if (!isObject(doc)) throw new CliError(`${name}: document ${i + 1} is ${describe(doc)}, not a Kubernetes object (apiVersion, kind, metadata)`);
    if (typeof doc.kind !== 'string' || doc.kind === '') throw new CliError(`${name}: document ${i + 1} has no kind, so it is not a Kubernetes object`);
    if ((doc.kind === INFERENCESET_KIND || rendered(doc)) && workspaces.length + inferenceSets.length === MAX_RENDERED)
      throw new CliError(`${name}: more than ${MAX_RENDERED} Workspaces and InferenceSets, the limit for one render: split the file`);
    if (doc.kind === INFERENCESET_KIND) {
      admit(doc, name);
      inferenceSets.push(parseOne(name, () => parseInferenceSet(doc)));
    } else if (rendered(doc)) workspaces.push(toWorkspace(doc, name));
    else if (stateKind(doc)) {
      state.push(doc);
      warn(`warning: ${name}: ${doc.kind} ${doc.metadata?.name ?? ''} is not rendered (read as cluster state, as after kubectl apply)`);
    } else warn(`warning: ${name}: ${String(doc.kind)} ${doc.metadata?.name ?? ''} is not rendered (not read: render does not need it)`);
  }
  if (workspaces.length + inferenceSets.length === 0) throw new CliError(`${name}: no Workspace or InferenceSet found`);
  return { workspaces, inferenceSets, state };
}

/** Reads `-f` and `--state` (either may be `-`, standard input; not both). */
export async function readRenderInputs(
  file: string,
  statePath: string | undefined,
  warn: (line: string) => void,
  stdin?: AsyncIterable<Uint8Array>,
): Promise<RenderInputs> {
  if (file === STDIN && statePath === STDIN) throw new CliError('-f and --state cannot both be - (standard input)');
  const manifest = splitManifest(parseYamlDocuments(await readInputText(file, 'workspace file', stdin), file), file, warn);
  const fromState = statePath ? parseYamlDocuments(await readInputText(statePath, '--state file', stdin), statePath) : [];
  return { workspaces: manifest.workspaces, inferenceSets: manifest.inferenceSets, stateObjects: mergeState(fromState, manifest.state) };
}
