// A scripted API server for controller tests: it records every request and answers with a script,
// or by keeping create, apply and merge-patch bodies as the stored objects (executor.test.ts,
// write-budget.test.ts).
import type http from 'node:http';
import { after, before } from 'node:test';
import type { KubeConfig, KubernetesObject, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { KubeClient } from '../../../src/runtime/client.js';
import { KubeTransport } from '../../../src/runtime/transport.js';
import { listenLocal } from '../runtime/fake-apiserver.js';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType?: string;
  body: Record<string, unknown> | unknown[] | undefined;
}
type Reply = { status: number; body?: unknown };

/** Answers every request with `script` (default: echo the body back as the stored object) and records it. */
export class ScriptedApiServer {
  seen: Seen[] = [];
  script?: (r: Seen) => Reply | undefined;
  private server?: http.Server;
  private rv = 1000;

  async start(): Promise<KubeConfig> {
    const { server, kubeconfig } = await listenLocal((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const seen: Seen = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          contentType: req.headers['content-type'],
          body: raw ? (JSON.parse(raw) as Seen['body']) : undefined,
        };
        this.seen.push(seen);
        const reply = this.script?.(seen) ?? this.echo(seen);
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body ?? {}));
      });
    });
    this.server = server;
    return kubeconfig;
  }

  /** Objects by path, as a server would hold them. */
  readonly store = new Map<string, KubernetesObject & Record<string, unknown>>();

  seed(path: string, obj: KubernetesObject): void {
    this.store.set(path, structuredClone(obj) as KubernetesObject & Record<string, unknown>);
  }

  /** A write by someone else (the cluster's own controllers): stored with the next resourceVersion, returned as stored. */
  put<T extends KubernetesObject>(path: string, obj: T): T {
    const stored = structuredClone(obj) as T & Record<string, unknown>;
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.rv) };
    this.store.set(path, stored);
    return structuredClone(stored);
  }

  /** Create, apply and merge patches kept in the store; the stored object is returned. */
  private echo(r: Seen): Reply {
    const body = (Array.isArray(r.body) ? {} : (r.body ?? {})) as KubernetesObject & Record<string, unknown>;
    const parts = r.path.split('/');
    const status = parts.at(-1) === 'status';
    const path = r.method === 'POST' ? `${r.path}/${body.metadata?.name}` : status ? parts.slice(0, -1).join('/') : r.path;
    const name = path.split('/').at(-1);
    const namespace = parts.includes('namespaces') ? parts[parts.indexOf('namespaces') + 1] : undefined;
    const old = this.store.get(path);
    const merged = status
      ? { ...old, status: { ...(old?.status as object), ...(body.status as object) } }
      : { ...old, ...body, metadata: { ...old?.metadata, ...body.metadata } };
    const stored = {
      ...merged,
      metadata: {
        ...merged.metadata,
        name,
        namespace,
        uid: old?.metadata?.uid ?? `uid-${name}`,
        // The server sets the generation of a new object to 1 and records who wrote it.
        generation: old?.metadata?.generation ?? 1,
        managedFields: managedFields(old, r),
        resourceVersion: String(++this.rv),
      },
    } as KubernetesObject & Record<string, unknown>;
    this.store.set(path, stored);
    return { status: r.method === 'POST' ? 201 : 200, body: stored };
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }
}

/** One request as a line: method, path, field manager and patch type. */
export const line = (r: Seen) =>
  `${r.method} ${r.path}${r.query.get('fieldManager') ? ` fieldManager=${r.query.get('fieldManager')}` : ''}${r.contentType?.includes('apply-patch') ? ' (apply)' : r.contentType?.includes('merge-patch') ? ' (merge)' : r.contentType?.includes('json-patch') ? ' (json-patch)' : ''}`;

/** The managers of an object after a write by `r`'s field manager (the fields themselves are not tracked). */
function managedFields(old: KubernetesObject | undefined, r: Seen): V1ManagedFieldsEntry[] | undefined {
  const manager = r.query.get('fieldManager');
  const before = old?.metadata?.managedFields;
  if (!manager || before?.some((m) => m.manager === manager)) return before;
  return [...(before ?? []), { manager, operation: r.contentType?.includes('apply-patch') ? 'Apply' : 'Update' }];
}

/** One scripted server for the tests of a file: started before them, stopped after them; `client` talks to it. */
export function scriptedApiServer(): { server: ScriptedApiServer; readonly client: KubeClient } {
  const server = new ScriptedApiServer();
  let client: KubeClient | undefined;
  before(async () => {
    client = new KubeClient(new KubeTransport(await server.start(), { qps: 1000, burst: 1000 }));
  });
  after(() => server.stop());
  return {
    server,
    get client() {
      if (!client) throw new Error('the scripted API server starts before the tests');
      return client;
    },
  };
}
