package diagnose

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueueconstants "sigs.k8s.io/kueue/pkg/constants"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"
	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
)

// Labels and annotations Kueue uses on jobs, from Kueue's own constants
// packages.
const (
	QueueNameLabel       = controllerconstants.QueueLabel
	JobUIDLabel          = controllerconstants.JobUIDLabel
	PrebuiltWorkloadName = controllerconstants.PrebuiltWorkloadLabel
	PodGroupNameLabel    = podconstants.GroupNameLabel
	AdmissionGatedBy     = kueueconstants.AdmissionGatedByAnnotation
	// WorkloadPriorityClassLabel names the job's WorkloadPriorityClass.
	WorkloadPriorityClassLabel = controllerconstants.WorkloadPriorityClassLabel
	// PodGroupTotalCountAnnotation is how many Pods a pod group has.
	PodGroupTotalCountAnnotation = podconstants.GroupTotalCountAnnotation
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

// Annotations of a batch Job that constrain its size (Kueue's
// pkg/controller/jobs/job, a controller package not imported here).
const (
	// JobMinParallelismAnnotation enables partial admission: Kueue may
	// admit the Job with as few pods as this.
	JobMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism"
	// JobCompletionsEqualParallelismAnnotation keeps completions equal to
	// parallelism (Indexed Jobs).
	JobCompletionsEqualParallelismAnnotation = "kueue.x-k8s.io/job-completions-equal-parallelism"
	// StoppingAnnotation marks a Job Kueue is stopping: it is not
	// suspended yet in Kueue's eyes.
	StoppingAnnotation = "kueue.x-k8s.io/stopping"
)

// suspendedForKueue is Kueue's IsSuspended: spec.suspend and not being
// stopped. Only then may the queue name, the parallelism of a Job with
// partial admission and (never started) the pod template's scheduling
// directives change.
func (j jobView) suspendedForKueue() bool {
	susp, ok := j.suspended()
	return ok && susp && j.u.GetAnnotations()[StoppingAnnotation] != "true"
}

// started reports status.startTime of a batch Job: Kubernetes lets a
// suspended Job's tolerations, node selector and affinity change only if
// it never started.
func (j jobView) started() bool {
	if j.u == nil {
		return false
	}
	_, found, _ := unstructured.NestedFieldNoCopy(j.u.Object, "status", "startTime")
	return found
}

// tolerations returns how many tolerations the Job's pod template has.
func (j jobView) tolerations() int {
	if j.u == nil {
		return 0
	}
	tols, _, _ := unstructured.NestedSlice(j.u.Object, "spec", "template", "spec", "tolerations")
	return len(tols)
}

func (j jobView) label(key string) string {
	if j.u == nil {
		return ""
	}
	return j.u.GetLabels()[key]
}

func (j jobView) annotation(key string) string {
	if j.u == nil {
		return ""
	}
	return j.u.GetAnnotations()[key]
}

// statusInt reads an integer field of the job's status.
func (j jobView) statusInt(field string) (int64, bool) {
	if j.u == nil {
		return 0, false
	}
	v, found, _ := unstructured.NestedInt64(j.u.Object, "status", field)
	return v, found
}
