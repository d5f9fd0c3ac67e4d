package fetch

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// This file converts Kueue v1beta1 objects (clusters running Kueue before
// v0.16, or dumps made with `kubectl get <kind>.v1beta1.kueue.x-k8s.io`) into
// the v1beta2 types the diagnosis reads.
//
// Workload, ClusterQueue, LocalQueue and Cohort changed between the versions
// (spec.cohort -> spec.cohortName, spec.admissionChecks ->
// admissionChecksStrategy, priorityClassName/Source -> priorityClassRef,
// status.flavorUsage -> flavorsUsage, ...); for those, Kueue's own conversion
// functions from sigs.k8s.io/kueue/apis/kueue/v1beta1 are used, the same code
// the conversion webhook runs. ResourceFlavor, AdmissionCheck and
// WorkloadPriorityClass kept their field names, so a JSON round trip is
// enough (removed fields such as retryDelayMinutes are dropped).

func workloadFromV1beta1(in *kueuev1beta1.Workload) (*kueue.Workload, error) {
	out := &kueue.Workload{}
	if err := in.ConvertTo(out); err != nil {
		return nil, fmt.Errorf("converting Workload %s/%s from v1beta1: %w", in.Namespace, in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("Workload"))
	return out, nil
}

func clusterQueueFromV1beta1(in *kueuev1beta1.ClusterQueue) (*kueue.ClusterQueue, error) {
	out := &kueue.ClusterQueue{}
	if err := in.ConvertTo(out); err != nil {
		return nil, fmt.Errorf("converting ClusterQueue %s from v1beta1: %w", in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("ClusterQueue"))
	return out, nil
}

func localQueueFromV1beta1(in *kueuev1beta1.LocalQueue) (*kueue.LocalQueue, error) {
	out := &kueue.LocalQueue{}
	if err := in.ConvertTo(out); err != nil {
		return nil, fmt.Errorf("converting LocalQueue %s/%s from v1beta1: %w", in.Namespace, in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("LocalQueue"))
	return out, nil
}

func cohortFromV1beta1(in *kueuev1beta1.Cohort) (*kueue.Cohort, error) {
	out := &kueue.Cohort{}
	if err := in.ConvertTo(out); err != nil {
		return nil, fmt.Errorf("converting Cohort %s from v1beta1: %w", in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("Cohort"))
	return out, nil
}

// viaJSON converts between two types whose JSON forms agree.
func viaJSON(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func flavorFromV1beta1(in *kueuev1beta1.ResourceFlavor) (*kueue.ResourceFlavor, error) {
	out := &kueue.ResourceFlavor{}
	if err := viaJSON(in, out); err != nil {
		return nil, fmt.Errorf("converting ResourceFlavor %s from v1beta1: %w", in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("ResourceFlavor"))
	return out, nil
}

func admissionCheckFromV1beta1(in *kueuev1beta1.AdmissionCheck) (*kueue.AdmissionCheck, error) {
	out := &kueue.AdmissionCheck{}
	if err := viaJSON(in, out); err != nil {
		return nil, fmt.Errorf("converting AdmissionCheck %s from v1beta1: %w", in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("AdmissionCheck"))
	return out, nil
}

func priorityClassFromV1beta1(in *kueuev1beta1.WorkloadPriorityClass) (*kueue.WorkloadPriorityClass, error) {
	out := &kueue.WorkloadPriorityClass{}
	if err := viaJSON(in, out); err != nil {
		return nil, fmt.Errorf("converting WorkloadPriorityClass %s from v1beta1: %w", in.Name, err)
	}
	out.SetGroupVersionKind(kueue.GroupVersion.WithKind("WorkloadPriorityClass"))
	return out, nil
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
