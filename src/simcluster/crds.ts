// CRDs of other projects (Karpenter's and KEDA's from their Go modules, KAITO's chart copies for the
// bench): `up` creates them as shipped, validation and CEL rules included, and waits until each is
// Established. The file's object goes out as plain JSON through the project's own client: client-node's
// models would drop every key they know only by a model name (`x-kubernetes-validations`,
// `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`, …) from a plain object, and
// every key they do not know at all from a typed one. Each CRD carries the module it came from, so
// `up --karpenter` can swap KAITO v0.8.0's NodeClaim CRD for its own, and a digest of its content, so a
// copy that differs (an older file, or one installed without those keys) is replaced.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { KubeClient } from '../runtime/client.js';
import type { ClusterAccess } from '../runtime/cluster-access.js';
import { isAlreadyExists, isNotFound } from '../runtime/errors.js';
import type { ResourceType } from '../runtime/resources.js';
import { KubeTransport } from '../runtime/transport.js';

/** On every CRD `up` installs: the module it was copied from, e.g. `sigs.k8s.io/karpenter@v1.6.2`. */
export const CRD_SOURCE_ANNOTATION = 'simcluster.kaito-ts.io/source';
/** A digest of the CRD as its source ships it: a live copy without it, or with another, is not that file. */
export const CRD_DIGEST_ANNOTATION = 'simcluster.kaito-ts.io/digest';

export const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};
const FIELD_MANAGER = 'kaito-ts-simcluster';

export type Crd = KubernetesObject & { spec?: unknown; status?: { conditions?: { type: string; status: string }[] } };

const established = (crd: Crd | undefined): boolean => crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
const annotation = (crd: Crd | undefined, key: string): string | undefined => crd?.metadata?.annotations?.[key];

export interface InstallOptions {
  /** Recorded in CRD_SOURCE_ANNOTATION. */
  source: string;
  /** Replace a CRD installed from another source (else one from another source is kept as is). */
  replace?: boolean;
  timeoutMs?: number;
}

/** The CRD with its source and digest annotations. Pure. */
export function annotatedCrd(crd: object, source: string): Crd {
  const body = crd as Crd;
  const digest = createHash('sha256').update(JSON.stringify(crd)).digest('hex').slice(0, 16);
  const annotations = { ...body.metadata?.annotations, [CRD_SOURCE_ANNOTATION]: source, [CRD_DIGEST_ANNOTATION]: digest };
  return { ...body, metadata: { ...body.metadata, annotations } };
}

/** The file's CRD, annotated. Pure. */
export const crdFromFile = (text: string, source: string): Crd => annotatedCrd(parse(text) as object, source);

/** The live CRD gives way to ours: from the same source but with other content, or from another source when `replace`. Pure. */
export function mustReplace(live: Crd, ours: Crd, replace = false): boolean {
  if (annotation(live, CRD_SOURCE_ANNOTATION) !== annotation(ours, CRD_SOURCE_ANNOTATION)) return replace;
  return annotation(live, CRD_DIGEST_ANNOTATION) !== annotation(ours, CRD_DIGEST_ANNOTATION);
}

/** Creates the file's CRD when missing (or replaces it, see `mustReplace`) and waits until it is Established. Returns its name. */
export async function installCrd(kc: ClusterAccess, file: string, o: InstallOptions): Promise<string> {
  return installCrdObject(kc, parse(readFileSync(file, 'utf8')) as object, o);
}

/** `installCrd` for a CRD object, sent as it is. */
export async function installCrdObject(kc: ClusterAccess, crd: object, o: InstallOptions): Promise<string> {
  const transport = new KubeTransport(kc);
  const client = new KubeClient(transport, { fieldManager: FIELD_MANAGER });
  const body = annotatedCrd(crd, o.source);
  const name = body.metadata?.name ?? '';
  const read = (): Promise<Crd | undefined> =>
    client.get<Crd>(CRDS, undefined, name).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  try {
    await client.create(CRDS, body).catch(async (err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
      const live = await read();
      if (live && mustReplace(live, body, o.replace))
        await client.update(CRDS, { ...body, metadata: { ...body.metadata, resourceVersion: live.metadata?.resourceVersion } });
    });
    const timeoutMs = o.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const live = await read();
      if (live && established(live) && !mustReplace(live, body, o.replace)) return name;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs / 1000}s`);
      await sleep(200);
    }
  } finally {
    transport.close();
  }
}
