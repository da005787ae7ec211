# Shared paths and helpers of the one-node cluster scripts (up.sh, down.sh). Sourced, not run.
# Everything lives under .kruntimes-cluster/ of the checkout (its own etcd, API server, containerd,
# kubelet), apart from the local environment of test/controlplane, so both can run at once.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
state="$root/.kruntimes-cluster"
pki="$state/pki"
pids="$state/pids"
logs="$state/logs"
# The node's network: a bridge of its own with a private /24 (Pods get addresses from it; the API
# server and the kubelet listen on its gateway address, which Pods can reach), and the Service range.
BRIDGE=krt0
POD_CIDR=10.217.0.0/24
NODE_IP=10.217.0.1
SERVICE_CIDR=10.96.0.0/24
API_SERVICE_IP=10.96.0.1
NODE=krt-node
PAUSE_IMAGE=registry.k8s.io/pause:3.10
# Start order; stopped in reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet kube-proxy
  cert-manager-webhook cert-manager-controller cert-manager-cainjector)
# Kernel settings the kubelet, kube-proxy and CNI change: saved by up.sh, restored by down.sh.
SYSCTLS=(net.ipv4.ip_forward vm.overcommit_memory kernel.panic kernel.panic_on_oops
  net.bridge.bridge-nf-call-iptables net.netfilter.nf_conntrack_max)

who=cluster
# shellcheck disable=SC1091
. "$root/test/shell-common.sh"
kubectl_() { "$state/bin/kubectl" --kubeconfig "$state/kubeconfig" "$@"; }
ctr_() { ctr --address "$state/containerd.sock" --namespace k8s.io "$@"; }
