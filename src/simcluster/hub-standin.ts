// The Hugging Face stand-in of a local cluster: the fake hub, and the huggingface.co proxy in front of it
// for programs that cannot be pointed at another endpoint. Its certificate is signed by the cluster's CA.
import { join } from 'node:path';
import { startFakeHub, type FakeHub, type FakeModel } from './fake-hub.js';
import { HUB_HOST, startHubProxy, type HubProxy } from './hub-proxy.js';
import { ensureServingPair } from './pki.js';

export interface HubStandIn {
  hub: FakeHub;
  proxy: HubProxy;
  /** SSL_CERT_FILE for a client of the proxy. */
  caFile: string;
  close(): Promise<void>;
}

export async function startHubStandIn(pkiDir: string, models: Record<string, FakeModel>): Promise<HubStandIn> {
  const pair = await ensureServingPair(pkiDir, 'huggingface', [HUB_HOST]);
  const hub = await startFakeHub(models);
  const proxy = await startHubProxy(hub.url, pair);
  return {
    hub,
    proxy,
    caFile: join(pkiDir, 'ca.crt'),
    close: async () => {
      await proxy.close();
      await hub.close();
    },
  };
}
