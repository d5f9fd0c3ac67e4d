package fetch

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Kueue v1beta1 objects (clusters running Kueue before v0.16, or dumps made
// with `kubectl get <kind>.v1beta1.kueue.x-k8s.io`) are converted to the
// v1beta2 types the diagnosis reads by the package's scheme, which holds
// Kueue's own conversion functions from sigs.k8s.io/kueue/apis/kueue/v1beta1
// (the code Kueue's conversion webhook runs: spec.cohort -> cohortName,
// admissionChecks -> admissionChecksStrategy, priorityClassName/Source ->
// priorityClassRef, status.flavorUsage -> flavorsUsage, ...). The functions
// below are the typed entry points the live reads use.

// fromV1beta1 converts a Kueue v1beta1 object into its v1beta2 type Out.
func fromV1beta1[Out any, PO interface {
	*Out
	runtime.Object
}](in runtime.Object) (*Out, error) {
	out := PO(new(Out))
	if err := scheme.Convert(in, out, nil); err != nil {
		kind, name := "object", "(unnamed)"
		if kinds, _, kerr := scheme.ObjectKinds(in); kerr == nil && len(kinds) > 0 {
			kind = kinds[0].Kind
		}
		if m, merr := metaOf(in); merr == nil {
			name = m.GetName()
			if ns := m.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
		}
		return nil, fmt.Errorf("converting %s %s from v1beta1: %w", kind, name, err)
	}
	if kinds, _, err := scheme.ObjectKinds(out); err == nil && len(kinds) > 0 {
		out.GetObjectKind().SetGroupVersionKind(kinds[0])
	}
	return (*Out)(out), nil
}

func workloadFromV1beta1(in *kueuev1beta1.Workload) (*kueue.Workload, error) {
	return fromV1beta1[kueue.Workload](in)
}

func clusterQueueFromV1beta1(in *kueuev1beta1.ClusterQueue) (*kueue.ClusterQueue, error) {
	return fromV1beta1[kueue.ClusterQueue](in)
}

func localQueueFromV1beta1(in *kueuev1beta1.LocalQueue) (*kueue.LocalQueue, error) {
	return fromV1beta1[kueue.LocalQueue](in)
}

func cohortFromV1beta1(in *kueuev1beta1.Cohort) (*kueue.Cohort, error) {
	return fromV1beta1[kueue.Cohort](in)
}

func flavorFromV1beta1(in *kueuev1beta1.ResourceFlavor) (*kueue.ResourceFlavor, error) {
	return fromV1beta1[kueue.ResourceFlavor](in)
}

func admissionCheckFromV1beta1(in *kueuev1beta1.AdmissionCheck) (*kueue.AdmissionCheck, error) {
	return fromV1beta1[kueue.AdmissionCheck](in)
}

// viaJSON converts between two types whose JSON forms agree (the visibility
// API's summaries, which have no registered conversion).
func viaJSON(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// fromUnstructured fills a typed object from an unstructured one.
func fromUnstructured(u *unstructured.Unstructured, out any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)
}

// toUnstructured turns a typed object into an unstructured one.
func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func priorityClassFromV1beta1(in *kueuev1beta1.WorkloadPriorityClass) (*kueue.WorkloadPriorityClass, error) {
	return fromV1beta1[kueue.WorkloadPriorityClass](in)
}
