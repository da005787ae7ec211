#!/usr/bin/env bash
# `make demo`, for now: the environment is up (make up ran first); install the sample Workflows
# and show the API. Running them end to end needs runtimed (its own issue).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
k=("$root/.kruntimes/bin/kubectl" --kubeconfig "$root/.kruntimes/kubeconfig")
echo "== the kruntimes.io API"
"${k[@]}" api-resources --api-group=kruntimes.io
echo
echo "== sample Workflows (config/samples: release -> deploy-workflow -> verify-workflow)"
"${k[@]}" apply -k "$root/config/samples"
"${k[@]}" get workflows
echo
echo "== kubectl explain workflow.spec.jobs"
"${k[@]}" explain workflow.spec.jobs | sed -n '1,25p'
cat <<MSG

The samples are installed and the controller is running. Running them end to end needs the
runtime agent (runtimed), which is not part of this build yet: a triggered run waits at its first
step. Look around with:
  export KUBECONFIG=$root/.kruntimes/kubeconfig
  $root/.kruntimes/bin/kubectl get wf
  $root/bin/krt validate -f $root/config/samples
  $root/bin/krt workflow trigger release      # creates the run; its steps wait for runtimed
Stop everything with: make down
MSG
