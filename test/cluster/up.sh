#!/usr/bin/env bash
# Starts a real one-node Kubernetes on this machine (`make cluster-up`): etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler from the pinned module the local environment uses; the
# distribution's containerd with runc and CNI bridge plugins; the kubelet and kube-proxy (iptables);
# cert-manager's controller, webhook and cainjector (run beside the control plane, as a managed
# cluster's add-ons would be). The images are built with podman and imported into containerd.
# Needs root. down.sh stops it all and puts the host back as it was (sysctls, iptables, bridge,
# mounts, cgroups). Does nothing but report when it is already running.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "a node needs root (kubelet, containerd, iptables); run as root"
"$root/tools/host-packages.sh"

if alive kubelet && alive kube-apiserver && kubectl_ get --raw /readyz >/dev/null 2>&1; then
  log "already running; KUBECONFIG=$state/kubeconfig"
  exit 0
fi
"$root/test/cluster/down.sh" --quiet
# One node per machine: its bridge, addresses and iptables rules are the host's. The bridge names
# the state folder of the checkout that made it (its alias); a bridge whose cluster has no process
# left (a session killed mid-run) is that checkout's to clean, so its down.sh runs here.
if ip link show "$BRIDGE" >/dev/null 2>&1; then
  owner=$(cat "/sys/class/net/$BRIDGE/ifalias" 2>/dev/null || true)
  if [ -n "$owner" ] && pgrep -f -- "$owner/" >/dev/null 2>&1; then
    die "the bridge $BRIDGE exists: the cluster of $(dirname "$owner") runs on this machine (make cluster-down there first)"
  fi
  [ -z "$owner" ] && pgrep -x kubelet >/dev/null 2>&1 &&
    die "the bridge $BRIDGE exists and a kubelet runs: another cluster runs on this machine (make cluster-down there first)"
  log "the bridge $BRIDGE of a cluster that no longer runs (${owner:-no owner recorded}) is left over: cleaning it up"
  if [ -n "$owner" ] && [ -x "$(dirname "$owner")/test/cluster/down.sh" ]; then
    "$(dirname "$owner")/test/cluster/down.sh" --quiet || true
  fi
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
fi

started_at=$(date +%s)
bin=$("$root/test/cluster/build.sh")
cm="$(dirname "$(dirname "$bin")")/cert-manager-v1.11.5"
"$root/test/cluster/pki.sh"
mkdir -p "$state/bin" "$pids" "$logs"
ln -sf "$bin/kubectl" "$state/bin/kubectl"

started=0
trap '[ $started = 1 ] || { log "start failed; stopping what was started (logs in $logs)"; "$root/test/cluster/down.sh" --quiet; }' EXIT

# The host's settings, before anything here changes them (a file from a start that failed is kept:
# it holds the values from before that start).
[ -f "$state/sysctls" ] || for s in "${SYSCTLS[@]}"; do
  v=$(sysctl -n "$s" 2>/dev/null) && printf '%s=%s\n' "$s" "$v"
done >"$state/sysctls"
# And its packet filter rules and network namespaces, so down.sh removes exactly what was added.
for t in iptables ip6tables; do [ -f "$state/$t.before" ] || "$t-save" >"$state/$t.before"; done
[ -f "$state/netns.before" ] || ls /run/netns 2>/dev/null >"$state/netns.before" || true
# The kubelet links container logs from /var/log/containers (not configurable): made if missing.
[ -f "$state/logdirs.before" ] || for d in /var/log/containers /var/log/pods; do
  [ -d "$d" ] && echo "$d"
done >"$state/logdirs.before"
sysctl -qw net.ipv4.ip_forward=1

ip link add "$BRIDGE" type bridge
ip link set "$BRIDGE" alias "$state"
ip addr add "$NODE_IP/24" dev "$BRIDGE"
ip link set "$BRIDGE" up

