// Which Kubernetes API verb an HTTP request is, the way the API server names it in apiserver_request_total
// and in audit events (get, list, watch, create, update, patch, delete, deletecollection). Pure.

export const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'] as const;
export type Verb = 'get' | 'list' | 'watch' | (typeof WRITE_VERBS)[number];

export interface ClassifiedRequest {
  verb: Verb;
  /** `group/resource[/subresource]` (core group written as `core`), or the path for non-resource URLs. */
  resource: string;
}

/** Subresources of a Namespace object: /api/v1/namespaces/<name>/<sub> is not a namespaced collection. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

interface ParsedPath {
  group: string;
  /** Segments after /api/v1 or /apis/<group>/<version>, with namespaces/<ns> removed. */
  rest: string[];
}

function parsePath(path: string): ParsedPath | undefined {
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    group = 'core';
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1] ?? '';
    rest = segs.slice(3);
  } else {
    return undefined;
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    // Deprecated /api/v1/watch/... form.
    legacyWatch = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2] ?? ''))) {
    rest = rest.slice(2);
  }
  return { group, rest: legacyWatch ? ['watch', ...rest] : rest };
}

/** Classifies one request from its method and URL (path plus query string). */
export function classifyRequest(method: string, url: string): ClassifiedRequest {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const parsed = parsePath(path);
  const m = method.toUpperCase();
  if (!parsed || parsed.rest.length === 0) {
    // Discovery, /version, /openapi, /healthz: the API server counts these as get.
    return { verb: 'get', resource: path };
  }
  let rest = parsed.rest;
  const legacyWatch = rest[0] === 'watch';
  if (legacyWatch) rest = rest.slice(1);
  const [res, name, sub] = rest;
  const resource = `${parsed.group}/${res ?? ''}${sub ? `/${sub}` : ''}`;
  const collection = name === undefined;
  const watchParam = query.get('watch');
  switch (m) {
    case 'GET':
    case 'HEAD':
      if (legacyWatch || watchParam === 'true' || watchParam === '1') return { verb: 'watch', resource };
      return { verb: collection ? 'list' : 'get', resource };
    case 'POST':
      return { verb: 'create', resource };
    case 'PUT':
      return { verb: 'update', resource };
    case 'PATCH':
      return { verb: 'patch', resource };
    case 'DELETE':
      return { verb: collection ? 'deletecollection' : 'delete', resource };
    default:
      return { verb: 'get', resource };
  }
}

export function isWriteVerb(verb: string): boolean {
  return (WRITE_VERBS as readonly string[]).includes(verb);
}

/** Sum of the write verbs in a by-verb count. */
export function countWrites(byVerb: Record<string, number>): number {
  return Object.entries(byVerb).reduce((sum, [verb, n]) => sum + (isWriteVerb(verb) ? n : 0), 0);
}

/** b − a per key (counts taken at two moments from the same counter). */
export function diffCounts(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}
