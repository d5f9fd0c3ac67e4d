// Package kueuename names Workloads as Kueue does, for the store and for
// generated test clusters alike.
package kueuename

// This file copies Kueue's workload naming
// (sigs.k8s.io/kueue/pkg/controller/jobframework/workload_names.go, v0.17.0),
// so that the package does not import sigs.k8s.io/kueue/pkg/...
// Copyright The Kubernetes Authors, Apache License 2.0.

import (
	"crypto/sha1" //nolint:gosec // Kueue names workloads with SHA-1; this is not a security use.
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

const (
	workloadNameHashLength = 5
	// maxWorkloadNameLength is Kueue's limit with the ShortWorkloadNames
	// feature gate off (its default in v0.17.0).
	maxWorkloadNameLength = 253
)

// WorkloadName returns the name Kueue gives the Workload it creates for an
// owner object (a Job, JobSet, RayJob, plain Pod, ...): lower(kind)-name,
// truncated, followed by "-" and the first 5 hex digits of a SHA-1 over kind,
// group, name and UID. The version is not part of the name.
func WorkloadName(ownerName string, ownerUID types.UID, ownerGVK schema.GroupVersionKind) string {
	prefix := strings.ToLower(ownerGVK.Kind) + "-" + ownerName
	if maxPrefix := maxWorkloadNameLength - 1 - workloadNameHashLength; len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	h := sha1.New() //nolint:gosec // see import.
	h.Write([]byte(ownerGVK.Kind))
	h.Write([]byte("\n"))
	h.Write([]byte(ownerGVK.Group))
	h.Write([]byte("\n"))
	h.Write([]byte(ownerName))
	h.Write([]byte("\n"))
	h.Write([]byte(ownerUID))
	return prefix + "-" + hex.EncodeToString(h.Sum(nil))[:workloadNameHashLength]
}
