#!/usr/bin/env bash
# Builds Karpenter's kwok cloud provider (sigs.k8s.io/karpenter/kwok) once, into a cache folder keyed on
# its version, as `karpenter-kwok` (the module's binary name `kwok` clashes with sigs.k8s.io/kwok), and
# copies the CRDs it needs from the same module: NodePool, NodeClaim and NodeOverlay as the kwok chart
# ships them (kwok/charts/crds), plus KWOKNodeClass (kwok/apis/crds).
# Prints the bin dir on stdout; progress goes to stderr. Opt-in: `simcluster up --karpenter` runs it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$HERE/versions.env"
V=$KARPENTER_KWOK_VERSION
CACHE=${KAITO_TS_CACHE:-$HOME/.cache/kaito-ts}
BIN=$CACHE/simcluster/karpenter-$V/bin
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=
step() { printf '[karpenter build] %s\n' "$*" >&2; }
crds="karpenter.sh_nodepools.yaml karpenter.sh_nodeclaims.yaml karpenter.sh_nodeoverlays.yaml karpenter.kwok.sh_kwoknodeclasses.yaml"
complete() {
  [ -x "$BIN/karpenter-kwok" ] || return 1
  for f in $crds; do [ -s "$BIN/crds/$f" ] || return 1; done
}
if complete; then echo "$BIN"; exit 0; fi
mkdir -p "$BIN/crds"
# One build at a time per cache folder: a second run waits, then finds it done.
# shellcheck source=build-lib.sh
. "$HERE/build-lib.sh"
build_start "$BIN/../.build.lock" "$BIN" complete "$BIN"

if [ ! -x "$BIN/karpenter-kwok" ]; then
  step "sigs.k8s.io/karpenter/kwok $V (about 1.5 min on 2 cores with the modules downloaded)"
  GOBIN="$tmp" go install -trimpath -ldflags "-s -w -X sigs.k8s.io/karpenter/pkg/operator.Version=$V" "sigs.k8s.io/karpenter/kwok@$V"
  mv "$tmp/kwok" "$BIN/karpenter-kwok"
fi
dir=$(cd "$tmp" && go mod download -json "sigs.k8s.io/karpenter@$V" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
for f in $crds; do
  src="$dir/kwok/charts/crds/$f"
  [ -s "$src" ] || src="$dir/kwok/apis/crds/$f"
  [ -s "$src" ] || { echo "build-karpenter.sh: $f not found in $dir/kwok" >&2; exit 1; }
  cp "$src" "$tmp/$f" && chmod 644 "$tmp/$f" && mv "$tmp/$f" "$BIN/crds/$f"
done
step "done: $BIN"
echo "$BIN"
