# kruntimes-ts: `make demo` and `make test` do all setup on a fresh machine.
SHELL := /bin/bash
# Every target runs on the pinned Node.js of .node-version, fetched once into the cache outside the
# repository (tools/fetch-node.sh); the machine's own Node.js only runs npm's first fetch.
NODE_BIN := $(shell tools/fetch-node.sh)
ifeq ($(NODE_BIN),)
$(error could not fetch the pinned Node.js (see the message above))
endif
export PATH := $(NODE_BIN):$(PATH)
# The step sandbox of runtimed (bubblewrap), fetched the same way (tools/fetch-bwrap.sh).
export KRT_BWRAP := $(shell tools/fetch-bwrap.sh)
ifeq ($(KRT_BWRAP),)
$(error could not fetch bubblewrap (see the message above))
endif
export NODE_OPTIONS := --experimental-vm-modules
JEST := node_modules/.bin/jest

.PHONY: install build up down test unit integration demo bench chaos memory lint format gen controlplane image cluster-up cluster-down e2e-cluster kind-e2e deploy

install: node_modules/.installed

node_modules/.installed: package.json package-lock.json .node-version
	@echo "node $$(node --version), npm $$(npm --version)"
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

build: install
	node_modules/.bin/tsc -p tsconfig.build.json
	node tools/bundle.mjs

# Builds the pinned control plane into the cache outside the repository (slow only the first time).
controlplane:
	@bash test/controlplane/build.sh >/dev/null

# The image (Containerfile) with podman: on BASE_IMAGE when given (an official Node.js 24 image),
# else on a local base made once with debootstrap (tools/image/base.sh). IMAGE names the result.
image: install
	@bash tools/image/build.sh >/dev/null

# Installs config/default on the cluster of the current kubeconfig, after checking that
# cert-manager is there and that the API server accepts every object (tools/deploy.sh).
deploy:
	@bash tools/deploy.sh

# A real one-node Kubernetes on this machine (root; test/cluster): the control plane above plus
# kubelet, kube-scheduler, kube-proxy, containerd and cert-manager, with the image imported.
cluster-up: install
	@bash test/cluster/up.sh

cluster-down:
	@bash test/cluster/down.sh

# Deploys config/default on that cluster (started if needed) and runs test/e2e-cluster through it.
e2e-cluster: install
	$(JEST) --selectProjects cluster --runInBand

# The same suite on a kind cluster, for users with Docker (not exercised on these machines).
kind-e2e: install
	@bash test/cluster/kind.sh

up: install
	@bash test/controlplane/up.sh

down:
	@bash test/controlplane/down.sh

# Every test: unit tests beside the code, then the suites in test/ against the local control plane
# (started by the jest global setup when it is not running, and stopped again if it started it).
# The runner's own report goes to .jest-report.json; .ci/run reads its counts.
test: install controlplane
	$(JEST) --ci --runInBand --forceExit --json --outputFile=.jest-report.json

unit: install
	$(JEST) --selectProjects unit

integration: install controlplane
	$(JEST) --selectProjects integration --runInBand

demo: up
	@bash test/demo.sh

# Figures printed, nothing asserted. Uses (and starts if needed) the local environment, and for
# the Pod runtime the one-node cluster (root; test/cluster), which it leaves running (make cluster-down).
bench: up
	node_modules/.bin/tsx test/bench/core.bench.ts
	node_modules/.bin/tsx test/bench/webhook.bench.ts
	node_modules/.bin/tsx test/bench/controller.bench.ts
	node_modules/.bin/tsx test/bench/runtimed.bench.ts
	node_modules/.bin/tsx test/bench/pods.bench.ts

# Load with faults injected (test/chaos/chaos.ts): 1,200 WorkflowRuns, one table, bounded at about
# 20 minutes on 2 cores. Uses (and starts if needed) the local environment, and as root the one-node
# cluster for the Pod executor's share (KRT_CHAOS_PODS=none leaves it out).
chaos: up
	node_modules/.bin/tsx test/chaos/chaos.ts

# RSS of the controller, webhook and runtimed with 10,000 finished WorkflowRuns in the cluster.
memory: up
	node_modules/.bin/tsx test/chaos/memory.ts

lint: install
	node_modules/.bin/tsc -p tsconfig.json --noEmit
	node_modules/.bin/eslint .
	node_modules/.bin/prettier --check .

format: install
	node_modules/.bin/prettier --write .

# Regenerates config/crd/ and src/api/types.generated.ts from src/api/schema.ts.
gen: install
	node_modules/.bin/tsx tools/generate-api.ts
