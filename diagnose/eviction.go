package diagnose

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// evictedForPodsReadyTimeout reports whether Kueue's last eviction of the
// Workload was for its waitForPodsReady timeout: the Evicted condition
// (True until quota is reserved again) or the Requeued=False condition
// that parks it (pkg/controller/core/workload_controller.go
// reconcileNotReadyTimeout, pkg/workload Evict).
func (a *analysis) evictedForPodsReadyTimeout() bool {
	if ev := a.cond(kueue.WorkloadEvicted); ev != nil && ev.Status == metav1.ConditionTrue {
		return ev.Reason == kueue.WorkloadEvictedByPodsReadyTimeout
	}
	rq := a.cond(kueue.WorkloadRequeued)
	return rq != nil && rq.Status == metav1.ConditionFalse && rq.Reason == kueue.WorkloadEvictedByPodsReadyTimeout
}

// podsReadyTimeout answers a Workload that Kueue evicted because its Pods
// were not ready within waitForPodsReady.timeout and that waits for its
// requeue backoff (status.requeueState) before it is queued again.
func (a *analysis) podsReadyTimeout() bool {
	st := a.wl.Status.RequeueState
	count := int32(0)
	if st != nil && st.Count != nil {
		count = *st.Count
	}
	recovery := a.underlyingCause() == kueue.WorkloadWaitForRecovery
	why := "its pods did not all become ready within Kueue's waitForPodsReady timeout"
	if recovery {
		why = "a pod failed after the job had started and the pods did not recover within Kueue's waitForPodsReady recoveryTimeout"
	}
	var cfg *WaitForPodsReady
	if kc := a.s.KueueConfig; kc != nil {
		cfg = kc.WaitForPodsReady
	}
	var detail strings.Builder
	// stuck is how long ago the backoff ended, when Kueue should long have
	// queued the Workload again.
	var stuck time.Duration
	fmt.Fprintf(&detail, "Kueue evicted Workload %s because %s", a.wl.Name, why)
	switch {
	case cfg != nil && !recovery:
		fmt.Fprintf(&detail, " of %s", cfg.Timeout)
	case cfg != nil && cfg.RecoveryTimeout != nil:
		fmt.Fprintf(&detail, " of %s", *cfg.RecoveryTimeout)
	}
	if d, ok := a.admittedToEvicted(); ok && !recovery && cfg == nil {
		fmt.Fprintf(&detail, " (it was evicted %s after it was admitted; the timeout itself is set in Kueue's configuration)", duration.HumanDuration(d))
	}
	detail.WriteString(", then suspended the job and released its quota.")
	fmt.Fprintf(&detail, " Evictions for this reason so far: %d (status.requeueState.count)", count)
	if cfg != nil && cfg.BackoffLimitCount != nil {
		fmt.Fprintf(&detail, " of at most %d (waitForPodsReady.requeuingStrategy.backoffLimitCount)", *cfg.BackoffLimitCount)
	}
	detail.WriteString(".")
	head := fmt.Sprintf("%s was evicted because its pods were not ready in time (PodsReadyTimeout)", a.jobRef())
	switch {
	case st != nil && st.RequeueAt != nil && st.RequeueAt.After(a.s.Now):
		wait := st.RequeueAt.Sub(a.s.Now)
		head += fmt.Sprintf("; Kueue queues it again in about %s.", waitText(wait))
		fmt.Fprintf(&detail, " Kueue waits until %s before queueing it again; the backoff grows with every eviction.", st.RequeueAt.UTC().Format(time.RFC3339))
	case st != nil && st.RequeueAt != nil:
		// Kueue's workload controller sets Requeued=True (BackoffFinished)
		// and queues the Workload again as soon as requeueAt has passed.
		late := a.s.Now.Sub(st.RequeueAt.Time)
		head += "; its backoff is over, but Kueue has not queued it again yet."
		fmt.Fprintf(&detail, " Kueue recorded status.requeueState.requeueAt: its backoff ended at %s (%s ago), and Kueue's workload controller queues it again (Requeued=True) on its next pass.", st.RequeueAt.UTC().Format(time.RFC3339), a.age(st.RequeueAt.Time))
		if late > time.Minute {
			stuck = late
		}
	default:
		head += "; it is not queued again yet."
		detail.WriteString(" Kueue has not recorded its requeue time (status.requeueState.requeueAt) yet; it queues it again once the backoff has passed.")
	}
	switch {
	case cfg != nil && cfg.BackoffLimitCount != nil && count >= *cfg.BackoffLimitCount:
		detail.WriteString(" The limit is reached: if its pods time out once more, Kueue deactivates the Workload and stops retrying.")
	case cfg != nil && cfg.BackoffLimitCount != nil:
		fmt.Fprintf(&detail, " After %d more such eviction(s) the next timeout deactivates the Workload and Kueue stops retrying.", *cfg.BackoffLimitCount-count)
	case cfg != nil:
		detail.WriteString(" Kueue's configuration sets no requeue limit: it retries forever.")
	default:
		detail.WriteString(" If Kueue's waitForPodsReady.requeuingStrategy.backoffLimitCount is set, the first timeout after the count has reached it deactivates the Workload; without a limit Kueue retries forever.")
	}
	if stuck > 0 {
		a.remedy("CheckKueue", WhoPlatform, "", "Its backoff ended %s ago and Kueue has not queued it again: ask the platform team to check that kueue-controller-manager is running and reconciling Workloads (its logs for Workload %s).", duration.HumanDuration(stuck), a.wl.Name)
	}
	a.podsReadyRemedies(recovery, cfg)
	if a.quota != nil && a.quota.level == fitNever && len(a.quota.notCovered()) == 0 {
		detail.WriteString(" Once queued again it will not be admitted either: " + a.shortfallMsg(false).String())
		a.sizeRemedies(false)
	}
	return a.set(CodeRequeuing, CausePodsReadyTimeout, head, detail.String())
}

