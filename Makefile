# Stagecoach build. `make help` lists the targets.
SHELL := /usr/bin/env bash
.DEFAULT_GOAL := build

BIN          := $(CURDIR)/bin
KUBE_BIN     := $(BIN)/kube
FLUX_BIN     := $(BIN)/flux
CONTROLLER_GEN := go tool -modfile=hack/tools/go.mod controller-gen
GOLANGCI_LINT  := go tool -modfile=hack/tools/go.mod golangci-lint

KUBE_COMMANDS := ./cmd/etcd k8s.io/kubernetes/cmd/kube-apiserver \
	k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
	k8s.io/kubernetes/cmd/kubectl sigs.k8s.io/kwok/cmd/kwok

.PHONY: help
help: ## Show this help.
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk -F':.*?## ' '{printf "  %-12s %s\n", $$1, $$2}'

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Static and path-independent, as in the image, so that both share the build cache.
GO_BUILD := CGO_ENABLED=0 go build -trimpath -ldflags '-X main.version=$(VERSION)'

.PHONY: build
build: ## Build the stagecoach binary into bin/, and bin/kubectl-stagecoach linked to it (kubectl's plugin name).
	$(GO_BUILD) -o $(BIN)/stagecoach ./cmd/stagecoach
	ln -sf stagecoach $(BIN)/kubectl-stagecoach

PLATFORMS ?= linux/$(shell go env GOARCH)

.PHONY: dist
dist: ## Render the release manifest dist/install.yaml (the Helm chart with default values, CRDs first) for kubectl apply -f.
	@mkdir -p dist && go run ./hack/render > dist/install.yaml && echo "wrote dist/install.yaml"

.PHONY: image
image: ## Build the controller image into dist/image (an OCI layout; no Docker). PLATFORMS=linux/amd64,linux/arm64 for more, PUSH=registry/repo:tag to push.
	cd hack/image && go run . -out $(CURDIR)/dist/image -platforms $(PLATFORMS) -version $(VERSION) $(if $(PUSH),-push $(PUSH))

.PHONY: test
test: verify-generated vet lint test-unit test-image test-e2e ## Run every check and test: generated files, vet, unit tests, the image, then the sandbox tests.

.PHONY: test-unit
test-unit: ## Run the tests that need no sandbox: pure logic, fake clients; no etcd or kube-apiserver.
	go test -timeout 5m ./...

.PHONY: test-image
test-image: ## Build the image, push it to a loopback registry and run the binary it holds.
	cd hack/image && go vet ./... && go test -count 1 -timeout 30m ./...

# Tests that start a sandbox (etcd, kube-apiservers, kwok) carry the e2e build tag, and run with
# -count=1: the test cache is shared between clones, and a cached pass says nothing of the sandbox
# today. The dashboard's test drives a headless Chromium, which it may not do without: make browser.
.PHONY: test-e2e
test-e2e: build kube flux browser ## Run the sandbox tests (the e2e build tag), building the Kubernetes components first.
	STAGECOACH_REQUIRE_BROWSER=1 go test -count=1 -tags e2e -timeout 60m $$(grep -rl --include='*_test.go' '^//go:build e2e' . | xargs -n1 dirname | sort -u)

.PHONY: browser
browser: ## Install Debian's chromium, for the dashboard's browser test, when no Chromium is on PATH.
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || hack/install-chromium.sh

TRIALS ?= 2
# Two sandbox fleets run their trials side by side: the trials mostly wait (soaks, approvals,
# restarts), and two fleets keep this project's 2-core reference machine busy.
PARALLEL ?= 2

.PHONY: chaos
chaos: build kube ## Crash trials: TRIALS rollouts (default 2) in PARALLEL fleets through a wave of five, bin/stagecoach's two replicas SIGKILLed every few seconds (the leader too), API servers and etcd stopped and clusters marked Down mid-wave; prints the violations (docs/reliability.md).
	hack/chaos.sh $(TRIALS) $(PARALLEL)

DEMO_DIR   ?= $(CURDIR)/.demo
DEMO_FLAGS ?=

