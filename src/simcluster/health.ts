// One-shot health probes of the control-plane endpoints, with a short timeout.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Component } from './components.js';
import type { Layout } from './layout.js';
import { stopProcess } from './process.js';

export interface ClientCert {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** True when `url` answers 200 within `timeoutMs`. HTTPS uses the client cert if given, else skips verification (self-signed component certs). */
export function probe(url: string, cert?: ClientCert, timeoutMs = 2_000): Promise<boolean> {
  const u = new URL(url);
  const opts: RequestOptions = { method: 'GET', timeout: timeoutMs };
  if (u.protocol === 'https:') {
    Object.assign(
      opts,
      cert ? { ca: readFileSync(cert.caFile), cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) } : { rejectUnauthorized: false },
    );
  }
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(u, opts, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** True when nothing listens on 127.0.0.1:`port` (we could bind it). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** How long a stopped component's ports may take to be released before a restart gives up. */
const PORT_RELEASE_TIMEOUT_MS = 10_000;

/**
 * Stops component `c` running as `pid` (stopProcess) and waits until its ports are free again, so a
 * start that follows can bind them; 'ports still taken' when one was after PORT_RELEASE_TIMEOUT_MS.
 */
export async function stopComponent(pid: number, c: Component): Promise<'stopped' | 'killed' | 'absent' | 'ports still taken'> {
  const result = await stopProcess(pid, c.binary, c.stopGraceMs, c.script);
  if (result === 'absent') return result;
  return (await waitPortsFree(c.ports, PORT_RELEASE_TIMEOUT_MS)) ? result : 'ports still taken';
}

/**
 * Waits until nothing listens on any of `ports` (true), or `timeoutMs` passes (false). stopProcess
 * waits for every thread of a process, and the kernel can still hold a port a moment after that.
 */
export async function waitPortsFree(ports: readonly number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** The admin client certificate (the apiserver's /readyz needs one). */
export function clientCert(l: Layout): ClientCert {
  return { caFile: join(l.pkiDir, 'ca.crt'), certFile: join(l.pkiDir, 'admin.crt'), keyFile: join(l.pkiDir, 'admin.key') };
}

export function componentHealthy(l: Layout, c: Component): Promise<boolean> {
  return probe(c.healthUrl, c.healthWithClientCert ? clientCert(l) : undefined);
}
