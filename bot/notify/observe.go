package notify

import (
	"slices"
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/i18n"
)

// EventType is what happened to a subscribed job, as the DM says it.
type EventType string

// Event types. Reserved, Admitted, Running, Evicted and Preempted come from
// the Workload (Running from its Pods); Succeeded and Failed end the
// subscription, as do the notes Expired, LostAccess and Gone, which come
// from the subscription itself.
const (
	// Reserved: QuotaReserved is True and Admitted is not yet: the
	// admission checks are still to pass.
	Reserved EventType = "Reserved"
	// Admitted: the Admitted condition became True.
	Admitted EventType = "Admitted"
	// Running: every Pod the Workload counts is Running or Succeeded
	// (or Kueue's PodsReady condition is True), after an admission.
	Running EventType = "Running"
	// Evicted: the Evicted condition became True for another reason than
	// preemption (PodsReadyTimeout, AdmissionCheck, ClusterQueueStopped,
	// LocalQueueStopped, Deactivated, NodeFailures, ...).
	Evicted EventType = "Evicted"
	// Preempted: evicted with reason Preempted (the Preempted condition
	// says by whom: InClusterQueue, InCohort...).
	Preempted EventType = "Preempted"
	// Succeeded: Finished is True with reason Succeeded. Terminal.
	Succeeded EventType = "Succeeded"
	// Failed: Finished is True with any other reason. Terminal.
	Failed EventType = "Failed"
	// Expired: the subscription reached notify.expireAfter. Terminal.
	Expired EventType = "Expired"
	// LostAccess: the subscriber may no longer read the job (refused by
	// the identity mapping, or Forbidden). Terminal; the note says
	// nothing about the job.
	LostAccess EventType = "LostAccess"
	// Gone: the job and its Workload were deleted. Terminal.
	Gone EventType = "Gone"
)

// Terminal reports whether the event ends the subscription.
func (t EventType) Terminal() bool {
	switch t {
	case Succeeded, Failed, Expired, LostAccess, Gone:
		return true
	}
	return false
}

// Event is one thing to tell a subscriber. Key names it uniquely within
// the subscription, from the Workload's own data (the condition and its
// lastTransitionTime), so that every replica that looks at the same
// Workload derives the same key: that is what makes a message exactly-once.
type Event struct {
	Key  string    `json:"key"`
	Type EventType `json:"type"`
	// At is when it happened (the condition's lastTransitionTime).
	At time.Time `json:"at"`
	// Reason and Message are the condition's (Kueue's words, shown as
	// quoted text).
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// ClusterQueue is the admitting ClusterQueue, for Reserved and
	// Admitted.
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// Pods are the counts behind Running: running (or succeeded) of total.
	PodsRunning int `json:"podsRunning,omitempty"`
	PodsTotal   int `json:"podsTotal,omitempty"`
}

// Pods are the counts of a Workload's Pods that Observe needs. Known is
// false when they were not read (the Workload is not admitted, or the
// list was refused).
type Pods struct {
	Known              bool
	Running, Succeeded int
}

// maxText bounds Kueue's condition messages kept in an event.
const maxText = 300

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

func key(kind string, at metav1.Time) string {
	return kind + "@" + at.UTC().Format(time.RFC3339)
}

// PodCount is how many Pods the Workload's pod sets count.
func PodCount(wl *kueue.Workload) int {
	n := 0
	for _, ps := range wl.Spec.PodSets {
		n += int(ps.Count)
	}
	return n
}

// Admission returns the Admitted condition when it is True.
func admitted(wl *kueue.Workload) *metav1.Condition {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted)
	if c == nil || c.Status != metav1.ConditionTrue {
		return nil
	}
	return c
}

// WantsPods reports whether Observe would turn Pod counts into a Running
// event: the Workload is admitted, not finished, Kueue's PodsReady is not
// True, and Running was not told for this admission. Only then are the
// Pods read: the reads stay bounded by the admitted, not yet running,
// subscribed Workloads.
func WantsPods(wl *kueue.Workload, seen []string) bool {
	if wl == nil || apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) ||
		apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadPodsReady) {
		return false
	}
	a := admitted(wl)
	return a != nil && !slices.Contains(seen, key("running", a.LastTransitionTime))
}

