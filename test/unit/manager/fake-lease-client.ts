// An in-memory Lease store with the API server's optimistic concurrency: a patch carrying a stale
// metadata.resourceVersion gets 409, a create of an existing name 409 AlreadyExists.
import type { V1Lease } from '@kubernetes/client-node';
import type { KubeClient } from '../../../src/runtime/client.js';
import { KubeApiError } from '../../../src/runtime/errors.js';

export class FakeLeaseStore {
  lease?: V1Lease;
  private rv = 0;
  /** When set, every call fails like an unreachable API server. */
  down = false;
  calls: string[] = [];

  client(): KubeClient {
    const check = (verb: string) => {
      this.calls.push(verb);
      if (this.down) throw new KubeApiError('Network', 'connect ECONNREFUSED');
    };
    const copy = (): V1Lease => structuredClone(this.lease!);
    return {
      get: async () => {
        check('get');
        if (!this.lease) throw new KubeApiError('NotFound', 'leases "kaito-ts-leader" not found', 404);
        return copy();
      },
      create: async (_t: unknown, obj: V1Lease) => {
        check('create');
        if (this.lease) throw new KubeApiError('AlreadyExists', 'already exists', 409, 'AlreadyExists');
        this.lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
        return copy();
      },
      patch: async (_t: unknown, _ref: unknown, body: { metadata?: { resourceVersion?: string }; spec: V1Lease['spec'] }) => {
        check('patch');
        if (!this.lease) throw new KubeApiError('NotFound', 'not found', 404);
        const want = body.metadata?.resourceVersion;
        if (want && want !== this.lease.metadata?.resourceVersion) throw new KubeApiError('Conflict', 'the object has been modified', 409, 'Conflict');
        this.lease = { ...this.lease, metadata: { ...this.lease.metadata, resourceVersion: String(++this.rv) }, spec: { ...this.lease.spec, ...body.spec } };
        return copy();
      },
    } as unknown as KubeClient;
  }
}
