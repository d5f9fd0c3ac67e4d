package fetch

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// Label keys and values Kueue and Kubernetes put on objects.
const (
	// QueueNameLabel names the LocalQueue on a job.
	QueueNameLabel = controllerconstants.QueueLabel
	// JobUIDLabel carries the owner job's UID on a Workload.
	JobUIDLabel = controllerconstants.JobUIDLabel
	// PrebuiltWorkloadLabel names a Workload created ahead of its job.
	PrebuiltWorkloadLabel = controllerconstants.PrebuiltWorkloadLabel
	// PodGroupNameLabel groups plain Pods into one Workload of that name.
	PodGroupNameLabel = kinds.PodGroupNameLabel
	// PodAdmissionGate is the scheduling gate Kueue holds on plain Pods until
	// admission.
	PodAdmissionGate = kinds.PodAdmissionGate
	// JobControllerUIDLabel is set by the Job controller on its Pods.
	JobControllerUIDLabel = kinds.JobControllerUIDLabel
)

// KindWorkload is the Kind of Kueue's Workload, which can also be a target.
const KindWorkload = kinds.Workload

// jobKinds are the registry's kinds that own a Workload through Kueue's
// job integrations, read as the job of a Workload: every kind but Pod and
// Workload.
func jobKinds() []kinds.Kind {
	all := kinds.All()
	out := all[:0]
	for _, k := range all {
		if k.Kind != kinds.Pod && k.Kind != kinds.Workload {
			out = append(out, k)
		}
	}
	return out
}

// ownerKind finds the registry's job kind (not Pod, not Workload) of an
// owner reference's apiVersion and kind.
func ownerKind(apiVersion, kind string) (*kinds.Kind, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, false
	}
	k, ok := kinds.ByGroupKind(gv.WithKind(kind).GroupKind())
	if !ok || k.Kind == kinds.Workload || k.Kind == kinds.Pod {
		return nil, false
	}
	return k, true
}

// QueueName returns the kueue.x-k8s.io/queue-name label of a job.
func QueueName(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	return labelOf(obj, QueueNameLabel)
}

// ErrBadTarget is returned by ParseTarget for input it cannot use.
var ErrBadTarget = errors.New("bad target")

// ParseTarget reads the user's "[KIND/]NAME" (e.g. "my-job", "jobs/my-job",
// "PyTorchJob/train", "wl/job-my-job-80d69") into a Target in namespace.
// The Kind of the result is the canonical one ("Job", "PyTorchJob", ...).
func ParseTarget(arg, namespace string) (diagnose.Target, error) {
	arg = strings.TrimSpace(arg)
	kindWord, name, hasKind := strings.Cut(arg, "/")
	if !hasKind {
		kindWord, name = "", arg
	}
	if name == "" || strings.Contains(name, "/") {
		return diagnose.Target{}, fmt.Errorf("%w %q: want [KIND/]NAME", ErrBadTarget, arg)
	}
	k, ok := kinds.Lookup(kindWord)
	if !ok {
		return diagnose.Target{}, fmt.Errorf("%w %q: unknown kind %q (supported: %s)", ErrBadTarget, arg, kindWord, kinds.Words())
	}
	return diagnose.Target{Kind: k.Kind, Namespace: namespace, Name: name}, nil
}

// labelOf is obj.GetLabels()[key] without copying the labels (GetLabels
// makes a new map on every call, and a digest asks thousands of jobs).
func labelOf(obj *unstructured.Unstructured, key string) string {
	md, _ := obj.Object["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	v, _ := labels[key].(string)
	return v
}
