# kueuebot: make help lists the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/kueuebot
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(CURDIR)/bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# The image's build flags (hack/image/rootfs: static, -trimpath), so that one
# compile of the dependencies serves bin/kueuebot, the end-to-end tests' binary
# and the image tests: on a new 2-core machine each other set of flags is a
# full recompile of every dependency.
BUILD_ENV := CGO_ENABLED=0
BUILD_FLAGS := -trimpath

.PHONY: build
build: ## Build bin/kueuebot (static, -trimpath: the image's flags).
	$(BUILD_ENV) $(GO) build $(BUILD_FLAGS) -o $(BIN) ./cmd/kueuebot

.PHONY: test
test: ## Unit tests only (no cluster needed; end-to-end tests skip), with the race detector.
	$(GO) test -race -count=1 ./...

.PHONY: check
check: ## What CI runs: every test, end-to-end ones on the sandbox (built on first use; a cold run on a quiet 2-core machine takes about 27 min).
	@GO=$(GO) hack/check.sh

.PHONY: e2e
e2e: check ## Alias of check.

.PHONY: bench
bench: ## Benchmarks of the diagnosis core and the fetch path.
	$(GO) test -run '^$$' -bench . -benchmem ./diagnose/...

$(GOLANGCI_LINT):
	GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(CURDIR)/bin/golangci-lint $@

.PHONY: lint
lint: $(GOLANGCI_LINT) ## golangci-lint (installed through the Go toolchain, pinned).
	$(GOLANGCI_LINT) run ./...

.PHONY: verify
verify: ## gofmt, go vet, go mod tidy check (the product's module and the install and image modules).
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) mod tidy -diff
	cd test/install && $(GO) vet ./... && $(GO) mod tidy -diff
	cd hack/image && $(GO) vet ./... && $(GO) mod tidy -diff

.PHONY: image
image: ## Build the container image without a daemon: an OCI layout in dist/image (VERSION, IMAGE_PLATFORMS).
	cd hack/image && $(GO) run . build -version $(VERSION) -platform $(IMAGE_PLATFORMS) -o $(CURDIR)/dist/image

.PHONY: image-push
image-push: ## Push dist/image to IMAGE=registry/repository:tag with your docker login credentials.
	@test -n "$(IMAGE)" || { echo 'image-push: set IMAGE=registry/repository:tag'; exit 2; }
	cd hack/image && $(GO) run . push -layout $(CURDIR)/dist/image $(IMAGE)

.PHONY: chart
chart: ## Lint the Helm chart and package it into dist/ (kueuebot-<version>.tgz).
	cd test/install && $(GO) run ./cmd/chart -o $(CURDIR)/dist

.PHONY: manifests
manifests: ## Regenerate deploy/manifests (the kustomize base) from the Helm chart's default values.
	cd test/install && $(GO) run ./cmd/manifests

.PHONY: krew
krew: ## Build the kubectl plugin's release archives and krew manifest into dist/krew (VERSION=vX.Y.Z).
	cd hack/image && $(GO) run . krew -version $(VERSION) -o $(CURDIR)/dist/krew

.PHONY: docs
docs: ## Regenerate docs/config.md (the configuration reference) and the chart schema's config part from the config package.
	$(GO) run ./hack/configdoc -config config -o docs/config.md -schema deploy/helm/kueuebot/values.schema.json

.PHONY: demo
demo: ## Chat with the bot in the terminal, on the embedded real-Kueue dumps (no cluster needed).
	@$(GO) run ./cmd/kueuebot chat $(DEMO_FLAGS)

.PHONY: demo-live
demo-live: sandbox-runner ## The same chat against the running sandbox (make sandbox-up sandbox-scenarios first).
	@$(SANDBOX_RUNNER) apply -state=$(SANDBOX_STATE) -f deploy/sandbox/demo-rbac.yaml >/dev/null && sleep 2
	@$(GO) run ./cmd/kueuebot chat --kubeconfig $(SANDBOX_STATE)/kubeconfig-kueuebot $(DEMO_FLAGS)

-include deploy/sandbox/sandbox.mk
