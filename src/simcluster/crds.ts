// Karpenter's NodeClaim CRD (from the Go module KAITO v0.8.0 requires, fetched by build.sh): `up`
// creates it as shipped, validation and CEL rules included, and waits until it is Established.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { isAlreadyExists, isNotFound } from '../runtime/errors.js';

const established = (crd: V1CustomResourceDefinition | undefined): boolean =>
  crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;

/** Creates the CRD when missing (an existing one is kept as is) and waits until it is Established. */
export async function installCrd(kc: KubeConfig, file: string, timeoutMs = 60_000): Promise<string> {
  const body = parse(readFileSync(file, 'utf8')) as V1CustomResourceDefinition;
  const name = body.metadata?.name ?? '';
  const api = kc.makeApiClient(ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body }).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = await api.readCustomResourceDefinition({ name }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (established(live)) return name;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs / 1000}s`);
    await sleep(200);
  }
}
