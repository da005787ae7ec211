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
cat <<MSG

Demo done: $name Succeeded; the endpoint made in deploy-workflow and checked in verify-workflow
(three levels down) reached the notify step. The environment is still up. Look around with:
  export KUBECONFIG=$KUBECONFIG
  $root/bin/krt wfr list                     # runs;   krt wfr get $name   for the tree
  $root/bin/krt run list                     # steps;  krt run logs NAME   for one step's log
  $root/bin/krt workflow trigger release --wait
  $root/.kruntimes/bin/kubectl get wf,wfr,krun
Stop everything with: make down
MSG
