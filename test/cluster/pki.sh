#!/usr/bin/env bash
# The one-node cluster's PKI with openssl, each file once: a CA, the API server's serving
# certificate (its Service IP and the node address as names), client certificates (admin, the
# controller manager, the scheduler, kube-proxy, the kubelet as its node), the kubelet's serving
# certificate, cert-manager's webhook serving certificate, the front-proxy CA and client certificate of
# the aggregation layer, and the service-account key pair.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mkdir -p "$pki"
cd "$pki"
ca "/CN=kruntimes-cluster-ca"
client='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'
server() { printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$1"; }
sign apiserver "/CN=kube-apiserver" "$(server "IP:$NODE_IP,IP:$API_SERVICE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local")"
sign admin "/O=system:masters/CN=kruntimes-cluster-admin" "$client"
sign kcm "/CN=system:kube-controller-manager" "$client"
sign scheduler "/CN=system:kube-scheduler" "$client"
sign kube-proxy "/CN=system:kube-proxy" "$client"
sign kubelet "/O=system:nodes/CN=system:node:$NODE" "$client"
sign kubelet-serving "/CN=$NODE" "$(server "IP:$NODE_IP,DNS:$NODE")"
sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client"
sign cert-manager-webhook "/CN=cert-manager-webhook" "$(server "IP:$NODE_IP")"
# The aggregation layer: a CA of its own for the API server's front-proxy client certificate, with
# which it vouches for users to extension API servers (runtimed's logs.kruntimes.io).
(
  mkdir -p front-proxy && cd front-proxy
  ca "/CN=kruntimes-cluster-front-proxy-ca"
  sign front-proxy-client "/CN=front-proxy-client" "$client"
  chmod 600 ./*.key
)
[ -f sa.key ] || {
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
}
chmod 600 ./*.key
