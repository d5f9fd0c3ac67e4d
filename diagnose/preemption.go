package diagnose

import (
	"regexp"
	"strconv"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
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

// preemptorMsg names the preemptor for the verdict: its job, namespace
// and priority against ours when the caller could read its Workload, else
// its ClusterQueue; the zero Message when nothing is known. Never a UID.
func (a *analysis) preemptorMsg() i18n.Message {
	p, ok := PreemptorOf(a.wl)
	if !ok {
		return i18n.Message{}
	}
	if w := a.s.Preemptor; w != nil && w.UID == p.UID {
		who := msg("diagnose.preemptor.workload", i18n.Name(w.Namespace+"/"+w.Name))
		if ref := metav1.GetControllerOfNoCopy(w); ref != nil {
			who = msg("diagnose.preemptor.job", i18n.Name(ref.Kind), i18n.Name(w.Namespace+"/"+ref.Name))
		}
		if cq := preemptorQueue(w, p); cq != "" && cq != a.r.Queue.ClusterQueue {
			who = msg("diagnose.preemptor.ofCQ", who, cqArg(cq))
		}
		return msg("diagnose.preemptor.known", who, priorityArg(w), priorityArg(a.wl))
	}
	if p.ClusterQueue != "" && p.ClusterQueue != a.r.Queue.ClusterQueue {
		return msg("diagnose.preemptor.otherCQ", cqArg(p.ClusterQueue))
	}
	if p.ClusterQueue != "" {
		return msg("diagnose.preemptor.sameCQ")
	}
	return i18n.Message{}
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

// priorityArg is a Workload's priority as written in its spec (no digit
// grouping: it is a value the user compares with a PriorityClass).
func priorityArg(w *kueue.Workload) i18n.Verbatim {
	return i18n.Verbatim(strconv.Itoa(int(priorityOf(w))))
}
