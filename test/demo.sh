#!/usr/bin/env bash
# `make demo`, for now: the control plane is up (make up ran first); install the sample Workflows
# and show the API. Running them end to end needs the controller and runtimed (their own issues).
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

The samples are installed. Running them end to end needs the controller and the runtime agent,
which are not part of this build yet. Look around with:
  export KUBECONFIG=$root/.kruntimes/kubeconfig
  $root/.kruntimes/bin/kubectl get wf
Stop everything with: make down
MSG
