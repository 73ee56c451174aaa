#!/usr/bin/env bash
# Everything the test suite runs, built once into the cache (${KAITO_TS_CACHE:-~/.cache/kaito-ts}):
# the control plane and kwok, Karpenter's kwok provider, KEDA, helm, and KAITO v0.12.0 and v0.8.0
# from their source trees (../shared/kaito-src, or KAITO_SRC). A complete cache costs about a second.
# First it checks the OS packages the tests need and names any that is missing, in one line.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
missing=""
for pair in openssl:openssl flock:util-linux umoci:umoci skopeo:skopeo; do
  command -v "${pair%%:*}" >/dev/null || missing="$missing ${pair#*:}"
done
if [ -n "$missing" ]; then
  echo "kaito-ts: missing on this machine:$missing (install the packages the README lists: apt-get install -y openssl util-linux umoci skopeo; Go >= 1.26 from go.dev)" >&2
  exit 1
fi
command -v go >/dev/null || { echo "kaito-ts: Go >= 1.26 is needed to build the local control plane (go.dev/dl)" >&2; exit 1; }
say() { printf '[build-all] %s\n' "$*" >&2; }
start=$(date +%s)
for step in "build.sh" "build-karpenter.sh" "build-keda.sh" "build-helm.sh" "build-kaito.sh v0.12.0" "build-kaito.sh v0.8.0"; do
  # shellcheck disable=SC2086
  bash "$HERE"/$step >/dev/null || { say "simcluster/$step failed (its last lines above say why)"; exit 1; }
done
say "every component ready after $(($(date +%s) - start))s"
