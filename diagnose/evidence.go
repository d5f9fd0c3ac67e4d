package diagnose

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// evidence collects the conditions and folded events that back the verdict.
func (a *analysis) evidence() {
	if a.wl != nil {
		src := "Workload/" + a.wl.Name
		for _, t := range []string{kueue.WorkloadQuotaReserved, kueue.WorkloadAdmitted, kueue.WorkloadEvicted, kueue.WorkloadPreempted, kueue.WorkloadRequeued, kueue.WorkloadDeactivationTarget, kueue.WorkloadPodsReady, kueue.WorkloadFinished} {
			if c := a.cond(t); c != nil {
				a.r.Evidence = append(a.r.Evidence, Evidence{
					Source: src, Kind: "Condition", Reason: fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason),
					Message: c.Message, Age: a.age(c.LastTransitionTime.Time),
				})
			}
		}
	}
	if lq := a.s.LocalQueue; lq != nil {
		a.queueCond("LocalQueue/"+lq.Name, lq.Status.Conditions, kueue.LocalQueueActive)
	}
	if cq := a.s.ClusterQueue; cq != nil {
		a.queueCond("ClusterQueue/"+cq.Name, cq.Status.Conditions, kueue.ClusterQueueActive)
	}
	a.r.Evidence = append(a.r.Evidence, foldEvents(a.s.Events, a.s.Now)...)
}

func (a *analysis) queueCond(src string, conds []metav1.Condition, t string) {
	for _, c := range conds {
		if c.Type == t && c.Status != metav1.ConditionTrue {
			a.r.Evidence = append(a.r.Evidence, Evidence{Source: src, Kind: "Condition",
				Reason: fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason), Message: c.Message, Age: a.age(c.LastTransitionTime.Time)})
		}
	}
}

func (a *analysis) age(t time.Time) string {
	if t.IsZero() || a.s.Now.IsZero() {
		return ""
	}
	return duration.HumanDuration(a.s.Now.Sub(t))
}

// EventTime is when an event was last seen: lastTimestamp (core/v1
// events), else the series' last observation, else eventTime
// (events.k8s.io), else its creation.
func EventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

func eventFirst(e *corev1.Event) time.Time {
	switch {
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return EventTime(e)
}

// foldEvents groups repeated events (same object, type, reason, message)
// into one line "x5 over 10m", newest last, like kubectl describe.
func foldEvents(events []corev1.Event, now time.Time) []Evidence {
	type key struct{ src, typ, reason, msg string }
	type agg struct {
		count       int32
		first, last time.Time
	}
	groups := map[key]*agg{}
	var keys []key
	for i := range events {
		e := &events[i]
		k := key{e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, e.Type, e.Reason, e.Message}
		g, ok := groups[k]
		if !ok {
			g = &agg{first: eventFirst(e), last: EventTime(e)}
			groups[k] = g
			keys = append(keys, k)
		}
		n := e.Count
		if e.Series != nil && e.Series.Count > n {
			n = e.Series.Count
		}
		g.count += max(1, n)
		if t := eventFirst(e); t.Before(g.first) {
			g.first = t
		}
		if t := EventTime(e); t.After(g.last) {
			g.last = t
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		gi, gj := groups[keys[i]], groups[keys[j]]
		if !gi.last.Equal(gj.last) {
			return gi.last.Before(gj.last)
		}
		if keys[i].src != keys[j].src {
			return keys[i].src < keys[j].src
		}
		return keys[i].reason < keys[j].reason
	})
	out := make([]Evidence, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		ev := Evidence{Source: k.src, Kind: "Event", Reason: k.typ + " " + k.reason, Message: k.msg}
		if g.count > 1 {
			ev.Count = g.count
			ev.Span = duration.HumanDuration(g.last.Sub(g.first))
		}
		if !now.IsZero() && !g.last.IsZero() {
			ev.Age = duration.HumanDuration(now.Sub(g.last))
		}
		out = append(out, ev)
	}
	return out
}
