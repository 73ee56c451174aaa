// LoRA adapters (spec §5.8): one skopeo init container per adapter copies the `/data` directory of the
// adapter image into the shared `adapter-volume` (the script: adapter-puller.ts); pull secrets are
// projected as docker config files.
import type { V1Container, V1EnvVar, V1LocalObjectReference, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { AdapterSpec, DataSource } from '../api/types.js';
import { pullerScript } from './adapter-puller.js';

export type UsableAdapter = AdapterSpec & { source: DataSource & { name: string; image: string } };

export const ADAPTER_VOLUME = 'adapter-volume';
export const ADAPTER_MOUNT_PATH = '/mnt/adapter';
export const SKOPEO_IMAGE = 'mcr.microsoft.com/aks/skopeo:1.14.4-6';
const DOCKER_CONFIG_DIR = '/root/.docker/config.d';

/** Adapters that can be pulled (validation rejects the rest; the builder skips them rather than crash — W3). */
export function usableAdapters(adapters: readonly AdapterSpec[] | undefined): UsableAdapter[] {
  return (adapters ?? []).filter((a): a is UsableAdapter => !!a.source?.name && !!a.source.image);
}

// The docker reference grammar of github.com/distribution/reference v0.6.0 (KAITO's pin).
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);
const NAME = new RegExp(`^(?:(${DOMAIN})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)$`);
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/** Docker Hub's implicit domain and `library/` namespace (splitDockerDomain). */
function splitDomain(image: string): [domain: string, remote: string] {
  const slash = image.indexOf('/');
  if (slash < 0) return ['docker.io', `library/${image}`];
  const first = image.slice(0, slash);
  const rest = image.slice(slash + 1);
  let [domain, remote] =
    first === 'localhost' || first.includes('.') || first.includes(':') || first.toLowerCase() !== first ? [first, rest] : ['docker.io', image];
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remote.includes('/')) remote = `library/${remote}`;
  return [domain, remote];
}

/**
 * The image reference the puller script gets, as KAITO normalises it (reference.ParseDockerRef):
 * `alpine` → `docker.io/library/alpine:latest`, a tag dropped when there is a digest; a reference
 * that does not parse is kept as written.
 */
export function normalizeImageRef(image: string): string {
  if (/^[a-f0-9]{64}$/.test(image)) return image;
  const [domain, remainder] = splitDomain(image);
  const colon = remainder.indexOf(':');
  const remote = colon < 0 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) return image;
  const m = REFERENCE.exec(`${domain}/${remainder}`);
  const name = m?.[1] ?? '';
  const path = NAME.exec(name)?.[2] ?? name;
  if (!m || path.length > 255) return image;
  const [, , tag, digest] = m;
  if (digest) {
    const [algorithm = '', hex = ''] = digest.split(':');
    if (DIGEST_HEX_LENGTH[algorithm] !== hex.length || !/^[a-f0-9]+$/.test(hex)) return image;
    return `${name}@${digest}`;
  }
  return `${name}:${tag ?? 'latest'}`;
}

function dockerConfigVolumeName(adapter: string): string {
  return `docker-config-${adapter}-inference-adapter`;
}

export function adapterPullerContainers(adapters: readonly UsableAdapter[]): V1Container[] {
  return adapters.map(({ source }) => {
    const mounts: V1VolumeMount[] = [{ name: ADAPTER_VOLUME, mountPath: ADAPTER_MOUNT_PATH }];
    if (source.imagePullSecrets?.length) {
      mounts.push({ name: dockerConfigVolumeName(source.name), mountPath: `${DOCKER_CONFIG_DIR}/${source.name}-inference-adapter` });
    }
    return {
      name: `puller-${source.name}`,
      image: SKOPEO_IMAGE,
      command: ['/bin/sh', '-c'],
      args: [pullerScript(normalizeImageRef(source.image), `${ADAPTER_MOUNT_PATH}/${source.name}`)],
      volumeMounts: mounts,
    };
  });
}

/** `adapter-volume`, then one projected docker-config volume per adapter with pull secrets. */
export function adapterVolumes(adapters: readonly UsableAdapter[]): V1Volume[] {
  if (adapters.length === 0) return [];
  const volumes: V1Volume[] = [{ name: ADAPTER_VOLUME, emptyDir: {} }];
  for (const { source } of adapters) {
    const secrets = source.imagePullSecrets ?? [];
    if (secrets.length === 0) continue;
    volumes.push({
      name: dockerConfigVolumeName(source.name),
      projected: {
        sources: secrets.map((s) => ({ secret: { name: s, items: [{ key: '.dockerconfigjson', path: `${s}.json` }] } })),
      },
    });
  }
  return volumes;
}

/** `<adapter>=<strength>` for every adapter with a strength (the transformers server reads it). */
export function adapterStrengthEnv(adapters: readonly UsableAdapter[]): V1EnvVar[] {
  return adapters.filter((a) => a.strength !== undefined).map((a) => ({ name: a.source.name, value: a.strength }));
}

/** Pod pull secrets from the adapters, in order, without KAITO's duplicates. */
export function adapterImagePullSecrets(adapters: readonly UsableAdapter[]): V1LocalObjectReference[] {
  const names = adapters.flatMap((a) => a.source.imagePullSecrets ?? []);
  return [...new Set(names)].map((name) => ({ name }));
}