read -r ETCD_PORT ETCD_PEER_PORT API_PORT KCM_PORT SCHED_PORT CM_WEBHOOK_PORT CM_HEALTH_PORT PROXY_HEALTH_PORT PROXY_METRICS_PORT CM_METRICS_PORT < <(node -e '
  const net = require("node:net");
  const one = () => new Promise((ok) => { const s = net.createServer(); s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => ok(p)); }); });
  (async () => { const ps = new Set(); while (ps.size < 10) ps.add(await one()); console.log([...ps].join(" ")); })();')
printf 'API_PORT=%s\n' "$API_PORT" >"$state/ports.env"

server="https://$NODE_IP:$API_PORT"
kubeconfig "$state/kubeconfig" kruntimes-cluster "$server" admin
for c in kcm scheduler kube-proxy kubelet; do kubeconfig "$state/kubeconfig-$c" kruntimes-cluster "$server" "$c"; done

start etcd "$bin/etcd" --name=node --data-dir="$state/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="node=http://127.0.0.1:$ETCD_PEER_PORT" --unsafe-no-fsync --log-level=warn
wait_for etcd 30 curl -sf --max-time 1 "http://127.0.0.1:$ETCD_PORT/health"

start kube-apiserver "$bin/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port="$API_PORT" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" --authorization-mode=Node,RBAC \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" \
  --kubelet-client-key="$pki/apiserver-kubelet-client.key" --kubelet-certificate-authority="$pki/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true --profiling=false \
  --kubelet-preferred-address-types=InternalIP \
  --requestheader-client-ca-file="$pki/front-proxy/ca.crt" --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="$pki/front-proxy/front-proxy-client.crt" \
  --proxy-client-key-file="$pki/front-proxy/front-proxy-client.key" --enable-aggregator-routing=true
wait_for kube-apiserver 90 kubectl_ get --raw /readyz

start kube-controller-manager "$bin/kube-controller-manager" \
  --kubeconfig="$state/kubeconfig-kcm" --authentication-kubeconfig="$state/kubeconfig-kcm" \
  --authorization-kubeconfig="$state/kubeconfig-kcm" \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
  --use-service-account-credentials=true --leader-elect=false --allocate-node-cidrs=false \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --profiling=false
start kube-scheduler "$bin/kube-scheduler" \
  --kubeconfig="$state/kubeconfig-scheduler" --authentication-kubeconfig="$state/kubeconfig-scheduler" \
  --authorization-kubeconfig="$state/kubeconfig-scheduler" \
  --leader-elect=false --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" --profiling=false

# containerd with its own root, state and socket; runc without systemd; CNI from the distribution.
mkdir -p "$state/containerd" "$state/cni/net.d" "$state/cni/ipam"
cat >"$state/containerd.toml" <<TOML
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
[grpc]
  address = "$state/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Lowering oom_score_adj is not permitted in this machine's sandbox.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$state/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni/net.d"
TOML
cat >"$state/cni/net.d/10-krt.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "krt",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$state/cni/ipam", "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$NODE_IP" }]],
                "routes": [{ "dst": "0.0.0.0/0" }] }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON
start containerd containerd --config "$state/containerd.toml"
wait_for containerd 30 ctr --address "$state/containerd.sock" version

# Images: nothing can be pulled, so the pause image is built from test/cluster/gomod/pause and the
# project's image by make image; both go from podman into containerd.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/tools/image/containers.conf}
image=$(cd "$root" && tools/image/build.sh)
if ! podman image exists "$PAUSE_IMAGE"; then
  tmp=$(mktemp -d)
  install -m 0755 "$bin/pause" "$tmp/pause"
  tar -C "$tmp" -c pause | podman import --quiet --change 'ENTRYPOINT ["/pause"]' - "$PAUSE_IMAGE" >/dev/null
  rm -rf "$tmp"
fi
# A second step image for container steps beside the project's own: the local base (bash and
# coreutils, no kruntimes), under a name the cluster suite uses.
STEP_IMAGE=localhost/kruntimes-step:bookworm
podman tag "$(cd "$root" && tools/image/base.sh)" "$STEP_IMAGE"
for i in "$PAUSE_IMAGE" "$image" "$STEP_IMAGE"; do
  podman save --quiet "$i" | ctr_ images import --no-unpack - >/dev/null