func (a *analysis) podsReadyRemedies(recovery bool, cfg *WaitForPodsReady) {
	cmd := fmt.Sprintf("kubectl get events %s --field-selector involvedObject.kind=Pod --sort-by=.lastTimestamp", a.nsFlag())
	if recovery {
		a.remedy("FixStartup", WhoYou, cmd, "Find out why a pod failed and was not replaced in time (crash loops, evicted or failed nodes, image pulls), and fix it: otherwise every retry ends the same way.")
	} else {
		a.remedy("FixStartup", WhoYou, cmd, "Find out why the pods did not become ready in time (image pulls, crash loops, unschedulable pods, slow init containers or readiness probes), and fix it: otherwise every retry ends the same way.")
	}
	a.remedy("Wait", WhoYou, "", "Then wait: Kueue queues the job again by itself after the backoff, and it gets the same time to start its pods.")
	timeout := "waitForPodsReady.timeout"
	if cfg != nil {
		timeout += fmt.Sprintf(" (now %s)", cfg.Timeout)
	}
	a.remedy("RaisePodsReadyTimeout", WhoPlatform, "", "If the pods only need longer to start (large images, slow provisioning), ask the platform team to raise %s in Kueue's configuration.", timeout)
}

// underlyingCause is the cause Kueue recorded for the Workload's
// PodsReadyTimeout evictions (schedulingStats.evictions): WaitForStart or
// WaitForRecovery; "" when not recorded.
func (a *analysis) underlyingCause() kueue.EvictionUnderlyingCause {
	if a.wl.Status.SchedulingStats == nil {
		return ""
	}
	for _, e := range a.wl.Status.SchedulingStats.Evictions {
		if e.Reason == kueue.WorkloadEvictedByPodsReadyTimeout {
			return e.UnderlyingCause
		}
	}
	return ""
}

// admittedToEvicted is the time between the job's last admission and
// Kueue's PodsReadyTimeout eviction, from their events (the Admitted
// condition has moved on by then).
func (a *analysis) admittedToEvicted() (time.Duration, bool) {
	var admitted, evicted time.Time
	for i := range a.s.Events {
		e := &a.s.Events[i]
		if e.InvolvedObject.Kind != "Workload" || e.InvolvedObject.Name != a.wl.Name {
			continue
		}
		t := EventTime(e)
		switch e.Reason {
		case "Admitted":
			if t.After(admitted) {
				admitted = t
			}
		case "EvictedDueTo" + kueue.WorkloadEvictedByPodsReadyTimeout:
			if t.After(evicted) {
				evicted = t
			}
		}
	}
	if admitted.IsZero() || evicted.IsZero() || !evicted.After(admitted) {
		return 0, false
	}
	return evicted.Sub(admitted), true
}

// waitText is a wait as people say it: seconds and minutes exactly,
// longer waits in hours or days.
func waitText(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Hour {
		return d.String()
	}
	return duration.HumanDuration(d)
}
