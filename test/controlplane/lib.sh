# Shared paths and helpers of the local control plane scripts. Sourced, not run.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
state="$root/.kruntimes"
pki="$state/pki"
pids="$state/pids"
logs="$state/logs"
COMPONENTS=(etcd kube-apiserver kube-controller-manager)

log() { printf 'controlplane: %s\n' "$*" >&2; }
die() { printf 'controlplane: error: %s\n' "$*" >&2; exit 1; }

pid_of() { cat "$pids/$1.pid" 2>/dev/null || true; }
alive() { local p; p=$(pid_of "$1"); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

api_ready() {
  [ -f "$state/ports.env" ] || return 1
  # shellcheck disable=SC1091
  . "$state/ports.env"
  curl -sf --max-time 2 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1
}