// Observe lists every event the Workload's present state stands for, oldest
// first: its conditions that are True (Finished, Evicted, QuotaReserved
// without Admitted, Admitted) and, while admitted, Running when pods says
// every counted Pod runs or Kueue's PodsReady is True. A nil Workload has
// none. The list does not depend on what was told before: Transitions
// filters it.
func Observe(wl *kueue.Workload, pods Pods) []Event {
	if wl == nil {
		return nil
	}
	conds := wl.Status.Conditions
	var out []Event
	cq := ""
	if wl.Status.Admission != nil {
		cq = string(wl.Status.Admission.ClusterQueue)
	}
	if c := apimeta.FindStatusCondition(conds, kueue.WorkloadFinished); c != nil && c.Status == metav1.ConditionTrue {
		t := Failed
		if c.Reason == kueue.WorkloadFinishedReasonSucceeded {
			t = Succeeded
		}
		// A finished Workload's earlier states are history: say only this.
		return []Event{{Key: key("finished", c.LastTransitionTime), Type: t, At: c.LastTransitionTime.Time, Reason: c.Reason, Message: clip(c.Message)}}
	}
	if c := apimeta.FindStatusCondition(conds, kueue.WorkloadEvicted); c != nil && c.Status == metav1.ConditionTrue {
		e := Event{Key: key("evicted", c.LastTransitionTime), Type: Evicted, At: c.LastTransitionTime.Time, Reason: c.Reason, Message: clip(c.Message)}
		if c.Reason == kueue.WorkloadEvictedByPreemption {
			e.Type = Preempted
			if p := apimeta.FindStatusCondition(conds, kueue.WorkloadPreempted); p != nil && p.Status == metav1.ConditionTrue {
				e.Reason, e.Message = p.Reason, clip(p.Message)
			}
		}
		out = append(out, e)
	}
	a := admitted(wl)
	var running *Event
	if c := apimeta.FindStatusCondition(conds, kueue.WorkloadQuotaReserved); c != nil && c.Status == metav1.ConditionTrue && a == nil {
		out = append(out, Event{Key: key("reserved", c.LastTransitionTime), Type: Reserved, At: c.LastTransitionTime.Time, Reason: c.Reason, Message: clip(c.Message), ClusterQueue: cq})
	}
	if a != nil {
		out = append(out, Event{Key: key("admitted", a.LastTransitionTime), Type: Admitted, At: a.LastTransitionTime.Time, Reason: a.Reason, Message: clip(a.Message), ClusterQueue: cq})
		total := PodCount(wl)
		r := Event{Key: key("running", a.LastTransitionTime), Type: Running, PodsTotal: total}
		if c := apimeta.FindStatusCondition(conds, kueue.WorkloadPodsReady); c != nil && c.Status == metav1.ConditionTrue {
			r.At, r.PodsRunning = c.LastTransitionTime.Time, total
			running = &r
		} else if pods.Known && total > 0 && pods.Running+pods.Succeeded >= total {
			// No condition to take the time from (At stays zero): the
			// admission's time keeps the key stable.
			r.PodsRunning = pods.Running + pods.Succeeded
			running = &r
		}
	}
	slices.SortStableFunc(out, func(x, y Event) int { return x.At.Compare(y.At) })
	if running != nil {
		out = append(out, *running)
	}
	return out
}

// Transitions returns the events of Observe the subscription has not seen
// (neither told nor part of its baseline), oldest first.
func Transitions(seen []string, observed []Event) []Event {
	var out []Event
	for _, e := range observed {
		if !slices.Contains(seen, e.Key) {
			out = append(out, e)
		}
	}
	return out
}

// maxSeen bounds the keys a subscription remembers: far more than one
// Workload's live conditions (at most four events at once).
const maxSeen = 16

// remember adds keys to seen, keeping the newest maxSeen.
func remember(seen []string, keys ...string) []string {
	for _, k := range keys {
		if !slices.Contains(seen, k) {
			seen = append(seen, k)
		}
	}
	if len(seen) > maxSeen {
		seen = slices.Clone(seen[len(seen)-maxSeen:])
	}
	return seen
}

// Describe is a Workload's present state in a few words, for the answer to
// a subscription ("pending", "admitted to ClusterQueue gpu", ...).
func Describe(wl *kueue.Workload) string { return DescribeMsg(wl).String() }

// DescribeMsg is Describe as a catalog message; names from the cluster
// are escaped for mrkdwn.
func DescribeMsg(wl *kueue.Workload) i18n.Message {
	if wl == nil {
		return i18n.M("notify.state.noWorkload")
	}
	evs := Observe(wl, Pods{})
	if len(evs) == 0 {
		return i18n.M("notify.state.pending")
	}
	e := evs[len(evs)-1]
	cq := i18n.Verbatim(blocks.Line(e.ClusterQueue))
	switch e.Type {
	case Admitted:
		return i18n.M("notify.state.admitted", cq)
	case Reserved:
		return i18n.M("notify.state.reserved", cq)
	case Evicted:
		return i18n.M("notify.state.evicted", i18n.Verbatim(blocks.Line(e.Reason)))
	case Preempted:
		return i18n.M("notify.state.preempted", i18n.Verbatim(blocks.Line(e.Reason)))
	case Succeeded:
		return i18n.M("notify.state.finished")
	case Failed:
		return i18n.M("notify.state.failed")
	}
	return i18n.M("i18n.join", i18n.List{Items: []i18n.Arg{i18n.Verbatim(blocks.Line(string(e.Type)))}, Sentences: true})
}