.PHONY: demo
demo: build kube ## Run the guided demo: a sandbox fleet and a promotion through dev, staging and prod (DEMO_FLAGS=--unattended to run it without asking).
	$(BIN)/stagecoach demo --dir $(DEMO_DIR) $(DEMO_FLAGS)

.PHONY: demo-down
demo-down: ## Stop and remove the demo's fleet.
	$(BIN)/stagecoach sandbox down --dir $(DEMO_DIR)

.PHONY: bench
bench: build kube ## Benchmarks: health-check evaluation, cluster cache memory, promotion latency, and a chart rollout to three sandbox clusters.
	go test -run '^$$' -bench . -benchmem ./internal/health/ ./internal/fleet/
	go test -run '^$$' -bench PromotionLatency -benchtime 10x ./test/e2e/
	./hack/measure-rollout.sh

CLUSTERS ?= 1000
RUNS ?= 1
SHARDS ?= 1
BENCH_FLAGS ?=

.PHONY: bench-scale
bench-scale: build kube ## Scale benchmark: CLUSTERS simulated managed clusters (default 1000), a real management cluster, SHARDS controller processes (default 1), a promotion and an update run; one JSON line per run (RUNS, default 1), then one of the medians (docs/performance.md).
	go run ./hack/benchscale -clusters $(CLUSTERS) -runs $(RUNS) -shards $(SHARDS) -stagecoach $(BIN)/stagecoach -kube-bin $(KUBE_BIN) $(BENCH_FLAGS)

# The read side (the CLI's views, the planner, the operator actions, the dashboard, the demo)
# stands below the controllers: no package it links may be a reconciler or one of their helpers.
READ_SIDE   := ./internal/view ./internal/plan ./internal/operate ./internal/dashboard ./internal/demo
CONTROLLERS := github.com/stagecoach-dev/stagecoach/internal/controller/

.PHONY: vet
vet: ## go vet (with and without the e2e tag), gofmt on every Go file, and the read side below the controllers.
	go vet ./...
	go vet -tags e2e ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi
	@fail=; for pkg in $(READ_SIDE); do \
	  imports=$$(go list -deps -f '{{$$p := .ImportPath}}{{range .Imports}}{{$$p}} {{.}}{{"\n"}}{{end}}' $$pkg) || exit 1; \
	  edges=$$(echo "$$imports" | grep " $(CONTROLLERS)" | grep -v "^$(CONTROLLERS)" | sort -u); \
	  if [ -n "$$edges" ]; then \
	    fail=1; echo "$$pkg links the controllers, which the read side must stand below:"; \
	    echo "$$edges" | sed 's/^\([^ ]*\) /  \1 imports /'; \
	  fi; \
	done; [ -z "$$fail" ] || { echo "move what they use to api/, or to a package outside internal/controller/ that the controllers import too"; exit 1; }

.PHONY: lint
lint: ## golangci-lint with .golangci.yml (govet, staticcheck, errcheck, revive, misspell, gocognit, goimports).
	$(GOLANGCI_LINT) run ./...

