// A throw-away PKI made with openssl: one CA, the apiserver serving pair, an admin client pair in
// system:masters (bypasses RBAC, used by the control plane and the tests' admin), the SA signing key,
// and the aggregation layer's front-proxy CA with the client pair the apiserver proxies with.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DAYS = '3650';

const SERVER_EXT = [
  'basicConstraints=CA:FALSE',
  'keyUsage=critical,digitalSignature,keyEncipherment',
  'extendedKeyUsage=serverAuth',
  'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,' +
    'DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local',
].join('\n');
const CLIENT_EXT = ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=clientAuth'].join('\n');

async function openssl(cwd: string, ...args: string[]): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (err) {
    const e = err as { code?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('openssl is not installed (apt-get install openssl)');
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? String(err)}`);
  }
}

async function issue(dir: string, name: string, subject: string, ext: string, ca = 'ca'): Promise<void> {
  await openssl(dir, 'genrsa', '-out', `${name}.key`, '2048');
  await openssl(dir, 'req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
  writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-sha256',
    '-days',
    DAYS,
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  );
  rmSync(join(dir, `${name}.csr`));
  rmSync(join(dir, `${name}.ext`));
}

async function newCa(dir: string, name: string, subject: string): Promise<void> {
  await openssl(dir, 'genrsa', '-out', `${name}.key`, '2048');
  await openssl(dir, 'req', '-x509', '-new', '-key', `${name}.key`, '-sha256', '-days', DAYS, '-subj', subject, '-out', `${name}.crt`);
}

/** Creates the PKI once; an existing one is kept (SA tokens stay valid across restarts), and gets what it lacks. */
export async function ensurePki(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'sa.pub'))) {
    await newCa(dir, 'ca', '/CN=kaito-ts-simcluster-ca');
    // Sequential: both signings write ca.srl.
    await issue(dir, 'apiserver', '/CN=kube-apiserver', SERVER_EXT);
    await issue(dir, 'admin', '/O=system:masters/CN=simcluster-admin', CLIENT_EXT);
    await openssl(dir, 'genrsa', '-out', 'sa.key', '2048');
    await openssl(dir, 'rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub');
  }
  if (!existsSync(join(dir, 'front-proxy-client.crt'))) {
    await newCa(dir, 'front-proxy-ca', '/CN=kaito-ts-simcluster-front-proxy-ca');
    await issue(dir, 'front-proxy-client', '/CN=front-proxy-client', CLIENT_EXT, 'front-proxy-ca');
  }
}

export interface ServingPairOptions {
  /** IP addresses the certificate also names (a client that dials 127.0.0.1 checks for it). */
  ips?: string[];
  /** Also a client certificate: for mutual TLS where one pair serves and dials, as KEDA's gRPC link does. */
  clientAuth?: boolean;
}

/**
 * A serving pair `<name>.crt`/`<name>.key` for these DNS names, signed by the cluster's CA (made once),
 * for stand-ins of outside services that a program reaches by a hard-coded host name.
 */
export async function ensureServingPair(
  dir: string,
  name: string,
  dnsNames: string[],
  o: ServingPairOptions = {},
): Promise<{ certFile: string; keyFile: string }> {
  const pair = { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
  if (existsSync(pair.certFile)) return pair;
  const names = [...dnsNames.map((d) => `DNS:${d}`), ...(o.ips ?? []).map((ip) => `IP:${ip}`)];
  const ext = SERVER_EXT.replace(/^subjectAltName=.*$/m, `subjectAltName=${names.join(',')}`).replace(
    /^extendedKeyUsage=.*$/m,
    o.clientAuth ? 'extendedKeyUsage=serverAuth,clientAuth' : 'extendedKeyUsage=serverAuth',
  );
  await issue(dir, name, `/CN=${dnsNames[0] ?? name}`, ext);
  return pair;
}
