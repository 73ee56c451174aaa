// HTTP to the API server on node:http/https, authenticated through a ClusterAccess (cluster-access.ts;
// client-node's KubeConfig fits it too).
// Why not the generated APIs: their model serializer drops fields it does not know and each
// patch call needs a Content-Type override; one small transport gives us raw JSON for any kind,
// a client-side QPS limit and per-verb request counts in one place.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { ClusterAccess } from './cluster-access.js';
import { fromStatus, KubeApiError, toKubeError } from './errors.js';
import { TokenBucket, type Priority } from './rate-limit.js';

/** Kubernetes audit verbs, plus `apply` so SSA writes can be told from other patches. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'apply' | 'delete';
export const WRITE_VERBS: readonly Verb[] = ['create', 'update', 'patch', 'apply', 'delete'];

export type Query = Record<string, string | number | boolean | undefined>;

export interface HttpRequest {
  verb: Verb;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Response media type; default JSON (a metadata-only list/watch asks for PartialObjectMetadata). */
  accept?: string;
  /** Aborts the request wherever it is (waiting for a token, connecting, reading): it rejects as kind 'Aborted'. */
  signal?: AbortSignal;
  /** This request's timeout, instead of the transport's (no response byte for that long: 'Network', retryable). */
  timeoutMs?: number;
  /** Its line for the client's QPS budget (TokenBucket.acquire); `normal` when absent. */
  priority?: Priority;
  /** Moves a `deferred` request to the `high` line. */
  urgent?: AbortSignal;
  /**
   * Runs last before the request goes on the wire (after its wait for the QPS budget, which a paused
   * process may have spent asleep): a throw means it is never sent. The client's leadership check.
   */
  beforeSend?: () => void;
}

export interface TransportOptions {
  /** Client-side limit, like KAITO's --kube-client-qps / --kube-client-burst (30 / 50). */
  qps?: number;
  burst?: number;
  /** Per-request timeout for non-watch calls. */
  timeoutMs?: number;
  /** Told of every write the moment it is sent (the operator's debug log: which process wrote what, when). */
  onWrite?: (verb: Verb, path: string) => void;
}

/** In-process request counter: the "no writes when nothing changed" tests and metrics read it. */
export class RequestCounter {
  private readonly byVerb = new Map<Verb, number>();
  inc(verb: Verb): void {
    this.byVerb.set(verb, (this.byVerb.get(verb) ?? 0) + 1);
  }
  get(verb: Verb): number {
    return this.byVerb.get(verb) ?? 0;
  }
  get writes(): number {
    return WRITE_VERBS.reduce((sum, v) => sum + this.get(v), 0);
  }
  snapshot(): Partial<Record<Verb, number>> {
    return Object.fromEntries(this.byVerb);
  }
}

export interface StreamHandle {
  /** Resolves on a clean close (or our own abort), rejects with a KubeApiError otherwise. */
  done: Promise<void>;
  abort(): void;
}

export class KubeTransport {
  readonly counter = new RequestCounter();
  private readonly limiter: TokenBucket;
  private readonly timeoutMs: number;
  private readonly onWrite?: (verb: Verb, path: string) => void;
  private agent?: http.Agent;

  constructor(
    readonly kubeConfig: ClusterAccess,
    opts: TransportOptions = {},
  ) {
    this.limiter = new TokenBucket(opts.qps ?? 30, opts.burst ?? 50);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    if (opts.onWrite) this.onWrite = opts.onWrite;
  }

  async request<T = unknown>(req: HttpRequest): Promise<T> {
    const res = await this.open(req, req.timeoutMs ?? this.timeoutMs);
    const text = await readAll(res, req.signal).catch((err: unknown) => {
      throw toKubeError(err);
    });
    if (!isOk(res.statusCode)) throw fromStatus(res.statusCode, text, header(res, 'retry-after'));
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * Streams newline-delimited JSON (a watch). `idleTimeoutMs` is a watchdog against half-open
   * connections: no byte for that long destroys the stream (client-node #364/#596).
   */
  async stream(req: HttpRequest, onLine: (line: string) => void, idleTimeoutMs: number): Promise<StreamHandle> {
    const controller = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal;
    const res = await this.open({ ...req, signal }, idleTimeoutMs);
    if (!isOk(res.statusCode)) {
      const text = await readAll(res, signal).catch(() => '');
      throw fromStatus(res.statusCode, text, header(res, 'retry-after'));
    }
    const done = new Promise<void>((resolve, reject) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (!line.trim()) continue;
          try {
            onLine(line);
          } catch (err) {
            res.destroy();
            reject(err instanceof Error ? err : new Error(String(err)));
            return;
          }
        }
      });
      res.on('end', () => resolve());
      res.on('error', (err) => (signal.aborted ? resolve() : reject(toKubeError(err))));
      res.on('close', () => resolve());
    });
    return { done, abort: () => controller.abort() };
  }

  private async open(req: HttpRequest, timeoutMs: number): Promise<http.IncomingMessage> {
    throwIfAborted(req.signal);
    await this.limiter.acquire(req.signal, req.priority, req.urgent);
    throwIfAborted(req.signal);
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeApiError('Unknown', 'kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/$/, '') + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));

    // applyToHTTPSOptions resolves auth each time (exec plugins and token files rotate).
    const opts: https.RequestOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const headers: http.OutgoingHttpHeaders = { ...(opts.headers as http.OutgoingHttpHeaders), accept: req.accept ?? 'application/json' };
    if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    // Auth may have run an exec plugin: a request aborted meanwhile is still never sent (nor counted).
    throwIfAborted(req.signal);
    req.beforeSend?.();
    this.counter.inc(req.verb);
    if (this.onWrite && WRITE_VERBS.includes(req.verb)) this.onWrite(req.verb, req.path);
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const isHttps = url.protocol === 'https:';
    const agent = (this.agent ??= isHttps
      ? new https.Agent({
          // One TLS context for every connection (each watch holds one): without it, each connection
          // parses the CA and client certificate into a context of its own (~35 KiB RSS each).
          keepAlive: true,
          secureContext: tls.createSecureContext({ ca: opts.ca, cert: opts.cert, key: opts.key }),
          rejectUnauthorized: opts.rejectUnauthorized,
          servername: opts.servername,
        })
      : new http.Agent({ keepAlive: true }));

    return new Promise((resolve, reject) => {
      const r = (isHttps ? https : http).request(url, { method: req.method, headers, agent, signal: req.signal }, resolve);
      r.setTimeout(timeoutMs, () => r.destroy(Object.assign(new Error(`no response within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      r.on('error', (err) => reject(req.signal?.aborted ? abortedError(req.signal) : toKubeError(err)));
      r.end(payload);
    });
  }

  /** Closes idle keep-alive sockets so the process can exit. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }
}

const isOk = (code: number | undefined): boolean => code !== undefined && code >= 200 && code < 300;
const header = (res: http.IncomingMessage, name: string): string | undefined => {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The error of a request its signal ended: kind 'Aborted', whatever the socket said. */
const abortedError = (signal: AbortSignal): KubeApiError => {
  const reason: unknown = signal.reason;
  return new KubeApiError('Aborted', `request aborted${reason instanceof Error && reason.message ? `: ${reason.message}` : ''}`);
};

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

function readAll(res: http.IncomingMessage, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) => reject(signal?.aborted ? abortedError(signal) : err));
    // An abort after the headers: the body will never end; say so instead of waiting.
    res.on('close', () => {
      if (!res.complete)
        reject(signal?.aborted ? abortedError(signal) : toKubeError(Object.assign(new Error('response closed before its end'), { code: 'ECONNRESET' })));
    });
  });
}
