#!/usr/bin/env bash
# Builds what the one-node cluster adds to the local control plane: kubelet, kube-proxy and
# kube-scheduler (same pinned module as the control plane), cert-manager (its own pinned module) and
# a pause image program, into the same cache outside the repository, keyed by version.
# Rebuilds only what is missing. Prints the bin folder on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$("$here/../controlplane/build.sh")
CERT_MANAGER_VERSION=v1.11.5
# Beside the control plane builds, keyed by its own version.
cm="$(dirname "$(dirname "$bin")")/cert-manager-$CERT_MANAGER_VERSION"
mkdir -p "$cm"

log() { printf 'cluster: %s\n' "$*" >&2; }
timed() {
  local what=$1 start
  shift
  log "building $what (first build on this machine takes a while)"
  start=$(date +%s)
  "$@"
  log "built $what in $(($(date +%s) - start))s"
}

need=()
for b in kubelet kube-proxy kube-scheduler; do
  [ -x "$bin/$b" ] || need+=("k8s.io/kubernetes/cmd/$b")
done
if [ ${#need[@]} -gt 0 ]; then
  v=$("$bin/kubectl" version --client -o json | sed -n 's/.*"gitVersion": *"\(v[^"]*\)".*/\1/p' | head -1)
  minor=${v#v1.}
  minor=${minor%%.*}
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$v \
    -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
  tmp="$bin/.build-node"
  rm -rf "$tmp" && mkdir -p "$tmp"
  build_node() { (cd "$here/../controlplane/gomod/k8s" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${need[@]}"); }
  timed "${need[*]##*/} $v" build_node
  mv "$tmp"/* "$bin/" && rmdir "$tmp"
fi

missing=0
for b in controller webhook cainjector; do [ -x "$cm/$b" ] || missing=1; done
if [ $missing = 1 ]; then
  tmp="$cm/.build"
  rm -rf "$tmp" && mkdir -p "$tmp"
  build_cm() {
    for b in controller webhook cainjector; do
      (cd "$here/gomod/cert-manager" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" \
        -o "$tmp/$b" "github.com/cert-manager/cert-manager/cmd/$b")
    done
  }
  timed "cert-manager $CERT_MANAGER_VERSION" build_cm
  mv "$tmp"/* "$cm/" && rmdir "$tmp"
fi
if [ ! -d "$cm/crds" ]; then
  dir=$(cd "$here/gomod/cert-manager" && go list -m -f '{{.Dir}}' github.com/cert-manager/cert-manager)
  mkdir -p "$cm/crds.tmp"
  # The CRDs are Helm templates: drop the template lines, keep the objects.
  for f in "$dir"/deploy/crds/*.yaml; do
    grep -v '{{' "$f" >"$cm/crds.tmp/$(basename "$f")"
  done
  mv "$cm/crds.tmp" "$cm/crds"
fi

if [ ! -x "$bin/pause" ]; then
  timed pause bash -c "cd '$here/gomod/pause' && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o '$bin/pause' ."
fi
echo "$bin"
