// Kubeconfig documents for the bed. Pure: paths and tokens in, YAML text out.
import { stringify } from 'yaml';

interface Server {
  server: string;
  caFile: string;
}

function document(s: Server, user: string, credentials: Record<string, string>, namespace?: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'simcluster', cluster: { server: s.server, 'certificate-authority': s.caFile } }],
    users: [{ name: user, user: credentials }],
    contexts: [{ name: user, context: { cluster: 'simcluster', user, ...(namespace ? { namespace } : {}) } }],
    'current-context': user,
  });
}

/** The admin identity (O=system:masters): used by the control plane components and test setup. */
export function adminKubeconfig(s: Server & { certFile: string; keyFile: string }): string {
  return document(s, 'simcluster-admin', { 'client-certificate': s.certFile, 'client-key': s.keyFile });
}

/** A bearer-token identity, e.g. a ServiceAccount token from the TokenRequest API (subject to RBAC). */
export function tokenKubeconfig(s: Server & { user: string; token: string; namespace?: string }): string {
  return document(s, s.user, { token: s.token }, s.namespace);
}