done
printf 'IMAGE=%s\nSTEP_IMAGE=%s\n' "$image" "$STEP_IMAGE" >>"$state/ports.env"
log "images in containerd: $PAUSE_IMAGE, $image, $STEP_IMAGE"

mkdir -p "$state/kubelet"
cat >"$state/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
readOnlyPort: 0
authentication:
  x509: { clientCAFile: $pki/ca.crt }
  webhook: { enabled: true }
  anonymous: { enabled: false }
authorization: { mode: Webhook }
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
containerRuntimeEndpoint: unix://$state/containerd.sock
staticPodPath: ""
serializeImagePulls: false
# The disk is shared with everything else on this machine.
evictionHard: { memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%" }
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
makeIPTablesUtilChains: true
# Container logs stay in the state folder (default /var/log/pods).
podLogsDir: $state/pod-logs
YAML
start kubelet "$bin/kubelet" --config="$state/kubelet.yaml" --kubeconfig="$state/kubeconfig-kubelet" \
  --root-dir="$state/kubelet" --hostname-override="$NODE" --node-ip="$NODE_IP" --v=1
start kube-proxy "$bin/kube-proxy" --kubeconfig="$state/kubeconfig-kube-proxy" --proxy-mode=iptables \
  --hostname-override="$NODE" --cluster-cidr="$POD_CIDR" --conntrack-max-per-core=0 --masquerade-all \
  --metrics-bind-address="127.0.0.1:$PROXY_METRICS_PORT" --healthz-bind-address="127.0.0.1:$PROXY_HEALTH_PORT" --v=1
wait_for "the node" 120 kubectl_ wait --for=condition=Ready "node/$NODE" --timeout=1s
wait_for "kube-proxy's rules" 60 iptables -w -t nat -n -L KUBE-SERVICES
log "node $NODE Ready"

# cert-manager: its CRDs, its admission webhook (as the API server needs it: both configurations),
# then the controller and the CA injector.
kubectl_ apply --server-side -f "$cm/crds" >/dev/null
kubectl_ create namespace cert-manager >/dev/null
start cert-manager-webhook "$cm/webhook" --kubeconfig="$state/kubeconfig" --secure-port="$CM_WEBHOOK_PORT" \
  --healthz-port="$CM_HEALTH_PORT" --tls-cert-file="$pki/cert-manager-webhook.crt" \
  --tls-private-key-file="$pki/cert-manager-webhook.key"
wait_for "cert-manager's webhook" 60 curl -sf --max-time 1 "http://127.0.0.1:$CM_HEALTH_PORT/healthz"
ca=$(base64 -w0 <"$pki/ca.crt")
for kind in Validating Mutating; do
  path=$([ $kind = Validating ] && echo validate || echo mutate)
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata: { name: cert-manager-webhook }
webhooks:
  - name: webhook.cert-manager.io
    admissionReviewVersions: [v1]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 10
    clientConfig: { url: "https://$NODE_IP:$CM_WEBHOOK_PORT/$path", caBundle: "$ca" }
    rules:
      - apiGroups: [cert-manager.io, acme.cert-manager.io]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: ["*/*"]
YAML
done
start cert-manager-controller "$cm/controller" --kubeconfig="$state/kubeconfig" --leader-elect=false \
  --cluster-resource-namespace=cert-manager --metrics-listen-address="127.0.0.1:$CM_METRICS_PORT"
start cert-manager-cainjector "$cm/cainjector" --kubeconfig="$state/kubeconfig" --leader-elect=false
log "cert-manager running"

for c in "${COMPONENTS[@]}"; do
  alive "$c" || die "$c exited: $(tail -n 3 "$logs/$c.log")"
done
started=1
log "up in $(($(date +%s) - started_at))s: API server https://$NODE_IP:$API_PORT (logs in $logs)"
echo "export KUBECONFIG=$state/kubeconfig"
