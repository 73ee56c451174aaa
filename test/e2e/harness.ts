// End-to-end harness: the local control plane (started or reused), an admin KubeConfig, a fresh
// namespace per test, polling, a kubectl runner and identities without RBAC grants.
// Starting the cluster throws on failure, so a test that needs it fails instead of skipping.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ensureCluster, type ClusterInfo } from '../../src/simcluster/cluster.js';
import { isAlreadyExists, isNotFound } from '../../src/runtime/errors.js';
import { tokenKubeconfig } from '../../src/simcluster/kubeconfig.js';
import { layoutFor } from '../../src/simcluster/layout.js';
import { recycleReleasedPvs } from '../../src/simcluster/storage.js';

export { addNodes, removeNodes, nodeNames, POOL_LABEL, NVME_LABEL, GPU_RESOURCE, type NodePool } from '../../src/simcluster/nodes.js';
export { recycleReleasedPvs };
export { NVME_STORAGE_CLASS, createStorageClass, deleteStorageClass } from '../../src/simcluster/storage.js';
export { isAlreadyExists, isConflict, isForbidden, isNotFound } from '../../src/runtime/errors.js';

export interface Bed extends ClusterInfo {
  /** Admin identity (system:masters): bypasses RBAC. Use `serviceAccountKubeConfig` for least-privilege checks. */
  kc: KubeConfig;
}

let bedPromise: Promise<Bed> | undefined;

/**
 * Starts the cluster once per test process (or reuses the running one) and makes Released NVMe
 * volumes (claims of earlier tests, deleted with their namespace) Available again.
 */
export function bed(): Promise<Bed> {
  bedPromise ??= (async () => {
    const info = await ensureCluster({ log: (line) => process.stderr.write(`[simcluster] ${line}\n`) });
    const kc = new KubeConfig();
    kc.loadFromFile(info.kubeconfigPath);
    await recycleReleasedPvs(kc);
    return { ...info, kc };
  })();
  return bedPromise;
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value other than undefined/false and returns that value.
 * Errors thrown by `probe` count as "not yet"; on timeout the last one is in the message.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, opts: WaitOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `; last error: ${last.message.split('\n')[0]}` : '';
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${why}`);
    }
    await sleep(opts.intervalMs ?? 250);
  }
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`.slice(0, 63);
}

/**
 * Creates a uniquely named namespace, waits for its `default` ServiceAccount (pods are refused
 * without it) and deletes it after the test. KAITO_TS_KEEP_NAMESPACES=1 keeps it for debugging.
 */
export async function freshNamespace(t: TestContext | undefined, prefix = 'e2e'): Promise<string> {
  const { kc } = await bed();
  const core = kc.makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name, labels: { 'kaito.sh/e2e': 'true' } } } });
  await waitFor(`ServiceAccount default in ${name}`, async () => {
    await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
    return true;
  });
  t?.after(async () => {
    if (process.env.KAITO_TS_KEEP_NAMESPACES) return;
    await deleteNamespace(name);
  });
  return name;
}

export async function deleteNamespace(name: string): Promise<void> {
  const core = (await bed()).kc.makeApiClient(CoreV1Api);
  try {
    await core.deleteNamespace({ name, propagationPolicy: 'Background' });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Runs the built kubectl against the bed; resolves stdout, rejects with stderr. */
export async function kubectl(args: string[], opts: { input?: string; namespace?: string } = {}): Promise<string> {
  const b = await bed();
  const full = [...(opts.namespace ? ['-n', opts.namespace] : []), ...args];
  return new Promise((resolve, reject) => {
    const child = execFile(
      join(b.binDir, 'kubectl'),
      full,
      { env: { ...process.env, KUBECONFIG: b.kubeconfigPath }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${full.join(' ')} failed: ${stderr.trim() || err.message}`));
        else resolve(stdout);
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** A KubeConfig that authenticates as ServiceAccount `name` in `namespace` (created if missing), subject to RBAC. */
export async function serviceAccountKubeConfig(namespace: string, name: string): Promise<KubeConfig> {
  const { kc } = await bed();
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const tr = await core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const token = tr.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  const l = layoutFor();
  const out = new KubeConfig();
  out.loadFromString(
    tokenKubeconfig({ server: `https://127.0.0.1:${l.ports.apiserver}`, caFile: join(l.pkiDir, 'ca.crt'), user: `${namespace}-${name}`, token, namespace }),
  );
  return out;
}
