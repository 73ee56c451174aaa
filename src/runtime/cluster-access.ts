// Which cluster to talk to and how: the one resolver of --kubeconfig, else KUBECONFIG, else in-cluster
// (as KAITO/controller-runtime), giving the server URL, TLS material and credentials the transport needs.
// Loading @kubernetes/client-node's KubeConfig pulls in its whole generated API (~75 MiB of RSS in
// Node 20), three times what the operator's caches hold. The common cases — in-cluster service
// account, kubeconfig files with certificates or tokens — are read here directly; exec plugins,
// auth providers and multi-file KUBECONFIG fall back to client-node, loaded only then.
import { existsSync, readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

/** What KubeTransport needs; client-node's KubeConfig satisfies it too. */
export interface ClusterAccess {
  getCurrentCluster(): { server: string } | null;
  /** Fills TLS options and auth headers; called per request so rotating tokens are picked up. */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

export interface ClusterAccessOptions {
  /** The --kubeconfig flag. */
  kubeconfig?: string;
  env?: NodeJS.ProcessEnv;
  context?: string;
  /** Service-account mount, for tests. */
  serviceAccountDir?: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Bound service-account tokens rotate; re-read the file at most this often. */
const TOKEN_REFRESH_MS = 60_000;

/** --kubeconfig, else KUBECONFIG (a ':'-separated list), else the pod's service account. */
export async function loadClusterAccess(o: ClusterAccessOptions = {}): Promise<ClusterAccess> {
  const env = o.env ?? process.env;
  const file = o.kubeconfig || env.KUBECONFIG;
  if (!file) {
    if (env.KUBERNETES_SERVICE_HOST) return inCluster(env, o.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
    throw new Error('no cluster configured: pass --kubeconfig, set KUBECONFIG, or run in a pod');
  }
  const files = o.kubeconfig ? [o.kubeconfig] : file.split(delimiter).filter(Boolean);
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length) throw new Error(`kubeconfig not found: ${missing.join(', ')}`);
  return (files.length === 1 ? fromKubeconfigFile(files[0]!, o.context) : undefined) ?? (await viaClientNode(files, o.context));
}

/** client-node's KubeConfig, for what fromKubeconfigFile cannot serve: the files merged, the first one's context winning (as kubectl). */
async function viaClientNode(files: string[], context: string | undefined): Promise<ClusterAccess> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  files.forEach((f, i) => {
    if (i === 0) return kc.loadFromFile(f);
    const more = new KubeConfig();
    more.loadFromFile(f);
    kc.mergeConfig(more, true);
  });
  if (context) kc.setCurrentContext(context);
  if (!kc.getCurrentCluster()) throw new Error(`kubeconfig ${files.join(delimiter)} has no current cluster`);
  return kc;
}

interface Named<T> {
  name: string;
  [key: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}
type Entry = Record<string, unknown>;

/** A kubeconfig we can serve without client-node, or undefined when it needs client-node's plugins. */
function fromKubeconfigFile(path: string, contextOverride?: string): ClusterAccess | undefined {
  const doc = (parse(readFileSync(path, 'utf8')) ?? {}) as Entry;
  const find = (list: unknown, name: unknown, key: 'cluster' | 'user' | 'context'): Entry | undefined =>
    ((list as Named<Entry>[] | undefined) ?? []).find((e) => e.name === name)?.[key];
  const contextName = contextOverride ?? doc['current-context'];
  const context = find(doc.contexts, contextName, 'context');
  if (!context) throw new Error(`kubeconfig ${path}: context "${String(contextName)}" not found`);
  const cluster = find(doc.clusters, context.cluster, 'cluster');
  const user = find(doc.users, context.user, 'user') ?? {};
  if (!cluster || typeof cluster.server !== 'string') throw new Error(`kubeconfig ${path}: cluster "${String(context.cluster)}" has no server`);
  if (user.exec || user['auth-provider']) return undefined;

  const base = dirname(path);
  const material = (data: unknown, file: unknown): Buffer | undefined => {
    if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
    if (typeof file === 'string' && file) return readFileSync(isAbsolute(file) ? file : join(base, file));
    return undefined;
  };
  const tls: RequestOptions = {
    ca: material(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: material(user['client-certificate-data'], user['client-certificate']),
    key: material(user['client-key-data'], user['client-key']),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    ...(typeof cluster['tls-server-name'] === 'string' ? { servername: cluster['tls-server-name'] } : {}),
  };
  const tokenFile = typeof user.tokenFile === 'string' ? (isAbsolute(user.tokenFile) ? user.tokenFile : join(base, user.tokenFile)) : undefined;
  const token = typeof user.token === 'string' ? () => user.token as string : tokenFile ? refreshingFile(tokenFile) : undefined;
  const basic = typeof user.username === 'string' ? `${user.username}:${typeof user.password === 'string' ? user.password : ''}` : undefined;
  return staticAccess(cluster.server, tls, token, basic);
}

function inCluster(env: NodeJS.ProcessEnv, dir: string): ClusterAccess {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return staticAccess(server, { ca: readFileSync(join(dir, 'ca.crt')), rejectUnauthorized: true }, refreshingFile(join(dir, 'token')));
}

function refreshingFile(path: string): () => string {
  let value = '';
  let readAt = -Infinity;
  return () => {
    if (Date.now() - readAt > TOKEN_REFRESH_MS) {
      value = readFileSync(path, 'utf8').trim();
      readAt = Date.now();
    }
    return value;
  };
}

function staticAccess(server: string, tls: RequestOptions, token?: () => string, basic?: string): ClusterAccess {
  return {
    getCurrentCluster: () => ({ server }),
    applyToHTTPSOptions: async (opts) => {
      Object.assign(opts, tls);
      const headers = (opts.headers ??= {}) as Record<string, string>;
      if (token) headers.Authorization = `Bearer ${token()}`;
      if (basic) opts.auth = basic;
    },
  };
}
