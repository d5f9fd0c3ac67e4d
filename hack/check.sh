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
# The scenarios mostly wait on Kueue: compile every test binary meanwhile
# (-exec true links them and runs none), so that on a new machine the
# compiles overlap the waits. Its errors are shown, and fail the run, below.
(
	$GO test -race -count=1 -exec true ./... &&
		$GO test -count=1 -exec true ./test/e2e/trace &&
		(cd deploy/sandbox && $GO test -count=1 -exec true ./...) &&
		(cd test/install && $GO test -count=1 -exec true ./...) &&
		(cd hack/image && $GO test -count=1 -exec true ./...)
) >"$fresh/compile.log" 2>&1 &
compile=$!
make --no-print-directory sandbox-scenarios SCENARIO_OUT="$fresh"
echo "check: scenarios applied after $(( $(date +%s) - start ))s"
wait "$compile" || { cat "$fresh/compile.log"; echo "check: compiling the tests failed" >&2; exit 1; }
echo "check: tests compiled after $(( $(date +%s) - start ))s"

export KUEUEBOT_SANDBOX="$PWD/.sandbox"
export KUEUEBOT_FRESH_DUMPS="$fresh"
# A bound that fits a new, busy 2-core machine (go test's default is 10 min
# per package); CI's own limit is 90 min for the whole run.
timeout=-timeout=30m
# The end-to-end packages take the longest and mostly wait on the sandbox:
# started first, beside the unit tests, instead of last (go test runs
# packages in import-path order), so that the unit tests fill the cores
# while they wait. Their output is shown after the others'. The estimate's
# trace (test/e2e/trace) runs without -race: it measures the estimate
# against real admission times, and the race detector slows its stand-in
# kubelet and its sampling (the estimator's code is race-tested in
# package diagnose).
$GO test -race -count=1 $timeout ./test/e2e >"$fresh/e2e.log" 2>&1 &
e2e=$!
$GO test -count=1 $timeout ./test/e2e/trace >"$fresh/trace.log" 2>&1 &
trace=$!
status=0
$GO test -race -count=1 $timeout $($GO list ./... | grep -v '/test/e2e') || status=$?
(cd deploy/sandbox && $GO test -count=1 $timeout ./...) || status=$?
wait "$e2e" || status=$?
wait "$trace" || status=$?
cat "$fresh/e2e.log" "$fresh/trace.log"
# The estimate's accuracy figures (go test shows a passing test's log only with -v).
if [ -f "$fresh/estimate-trace.txt" ]; then cat "$fresh/estimate-trace.txt"; fi
[ "$status" -eq 0 ] || { echo "check: tests failed" >&2; exit "$status"; }
echo "check: tests done after $(( $(date +%s) - start ))s"
# What deploy/ ships, in modules of their own: the Helm chart and the
# kustomize base rendered and applied to the sandbox, least privilege on its
# API server (test/install); the daemonless image, the Dockerfile and the
# krew manifest (hack/image).
(cd test/install && $GO test -count=1 $timeout ./...)
echo "check: install tests done after $(( $(date +%s) - start ))s"
(cd hack/image && $GO test -count=1 $timeout ./...)
echo "check: image tests done after $(( $(date +%s) - start ))s"
