//go:build tools

// Package tools pins the Kubernetes commands this module builds.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
	// kubectl (k8s.io/kubernetes/cmd/kubectl is a main package; this is what it runs).
	_ "k8s.io/kubectl/pkg/cmd"
)
