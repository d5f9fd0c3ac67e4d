package diagnose

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Labels and annotations Kueue uses on jobs (pkg/controller/constants).
const (
	QueueNameLabel       = "kueue.x-k8s.io/queue-name"
	JobUIDLabel          = "kueue.x-k8s.io/job-uid"
	PrebuiltWorkloadName = "kueue.x-k8s.io/prebuilt-workload-name"
	PodGroupNameLabel    = "kueue.x-k8s.io/pod-group-name"
	AdmissionGatedBy     = "kueue.x-k8s.io/admission-gated-by"
)

// jobView reads the few fields of a job object of any kind that the
// diagnosis needs.
type jobView struct{ u *unstructured.Unstructured }

func (j jobView) kind() string {
	if j.u == nil {
		return ""
	}
	return j.u.GetKind()
}

func (j jobView) queueName() string {
	if j.u == nil {
		return ""
	}
	return j.u.GetLabels()[QueueNameLabel]
}

// suspended reports spec.suspend (Job, JobSet, RayJob, ...) or
// spec.runPolicy.suspend (Kubeflow); ok is false when the kind has neither.
func (j jobView) suspended() (suspended, ok bool) {
	if j.u == nil {
		return false, false
	}
	if v, found, _ := unstructured.NestedBool(j.u.Object, "spec", "suspend"); found {
		return v, true
	}
	if v, found, _ := unstructured.NestedBool(j.u.Object, "spec", "runPolicy", "suspend"); found {
		return v, true
	}
	return false, false
}

// parallelism returns spec.parallelism of a batch Job (default 1).
func (j jobView) parallelism() (int64, bool) {
	if j.u == nil || j.kind() != "Job" {
		return 0, false
	}
	v, found, _ := unstructured.NestedInt64(j.u.Object, "spec", "parallelism")
	if !found {
		return 1, true
	}
	return v, true
}

// finished returns "Succeeded"/"Failed" and the condition message when the
// job's own status says it finished (batch Job Complete/Failed, JobSet
// Completed/Failed, ...).
func (j jobView) finished() (Cause, string) {
	if j.u == nil {
		return "", ""
	}
	conds, _, _ := unstructured.NestedSlice(j.u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["type"].(string)
		st, _ := m["status"].(string)
		msg, _ := m["message"].(string)
		if !strings.EqualFold(st, "True") {
			continue
		}
		switch t {
		case "Complete", "Completed", "Succeeded":
			return CauseSucceeded, msg
		case "Failed":
			return CauseFailed, msg
		}
	}
	return "", ""
}