GENERATED = api/*/*/zz_generated.deepcopy.go config/crd/*.yaml config/rbac/*.yaml charts/stagecoach/crds/*.yaml charts/stagecoach/files/role.yaml \
	charts/stagecoach/files/multicluster.x-k8s.io_clusterprofiles.yaml

.PHONY: verify-generated
verify-generated: ## Fail if the deepcopy code, CRDs or RBAC role are stale (and regenerate them).
	@before=$$(cat $(GENERATED) 2>/dev/null | sha256sum); \
	  $(MAKE) --no-print-directory -s generate; \
	  after=$$(cat $(GENERATED) 2>/dev/null | sha256sum); \
	  if [ "$$before" != "$$after" ]; then \
	    echo "generated files were stale: they are regenerated now; review and commit them"; exit 1; fi
	@stray=$$(grep -rl --include='*.go' '+kubebuilder:rbac' internal/controller | grep -v '/rbac\.go$$'); \
	  if [ -n "$$stray" ]; then echo "+kubebuilder:rbac markers outside rbac.go, where controller-gen may ignore them:"; \
	    echo "$$stray"; exit 1; fi

# The role is for the management cluster only: what the controller needs there, collected from the
# +kubebuilder:rbac markers in each controller package's rbac.go. Managed clusters are reached with
# their own kubeconfigs (deploy engines act on them through those) and need nothing from it.
.PHONY: generate
generate: ## Regenerate deepcopy code and CRDs from the API types, and the RBAC role from the reconcilers' markers; copy both into the Helm chart.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd
	@# The Kubefleet CRDs serve Kubefleet's older versions too, with the v1beta1 schema.
	go run ./hack/crdversions config/crd
	$(CONTROLLER_GEN) rbac:roleName=stagecoach-manager paths=./internal/controller/... output:rbac:artifacts:config=config/rbac
	@# The chart installs exactly these: copies, never edited by hand.
	rm -f charts/stagecoach/crds/*.yaml && cp config/crd/*.yaml charts/stagecoach/crds/
	@# The Cluster Inventory API's CRD may be another cluster manager's: a template installs it,
	@# and leaves one the release did not install alone (templates/clusterprofile-crd.yaml).
	mv charts/stagecoach/crds/multicluster.x-k8s.io_clusterprofiles.yaml charts/stagecoach/files/
	cp config/rbac/role.yaml charts/stagecoach/files/role.yaml

.PHONY: kube
kube: $(KUBE_BIN)/kwok-stages.yaml ## Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and kwok into bin/kube/.

# Stamp the version the components report (as release builds do), so /version and kubectl show
# v1.x.y rather than v0.0.0-master. The Go build cache makes a rebuild with nothing changed quick.
KUBE_VERSION = $(shell cd hack/kube && go list -m -f '{{.Version}}' k8s.io/kubernetes)
KUBE_LDFLAGS = -s -w $(foreach v,gitVersion=$(KUBE_VERSION) gitMajor=$(word 2,$(subst ., ,$(KUBE_VERSION:v%=x.%))) \
	gitMinor=$(word 3,$(subst ., ,$(KUBE_VERSION:v%=x.%))) gitTreeState=clean,-X k8s.io/component-base/version.$(v))

.PHONY: kube-commands
kube-commands:
	cd hack/kube && go build -ldflags '$(KUBE_LDFLAGS)' -o $(KUBE_BIN)/ $(KUBE_COMMANDS)

# kwok needs its stage definitions (node readiness and heartbeat, pod lifecycle); they ship in its module.
$(KUBE_BIN)/kwok-stages.yaml: kube-commands hack/kube/go.mod
	@dir=$$(cd hack/kube && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage; \
	for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
	         pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do \
	  echo '---'; cat "$$dir/$$f"; done > $@

# Flux's source-controller, for the Flux sources (GitRepository, OCIRepository, Bucket) that
# profiles read; its CRDs ship in its module, where the build reads them.
.PHONY: flux
flux: ## Build Flux's source-controller and notification-controller into bin/flux/, with their CRDs, for the sandbox and the notification tests.
	cd hack/flux && go build -ldflags '-s -w' -o $(FLUX_BIN)/ github.com/fluxcd/source-controller
	@dir=$$(cd hack/flux && go list -m -f '{{.Dir}}' github.com/fluxcd/source-controller)/config/crd/bases; \
	mkdir -p $(FLUX_BIN)/crds && rm -f $(FLUX_BIN)/crds/*.yaml && cp "$$dir"/*.yaml $(FLUX_BIN)/crds/ && chmod 644 $(FLUX_BIN)/crds/*.yaml
	cd hack/flux/notification && go build -ldflags '-s -w' -o $(FLUX_BIN)/ github.com/fluxcd/notification-controller
	@dir=$$(cd hack/flux/notification && go list -m -f '{{.Dir}}' github.com/fluxcd/notification-controller)/config/crd/bases; \
	mkdir -p $(FLUX_BIN)/notification-crds && rm -f $(FLUX_BIN)/notification-crds/*.yaml && cp "$$dir"/*.yaml $(FLUX_BIN)/notification-crds/ && chmod 644 $(FLUX_BIN)/notification-crds/*.yaml
