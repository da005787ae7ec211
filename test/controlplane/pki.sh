#!/usr/bin/env bash
# Makes the local PKI with openssl, each file once: a CA, the API server's serving certificate, client
# certificates (admin in system:masters, the controller manager, and a user with no RBAC bindings)
# and the service-account signing key pair.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mkdir -p "$pki"
cd "$pki"
ca "/CN=kruntimes-local-ca"
client='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'
sign apiserver "/CN=kube-apiserver" 'basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc'
sign admin "/O=system:masters/CN=kruntimes-admin" "$client"
sign kcm "/CN=system:kube-controller-manager" "$client"
sign user "/O=kruntimes:users/CN=kruntimes-user" "$client"
# The webhook's serving certificate for the local path: the API server calls https://127.0.0.1:<port>
# and trusts it through the same CA, written as caBundle into the local webhook configurations.
sign webhook "/CN=kruntimes-webhook" 'basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kruntimes-webhook.kruntimes-system.svc'
# runtimed's log endpoint, on loopback.
sign runtimed "/CN=kruntimes-runtimed" 'basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost'

[ -f sa.key ] || {
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
}
chmod 600 ./*.key
