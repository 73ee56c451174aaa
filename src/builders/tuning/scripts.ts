// Shell scripts of the tuning pod's helper containers, written for kaito-ts from the behaviour KAITO
// v0.8.0 documents (reference §2.6). Every script stops at the first failed command (`set -eu`), so a
// failed download, pull or push fails the pod, and the Job says so (KAITO's pusher exits 0: W5).

const quote = (s: string): string => `'${s.replace(/'/g, `'"'"'`)}'`;

/**
 * data-downloader: each URL of $DATA_URLS into $DATA_VOLUME_PATH, named after its last path segment
 * (query and fragment dropped); up to 3 attempts, 2 s apart; HTTP 200 and a non-empty file required.
 */
export const DATA_DOWNLOADER_SCRIPT = `set -eu
[ -n "\${DATA_URLS:-}" ] || { echo "DATA_URLS is empty" >&2; exit 1; }
for url in $DATA_URLS; do
  file=$(basename "\${url%%[?#]*}")
  ok=
  for attempt in 1 2 3; do
    code=$(curl -sSL -w "%{http_code}" -o "$DATA_VOLUME_PATH/$file" "$url" || echo failed)
    if [ "$code" = 200 ] && [ -s "$DATA_VOLUME_PATH/$file" ]; then ok=1; break; fi
    echo "download of $url failed (attempt $attempt: $code)" >&2
    rm -f "$DATA_VOLUME_PATH/$file"
    sleep 2
  done
  [ -n "$ok" ] || { echo "giving up on $url" >&2; exit 1; }
  echo "downloaded $url to $DATA_VOLUME_PATH/$file"
done
`;

/**
 * puller: copies image `ref` with skopeo (anonymously, then with each auth file under
 * ~/.docker/config.d), unpacks its layers, and moves the image's /data into `dir`.
 */
export function pullerScript(ref: string, dir: string): string {
  return `set -eu
IMG_REF=${quote(ref)}
VOL_DIR=${quote(dir)}
tmp=$(mktemp -d)
pulled=
if skopeo copy --dest-decompress "docker://$IMG_REF" "dir:$tmp/layout"; then pulled=1; fi
if [ -z "$pulled" ] && [ -d "$HOME/.docker/config.d" ]; then
  for auth in $(find "$HOME/.docker/config.d" -type f); do
    if skopeo copy --dest-decompress --authfile "$auth" "docker://$IMG_REF" "dir:$tmp/layout"; then pulled=1; break; fi
  done
fi
[ -n "$pulled" ] || { echo "cannot pull $IMG_REF" >&2; exit 1; }
mkdir -p "$tmp/rootfs"
for layer in $(find "$tmp/layout" -type f ! -name manifest.json ! -name version); do
  tar -xf "$layer" -C "$tmp/rootfs" 2>/dev/null || true
done
[ -d "$tmp/rootfs/data" ] || { echo "image $IMG_REF has no /data directory" >&2; exit 1; }
mv -f "$tmp/rootfs/data" "$VOL_DIR"
echo "pulled $IMG_REF into $VOL_DIR"
`;
}

/** Files of a LoRA adapter that the pusher packs (what inference adapters expect under /data). */
export const ADAPTER_FILES = ['adapter_config.json', 'adapter_model.safetensors'] as const;
export const SENTINEL_FILE = 'fine_tuning_completed.txt';

/**
 * pusher: runs after the trainer has exited successfully; packs the adapter files under data/ into one
 * OCI layer annotated with the preset name and pushes it to `ref`. Fails when the trainer left no
 * sentinel or adapter, or when the push fails.
 */
export function pusherScript(ref: string, dir: string, preset: string): string {
  const annotations = JSON.stringify({ $manifest: { 'sh.kaito.model.name': preset } });
  return `set -eu
IMG_REF=${quote(ref)}
VOL_DIR=${quote(dir)}
[ -f "$VOL_DIR/${SENTINEL_FILE}" ] || { echo "training did not complete: $VOL_DIR/${SENTINEL_FILE} is missing" >&2; exit 1; }
tmp=$(mktemp -d)
mkdir -p "$tmp/data"
for f in ${ADAPTER_FILES.join(' ')}; do
  [ -s "$VOL_DIR/$f" ] || { echo "training output $VOL_DIR/$f is missing" >&2; exit 1; }
  cp "$VOL_DIR/$f" "$tmp/data/"
done
cd "$tmp"
tar -cf layer.tar data
diff_id=$(sha256sum layer.tar | cut -d' ' -f1)
gzip -9 layer.tar
printf '{"rootfs":{"diff_ids":["sha256:%s"]}}' "$diff_id" > config.json
printf '%s' ${quote(annotations)} > annotations.json
oras push --disable-path-validation --annotation-file annotations.json --config config.json:application/vnd.oci.image.config.v1+json --oci-layout "$tmp/layout:latest" layer.tar.gz:application/vnd.oci.image.layer.v1.tar+gzip
oras cp --from-oci-layout "$tmp/layout:latest" "$IMG_REF"
echo "pushed the adapter to $IMG_REF"
`;
}
