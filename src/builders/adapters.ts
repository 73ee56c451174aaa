// LoRA adapters (spec §5.8): one skopeo init container per adapter copies the `/data` directory of the
// adapter image into the shared `adapter-volume`; pull secrets are projected as docker config files.
import type { V1Container, V1EnvVar, V1LocalObjectReference, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { AdapterSpec, DataSource } from '../api/types.js';

export type UsableAdapter = AdapterSpec & { source: DataSource & { name: string; image: string } };

export const ADAPTER_VOLUME = 'adapter-volume';
export const ADAPTER_MOUNT_PATH = '/mnt/adapter';
export const SKOPEO_IMAGE = 'mcr.microsoft.com/aks/skopeo:1.14.4-6';
const DOCKER_CONFIG_DIR = '/root/.docker/config.d';

/** Adapters that can be pulled (validation rejects the rest; the builder skips them rather than crash — W3). */
export function usableAdapters(adapters: readonly AdapterSpec[] | undefined): UsableAdapter[] {
  return (adapters ?? []).filter((a): a is UsableAdapter => !!a.source?.name && !!a.source.image);
}

/**
 * A docker reference in its fully qualified form, as skopeo needs it: `alpine` → `docker.io/library/alpine:latest`,
 * `user/repo` → `docker.io/user/repo:latest`; a registry host (has `.` or `:`, or is `localhost`) is kept.
 */
export function normalizeImageRef(image: string): string {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  const hasRegistry = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
  let ref = hasRegistry ? image : `docker.io/${slash < 0 ? `library/${image}` : image}`;
  const lastSegment = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastSegment.includes(':') && !lastSegment.includes('@')) ref += ':latest';
  return ref;
}

function dockerConfigVolumeName(adapter: string): string {
  return `docker-config-${adapter}-inference-adapter`;
}

/** The shell script of the puller: copy the image anonymously, else with each mounted docker config, then unpack `/data`. */
export function pullerScript(imageRef: string, adapterDir: string): string {
  return [
    'set -ex',
    `IMG_REF='docker://${imageRef}'`,
    `DEST='${adapterDir}'`,
    'WORK=$(mktemp -d)',
    'pull() { skopeo copy --dest-decompress "$@" "$IMG_REF" "dir:$WORK/layout"; }',
    'if ! pull; then',
    '  ok=""',
    `  for auth in $(find -L "$HOME/.docker/config.d" -type f 2>/dev/null); do`,
    '    if pull --authfile="$auth"; then ok=1; break; fi',
    '  done',
    '  [ -n "$ok" ] || { echo "cannot pull $IMG_REF" >&2; exit 1; }',
    'fi',
    'mkdir -p "$WORK/rootfs"',
    `for layer in $(skopeo inspect --format '{{range .Layers}}{{println .}}{{end}}' "dir:$WORK/layout"); do`,
    '  tar -xf "$WORK/layout/${layer#sha256:}" -C "$WORK/rootfs"',
    'done',
    'mv -f "$WORK/rootfs/data" "$DEST"',
  ].join('\n');
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
