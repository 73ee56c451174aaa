// Small HTTP endpoints (probes, metrics) bound to "host:port"; port 0 picks a free port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export function parseBindAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  const host = i > 0 ? address.slice(0, i) : '0.0.0.0';
  const port = Number(i >= 0 ? address.slice(i + 1) : address);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid bind address "${address}": want host:port`);
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

export async function serve(address: string, routes: Record<string, Handler>): Promise<{ server: Server; url: string }> {
  const { host, port } = parseBindAddress(address);
  const server = createServer((req, res) => {
    // No Date header: formatting it maps part of ICU's data into the process for good (about 0.6 MiB
    // resident, docs/benchmarks.md "Memory at N = 200"), and probes and scrapes do not read it.
    res.sendDate = false;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end('not found\n');
      return;
    }
    Promise.resolve(route(req, res)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(`${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return { server, url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` };
}
