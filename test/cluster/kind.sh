#!/usr/bin/env bash
# `make kind-e2e`: the install suite (test/e2e-cluster) on a kind cluster, for users with Docker and
# a registry; it is not exercised on the project's own machines (no Docker engine there: they use
# test/cluster/up.sh). Creates the kind cluster krt-e2e, installs cert-manager from its release
# manifest, builds the image on the official Node.js base, loads it, runs the suite, deletes the cluster.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
CERT_MANAGER_VERSION=${CERT_MANAGER_VERSION:-v1.16.2}
name=krt-e2e
for t in kind docker; do command -v "$t" >/dev/null || { echo "kind-e2e: $t is needed" >&2; exit 1; }; done
bin=$("$root/test/controlplane/build.sh")
state="$root/.kruntimes-cluster"
mkdir -p "$state/bin"
ln -sf "$bin/kubectl" "$state/bin/kubectl"
kind create cluster --name "$name" --kubeconfig "$state/kubeconfig-kind"
trap 'kind delete cluster --name "$name"' EXIT
export KUBECONFIG="$state/kubeconfig-kind"
"$bin/kubectl" apply -f "https://github.com/cert-manager/cert-manager/releases/download/$CERT_MANAGER_VERSION/cert-manager.yaml"
"$bin/kubectl" wait -n cert-manager --for=condition=Available deployment --all --timeout=300s
image=$(cd "$root" && BASE_IMAGE=docker.io/library/node:24-bookworm-slim tools/image/build.sh)
podman save "$image" -o "$state/image.tar"
kind load image-archive "$state/image.tar" --name "$name"
cd "$root"
KRT_CLUSTER_KUBECONFIG="$KUBECONFIG" node_modules/.bin/jest --selectProjects cluster --runInBand
