// The model access Secret (inference.preset.presetOptions.modelAccessSecret). Secrets are watched by
// metadata only, so no value is ever held and a late Secret is seen at once. Whether it has the
// HF_TOKEN key needs its data: one GET per Secret version answers that, and only the yes/no is kept.
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import { HF_TOKEN_KEY } from '../../api/labels.js';
import { foundPreset, huggingFaceIdOf, inferencePresetOf, type PresetLookup } from '../../api/resolved-workspace.js';
import type { CacheReader } from '../../runtime/cache.js';
import type { KubeClient } from '../../runtime/client.js';
import { isNotFound } from '../../runtime/errors.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { objectKey, Resources } from '../../runtime/resources.js';
import type { WorkspaceObject } from './context.js';

export const SecretReason = {
  NotFound: 'ModelAccessSecretNotFound',
  KeyMissing: 'ModelAccessSecretKeyMissing',
} as const;

export interface SecretProblem {
  reason: string;
  message: string;
}

/** The Secret a workspace's pods read HF_TOKEN from, when its preset (resolved in this pass, if any) downloads at runtime. */
export function modelAccessSecretOf(ws: DeepReadonly<WorkspaceObject>, preset: PresetLookup = inferencePresetOf(ws)): string | undefined {
  const secret = ws.inference?.preset?.presetOptions?.modelAccessSecret;
  return secret && (foundPreset(preset)?.downloadAtRuntime || huggingFaceIdOf(preset)) ? secret : undefined;
}

/** A non-empty HF_TOKEN entry; the value itself is never looked at beyond its length. */
export function hasToken(secret: Pick<V1Secret, 'data'>): boolean {
  return (secret.data?.[HF_TOKEN_KEY]?.length ?? 0) > 0;
}

/** Pods that already run keep their token; this is what any pod created from now on would meet. */
export function servingWithSecretProblem(p: SecretProblem): string {
  return `warning: ${p.message}; running pods keep serving, but pods created from now on (restart, scale-up, rollout) would fail to start`;
}

export class ModelSecrets {
  /** `namespace/name` → the resourceVersion last read and whether it had the key. */
  private readonly verdicts = new Map<string, { resourceVersion?: string; ok: boolean }>();

  constructor(
    private readonly client: KubeClient,
    private readonly metadata: CacheReader<KubernetesObject>,
  ) {}

  /** Undefined when the workspace needs no Secret or its Secret has HF_TOKEN. */
  async problem(ws: WorkspaceObject, preset?: PresetLookup): Promise<SecretProblem | undefined> {
    const name = modelAccessSecretOf(ws, preset);
    if (!name) return undefined;
    const ns = ws.metadata.namespace;
    const key = objectKey(ns, name);
    const where = `Secret ${key} named in inference.preset.presetOptions.modelAccessSecret`;
    const notFound = { reason: SecretReason.NotFound, message: `${where} does not exist` };
    const meta = this.metadata.get(ns, name);
    if (!meta) {
      this.verdicts.delete(key);
      return notFound;
    }
    const known = this.verdicts.get(key);
    const ok = known && known.resourceVersion === meta.metadata?.resourceVersion ? known.ok : await this.read(key, ns, name, meta.metadata?.resourceVersion);
    if (ok === undefined) return notFound;
    return ok ? undefined : { reason: SecretReason.KeyMissing, message: `${where} has no non-empty ${HF_TOKEN_KEY} key` };
  }

  /** HF_TOKEN for one hub read: one GET, handed to the caller, never kept or logged. */
  async token(ns: string, name: string): Promise<string | undefined> {
    try {
      const data = (await this.client.get<V1Secret>(Resources.secrets, ns, name)).data?.[HF_TOKEN_KEY];
      return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** One GET of a Secret version; only whether it has the key is kept (undefined: gone meanwhile). */
  private async read(key: string, ns: string | undefined, name: string, resourceVersion: string | undefined): Promise<boolean | undefined> {
    try {
      const ok = hasToken(await this.client.get<V1Secret>(Resources.secrets, ns, name));
      this.verdicts.set(key, { resourceVersion, ok });
      return ok;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
