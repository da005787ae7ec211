#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kubectl)
# from pinned Go modules into a cache outside the repository, keyed by version.
# Rebuilds only what is missing. Prints the bin folder on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
K8S_VERSION=v1.37.2
ETCD_VERSION=v3.7.3
cache=${KRT_CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kruntimes/controlplane}
bin="$cache/k8s-$K8S_VERSION-etcd-$ETCD_VERSION/bin"
mkdir -p "$bin"

log() { printf 'controlplane: %s\n' "$*" >&2; }

need=()
for b in kube-apiserver kube-controller-manager kubectl; do
  [ -x "$bin/$b" ] || need+=("k8s.io/kubernetes/cmd/$b")
done
if [ ${#need[@]} -gt 0 ]; then
  log "building ${need[*]##*/} $K8S_VERSION (first build on this machine takes a while)"
  start=$(date +%s)
  tmp="$bin/.build-k8s"
  rm -rf "$tmp" && mkdir -p "$tmp"
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION \
    -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 \
    -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
  (cd "$here/gomod/k8s" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${need[@]}")
  mv "$tmp"/* "$bin/" && rmdir "$tmp"
  log "built in $(( $(date +%s) - start ))s"
fi
if [ ! -x "$bin/etcd" ]; then
  log "building etcd $ETCD_VERSION"
  start=$(date +%s)
  (cd "$here/gomod/etcd" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/etcd.tmp" .)
  mv "$bin/etcd.tmp" "$bin/etcd"
  log "built in $(( $(date +%s) - start ))s"
fi
echo "$bin"
