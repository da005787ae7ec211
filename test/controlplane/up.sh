#!/usr/bin/env bash
# Starts the local control plane on loopback: etcd, kube-apiserver (secure port only, RBAC,
# admission webhooks on) and kube-controller-manager (garbage collector, namespaces), installs the
# CRDs, starts the admission webhook and registers it, the controller and runtimed, and writes the kubeconfigs. Does nothing but report when it is already running.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

print_env() {
  log "running: API server https://127.0.0.1:$API_PORT (logs in $logs)"
  echo "export KUBECONFIG=$state/kubeconfig"
}

if alive etcd && alive kube-apiserver && alive kube-controller-manager && alive webhook && alive controller && alive runtimed && api_ready; then
  # Server-side apply of unchanged CRDs changes nothing; a checkout with a newer schema updates them.
  "$state/bin/kubectl" --kubeconfig "$state/kubeconfig" apply --server-side -k "$root/config/crd" >/dev/null
  log "already running (pids $(for c in "${COMPONENTS[@]}"; do printf '%s ' "$(pid_of "$c")"; done)); nothing changed"
  print_env
  exit 0
fi
# Whatever is left of an earlier instance that died is stopped before a fresh start.
"$root/test/controlplane/down.sh" --quiet

bin=$("$root/test/controlplane/build.sh")
"$root/test/controlplane/pki.sh"
mkdir -p "$state/bin" "$pids" "$logs"
ln -sf "$bin/kubectl" "$state/bin/kubectl"

# Free loopback ports, chosen now so that several checkouts can each run an instance.
read -r ETCD_PORT ETCD_PEER_PORT API_PORT KCM_PORT WEBHOOK_PORT CONTROLLER_PORT RUNTIMED_PORT < <(node -e '
  const net = require("node:net");
  const one = () => new Promise((ok) => { const s = net.createServer(); s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => ok(p)); }); });
  (async () => { const ps = new Set(); while (ps.size < 7) ps.add(await one()); console.log([...ps].join(" ")); })();')
printf 'ETCD_PORT=%s\nETCD_PEER_PORT=%s\nAPI_PORT=%s\nKCM_PORT=%s\nWEBHOOK_PORT=%s\nCONTROLLER_PORT=%s\nRUNTIMED_PORT=%s\n' \
  "$ETCD_PORT" "$ETCD_PEER_PORT" "$API_PORT" "$KCM_PORT" "$WEBHOOK_PORT" "$CONTROLLER_PORT" "$RUNTIMED_PORT" > "$state/ports.env"

server="https://127.0.0.1:$API_PORT"
kubeconfig "$state/kubeconfig" kruntimes-local "$server" admin
kubeconfig "$state/kubeconfig-user" kruntimes-local "$server" user
kubeconfig "$state/kubeconfig-kcm" kruntimes-local "$server" kcm
# The product's processes act as their service accounts (config/rbac), impersonated by the admin
# certificate, so their ClusterRoles are what every local run and test exercises.
for component in webhook controller; do
  kubeconfig "$state/kubeconfig-$component" kruntimes-local "$server" admin "system:serviceaccount:kruntimes-system:kruntimes-$component"
done
# runtimed as its service account's token bound to a Pod named after the agent would be: admission
# tells agents apart by that Pod name (the test harness writes one such kubeconfig per agent).
kubeconfig "$state/kubeconfig-runtimed" kruntimes-local "$server" admin "system:serviceaccount:kruntimes-system:kruntimes-runtimed" local-runtimed

# A start that fails half-way leaves nothing running.
started=0
trap '[ $started = 1 ] || { log "start failed; stopping what was started"; "$root/test/controlplane/down.sh" --quiet; }' EXIT
rm -rf "$state/etcd"
start etcd "$bin/etcd" --name=kruntimes --data-dir="$state/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="kruntimes=http://127.0.0.1:$ETCD_PEER_PORT" --unsafe-no-fsync --log-level=warn
wait_for etcd 30 curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$ETCD_PORT/health"

start kube-apiserver "$bin/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
  --cert-dir="$pki" --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --authorization-mode=RBAC \
  --enable-admission-plugins=NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 --allow-privileged=true --profiling=false \
  --endpoint-reconciler-type=none
wait_for kube-apiserver 90 api_ready

# The CRDs go in before the controller manager starts, so the garbage collector sees them in its
# first discovery instead of after its 30 s resync.
kubectl=("$state/bin/kubectl" --kubeconfig "$state/kubeconfig")
# A CRD the API server refuses stops the start here (process substitution would hide it).
applied=$("${kubectl[@]}" apply --server-side -k "$root/config/crd" -o name) || die "the CRDs in config/crd were refused"
mapfile -t crds <<<"$applied"
"${kubectl[@]}" wait --for=condition=Established --timeout=60s "${crds[@]}" >/dev/null
log "CRDs installed: ${crds[*]##*/}"
# The system namespace, the service accounts and their permissions.
"${kubectl[@]}" apply --server-side -k "$root/config/rbac" >/dev/null
# The local runtimed serves every namespace (tests make their own).
"${kubectl[@]}" apply --server-side -k "$root/config/rbac/all-namespaces" >/dev/null

start kube-controller-manager "$bin/kube-controller-manager" \
  --kubeconfig="$state/kubeconfig-kcm" \
  --controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token,clusterrole-aggregation \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
  --leader-elect=false --use-service-account-credentials=true --profiling=false
wait_for kube-controller-manager 60 curl -skf -o /dev/null --max-time 1 "https://127.0.0.1:$KCM_PORT/healthz"

build_dist
start_webhook
wait_for webhook 60 webhook_ready
register_webhook
log "admission webhook on https://127.0.0.1:$WEBHOOK_PORT, registered"
start_controller
wait_for controller 60 controller_ready
log "controller running (metrics on http://127.0.0.1:$CONTROLLER_PORT/metrics)"
start_runtimed
wait_for runtimed 60 runtimed_ready
log "runtimed running (bash; logs in $state/runtimed; https://127.0.0.1:$RUNTIMED_PORT)"

started=1
print_env
