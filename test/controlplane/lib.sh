# Shared paths and helpers of the local control plane scripts. Sourced, not run.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
state="$root/.kruntimes"
pki="$state/pki"
pids="$state/pids"
logs="$state/logs"
COMPONENTS=(etcd kube-apiserver kube-controller-manager webhook controller runtimed)

who=controlplane
# shellcheck disable=SC1091
. "$root/test/shell-common.sh"

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

# The product's processes run under supervise.sh (restarted when they exit, as in a Deployment), in
# a session of their own. Starting one that is already supervised does nothing: it comes back on
# its own. $pids/NAME.pid is the process, $pids/NAME.supervisor its supervisor.
supervised() { local p; p=$(cat "$pids/$1.supervisor" 2>/dev/null) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }
supervise() { # NAME COMMAND...
  local name=$1; shift
  if supervised "$name"; then log "$name is supervised already; it restarts on its own"; return 0; fi
  rm -f "$pids/$name.stop" "$pids/$name.pid"
  (cd "$root" && KRT_COMPONENT=$name exec setsid "$root/test/controlplane/supervise.sh" "$name" "$@" \
    >/dev/null 2>&1 </dev/null) &
  # The process id is written by the supervisor; wait for it, so callers can read it.
  for _ in $(seq 1 50); do [ -s "$pids/$name.pid" ] && supervised "$name" && return 0; sleep 0.1; done
  die "the supervisor of $name did not start"
}
# Ends supervision and stops the process (TERM, then KILL after 10 s).
unsupervise() { # NAME
  local name=$1 p s
  touch "$pids/$name.stop"
  s=$(cat "$pids/$name.supervisor" 2>/dev/null || true)
  p=$(pid_of "$name")
  if [ -n "$p" ]; then
    kill -TERM "$p" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$p" 2>/dev/null || true
  fi
  if [ -n "$s" ]; then kill -TERM "$s" 2>/dev/null || true; fi
  rm -f "$pids/$name.pid" "$pids/$name.supervisor"
}

# The processes run compiled JavaScript, as a cluster image would (tsx's per-call helpers cost a third).
# Each runs as one bundled file (tools/bundle.mjs), started by the image's entrypoint, which holds
# each component's Node.js flags and malloc settings (tools/image/kruntimes; docs/benchmarks.md,
# "Memory"). KRT_NODE_FLAGS replaces them, to compare (add --enable-source-maps for stack traces
# in the TypeScript sources: each bundle has its source map).
build_dist() {
  (cd "$root" && node_modules/.bin/tsc -p tsconfig.build.json && node tools/bundle.mjs) ||
    die "the build (tsc, then the bundles) failed"
}
export KRT_BUNDLE_DIR="$root/dist/bundle"
entrypoint="$root/tools/image/kruntimes"

# Starts the admission webhook from this checkout and registers the local webhook configurations.
# Its --run-stale-seconds is at most the shortest --stale-seconds of the agents the suites start.
start_webhook() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  supervise webhook "$entrypoint" webhook \
    --host 127.0.0.1 --port "$WEBHOOK_PORT" --cert "$pki/webhook.crt" --key "$pki/webhook.key" \
    --kubeconfig "$state/kubeconfig-webhook" --run-stale-seconds 2
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
  supervise controller "$entrypoint" controller \
    --kubeconfig "$state/kubeconfig-controller" --health-addr "127.0.0.1:$CONTROLLER_PORT" --metrics-addr "127.0.0.1:$CONTROLLER_PORT" --identity local-controller
}

runtimed_ready() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  curl -sf --max-time 2 --cacert "$pki/ca.crt" "https://127.0.0.1:$RUNTIMED_PORT/readyz" >/dev/null 2>&1
}

# The local agent serves every namespace with the built-in bash runtime, each step in its sandbox
# (bubblewrap). Short heartbeats so a crash is noticed in seconds, not half a minute. 32 steps at a
# time: steps wait more than they compute (the same 2,400-step load of make chaos: 13 steps/s at
# the default 8, 18 at 16, 22 at 32 on 2 cores).
start_runtimed() {
  # shellcheck disable=SC1091
  . "$state/ports.env"
  local bwrap; bwrap=$("$root/tools/fetch-bwrap.sh")
  # Steps share the agent's network here (--step-network host): the suites' steps report to
  # channels on loopback, and the samples' could fetch. The default of an installed agent is none.
  # Steps' folders where their uids can reach them whatever the clone's parents allow (a mktemp -d
  # clone is 0700): a folder of this checkout under /tmp.
  local hash; hash=$(printf %s "$root" | sha256sum | cut -c1-12)
  local work; work="/tmp/kruntimes-steps-$hash"
  # Each checkout's agent gives its steps uids of its own (the suites' agents take 300000 and up), so
  # two checkouts' environments on one machine never share a step uid and its process limit.
  local uids=$((2000000 + (16#${hash:0:6} % 1000) * 1000))
  supervise runtimed "$entrypoint" runtimed \
    --kubeconfig "$state/kubeconfig-runtimed" --identity local-runtimed --data-dir "$state/runtimed" \
    --host 127.0.0.1 --port "$RUNTIMED_PORT" --cert "$pki/runtimed.crt" --key "$pki/runtimed.key" \
    --heartbeat-seconds 2 --stale-seconds 10 --grace-seconds 2 --bwrap "$bwrap" --work-dir "$work" \
    --concurrency 32 --step-network host --step-uid-base "$uids"
}
