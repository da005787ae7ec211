#!/usr/bin/env bash
# `make deploy`: installs the product on the cluster of the current kubeconfig (KUBECTL, default
# kubectl): the root kustomization, or the one given. `kubectl apply -k` alone applies everything
# it can and reports the rest, so a cluster without cert-manager would get a half install: this
# checks first that cert-manager's API is there and answers (a server-side dry run of an Issuer).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kubectl=${KUBECTL:-kubectl}
kustomization=${1:-$root}
say() { printf 'deploy: %s\n' "$*" >&2; }
missing=()
for crd in certificates.cert-manager.io issuers.cert-manager.io; do
  "$kubectl" get crd "$crd" >/dev/null 2>&1 || missing+=("$crd")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "cert-manager is not installed in this cluster (no ${missing[*]}): install it first (docs/install.md). Nothing was applied."
  exit 1
fi
# cert-manager's own webhook must answer too, or the Certificates would be refused half-way.
issuer='{"apiVersion":"cert-manager.io/v1","kind":"Issuer","metadata":{"name":"kruntimes-preflight","namespace":"default"},"spec":{"selfSigned":{}}}'
if ! out=$(printf '%s' "$issuer" | "$kubectl" create --dry-run=server -f - 2>&1); then
  printf '%s\n' "$out" >&2
  say "cert-manager is installed but does not accept an Issuer (above): is its webhook running? Nothing was applied."
  exit 1
fi
"$kubectl" apply --server-side -k "$kustomization"
