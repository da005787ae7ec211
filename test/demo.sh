#!/usr/bin/env bash
# `make demo`: the environment is up (make up ran first). Installs the samples (the first seed's
# release -> deploy-workflow -> verify-workflow), triggers `release`, waits, and shows the tree, the
# outputs and the logs. Fails when the run does not succeed or the endpoint does not reach notify.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export KUBECONFIG="$root/.kruntimes/kubeconfig"
k=("$root/.kruntimes/bin/kubectl")
krt=("$root/bin/krt")

echo "== sample Workflows (config/samples)"
"${k[@]}" apply -k "$root/config/samples"
# The controller marks each template Ready once its whole call graph resolves.
"${k[@]}" wait --for=condition=Ready --timeout=30s workflow/release workflow/deploy-workflow workflow/verify-workflow >/dev/null
"${k[@]}" get workflows
echo
echo "== krt workflow trigger release --wait"
name=$("${krt[@]}" workflow trigger release)
echo "$name"
outputs=$("${krt[@]}" workflowrun watch "$name") || { echo "demo: $name did not succeed" >&2; "${krt[@]}" workflowrun get "$name" >&2; exit 1; }
echo
echo "== krt workflowrun get $name"
"${krt[@]}" workflowrun get "$name"
echo
echo "== outputs"
echo "${outputs:-"(the release workflow declares no outputs)"}"
echo
echo "== krt workflowrun logs $name"
logs=$("${krt[@]}" workflowrun logs "$name")
echo "$logs"
grep -q '^notify:send | released to https://staging.example.com$' <<<"$logs" ||
  { echo "demo: the notify step's log does not show the endpoint from verify-workflow" >&2; exit 1; }
echo
echo "== kubectl get workflowruns,runs"
"${k[@]}" get workflowruns,runs
echo
echo "== a Promise (config/samples/promise): the AppConfig API, two configure pipelines"
"${k[@]}" apply -k "$root/config/samples/promise"
"${k[@]}" wait --for=condition=Available --timeout=60s promise/app-config >/dev/null
"${krt[@]}" promise list
ns=kruntimes-demo
"${k[@]}" create namespace "$ns" --dry-run=client -o yaml | "${k[@]}" apply -f - >/dev/null
"${k[@]}" apply -n "$ns" -f "$root/config/samples/promise/appconfig.yaml"
# The workflow has run when the resource is Ready for its current generation.
wait_ready() {
  "${k[@]}" wait -n "$ns" --for=condition=Ready --timeout=90s appconfig/hello >/dev/null ||
    { echo "demo: appconfig/hello is not Ready" >&2; "${krt[@]}" -n "$ns" resource get appconfig hello >&2; exit 1; }
  local gen; gen=$("${k[@]}" get -n "$ns" appconfig/hello -o jsonpath='{.metadata.generation}')
  for _ in $(seq 1 100); do
    [ "$("${k[@]}" get -n "$ns" appconfig/hello -o jsonpath='{.status.observedGeneration}')" = "$gen" ] &&
      "${k[@]}" wait -n "$ns" --for=condition=Ready --timeout=90s appconfig/hello >/dev/null && return 0
    sleep 0.2
  done
  echo "demo: appconfig/hello did not reach generation $gen" >&2; exit 1
}
wait_ready
echo
echo "== krt resource get appconfig hello"
"${krt[@]}" -n "$ns" resource get appconfig hello
echo
echo "== kubectl get appconfigs (the message comes from the second pipeline's status.yaml)"
"${k[@]}" get -n "$ns" appconfigs
echo
echo "== the ConfigMaps its Works applied"
"${k[@]}" get -n "$ns" configmap hello-config -o jsonpath='{.data}'; echo
"${k[@]}" get -n "$ns" configmap hello-summary -o jsonpath='{.data}'; echo
echo
echo "== an update runs both pipelines again"
"${k[@]}" patch -n "$ns" appconfig/hello --type merge -p '{"spec":{"greeting":"Hello again"}}'
wait_ready
"${k[@]}" get -n "$ns" configmap hello-config -o jsonpath='{.data}'; echo
"${k[@]}" get -n "$ns" configmap hello-config -o jsonpath='{.data.greeting}' | grep -qx 'Hello again' ||
  { echo "demo: the update did not reach the ConfigMap" >&2; exit 1; }
"${krt[@]}" -n "$ns" resource get appconfig hello
cat <<MSG

Demo done: $name Succeeded, and appconfig/hello was configured by its Promise twice (create, update). The endpoint made in deploy-workflow and checked in verify-workflow
(three levels down) reached the notify step. The environment is still up. Look around with:
  export KUBECONFIG=$KUBECONFIG
  $root/bin/krt wfr list                     # runs;   krt wfr get $name   for the tree
  $root/bin/krt run list                     # steps;  krt run logs NAME   for one step's log
  $root/bin/krt workflow trigger release --wait
  $root/.kruntimes/bin/kubectl get wf,wfr,krun
  $root/bin/krt promise list; $root/bin/krt -n $ns resource get appconfig hello
  $root/.kruntimes/bin/kubectl -n $ns label appconfig hello kruntimes.io/manual-reconciliation=true
Stop everything with: make down

These steps ran in bash (the local control plane has no kubelet). To run steps as containers in
Pods (runs-on: kubernetes), use the one-node cluster (root; docs/runtimes.md):
  make cluster-up && KUBECONFIG=$root/.kruntimes-cluster/kubeconfig make deploy
  kubectl apply -k config/samples/team-promise   # Kratix-shaped pipelines of containers
MSG
