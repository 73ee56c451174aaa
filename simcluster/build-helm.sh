#!/usr/bin/env bash
# Builds helm from its Go module (wrapper go/helm pins it through the committed go.sum), once, into
# the cache, and links it into the simcluster bin folder so the PATH `kaito-ts simcluster env`
# prints has it. Kept apart from build.sh: the cluster does not need helm, the chart tests do.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$HERE/versions.env"
HELM_VERSION=$(awk '$1=="helm.sh/helm/v3"{print $2; exit}' "$HERE/go/helm/go.mod")
CACHE=${KAITO_TS_CACHE:-$HOME/.cache/kaito-ts}
OUT=$CACHE/helm/helm-$HELM_VERSION
SIMBIN=$CACHE/simcluster/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION/bin
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
link() { mkdir -p "$SIMBIN"; ln -sfn "$OUT/helm" "$SIMBIN/helm"; echo "$OUT/helm"; }
if [ -x "$OUT/helm" ]; then link; exit 0; fi
mkdir -p "$OUT"
exec 9>"$OUT/.build.lock"
if ! flock -n 9; then echo "[helm build] another build is running; waiting" >&2; flock 9; fi
if [ -x "$OUT/helm" ]; then link; exit 0; fi
echo "[helm build] helm $HELM_VERSION (about 3-5 min on 2 cores)" >&2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# As helm's Makefile: the default Kubernetes version for `helm template` follows its client-go (v0.N → 1.N).
kminor=$(awk '$1=="k8s.io/client-go"{print $2; exit}' "$HERE/go/helm/go.mod" | cut -d. -f2)
ldf="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do ldf="$ldf -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$kminor"; done
( cd "$HERE/go/helm" && go build -p 2 -trimpath -ldflags "$ldf" -o "$tmp/helm" helm.sh/helm/v3/cmd/helm )
mv "$tmp/helm" "$OUT/helm"
link
