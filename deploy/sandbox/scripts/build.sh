#!/bin/sh
# Builds the sandbox binaries into a cache directory keyed by versions, outside the repo.
# Usage: build.sh [all|kube|kueue|jobset]   (prints the bin dirs)
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
K8S_VERSION=v1.35.4
ETCD_VERSION=v3.6.5
KUEUE_VERSION=v0.17.0
# The JobSet controller at the version Kueue v0.17.0's go.mod pins (build/jobset/go.mod).
JOBSET_VERSION=v0.11.1
CACHE=${KUEUEBOT_SANDBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kueuebot-sandbox}
KUBE_BIN=$CACHE/bin/k8s-$K8S_VERSION-etcd-$ETCD_VERSION
KUEUE_BIN=$CACHE/bin/kueue-$KUEUE_VERSION
JOBSET_BIN=$CACHE/bin/jobset-$JOBSET_VERSION
GO=${GO:-go}
what=${1:-all}

build_kube() {
	mkdir -p "$KUBE_BIN"
	cd "$HERE/build/kube"
	ld="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=35 -X k8s.io/component-base/version.gitTreeState=clean"
	# kubectl: the scenarios' remedy steps run the commands kueuebot prints with it.
	# The missing ones in one go build -o DIR: one load of the package graph
	# and one compile of what they share (most of k8s.io/kubernetes), where
	# four builds would each load it and link one after another. No
	# -trimpath: the sandbox runner and its tests (module deploy/sandbox, the
	# same k8s.io libraries v0.35.4) are built without it, so the compiled
	# client-go, api and apimachinery packages are shared with them.
	missing=
	for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
		[ -x "$KUBE_BIN/$c" ] || missing="$missing k8s.io/kubernetes/cmd/$c"
	done
	if [ -n "$missing" ]; then
		echo "building$missing $K8S_VERSION" | sed 's#k8s.io/kubernetes/cmd/##g' >&2
		tmp=$(mktemp -d "$KUBE_BIN/.build.XXXXXX")
		# shellcheck disable=SC2086 # $missing is a list of packages
		$GO build -ldflags "$ld" -o "$tmp/" $missing
		for f in "$tmp"/*; do mv "$f" "$KUBE_BIN/"; done
		rmdir "$tmp"
	fi
	if [ ! -x "$KUBE_BIN/etcd" ]; then
		echo "building etcd $ETCD_VERSION" >&2
		$GO build -trimpath -ldflags "-s -w" -o "$KUBE_BIN/etcd.tmp" ./etcd
		mv "$KUBE_BIN/etcd.tmp" "$KUBE_BIN/etcd"
	fi
}

build_kueue() {
	mkdir -p "$KUEUE_BIN"
	cd "$HERE/build/kueue"
	if [ ! -x "$KUEUE_BIN/kueue" ]; then
		echo "building kueue $KUEUE_VERSION" >&2
		$GO build -trimpath -ldflags "-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" -o "$KUEUE_BIN/kueue.tmp" sigs.k8s.io/kueue/cmd/kueue
		mv "$KUEUE_BIN/kueue.tmp" "$KUEUE_BIN/kueue"
	fi
}

build_jobset() {
	mkdir -p "$JOBSET_BIN"
	cd "$HERE/build/jobset"
	if [ ! -x "$JOBSET_BIN/jobset" ]; then
		echo "building jobset $JOBSET_VERSION" >&2
		$GO build -trimpath -ldflags "-s -w -X sigs.k8s.io/jobset/pkg/version.GitVersion=$JOBSET_VERSION" -o "$JOBSET_BIN/jobset.tmp" sigs.k8s.io/jobset
		mv "$JOBSET_BIN/jobset.tmp" "$JOBSET_BIN/jobset"
	fi
}

case $what in
all)
	# Kubernetes and Kueue side by side: each go build links its binaries
	# on one core, and the other build's compiles fill the idle one. JobSet
	# comes after Kueue, whose compiled packages it reuses.
	build_kube &
	kube=$!
	trap 'kill "$kube" 2>/dev/null || true' EXIT
	build_kueue
	wait "$kube"
	trap - EXIT
	build_jobset
	;;
kube) build_kube ;;
kueue) build_kueue ;;
jobset) build_jobset ;;
*) echo "usage: $0 [all|kube|kueue|jobset]" >&2; exit 2 ;;
esac
echo "kube: $KUBE_BIN"
echo "kueue: $KUEUE_BIN"
echo "jobset: $JOBSET_BIN"
