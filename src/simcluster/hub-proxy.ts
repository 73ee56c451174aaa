// Lets a program that reads https://huggingface.co by a hard-coded address (KAITO v0.12.0's preset
// generator) read the fake hub instead, with no change to the program: an HTTP CONNECT proxy for its
// HTTPS_PROXY that ends TLS itself with a huggingface.co certificate from the cluster's CA (trusted
// through SSL_CERT_FILE) and forwards each request to the fake hub. Any other host is refused.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';

export const HUB_HOST = 'huggingface.co';

export interface HubProxy {
  /** For HTTPS_PROXY. */
  url: string;
  /** CONNECTs refused because they named another host. */
  refused: string[];
  close(): Promise<void>;
}

/** `hubUrl`: the fake hub (http://127.0.0.1:port); `pair`: a serving pair for huggingface.co. */
export async function startHubProxy(hubUrl: string, pair: { certFile: string; keyFile: string }): Promise<HubProxy> {
  const target = new URL(hubUrl);
  const secureContext = tls.createSecureContext({ cert: readFileSync(pair.certFile), key: readFileSync(pair.keyFile) });
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const forward = http.createServer((req, res) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  const proxy = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end('CONNECT only\n');
  });
  proxy.on('connect', (req: http.IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (req.url !== `${HUB_HOST}:443`) {
      refused.push(req.url ?? '');
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext });
    secure.on('error', () => secure.destroy());
    forward.emit('connection', secure);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused,
    close: async () => {
      for (const s of sockets) s.destroy();
      forward.closeAllConnections();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
