# Shared paths and helpers of the local control plane scripts. Sourced, not run.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
state="$root/.kruntimes"
pki="$state/pki"
pids="$state/pids"
logs="$state/logs"
COMPONENTS=(etcd kube-apiserver kube-controller-manager webhook controller runtimed)

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

webhook_ready() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  curl -sf --max-time 2 --cacert "$pki/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/readyz" >/dev/null 2>&1
}

# The processes run compiled JavaScript, as a cluster image would (tsx's per-call helpers cost a third).
build_dist() {
  (cd "$root" && node_modules/.bin/tsc -p tsconfig.build.json) || die "the TypeScript build failed"
}

# Starts the admission webhook from this checkout and registers the local webhook configurations.
# Its --run-stale-seconds is at most the shortest --stale-seconds of the agents the suites start.
start_webhook() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  (cd "$root" && KRT_COMPONENT=webhook exec setsid node --enable-source-maps dist/webhook/main.js \
    --host 127.0.0.1 --port "$WEBHOOK_PORT" --cert "$pki/webhook.crt" --key "$pki/webhook.key" \
    --kubeconfig "$state/kubeconfig-webhook" --run-stale-seconds 2 >>"$logs/webhook.log" 2>&1 </dev/null) &
  echo $! > "$pids/webhook.pid"
}

register_webhook() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  "$state/bin/kubectl" --kubeconfig "$state/kubeconfig" kustomize "$root/config/webhook" |
    node "$root/tools/local-webhook.mjs" "$WEBHOOK_PORT" "$pki/ca.crt" |
    "$state/bin/kubectl" --kubeconfig "$state/kubeconfig" apply --server-side -f - >/dev/null
}

controller_ready() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  curl -sf --max-time 2 "http://127.0.0.1:$CONTROLLER_PORT/readyz" >/dev/null 2>&1
}

# A stable identity, as a pod name is stable across container restarts: a controller restarted
# after a crash renews its own lease at once instead of waiting for it to expire.
start_controller() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  (cd "$root" && KRT_COMPONENT=controller exec setsid node --enable-source-maps dist/controller/main.js \
    --kubeconfig "$state/kubeconfig-controller" --metrics-port "$CONTROLLER_PORT" --identity local-controller \
    >>"$logs/controller.log" 2>&1 </dev/null) &
  echo $! > "$pids/controller.pid"
}

runtimed_ready() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  curl -sf --max-time 2 --cacert "$pki/ca.crt" "https://127.0.0.1:$RUNTIMED_PORT/readyz" >/dev/null 2>&1
}

# The local agent serves every namespace with the built-in bash runtime, each step in its sandbox
# (bubblewrap). Short heartbeats so a crash is noticed in seconds, not half a minute.
start_runtimed() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  local bwrap; bwrap=$("$root/tools/fetch-bwrap.sh")
  # Steps' folders where their uids can reach them whatever the clone's parents allow (a mktemp -d
  # clone is 0700): a folder of this checkout under /tmp.
  local work; work="/tmp/kruntimes-steps-$(printf %s "$root" | sha256sum | cut -c1-12)"
  (cd "$root" && KRT_COMPONENT=runtimed exec setsid node --enable-source-maps dist/runtimed/main.js \
    --kubeconfig "$state/kubeconfig-runtimed" --identity local-runtimed --data-dir "$state/runtimed" \
    --host 127.0.0.1 --port "$RUNTIMED_PORT" --cert "$pki/runtimed.crt" --key "$pki/runtimed.key" \
    --heartbeat-seconds 2 --stale-seconds 10 --grace-seconds 2 --bwrap "$bwrap" --work-dir "$work" \
    >>"$logs/runtimed.log" 2>&1 </dev/null) &
  echo $! > "$pids/runtimed.pid"
}
