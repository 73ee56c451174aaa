#!/usr/bin/env bash
# Builds the local control plane binaries from Go modules, once, into a cache keyed on versions.
# The wrapper modules (go/k8s, go/etcd) pin every dependency through their committed go.sum.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$HERE/versions.env"
CACHE=${KAITO_TS_CACHE:-$HOME/.cache/kaito-ts}
BIN=$CACHE/simcluster/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION/bin
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
step() { printf '[simcluster build] %s\n' "$*" >&2; }
want="kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok"
CRD=$BIN/crds/karpenter-$KARPENTER_VERSION/karpenter.sh_nodeclaims.yaml
stages_ok() { grep -q 'name: node-not-ready' "$BIN/kwok-stages.yaml" 2>/dev/null; }
complete() { for b in $want; do [ -x "$BIN/$b" ] || return 1; done; stages_ok && [ -s "$CRD" ]; }
if complete; then echo "$BIN"; exit 0; fi
mkdir -p "$BIN"
# One build at a time per cache folder (two terminals, CI plus a test run): the second waits, then finds it done.
# shellcheck source=build-lib.sh
. "$HERE/build-lib.sh"
build_start "$BIN/../.build.lock" "$BIN" complete "$BIN"

if [ ! -x "$BIN/etcd" ]; then
  step "etcd $ETCD_VERSION (about 2 min on 2 cores)"
  ( cd "$HERE/go/etcd" && go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3 )
  mv "$tmp/etcd" "$BIN/etcd"
fi
if [ ! -x "$BIN/kwok" ]; then
  step "kwok $KWOK_VERSION (about 3 min)"
  GOBIN="$tmp" GOFLAGS= go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  mv "$tmp/kwok" "$BIN/kwok"
fi
k8s_missing=""
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do [ -x "$BIN/$b" ] || k8s_missing=1; done
if [ -n "$k8s_missing" ]; then
  step "kubernetes $K8S_VERSION: apiserver, controller-manager, scheduler, kubectl (the long one: 20-40 min cold on 2 cores)"
  minor=$(echo "$K8S_VERSION" | cut -d. -f2); ldf="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=2026-01-01T00:00:00Z"
  done
  ( cd "$HERE/go/k8s" && go build -p 2 -trimpath -tags selinux,notest,grpcnotrace -ldflags "$ldf" -o "$tmp/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl )
  for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do mv "$tmp/$b" "$BIN/$b"; done
fi
if ! stages_ok; then
  # kwok refuses to start without Stages: keep the upstream "fast" set (already in the module cache) next to the binary,
  # plus the chaos node-not-ready Stage (only for nodes labelled node-not-ready.stage.kwok.x-k8s.io=true: the
  # simulated provisioner's NotReady fault).
  stages=$(GOFLAGS= go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/stage
  [ -d "$stages" ] || ( cd "$tmp" && GOFLAGS= go mod download "sigs.k8s.io/kwok@$KWOK_VERSION" )
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
           node/chaos/node-not-ready.yaml pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo '---'; cat "$stages/$f"
  done > "$tmp/kwok-stages.yaml"
  mv "$tmp/kwok-stages.yaml" "$BIN/kwok-stages.yaml"
fi
bash "$HERE/fetch-crds.sh" "$BIN"
step "done: $BIN"
echo "$BIN"
