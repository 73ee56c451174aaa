// The adapter puller's shell script (spec §5.8). It runs as `/bin/sh -c <script>` in the skopeo image
// of an init container and fills one adapter directory from one OCI image, in three steps:
//   1. copy the image with `skopeo copy --dest-decompress` into a `dir:` layout in a fresh temporary
//      directory: first without credentials, then with each file under ~/.docker/config.d (symlinks
//      followed: projected Secrets are symlinks) as `--authfile=`, until one copy succeeds;
//   2. unpack the layers, in the manifest's order (`skopeo inspect` of the layout), into a root
//      directory;
//   3. move that root's `/data` to the adapter directory (`mv -f`).
// Any failed step fails the container (exit status non-zero) before the adapter directory is touched:
// no copy succeeded, the layers cannot be listed or one does not unpack, the image has no `/data`.
//
// KAITO's pullers run a script of KAITO's for the same steps. A StatefulSet KAITO wrote is taken over
// at its revision without a write, script included; its pods get this script with the workspace's
// next revision (docs/builders.md "The adapter puller").

/** A shell word that is exactly `s` (single-quoted; a `'` inside is closed, escaped and reopened). */
function shellWord(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The script for `imageRef` (already normalised, see normalizeImageRef) into `adapterDir`. */
export function pullerScript(imageRef: string, adapterDir: string): string {
  return `set -eu
image=${shellWord(imageRef)}
target=${shellWord(adapterDir)}
configs="\${HOME:-}/.docker/config.d"
work=$(mktemp -d)
say() { printf 'adapter puller: %s\\n' "$*" >&2; }

fetch() { skopeo copy --dest-decompress "$@" "docker://$image" "dir:$work/layout"; }
say "copying $image"
if fetch; then
  fetched=yes
else
  fetched=no
  if [ -e "$configs" ]; then
    find -L "$configs" -type f >"$work/authfiles" || true
    while IFS= read -r authfile; do
      say "copying $image with $authfile"
      if fetch --authfile="$authfile"; then
        fetched=yes
        break
      fi
    done <"$work/authfiles"
  fi
fi
[ "$fetched" = yes ] || { say "no copy of $image succeeded"; exit 1; }

mkdir -p "$work/rootfs"
digests=$(skopeo inspect --format '{{range .Layers}}{{println .}}{{end}}' "dir:$work/layout") || { say "cannot list the layers of $image"; exit 1; }
for digest in $digests; do
  tar -x -f "$work/layout/\${digest#*:}" -C "$work/rootfs"
done

[ -e "$work/rootfs/data" ] || { say "$image has no /data"; exit 1; }
mv -f "$work/rootfs/data" "$target"
say "$image: /data is now $target"
`;
}
