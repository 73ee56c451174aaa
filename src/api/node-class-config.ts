// The Karpenter NodeClass configuration of KAITO v0.12's `--node-provisioner=karpenter` mode: the
// `--karpenter-node-class-*` flags and the `--karpenter-node-classes` JSON list, with KAITO's
// defaults and the errors its ParseNodeClasses reports (cmd/workspace/main.go,
// pkg/nodeprovision/manager/factory.go). Pure: the caller passes the flag values.
import { DNS1123_SUBDOMAIN_MAX, DNS1123_SUBDOMAIN_REGEX, Msg } from './messages.js';
import { NODE_PROVISIONER_KARPENTER } from './labels.js';

/** One `--karpenter-node-classes` entry; `spec` is the provider's NodeClass body, passed through untouched. */
export interface NodeClassEntry {
  name: string;
  default?: boolean;
  spec?: Record<string, unknown>;
}

export interface NodeClassConfig {
  /** API group of the NodeClass, e.g. karpenter.azure.com. */
  group: string;
  kind: string;
  version: string;
  /** Plural resource name; with the group it names the NodeClass CRD KAITO checks for. */
  resourceName: string;
  /** Sorted by name, as KAITO sorts them. */
  nodeClasses: NodeClassEntry[];
  /** The names a workspace may pick with the kaito.sh/node-class-name annotation, sorted. */
  nodeClassNames: string[];
  /** The entry marked default. */
  defaultName: string;
}

export interface NodeClassFlags {
  group?: string;
  kind?: string;
  version?: string;
  resourceName?: string;
  /** The raw `--karpenter-node-classes` value. */
  nodeClasses?: string;
}

/** KAITO's flag defaults: karpenter-provider-azure's AKSNodeClass. */
export const NODE_CLASS_FLAG_DEFAULTS = {
  group: 'karpenter.azure.com',
  kind: 'AKSNodeClass',
  version: 'v1beta1',
  resourceName: 'aksnodeclasses',
} as const;

const FLAG = '--karpenter-node-classes';
const SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_REGEX}$`);

/** apimachinery IsDNS1123Subdomain's first error, or undefined. */
function subdomainError(name: string): string | undefined {
  if (name.length > DNS1123_SUBDOMAIN_MAX) return Msg.subdomainTooLong;
  return SUBDOMAIN.test(name) ? undefined : Msg.subdomainFormat;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Decodes the list as Go's json.Unmarshal into []NodeClassSpec would accept it (wrong types refused). */
function decodeEntries(raw: string): NodeClassEntry[] | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return `parsing ${FLAG} as a JSON array: ${(e as Error).message}`;
  }
  if (value === null) return [];
  if (!Array.isArray(value)) return `parsing ${FLAG} as a JSON array: cannot unmarshal ${typeof value} into a list of NodeClasses`;
  const entries: NodeClassEntry[] = [];
  for (const item of value) {
    if (item !== null && !isObject(item)) return `parsing ${FLAG} as a JSON array: cannot unmarshal ${typeof item} into a NodeClass entry`;
    const { name = '', default: isDefault = false, spec } = (item ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || typeof isDefault !== 'boolean' || (spec != null && !isObject(spec)))
      return `parsing ${FLAG} as a JSON array: an entry has a field of the wrong type (name: string, default: boolean, spec: object)`;
    entries.push({ name, ...(isDefault ? { default: true } : {}), ...(isObject(spec) ? { spec } : {}) });
  }
  return entries;
}

/** The configuration from the flags, or KAITO's startup error (it exits on one). */
export function parseNodeClassConfig(flags: NodeClassFlags): { ok: true; config: NodeClassConfig } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  const raw = flags.nodeClasses ?? '';
  if (raw === '') return fail(`${FLAG} is required when node-provisioner=${NODE_PROVISIONER_KARPENTER}`);
  const entries = decodeEntries(raw);
  if (typeof entries === 'string') return fail(entries);
  if (entries.length === 0) return fail(`${FLAG} declares no NodeClasses`);
  const seen = new Set<string>();
  const defaults: string[] = [];
  for (const [i, e] of entries.entries()) {
    if (e.name === '') return fail(`${FLAG} entry ${i} has an empty name`);
    const bad = subdomainError(e.name);
    if (bad) return fail(`${FLAG} entry ${i} name ${JSON.stringify(e.name)} is not a valid resource name: ${bad}`);
    if (seen.has(e.name)) return fail(`${FLAG} declares ${JSON.stringify(e.name)} more than once`);
    seen.add(e.name);
    if (e.default) defaults.push(e.name);
  }
  if (defaults.length !== 1) return fail(`${FLAG} must mark exactly one entry default, got ${defaults.length} [${defaults.join(' ')}]`);
  const byName = (a: NodeClassEntry, b: NodeClassEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const nodeClasses = [...entries].sort(byName);
  return {
    ok: true,
    config: {
      group: flags.group ?? NODE_CLASS_FLAG_DEFAULTS.group,
      kind: flags.kind ?? NODE_CLASS_FLAG_DEFAULTS.kind,
      version: flags.version ?? NODE_CLASS_FLAG_DEFAULTS.version,
      resourceName: flags.resourceName ?? NODE_CLASS_FLAG_DEFAULTS.resourceName,
      nodeClasses,
      nodeClassNames: nodeClasses.map((e) => e.name),
      defaultName: defaults[0] as string,
    },
  };
}
