package diagnose

import (
	"time"

	"github.com/kueuebot/kueuebot/i18n"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// staleMirrorAfter is how long an eviction may wait for a MultiKueue job's
// status before the diagnosis calls the status stale: MultiKueue copies the
// worker's status back within seconds when it can.
const staleMirrorAfter = time.Minute

// staleMirror handles an eviction that cannot finish: Kueue releases an
// evicted Workload's quota only once its job reports no active pods, and on
// a MultiKueue manager nothing but MultiKueue writes the job's status, copied
// from the worker's copy. When the worker's copy is deleted before its stop
// is copied back, the manager's job keeps its last active count and the
// Workload keeps its quota (Kueue v0.17, kubernetes-sigs/kueue#15380).
func (a *analysis) staleMirror(ev *metav1.Condition) bool {
	if a.qr == nil || a.qr.Status != metav1.ConditionTrue || a.job.u == nil {
		return false
	}
	if mb, _, _ := unstructured.NestedString(a.job.u.Object, "spec", "managedBy"); mb != MultiKueueManagedBy {
		return false
	}
	if s, ok := a.job.suspended(); !ok || !s {
		return false
	}
	active, field, ok := a.job.activePods()
	if !ok || active == 0 {
		return false
	}
	since := a.s.Now.Sub(ev.LastTransitionTime.Time)
	if since < staleMirrorAfter {
		return false
	}
	cq := a.r.Queue.ClusterQueue
	// No command is shipped with these remedies: the stale state cannot be
	// made on purpose in the sandbox, and every command that changes the
	// cluster is applied by a scenario (TestEveryRemedyCommandIsApplied).
	a.remedyM("ClearStaleStatus", WhoPlatform, "", msg("diagnose.mkStale.remedy.clear", a.jobArg(), i18n.Verbatim(field)))
	a.remedyM("Recreate", WhoYou, "", msg("diagnose.mkStale.remedy.recreate", cqArg(cq)))
	return a.setM(CodeRequeuing, CauseStaleJobStatus,
		msg("diagnose.mkStale.headline", a.jobArg(), i18n.Num(active), cqArg(cq)),
		msg("diagnose.mkStale.detail", a.wlArg(a.wl.Name), i18n.Name(ev.Reason), i18n.Verbatim(waitText(since.Truncate(time.Second))), i18n.Verbatim(field), i18n.Num(active)))
}

// activePods is what Kueue's job integration counts as the job still
// running, for the kinds MultiKueue mirrors with a count: a batch Job's
// status.active, the sum of a JobSet's status.replicatedJobsStatus[].active.
// field names where the count was read.
func (j jobView) activePods() (n int64, field string, ok bool) {
	switch j.kind() {
	case "", "Job":
		n, ok = j.statusInt("active")
		return n, "status.active", ok
	case "JobSet":
		list, found, _ := unstructured.NestedSlice(j.u.Object, "status", "replicatedJobsStatus")
		if !found {
			return 0, "", false
		}
		for _, item := range list {
			m, _ := item.(map[string]any)
			v, _, _ := unstructured.NestedInt64(m, "active")
			n += v
		}
		return n, "status.replicatedJobsStatus[].active", true
	}
	return 0, "", false
}
