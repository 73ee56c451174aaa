// Input and output of the tuning pod (reference §2.3): the data-volume filled by a URL downloader or an
// image puller (or the user's volume), and the results-volume pushed as an image (or the user's volume).
import type { V1Container, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { normalizeImageRef } from '../../api/image-ref.js';
import type { DataDestination, DataSource } from '../../api/types.js';
import { DATA_DOWNLOADER_SCRIPT, pullerScript, pusherScript } from './scripts.js';

export const DATA_VOLUME = 'data-volume';
export const DATA_PATH = '/mnt/data';
export const RESULTS_VOLUME = 'results-volume';
export const DOCKER_CONFIG_VOLUME = 'docker-config';
export const DATA_DOWNLOADER_IMAGE = 'curlimages/curl';
export const PULLER_IMAGE = 'mcr.microsoft.com/aks/skopeo:1.14.4-6';
export const PUSHER_IMAGE = 'ghcr.io/oras-project/oras:v1.2.2';
const DOCKERCONFIG_KEY = '.dockerconfigjson';

export interface InputParts {
  initContainers: V1Container[];
  /** Mounts the trainer gets, in KAITO's order (after its own four). */
  mounts: V1VolumeMount[];
  volumes: V1Volume[];
}

const dataMount: V1VolumeMount = { name: DATA_VOLUME, mountPath: DATA_PATH };

export function inputParts(input: DataSource): InputParts {
  if (input.volumeSource) {
    return { initContainers: [], mounts: [{ ...dataMount }], volumes: [{ name: DATA_VOLUME, ...input.volumeSource }] };
  }
  const emptyData: V1Volume = { name: DATA_VOLUME, emptyDir: {} };
  if (input.image) {
    // An empty input.name is legal and gives `docker-config--tuning-input`, as in KAITO.
    const auth = `${input.name ?? ''}-tuning-input`;
    const authVolume = `docker-config-${auth}`;
    const authMount: V1VolumeMount = { name: authVolume, mountPath: `/root/.docker/config.d/${auth}` };
    const secrets = input.imagePullSecrets ?? [];
    const puller: V1Container = {
      name: 'puller',
      image: PULLER_IMAGE,
      command: ['/bin/sh', '-c'],
      args: [pullerScript(normalizeImageRef(input.image), DATA_PATH)],
      volumeMounts: [{ ...authMount }, { ...dataMount }],
    };
    return {
      initContainers: [puller],
      mounts: [{ ...authMount }, { ...dataMount }],
      volumes: [
        { name: authVolume, projected: { sources: secrets.map((s) => ({ secret: { name: s, items: [{ key: DOCKERCONFIG_KEY, path: `${s}.json` }] } })) } },
        emptyData,
      ],
    };
  }
  const downloader: V1Container = {
    name: 'data-downloader',
    image: DATA_DOWNLOADER_IMAGE,
    command: ['sh', '-c', DATA_DOWNLOADER_SCRIPT],
    env: [
      { name: 'DATA_URLS', value: (input.urls ?? []).join(' ') },
      { name: 'DATA_VOLUME_PATH', value: DATA_PATH },
    ],
    volumeMounts: [{ ...dataMount }],
  };
  return { initContainers: [downloader], mounts: [{ ...dataMount }], volumes: [emptyData] };
}

export function resultsVolume(output: DataDestination): V1Volume {
  return output.volumeSource ? { name: RESULTS_VOLUME, ...output.volumeSource } : { name: RESULTS_VOLUME, emptyDir: {} };
}

export interface PushParts {
  pusher: V1Container;
  volume: V1Volume;
  pullSecret: string;
}

/** Image output only: the pusher and the push secret projected as its docker config. */
export function pushParts(output: DataDestination, outputDir: string, preset: string): PushParts | undefined {
  if (output.volumeSource || !output.image) return undefined;
  const secret = output.imagePushSecret ?? '';
  return {
    pusher: {
      name: 'pusher',
      image: PUSHER_IMAGE,
      command: ['/bin/sh', '-c'],
      args: [pusherScript(normalizeImageRef(output.image), outputDir, preset)],
      volumeMounts: [
        { name: DOCKER_CONFIG_VOLUME, mountPath: '/root/.docker' },
        { name: RESULTS_VOLUME, mountPath: outputDir },
      ],
    },
    volume: { name: DOCKER_CONFIG_VOLUME, projected: { sources: [{ secret: { name: secret, items: [{ key: DOCKERCONFIG_KEY, path: 'config.json' }] } }] } },
    pullSecret: secret,
  };
}
