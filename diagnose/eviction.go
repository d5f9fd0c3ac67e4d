package diagnose

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
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
	var cfg *WaitForPodsReady
	if kc := a.s.KueueConfig; kc != nil {
		cfg = kc.WaitForPodsReady
	}
	why := msg("diagnose.evict.why.start")
	switch {
	case recovery && cfg != nil && cfg.RecoveryTimeout != nil:
		why = msg("diagnose.evict.why.recoveryOf", i18n.Verbatim(cfg.RecoveryTimeout.String()))
	case recovery:
		why = msg("diagnose.evict.why.recovery")
	case cfg != nil:
		why = msg("diagnose.evict.why.startOf", i18n.Verbatim(cfg.Timeout.String()))
	}
	var after i18n.Message
	if d, ok := a.admittedToEvicted(); ok && !recovery && cfg == nil {
		after = msg("diagnose.evict.admittedAfter", i18n.Verbatim(duration.HumanDuration(d)))
	}
	detail := []i18n.Message{msg("diagnose.evict.detail", a.wlArg(a.wl.Name), why, after)}
	// stuck is how long ago the backoff ended, when Kueue should long have
	// queued the Workload again.
	var stuck time.Duration
	if cfg != nil && cfg.BackoffLimitCount != nil {
		detail = append(detail, msg("diagnose.evict.countOf", i18n.Num(count), i18n.Num(*cfg.BackoffLimitCount)))
	} else {
		detail = append(detail, msg("diagnose.evict.count", i18n.Num(count)))
	}
	var head i18n.Message
	switch {
	case st != nil && st.RequeueAt != nil && st.RequeueAt.After(a.s.Now):
		wait := st.RequeueAt.Sub(a.s.Now)
		head = msg("diagnose.evict.head.in", a.jobArg(), i18n.Verbatim(waitText(wait)))
		detail = append(detail, msg("diagnose.evict.waitsUntil", i18n.Verbatim(st.RequeueAt.UTC().Format(time.RFC3339))))
	case st != nil && st.RequeueAt != nil:
		// Kueue's workload controller sets Requeued=True (BackoffFinished)
		// and queues the Workload again as soon as requeueAt has passed.
		late := a.s.Now.Sub(st.RequeueAt.Time)
		head = msg("diagnose.evict.head.over", a.jobArg())
		detail = append(detail, msg("diagnose.evict.recorded", i18n.Verbatim(st.RequeueAt.UTC().Format(time.RFC3339)), i18n.Verbatim(a.age(st.RequeueAt.Time))))
		if late > time.Minute {
			stuck = late
		}
	default:
		head = msg("diagnose.evict.head.notYet", a.jobArg())
		detail = append(detail, msg("diagnose.evict.noRequeueAt"))
	}
	switch {
	case cfg != nil && cfg.BackoffLimitCount != nil && count >= *cfg.BackoffLimitCount:
		detail = append(detail, msg("diagnose.evict.limitReached"))
	case cfg != nil && cfg.BackoffLimitCount != nil:
		detail = append(detail, msg("diagnose.evict.more", i18n.Num(*cfg.BackoffLimitCount-count)))
	case cfg != nil:
		detail = append(detail, msg("diagnose.evict.noLimit"))
	default:
		detail = append(detail, msg("diagnose.evict.limitUnknown"))
	}
	if stuck > 0 {
		a.remedyM("CheckKueue", WhoPlatform, "", msg("diagnose.evict.stuck.remedy", i18n.Verbatim(duration.HumanDuration(stuck)), a.wlArg(a.wl.Name)))
	}
	a.podsReadyRemedies(recovery, cfg)
	if a.quota != nil && a.quota.level == fitNever && len(a.quota.notCovered()) == 0 {
		detail = append(detail, msg("diagnose.evict.notAfter", a.shortfallMsg(false)))
		a.sizeRemedies(false)
	}
	return a.setM(CodeRequeuing, CausePodsReadyTimeout, head, i18n.Join(detail...))
}

func (a *analysis) podsReadyRemedies(recovery bool, cfg *WaitForPodsReady) {
	cmd := fmt.Sprintf("kubectl get events %s --field-selector involvedObject.kind=Pod --sort-by=.lastTimestamp", a.nsFlag())
	if recovery {
		a.remedyM("FixStartup", WhoYou, cmd, msg("diagnose.evict.fixRecovery.remedy"))
	} else {
		a.remedyM("FixStartup", WhoYou, cmd, msg("diagnose.evict.fixStart.remedy"))
	}
	a.remedyM("Wait", WhoYou, "", msg("diagnose.evict.wait.remedy"))
	timeout := i18n.Verbatim("waitForPodsReady.timeout")
	if cfg != nil {
		a.remedyM("RaisePodsReadyTimeout", WhoPlatform, "", msg("diagnose.evict.raiseNow.remedy", timeout, i18n.Verbatim(cfg.Timeout.String())))
		return
	}
	a.remedyM("RaisePodsReadyTimeout", WhoPlatform, "", msg("diagnose.evict.raise.remedy", timeout))
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
