#!/usr/bin/env bash
# Builds KEDA (github.com/kedacore/keda/v2) once, into a cache folder keyed on its version: the operator
# (`keda`, ./cmd/operator) and the metrics server (`keda-adapter`, ./cmd/adapter), and copies the CRDs
# the operator watches from the same module (config/crd/bases): ScaledObject, ScaledJob,
# TriggerAuthentication, ClusterTriggerAuthentication, CloudEventSource and ClusterCloudEventSource.
# Prints the bin dir on stdout; progress goes to stderr. Opt-in: a private test cluster with KEDA runs it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$HERE/versions.env"
V=$KEDA_VERSION
CACHE=${KAITO_TS_CACHE:-$HOME/.cache/kaito-ts}
BIN=$CACHE/simcluster/keda-$V/bin
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=
step() { printf '[keda build] %s\n' "$*" >&2; }
crds="keda.sh_scaledobjects.yaml keda.sh_scaledjobs.yaml keda.sh_triggerauthentications.yaml keda.sh_clustertriggerauthentications.yaml eventing.keda.sh_cloudeventsources.yaml eventing.keda.sh_clustercloudeventsources.yaml"
complete() {
  [ -x "$BIN/keda" ] && [ -x "$BIN/keda-adapter" ] || return 1
  for f in $crds; do [ -s "$BIN/crds/$f" ] || return 1; done
}
if complete; then echo "$BIN"; exit 0; fi
mkdir -p "$BIN/crds"
# One build at a time per cache folder: a second run waits, then finds it done.
# shellcheck source=build-lib.sh
. "$HERE/build-lib.sh"
build_start "$BIN/../.build.lock" "$BIN" complete "$BIN"

# KEDA's go.mod has a replace directive, so `go install ...@version` refuses it: build from a writable
# copy of the module (the module cache is read-only) with its own go.mod and go.sum.
dir=$(cd "$tmp" && go mod download -json "github.com/kedacore/keda/v2@$V" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "build-keda.sh: github.com/kedacore/keda/v2@$V could not be downloaded" >&2; exit 1; }
cp -r "$dir" "$tmp/src" && chmod -R u+w "$tmp/src"
# The version shows in KEDA's startup log and its metrics.
ldflags="-s -w -X github.com/kedacore/keda/v2/version.Version=$V"
if [ ! -x "$BIN/keda" ]; then
  step "github.com/kedacore/keda/v2/cmd/operator $V (7–14 min on 2 cores, module downloads included)"
  (cd "$tmp/src" && nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$tmp/keda" ./cmd/operator)
  mv "$tmp/keda" "$BIN/keda"
fi
if [ ! -x "$BIN/keda-adapter" ]; then
  step "github.com/kedacore/keda/v2/cmd/adapter $V (about 2 min more)"
  (cd "$tmp/src" && nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$tmp/keda-adapter" ./cmd/adapter)
  mv "$tmp/keda-adapter" "$BIN/keda-adapter"
fi
for f in $crds; do
  src="$dir/config/crd/bases/$f"
  [ -s "$src" ] || { echo "build-keda.sh: $f not found in $dir/config/crd/bases" >&2; exit 1; }
  cp "$src" "$tmp/$f" && chmod 644 "$tmp/$f" && mv "$tmp/$f" "$BIN/crds/$f"
done
step "done: $BIN"
echo "$BIN"
