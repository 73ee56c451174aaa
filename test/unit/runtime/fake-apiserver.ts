// A tiny in-process API server for runtime unit tests: serves one list endpoint and lets each
// test script what every watch request sees. Real-cluster behaviour is covered by the e2e test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

export type WatchScript = (res: http.ServerResponse, query: URLSearchParams) => void;
/** Answers a request before the list/watch endpoints do; returns true when it did (or holds it open). */
export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => boolean;

export class FakeApiServer {
  items: KubernetesObject[] = [];
  resourceVersion = '100';
  readonly listQueries: URLSearchParams[] = [];
  readonly watchQueries: URLSearchParams[] = [];
  /** Responses for the next lists (status codes); empty → 200. */
  readonly listFailures: number[] = [];
  /** One script per watch request, in order; when exhausted, watches hang until closed. */
  readonly watchScripts: WatchScript[] = [];
  /** Every request received, in order ("METHOD /path"). */
  readonly requests: string[] = [];
  /** Every list request (path and query). */
  readonly lists: URL[] = [];
  /** The Accept header of each list, by collection path (the last one). */
  readonly listAccept = new Map<string, string | undefined>();
  /** Items per collection path (`/api/v1/nodes`); `items` serves every other path. */
  readonly collections = new Map<string, KubernetesObject[]>();
  /** Collection paths answered 404 (a CRD that is not installed). */
  readonly missing = new Set<string>();
  /** Open watches without a script, by collection path: `emit` writes to them. */
  private readonly watching = new Map<http.ServerResponse, string>();
  handler?: RequestHandler;
  private readonly open = new Set<http.ServerResponse>();
  private server?: http.Server;

  async start(): Promise<KubeConfig> {
    const { server, kubeconfig } = await listenLocal((req, res) => this.handle(req, res));
    this.server = server;
    return kubeconfig;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams;
    this.requests.push(`${req.method} ${url.pathname}`);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (this.handler?.(req, res, url)) return;
    if (q.get('watch') === 'true') {
      this.watchQueries.push(q);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const script = this.watchScripts.shift();
      if (script) script(res, q);
      else {
        this.watching.set(res, url.pathname);
        res.on('close', () => this.watching.delete(res));
      }
      return;
    }
    this.listQueries.push(q);
    this.lists.push(url);
    this.listAccept.set(url.pathname, req.headers.accept);
    if (this.missing.has(url.pathname)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' }));
      return;
    }
    const fail = this.listFailures.shift();
    if (fail) {
      res.writeHead(fail, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: fail, reason: fail === 403 ? 'Forbidden' : 'InternalError', message: `list failed with ${fail}` }));
      return;
    }
    const limit = Number(q.get('limit') ?? 0);
    const start = Number(q.get('continue') ?? 0);
    const items = this.collections.get(url.pathname) ?? this.items;
    const page = limit ? items.slice(start, start + limit) : items;
    const more = limit && start + limit < items.length ? String(start + limit) : undefined;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMapList',
        metadata: { resourceVersion: this.resourceVersion, continue: more },
        items: page.map((i) => ({ ...i, apiVersion: undefined, kind: undefined })),
      }),
    );
  }

  /** One watch event to every open unscripted watch of a collection path; returns how many got it. */
  emit(path: string, type: string, object: unknown): number {
    let n = 0;
    for (const [res, p] of this.watching)
      if (p === path) {
        send(res, type, object);
        n++;
      }
    return n;
  }
}

export const cm = (name: string, rv: string, data: Record<string, string> = {}): KubernetesObject & { data: Record<string, string> } => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name, resourceVersion: rv, uid: `uid-${name}` },
  data,
});

export const send = (res: http.ServerResponse, type: string, object: unknown): void => {
  res.write(`${JSON.stringify({ type, object })}\n`);
};

/** An HTTP server on a free loopback port, and a kubeconfig that points at it (token auth, plain HTTP). */
export async function listenLocal(handle: http.RequestListener): Promise<{ server: http.Server; kubeconfig: KubeConfig }> {
  const server = http.createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'u' }],
    currentContext: 'fake',
  });
  return { server, kubeconfig };
}
