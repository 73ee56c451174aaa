#!/usr/bin/env bash
# Copies Karpenter's NodeClaim CRD (the module KAITO v0.8.0's go.mod requires) next to the cluster
# binaries: `simcluster up` installs it, so NodeClaims get the real schema and CEL validation.
# Usage: fetch-crds.sh <bin dir>. The module goes into the Go module cache; nothing is built.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$HERE/versions.env"
BIN=${1:?usage: fetch-crds.sh <bin dir>}
out="$BIN/crds/karpenter-$KARPENTER_VERSION/karpenter.sh_nodeclaims.yaml"
[ -s "$out" ] && exit 0
dir=$(GOFLAGS= GOTOOLCHAIN=local go mod download -json "sigs.k8s.io/karpenter@$KARPENTER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
src="$dir/pkg/apis/crds/karpenter.sh_nodeclaims.yaml"
[ -s "$src" ] || { echo "fetch-crds.sh: $src not found after go mod download" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
cp "$src" "$out.tmp" && chmod 644 "$out.tmp" && mv "$out.tmp" "$out"
