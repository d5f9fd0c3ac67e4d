#!/usr/bin/env bash
# Everything CI runs: start the sandbox (a real kube-apiserver with RBAC and
# the real Kueue on 127.0.0.1, built on first use), apply the scenarios, run
# every test (unit and end-to-end, in every module) against it, and stop the
# sandbox whatever happens. Usage: hack/check.sh  (or: make check)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
fresh=$(mktemp -d)
cleanup() {
	status=$?
	make --no-print-directory sandbox-down || status=1
	rm -rf "$fresh"
	exit "$status"
}
trap cleanup EXIT INT TERM

start=$(date +%s)
# Kueue's visibility API on (queue positions read live); SANDBOX_VISIBILITY=0
# runs without it, as clusters that disable it do.
make --no-print-directory sandbox-up SANDBOX_VISIBILITY="${SANDBOX_VISIBILITY:-1}"
echo "check: sandbox up after $(( $(date +%s) - start ))s"
make --no-print-directory sandbox-scenarios SCENARIO_OUT="$fresh"
echo "check: scenarios applied after $(( $(date +%s) - start ))s"

export KUEUEBOT_SANDBOX="$PWD/.sandbox"
export KUEUEBOT_FRESH_DUMPS="$fresh"
$GO test -race -count=1 ./...
(cd deploy/sandbox && $GO test -count=1 ./...)
echo "check: tests done after $(( $(date +%s) - start ))s"
# What deploy/ ships, in modules of their own: the Helm chart and the
# kustomize base rendered and applied to the sandbox, least privilege on its
# API server (test/install); the daemonless image, the Dockerfile and the
# krew manifest (hack/image).
(cd test/install && $GO test -count=1 ./...)
echo "check: install tests done after $(( $(date +%s) - start ))s"
(cd hack/image && $GO test -count=1 ./...)
echo "check: image tests done after $(( $(date +%s) - start ))s"
