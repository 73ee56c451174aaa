// Karpenter's CRDs from its Go modules (fetched by build.sh and build-karpenter.sh): `up` creates them
// as shipped, validation and CEL rules included, and waits until each is Established. Each carries
// the module it came from, so `up --karpenter` can swap KAITO v0.8.0's NodeClaim CRD for its own.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiextensionsV1Api, loadYaml, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { isAlreadyExists, isNotFound } from '../runtime/errors.js';

/** On every CRD `up` installs: the module it was copied from, e.g. `sigs.k8s.io/karpenter@v1.6.2`. */
export const CRD_SOURCE_ANNOTATION = 'simcluster.kaito-ts.io/source';

const established = (crd: V1CustomResourceDefinition | undefined): boolean =>
  crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;

export interface InstallOptions {
  /** Recorded in CRD_SOURCE_ANNOTATION. */
  source: string;
  /** Replace a CRD installed from another source (else an existing one is kept as is). */
  replace?: boolean;
  timeoutMs?: number;
  /**
   * Read the file into the client's typed model, so the schema's `x-kubernetes-*` keys reach the server.
   * Read as plain YAML, the client's serializer drops the keys it knows only by their model names: KEDA's
   * `x-kubernetes-int-or-string` (the server then refuses the CRD), and some of Karpenter's
   * `x-kubernetes-validations` rules, which its CRDs are still installed without (docs/simcluster.md).
   */
  typed?: boolean;
}

/** The file's CRD with its source annotation. Pure. */
export function crdFromFile(text: string, source: string, typed = false): V1CustomResourceDefinition {
  const body = typed ? loadYaml<V1CustomResourceDefinition>(text) : (parse(text) as V1CustomResourceDefinition);
  body.metadata = { ...body.metadata, annotations: { ...body.metadata?.annotations, [CRD_SOURCE_ANNOTATION]: source } };
  return body;
}

/** Creates the CRD when missing (or replaces one from another source) and waits until it is Established. Returns its name. */
export async function installCrd(kc: KubeConfig, file: string, o: InstallOptions): Promise<string> {
  const body = crdFromFile(readFileSync(file, 'utf8'), o.source, o.typed);
  const name = body.metadata?.name ?? '';
  const api = kc.makeApiClient(ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body }).catch(async (err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
    if (!o.replace) return;
    const live = await api.readCustomResourceDefinition({ name });
    if (live.metadata?.annotations?.[CRD_SOURCE_ANNOTATION] === o.source) return;
    // Both versions store karpenter.sh/v1, so objects already stored stay readable.
    await api.replaceCustomResourceDefinition({ name, body: { ...body, metadata: { ...body.metadata, resourceVersion: live.metadata?.resourceVersion } } });
  });
  const timeoutMs = o.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = await api.readCustomResourceDefinition({ name }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (established(live) && (!o.replace || live?.metadata?.annotations?.[CRD_SOURCE_ANNOTATION] === o.source)) return name;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs / 1000}s`);
    await sleep(200);
  }
}
