// A counting HTTPS proxy between one controller and the API server. The API server's own metrics have no
// per-client label, so every request the controller sends is classified here (verbs.ts) and counted, then
// forwarded unchanged under the admin identity. Watches are streamed through as they come.
import { Agent, createServer, request as httpsRequest, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { classifyRequest, isWriteVerb } from './verbs.js';

export interface ProxyTls {
  /** Serving pair for 127.0.0.1, signed by `caFile` (the simcluster's apiserver pair fits). */
  certFile: string;
  keyFile: string;
  /** Client pair and CA for the upstream connection. */
  clientCertFile: string;
  clientKeyFile: string;
  caFile: string;
}

export interface CountingProxy {
  url: string;
  /** Cumulative requests by verb since start. */
  byVerb(): Record<string, number>;
  /** Cumulative requests by `verb resource status`, for the detail log. */
  byVerbAndResource(): Record<string, number>;
  /** performance.now() of the last write request, or undefined before the first. */
  lastWriteAt(): number | undefined;
  close(): Promise<void>;
}

// Hop-by-hop headers are not forwarded (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

function forwardHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

export async function startCountingProxy(upstream: string, tls: ProxyTls): Promise<CountingProxy> {
  const target = new URL(upstream);
  const agent = new Agent({
    keepAlive: true,
    cert: readFileSync(tls.clientCertFile),
    key: readFileSync(tls.clientKeyFile),
    ca: readFileSync(tls.caFile),
  });
  const verbs = new Map<string, number>();
  const detail = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  let lastWrite: number | undefined;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const { verb, resource } = classifyRequest(req.method ?? 'GET', url);
    bump(verbs, verb);
    if (isWriteVerb(verb)) lastWrite = performance.now();
    const up = httpsRequest(
      { protocol: 'https:', hostname: target.hostname, port: target.port, method: req.method, path: url, headers: forwardHeaders(req.headers), agent },
      (upRes) => {
        bump(detail, `${verb} ${resource} ${upRes.statusCode ?? 0}`);
        res.writeHead(upRes.statusCode ?? 502, forwardHeaders(upRes.headers));
        // Flush each chunk at once: watch events must not wait in a buffer.
        upRes.on('data', (chunk: Buffer) => res.write(chunk));
        upRes.on('end', () => res.end());
        upRes.on('error', () => res.destroy());
      },
    );
    up.on('error', (err) => {
      if (!res.headersSent) {
        bump(detail, `${verb} ${resource} proxy-error`);
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`bench proxy: ${err.message}`);
      } else {
        res.destroy();
      }
    });
    // A client that goes away (a watch it closes) must close the upstream stream too.
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  };

  const server: Server = createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    byVerb: () => Object.fromEntries(verbs),
    byVerbAndResource: () => Object.fromEntries([...detail].sort(([a], [b]) => a.localeCompare(b))),
    lastWriteAt: () => lastWrite,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
