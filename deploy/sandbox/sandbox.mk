# kueuebot sandbox: a loopback-only kube-apiserver + etcd + controller-manager + scheduler
# + the real Kueue v0.17.0. Included by the root Makefile. See deploy/sandbox/README.md.
SANDBOX_SRC    := $(CURDIR)/deploy/sandbox
SANDBOX_STATE  ?= $(CURDIR)/.sandbox
SANDBOX_CACHE  ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kueuebot-sandbox
SANDBOX_RUNNER := $(CURDIR)/bin/sandbox
SANDBOX_KUBE_BIN  := $(SANDBOX_CACHE)/bin/k8s-v1.35.4-etcd-v3.6.5
SANDBOX_KUEUE_BIN := $(SANDBOX_CACHE)/bin/kueue-v0.17.0
SANDBOX_JOBSET_BIN := $(SANDBOX_CACHE)/bin/jobset-v0.11.1
SANDBOX_FLAGS  = -state=$(SANDBOX_STATE) -kube-bin=$(SANDBOX_KUBE_BIN) -kueue-bin=$(SANDBOX_KUEUE_BIN) -jobset-bin=$(SANDBOX_JOBSET_BIN) \
	-build-dir=$(SANDBOX_SRC)/build/kueue -go=$(GO)

.PHONY: sandbox-runner
sandbox-runner:
	@cd $(SANDBOX_SRC) && $(GO) build -o $(SANDBOX_RUNNER) ./cmd/sandbox

.PHONY: sandbox-build
sandbox-build: sandbox-runner ## Build the sandbox binaries (cached in $XDG_CACHE_HOME/kueuebot-sandbox).
	@KUEUEBOT_SANDBOX_CACHE=$(SANDBOX_CACHE) GO=$(GO) $(SANDBOX_SRC)/scripts/build.sh all

.PHONY: sandbox-up
sandbox-up: sandbox-build ## Start the loopback sandbox; exits 0 once Kueue admits a smoke Job (SANDBOX_WORKER=1: and a MultiKueue worker).
	@$(SANDBOX_RUNNER) up $(SANDBOX_FLAGS) $(if $(filter 1 true yes,$(SANDBOX_VISIBILITY)),-visibility) $(if $(filter 1 true yes,$(SANDBOX_WORKER)),-worker)

.PHONY: sandbox-down
sandbox-down: ## Stop every sandbox process (by PID file); idempotent.
	@if [ -x $(SANDBOX_RUNNER) ]; then $(SANDBOX_RUNNER) down -state=$(SANDBOX_STATE); \
	else cd $(SANDBOX_SRC) && $(GO) run ./cmd/sandbox down -state=$(SANDBOX_STATE); fi

.PHONY: sandbox-status
sandbox-status: ## Show which sandbox components run.
	@$(SANDBOX_RUNNER) status -state=$(SANDBOX_STATE)

.PHONY: sandbox-scenarios
sandbox-scenarios: sandbox-runner build ## Apply the scenarios to a running sandbox and write deploy/examples/scenarios/*.yaml (or SCENARIO_OUT).
	@$(SANDBOX_RUNNER) scenarios $(SANDBOX_FLAGS) -scenarios=$(SANDBOX_SRC)/scenarios \
		-kueuebot=$(CURDIR)/$(BIN) -out=$(or $(SCENARIO_OUT),$(CURDIR)/deploy/examples/scenarios) $(if $(SCENARIO),-only=$(SCENARIO))

.PHONY: sandbox-verify
sandbox-verify: ## gofmt, go vet, go mod tidy check of the sandbox modules; expect.yaml vs dumps test.
	@test -z "$$(gofmt -l $(SANDBOX_SRC))" || { gofmt -l $(SANDBOX_SRC); exit 1; }
	cd $(SANDBOX_SRC) && $(GO) vet ./... && $(GO) test ./... && $(GO) mod tidy -diff
	cd $(SANDBOX_SRC)/build/kube && $(GO) vet ./... && $(GO) mod tidy -diff
	cd $(SANDBOX_SRC)/build/kueue && $(GO) mod tidy -diff
	cd $(SANDBOX_SRC)/build/jobset && $(GO) mod tidy -diff
