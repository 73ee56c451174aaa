// Derives the RBAC permissions kaito-ts needs from its source: every file the operator process
// loads (the import closure of src/manager/manager.ts) is parsed with the TypeScript compiler and
// every KubeClient call is classified. A client call whose resource is not a literal
// `Resources.<x>` must sit in one of the few generic helpers listed below, whose callers are then
// scanned instead — so a new call path cannot slip past unnoticed.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { Resources, type ResourceType } from '../../../src/runtime/resources.js';

export interface Permission {
  group: string;
  /** `plural` or `plural/subresource` */
  resource: string;
  verb: string;
}

export const permKey = (p: Permission): string => `${p.group || 'core'}|${p.resource}|${p.verb}`;

/** KubeClient method → RBAC verbs (+ subresource). SSA may create the object, which the API server authorizes as `create`. */
const CLIENT_VERBS: Record<string, { verbs: string[]; subresource?: string }> = {
  get: { verbs: ['get'] },
  list: { verbs: ['list'] },
  watch: { verbs: ['watch'] },
  create: { verbs: ['create'] },
  update: { verbs: ['update'] },
  apply: { verbs: ['patch', 'create'] },
  applyStatus: { verbs: ['patch'], subresource: 'status' },
  mergePatchStatus: { verbs: ['patch'], subresource: 'status' },
  patch: { verbs: ['patch'] },
  delete: { verbs: ['delete'] },
};

/** Helpers that take the resource type as an argument, and what they do with it. */
const GENERIC_HELPERS: { file: string; fn: string; callee: string; typeArg: number | 'type-property'; verbs: string[]; subresource?: string }[] = [
  { file: 'src/runtime/status.ts', fn: 'writeStatusIfChanged', callee: 'writeStatusIfChanged', typeArg: 1, verbs: ['patch'], subresource: 'status' },
  { file: 'src/runtime/reflector.ts', fn: 'Reflector', callee: 'Reflector', typeArg: 'type-property', verbs: ['list', 'watch'] },
  // The plan executor runs actions; their resources are scanned where the plans write them (ACTION_VERBS).
  { file: 'src/controllers/shared/executor.ts', fn: 'PlanExecutor', callee: '#action', typeArg: 'type-property', verbs: [] },
  // A row of a ControllerBuilder table names its kind as `resource(Resources.x)`: one reflector each.
  { file: 'src/runtime/builder.ts', fn: 'resource', callee: 'resource', typeArg: 0, verbs: ['list', 'watch'] },
];
/** Plan actions (src/controllers/workspace/actions.ts): `{ kind: 'apply', type: Resources.x, ... }` → verbs. */
const ACTION_VERBS: Record<string, string[]> = { apply: ['patch', 'create'], create: ['create'], delete: ['delete'], patchLabels: ['patch'] };
/**
 * Files that forward a resource type into a generic helper, their callers naming it literally: the
 * builder makes a Reflector of each row's type (`resource(...)` calls are scanned instead).
 */
const FORWARDERS: { file: string; callee: string; typeArg: number; verbs: string[] }[] = [
  { file: 'src/runtime/builder.ts', callee: 'resource', typeArg: 0, verbs: ['list', 'watch'] },
];

export interface ScanResult {
  permissions: Permission[];
  files: string[];
  /** Client calls the scan could not attribute (must be empty). */
  unclassified: string[];
}

function importClosure(root: string, entry: string): string[] {
  const seen = new Set<string>();
  const todo = [resolve(root, entry)];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const specs: string[] = [];
    sf.forEachChild((n) => {
      if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier))
        specs.push(n.moduleSpecifier.text);
    });
    const visit = (n: ts.Node): void => {
      // Dynamic imports too (`await import('./x.js')`).
      if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0]))
        specs.push(n.arguments[0].text);
      n.forEachChild(visit);
    };
    visit(sf);
    for (const spec of specs) {
      if (!spec.startsWith('.')) continue;
      const ts_ = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (existsSync(ts_)) todo.push(ts_);
    }
  }
  return [...seen].sort();
}

