package diagnose

import (
	"fmt"
	"regexp"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Kueue's preemption message (pkg/scheduler/preemption preemptionMessage):
// "Preempted to accommodate a workload (UID: U, JobUID: J) due to R;
// preemptor path: /cohort/cq; preemptee path: /cohort/cq".
var (
	rePreemptorUID  = regexp.MustCompile(`\(UID: ([^,)]+), JobUID: ([^)]+)\)`)
	rePreemptorPath = regexp.MustCompile(`preemptor path: ([^;]+)`)
)

// Preemptor is who preempted a Workload, as Kueue's message says.
type Preemptor struct {
	// UID is the preemptor's Workload UID; JobUID its job's (the
	// kueue.x-k8s.io/job-uid label), "" when Kueue did not know it.
	UID, JobUID types.UID
	// ClusterQueue is the preemptor's ClusterQueue (the last element of
	// the preemptor path), "" when unknown.
	ClusterQueue string
}

// PreemptorOf parses the Preempted (or Evicted) condition of a Workload that
// was preempted; ok is false when it was not, or the message names nobody.
func PreemptorOf(wl *kueue.Workload) (p Preemptor, ok bool) {
	for _, t := range []string{kueue.WorkloadPreempted, kueue.WorkloadEvicted} {
		c := apimeta.FindStatusCondition(wl.Status.Conditions, t)
		if c == nil || c.Status != metav1.ConditionTrue {
			continue
		}
		m := rePreemptorUID.FindStringSubmatch(c.Message)
		if m == nil {
			continue
		}
		p.UID = types.UID(known(m[1]))
		p.JobUID = types.UID(known(m[2]))
		if pm := rePreemptorPath.FindStringSubmatch(c.Message); pm != nil {
			path := strings.TrimSpace(pm[1])
			p.ClusterQueue = known(path[strings.LastIndex(path, "/")+1:])
		}
		return p, p.UID != "" || p.JobUID != ""
	}
	return Preemptor{}, false
}

func known(s string) string {
	if s == "UNKNOWN" {
		return ""
	}
	return s
}

// preemptorText names the preemptor for the verdict: its job, namespace
// and priority against ours when the caller could read its Workload, else
// its ClusterQueue; "" when nothing is known. Never a UID.
func (a *analysis) preemptorText() string {
	p, ok := PreemptorOf(a.wl)
	if !ok {
		return ""
	}
	if w := a.s.Preemptor; w != nil && w.UID == p.UID {
		who := fmt.Sprintf("workload %s/%s", w.Namespace, w.Name)
		if ref := metav1.GetControllerOfNoCopy(w); ref != nil {
			who = fmt.Sprintf("%s %s/%s", ref.Kind, w.Namespace, ref.Name)
		}
		if cq := preemptorQueue(w, p); cq != "" && cq != a.r.Queue.ClusterQueue {
			who += " of ClusterQueue " + cq
		}
		return fmt.Sprintf(" It was preempted by %s, priority %d against yours %d.", who, priorityOf(w), priorityOf(a.wl))
	}
	if p.ClusterQueue != "" && p.ClusterQueue != a.r.Queue.ClusterQueue {
		return fmt.Sprintf(" The preemptor is a workload of ClusterQueue %s that I could not read.", p.ClusterQueue)
	}
	if p.ClusterQueue != "" {
		return " The preemptor is a workload of the same ClusterQueue that I could not read."
	}
	return ""
}

// preemptorQueue is the preemptor's ClusterQueue: where it holds quota,
// else the last element of the preemptor path in Kueue's message.
func preemptorQueue(w *kueue.Workload, p Preemptor) string {
	if w.Status.Admission != nil {
		return string(w.Status.Admission.ClusterQueue)
	}
	return p.ClusterQueue
}

func priorityOf(w *kueue.Workload) int32 {
	if w.Spec.Priority == nil {
		return 0
	}
	return *w.Spec.Priority
}
