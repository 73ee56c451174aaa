#!/usr/bin/env bash
# Builds KAITO's workspace controller at a release tag (v0.8.0 or v0.12.0) from its source, once,
# into ${KAITO_TS_CACHE:-~/.cache/kaito-ts}/kaito-<version>/ (bin/workspace, crds/), and for v0.12.0
# also bin/kaito-render: our parity harness (test/kaito-render: NodePools, and `kaito-render workload` for
# the inference workload) compiled inside KAITO's tree.
# Source: $KAITO_SRC, an archive kaito-<version>.tar.gz or a directory, default ../shared/kaito-src.
# Progress goes to stderr; the bin folder to stdout.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
VERSION=${1:-}
case "$VERSION" in v0.8.0 | v0.12.0) ;; *) echo "usage: $0 v0.8.0|v0.12.0" >&2; exit 2 ;; esac
CACHE=${KAITO_TS_CACHE:-$HOME/.cache/kaito-ts}
OUT=$CACHE/kaito-$VERSION
BIN=$OUT/bin
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
step() { printf '[kaito build] %s\n' "$*" >&2; }
# The harness is rebuilt whenever its source changes: its hash is kept next to the binary.
render_hash() { cat "$ROOT"/test/kaito-render/*/*.go | sha256sum | cut -c1-16; }
render_ok() { [ "$VERSION" != v0.12.0 ] || { [ -x "$BIN/kaito-render" ] && [ "$(cat "$BIN/.kaito-render.hash" 2>/dev/null)" = "$(render_hash)" ]; }; }
# A cache built by hand earlier (v0.8.0: bin/workspace and two CRDs) counts as complete.
complete() { [ -x "$BIN/workspace" ] && ls "$OUT"/crds/*.yaml >/dev/null 2>&1 && render_ok; }
if complete; then echo "$BIN"; exit 0; fi

SRC=${KAITO_SRC:-$ROOT/../shared/kaito-src}
if [ -d "$SRC/kaito-$VERSION" ]; then SRC=$SRC/kaito-$VERSION; elif [ -f "$SRC/kaito-$VERSION.tar.gz" ]; then SRC=$SRC/kaito-$VERSION.tar.gz; fi
if [ ! -f "$SRC" ] && [ ! -f "$SRC/go.mod" ]; then
  echo "build-kaito.sh: KAITO $VERSION source not found at $SRC; clone it (git clone --branch $VERSION https://github.com/kaito-project/kaito) and set KAITO_SRC to that directory" >&2
  exit 1
fi

mkdir -p "$BIN" "$OUT/crds"
# One build at a time per cache folder: the second waits, then finds it done.
# shellcheck source=build-lib.sh
. "$HERE/build-lib.sh"
build_start "$OUT/.build.lock" "$OUT" complete "$BIN"

# Work on a copy: the harness files are added to the tree, and -mod=mod may touch go.sum.
if [ -f "$SRC" ]; then
  step "extracting $SRC"
  tar -xzf "$SRC" -C "$tmp"
  TREE=$tmp/kaito-$VERSION
else
  step "copying $SRC"
  cp -a "$SRC" "$tmp/kaito-$VERSION"
  TREE=$tmp/kaito-$VERSION
fi
cd "$TREE"
if [ ! -x "$BIN/workspace" ]; then
  step "KAITO $VERSION workspace controller (3-6 min on 2 cores with a warm module cache)"
  go build -trimpath -ldflags "-s -w -X github.com/kaito-project/kaito/pkg/version.Version=$VERSION" -o "$tmp/workspace" ./cmd/workspace
  mv "$tmp/workspace" "$BIN/workspace"
fi
# The chart's CRDs; from v0.12 the Workspace CRD is a chart template, so take the plain one from config/.
cp charts/kaito/workspace/crds/*.yaml "$OUT/crds/"
[ -f "$OUT/crds/kaito.sh_workspaces.yaml" ] || cp config/crd/bases/kaito.sh_*.yaml "$OUT/crds/"
if [ "$VERSION" = v0.12.0 ] && ! render_ok; then
  step "kaito-render (test/kaito-render inside KAITO's tree)"
  cp "$ROOT/test/kaito-render/karpenter/render.go" pkg/nodeprovision/karpenter/zz_kaito_ts_render.go
  mkdir -p cmd/kaito-render && cp "$ROOT"/test/kaito-render/cmd/*.go cmd/kaito-render/
  go build -trimpath -ldflags "-s -w" -o "$tmp/kaito-render" ./cmd/kaito-render
  mv "$tmp/kaito-render" "$BIN/kaito-render"
  render_hash >"$BIN/.kaito-render.hash"
fi
step "done: $BIN"
echo "$BIN"