const resourcesByName = Resources as Record<string, ResourceType>;

/** `Resources.x` → its ResourceType. */
/**
 * Karpenter mode's NodeClass kind comes from flags (`nodeClassResource(cfg)`); the chart grants it
 * from the same values (templates/rbac.yaml), so the scan names it by this placeholder.
 */
export const NODE_CLASS_PLACEHOLDER: ResourceType = {
  group: '<karpenter-node-class-group>',
  version: '',
  plural: '<karpenter-node-class-resource-name>',
  kind: 'NodeClass',
  namespaced: false,
};

function resourceOf(expr: ts.Expression | undefined): ResourceType | undefined {
  if (expr && ts.isCallExpression(expr) && expr.expression.getText() === 'nodeClassResource') return NODE_CLASS_PLACEHOLDER;
  if (!expr || !ts.isPropertyAccessExpression(expr) || expr.expression.getText() !== 'Resources') return undefined;
  return resourcesByName[expr.name.text];
}

/** Names of the functions, methods and classes around `n`. */
function enclosingNames(n: ts.Node): string[] {
  const names: string[] = [];
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
    if ((ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p) || ts.isClassDeclaration(p)) && p.name) names.push(p.name.getText());
  }
  return names;
}

export function scanPermissions(root: string, entry = 'src/manager/manager.ts'): ScanResult {
  const files = importClosure(root, entry);
  const perms = new Map<string, Permission>();
  const unclassified: string[] = [];
  const add = (t: ResourceType, verbs: string[], subresource?: string) => {
    for (const verb of verbs) {
      const p = { group: t.group, resource: subresource ? `${t.plural}/${subresource}` : t.plural, verb };
      perms.set(permKey(p), p);
    }
  };

  for (const file of files) {
    const rel = relative(root, file);
    if (rel === 'src/runtime/client.ts' || rel === 'src/runtime/transport.ts') continue; // the client's own definitions
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    // Children owned by a Workspace with blockOwnerDeletion: the API server may require `update` on
    // the owner's finalizers subresource (OwnerReferencesPermissionEnforcement).
    if (/blockOwnerDeletion:\s*true/.test(text)) add(Resources.workspaces, ['update'], 'finalizers');

    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
        const callee = n.expression;
        const args = n.arguments ?? ts.factory.createNodeArray();
        const calleeName = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
        const where = `${rel}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;

        // 1. KubeClient methods: receiver named `client` (this.deps.client, o.client, client …).
        if (
          ts.isCallExpression(n) &&
          ts.isPropertyAccessExpression(callee) &&
          CLIENT_VERBS[callee.name.text] &&
          /(^|\.)client$/.test(callee.expression.getText())
        ) {
          const m = CLIENT_VERBS[callee.name.text]!;
          const t = resourceOf(args[0]);
          const subArg = callee.name.text === 'patch' ? args[4] : undefined;
          const sub = subArg && ts.isStringLiteral(subArg) ? subArg.text : m.subresource;
          if (t) add(t, m.verbs, sub);
          else if (!GENERIC_HELPERS.some((g) => g.file === rel && enclosingNames(n).includes(g.fn))) unclassified.push(`${where}: ${n.getText().slice(0, 80)}`);
        }
        // 2. Calls of the generic helpers and their forwarders with a literal resource.
        for (const g of GENERIC_HELPERS) {
          if (calleeName !== g.callee) continue;
          const arg =
            g.typeArg === 'type-property'
              ? args[0] && ts.isObjectLiteralExpression(args[0])
                ? args[0].properties.find((p) => p.name?.getText() === 'type')
                : undefined
              : args[g.typeArg];
          const expr =
            arg && ts.isPropertyAssignment(arg)
              ? arg.initializer
              : arg && ts.isShorthandPropertyAssignment(arg)
                ? arg.name
                : (arg as ts.Expression | undefined);
          const t = resourceOf(expr);
          if (t) add(t, g.verbs, g.subresource);
          else if (
            !FORWARDERS.some((f) => f.file === rel) &&
            !(g.file === rel) &&
            !GENERIC_HELPERS.some((h) => h.file === rel && enclosingNames(n).includes(h.fn))
          ) {
            unclassified.push(`${where}: ${g.callee} with a non-literal resource`);
          }
        }
        // The executor writes metadata, status and finalizers of its owner: `new PlanExecutor({ owner: Resources.x })`.
        if (ts.isNewExpression(n) && calleeName === 'PlanExecutor') {
          const arg = args[0] && ts.isObjectLiteralExpression(args[0]) ? args[0].properties.find((p) => p.name?.getText() === 'owner') : undefined;
          const t = resourceOf(arg && ts.isPropertyAssignment(arg) ? arg.initializer : undefined);
          if (t) {
            add(t, ['patch']);
            add(t, ['patch'], 'status');
          } else unclassified.push(`${where}: PlanExecutor without a literal owner`);
        }
        for (const f of FORWARDERS) {
          if (f.file !== rel || calleeName !== f.callee) continue;
          const t = resourceOf(args[f.typeArg]);
          if (t) add(t, f.verbs);
          else unclassified.push(`${where}: ${f.callee} with a non-literal resource`);
        }
        // An InferenceSet's children and revisions block their owner the same way: controllerOwnerRef(x, 'InferenceSet').
        const ownerKind = calleeName === 'controllerOwnerRef' ? args[1] : undefined;
        if (ownerKind && ts.isStringLiteral(ownerKind) && ownerKind.text === 'InferenceSet') add(Resources.inferenceSets, ['update'], 'finalizers');
        // 3. Nobody talks to the transport behind the client's back.
        if (ts.isPropertyAccessExpression(callee) && ['request', 'stream'].includes(callee.name.text) && /transport$/.test(callee.expression.getText())) {
          unclassified.push(`${where}: direct transport call`);
        }
      }
      // 4. Plan actions with a literal resource.
      if (ts.isObjectLiteralExpression(n)) {
        const prop = (name: string) =>
          n.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === name)?.initializer;
        const kind = prop('kind');
        const verbs = kind && ts.isStringLiteral(kind) ? ACTION_VERBS[kind.text] : undefined;
        const t = resourceOf(prop('type'));
        if (verbs && t) add(t, verbs);
      }
      n.forEachChild(visit);
    };
    visit(sf);
  }
  return { permissions: [...perms.values()], files: files.map((f) => relative(root, f)), unclassified };
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

/** Flattens RBAC rules into permissions; wildcards are returned separately (they are not allowed). */
export function rulePermissions(rules: PolicyRule[]): { permissions: Permission[]; wildcards: string[] } {
  const permissions: Permission[] = [];
  const wildcards: string[] = [];
  for (const r of rules) {
    for (const group of r.apiGroups ?? []) {
      for (const resource of r.resources ?? []) {
        for (const verb of r.verbs ?? []) {
          if ([group, resource, verb].some((x) => x.includes('*'))) wildcards.push(`${group}|${resource}|${verb}`);
          permissions.push({ group, resource, verb });
        }
      }
    }
  }
  return { permissions, wildcards };
}

/** What the code needs that the role lacks, and what the role grants that the code never uses. */
export function compare(needed: Permission[], granted: Permission[]): { missing: string[]; unused: string[] } {
  const n = new Set(needed.map(permKey));
  const g = new Set(granted.map(permKey));
  return { missing: [...n].filter((k) => !g.has(k)).sort(), unused: [...g].filter((k) => !n.has(k)).sort() };
}

export const repoRoot = (): string => {
  // dist/test/unit/manager → repo root
  let dir = dirname(new URL(import.meta.url).pathname);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
};
