package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// analyzer is one step of the diagnosis. It returns true when it has set the
// verdict; later analyzers then do not run.
type analyzer struct {
	name string
	run  func(*analysis) bool
}

// analyzers run in this fixed order: the first that recognises its cause
// decides the verdict. Object state (queues stopped, missing) is checked
// before Kueue's messages, because a message can be stale.
var analyzers = []analyzer{
	{"resolve", (*analysis).resolve},
	{"finished", (*analysis).finished},
	{"deactivated", (*analysis).deactivated},
	{"dispatched", (*analysis).dispatched},
	{"admitted", (*analysis).admitted},
	{"multikueue-waiting", (*analysis).multiKueueWaiting},
	{"reserved", (*analysis).reserved},
	{"queues", (*analysis).queues},
	{"requeue", (*analysis).requeue},
	{"gates", (*analysis).gates},
	{"multikueue-rejected", (*analysis).multiKueueRejected},
	{"checks", (*analysis).failedChecks},
	{"invalid", (*analysis).invalidResources},
	{"quota", (*analysis).quotaVerdict},
	{"order", (*analysis).order},
}

// analysis carries one diagnosis in progress.
type analysis struct {
	s   *Snapshot
	r   *Report
	wl  *kueue.Workload
	job jobView
	// qr is the Workload's QuotaReserved condition, nil when absent.
	qr  *metav1.Condition
	msg ParsedMessage
	// claim is what Kueue's structured reason (newer Kueue) says, if any.
	claim *Verdict
	quota *quotaOutcome
	ns    string
}

// Analyze turns a Snapshot into a Report. It is pure: the same Snapshot always
// gives the same Report.
func Analyze(s *Snapshot) Report {
	return *analyze(s).r
}

// analyze runs the diagnosis and returns it with what it derived (the
// quota evaluation), which check reads.
func analyze(s *Snapshot) *analysis {
	r := Report{
		Quota:              []QuotaRow{},
		Findings:           []Finding{},
		Remedies:           []Remedy{},
		Gaps:               append([]Gap{}, s.Gaps...),
		Evidence:           []Evidence{},
		ClusterScopedByBot: s.ClusterScopedByBot,
	}
	a := &analysis{s: s, r: &r, wl: s.Workload, job: jobView{s.Job}, ns: s.Target.Namespace}
	a.fillTarget()
	if a.wl != nil {
		a.qr = apimeta.FindStatusCondition(a.wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		if a.qr != nil && a.qr.Status == metav1.ConditionFalse {
			a.msg = a.s.Shared.quotaMessage(a.qr.Message)
		}
		a.claim = structuredClaim(a.wl)
		if a.s.ClusterQueue != nil && !a.admittedNow() {
			a.quota = evaluateQuota(a.s, a.wl)
			r.Quota = a.quota.rows
		}
	}
	for _, an := range analyzers {
		if an.run(a) {
			break
		}
	}
	a.perPodVerdict()
	a.multiKueue()
	r.Verdict.Stage = StageOf(r.Verdict.Code)
	a.partialRead()
	if !s.Shared.brief() {
		a.evidence()
	}
	sortGaps(r.Gaps)
	return a
}

func (a *analysis) fillTarget() {
	t := a.s.Target
	kind := t.Kind
	if kind == "" {
		kind = "Job"
	}
	a.r.Target = TargetInfo{Kind: kind, Namespace: t.Namespace, Name: t.Name}
	if a.s.Job != nil {
		a.r.Target.Kind = a.s.Job.GetKind()
		a.r.Target.Namespace = a.s.Job.GetNamespace()
		a.r.Target.Name = a.s.Job.GetName()
		a.ns = a.s.Job.GetNamespace()
	}
	if a.wl != nil {
		a.r.Target.Workload = a.wl.Name
		if a.ns == "" {
			a.ns = a.wl.Namespace
		}
		if a.r.Target.Namespace == "" {
			a.r.Target.Namespace = a.wl.Namespace
		}
		a.r.Queue.LocalQueue = string(a.wl.Spec.QueueName)
	} else {
		a.r.Queue.LocalQueue = a.job.queueName()
	}
	switch {
	case a.wl != nil && a.wl.Status.Admission != nil:
		a.r.Queue.ClusterQueue = string(a.wl.Status.Admission.ClusterQueue)
	case a.s.LocalQueue != nil:
		a.r.Queue.ClusterQueue = string(a.s.LocalQueue.Spec.ClusterQueue)
	case a.s.ClusterQueue != nil:
		a.r.Queue.ClusterQueue = a.s.ClusterQueue.Name
	}
	if a.s.ClusterQueue != nil {
		a.r.Queue.Cohort = string(a.s.ClusterQueue.Spec.CohortName)
	}
	if p := a.s.Position; p != nil && p.Tied == 0 {
		// A tied position is not definite: the report states none, the
		// text gives the range.
		lq, cq := p.InLocalQueue, p.InClusterQueue
		a.r.Queue.PositionInLocalQueue = &lq
		a.r.Queue.PositionInClusterQueue = &cq
	}
}

// partialRead says when the cluster failed reads the answer would have
// used: the verdict then rests on what could be read, and the analyzers
// have treated what is missing as unknown, never as absent. (Kueue's
// visibility API is optional and has its own gap text.)
func (a *analysis) partialRead() {
	var failed []string
	for _, g := range a.r.Gaps {
		if (g.Reason == GapUnavailable || g.Reason == GapTimeout) && g.Kind != "PendingWorkloads" {
			failed = append(failed, strings.TrimSpace(g.Kind+" "+g.Name))
		}
	}
	if len(failed) == 0 {
		return
	}
	a.findingM("PartialRead", SeverityWarning, msg("diagnose.partialRead", nameList(failed...)))
}

func (a *analysis) set(code Code, cause Cause, headline, detail string) bool {
	a.r.Verdict = Verdict{Stage: StageOf(code), Code: code, Cause: cause, Headline: headline, Detail: detail}
	return true
}

func (a *analysis) cond(t string) *metav1.Condition {
	if a.wl == nil {
		return nil
	}
	return apimeta.FindStatusCondition(a.wl.Status.Conditions, t)
}

func (a *analysis) condTrue(t string) bool {
	c := a.cond(t)
	return c != nil && c.Status == metav1.ConditionTrue
}

func (a *analysis) admittedNow() bool { return a.condTrue(kueue.WorkloadAdmitted) }

// jobRef is "job/train-7" for commands.
func (a *analysis) jobRef() string {
	kind := strings.ToLower(a.r.Target.Kind)
	if kind == "" {
		kind = "job"
	}
	return kind + "/" + a.r.Target.Name
}

func (a *analysis) nsFlag() string { return "-n " + a.ns }

// resolve handles a job that cannot be found, is not managed by Kueue or has
// no Workload.
func (a *analysis) resolve() bool {
	t := a.s.Target
	what := t.Name
	if t.Kind != "" && t.Kind != "Job" {
		what = strings.ToLower(t.Kind) + "/" + t.Name
	}
	if a.s.Job == nil && a.wl == nil {
		a.setM(CodeNotFound, CauseNone,
			msg("diagnose.notFound.headline", i18n.Obj(t.Kind, t.Namespace, what), nsArg(t.Namespace)),
			msg("diagnose.notFound.detail"))
		a.remedyM("CheckName", WhoYou, fmt.Sprintf("kubectl get %s -n %s", kindPlural(t.Kind), t.Namespace),
			msg("diagnose.notFound.remedy", nsArg(t.Namespace)))
		// Do not leak why: gaps on the target itself are dropped.
		a.r.Gaps = dropTargetGaps(a.r.Gaps, t)
		return true
	}
	if a.wl != nil {
		return false
	}
	// Job found, no Workload.
	if a.job.queueName() == "" {
		a.setM(CodeNotManagedByKueue, CauseNoQueueName,
			msg("diagnose.notManaged.headline", a.jobArg(), i18n.Name(QueueNameLabel)),
			msg("diagnose.notManaged.detail"))
		switch {
		case len(a.s.NamespaceLocalQueues) > 0 && a.job.suspendedForKueue():
			lq := a.s.NamespaceLocalQueues[0].Name
			a.remedyM("AddQueueName", WhoYou, fmt.Sprintf("kubectl label %s %s %s=%s", a.jobRef(), a.nsFlag(), QueueNameLabel, lq),
				msg("diagnose.notManaged.remedy.label", nsArg(a.ns), i18n.Name(lqNames(a.s.NamespaceLocalQueues))))
		case len(a.s.NamespaceLocalQueues) > 0:
			// Kueue refuses a new queue name on a job that is not suspended.
			a.remedyM("AddQueueName", WhoYou, "",
				msg("diagnose.notManaged.remedy.recreate", i18n.Name(QueueNameLabel), nsArg(a.ns), i18n.Name(lqNames(a.s.NamespaceLocalQueues))))
		default:
			a.remedyM("AddQueueName", WhoYou, "",
				msg("diagnose.notManaged.remedy.ask", i18n.Name(QueueNameLabel), nsArg(a.ns)))
		}
		if susp, ok := a.job.suspended(); ok && susp {
			a.findingM("SuspendedWithoutQueue", SeverityWarning, msg("diagnose.notManaged.suspended"))
		}
		return true
	}
	return a.workloadMissing()
}

func (a *analysis) finished() bool {
	if c := a.cond(kueue.WorkloadFinished); c != nil && c.Status == metav1.ConditionTrue {
		cause := CauseSucceeded
		if c.Reason != kueue.WorkloadFinishedReasonSucceeded {
			cause = CauseFailed
		}
		return a.finishedVerdict(cause, c.Reason, c.Message)
	}
	if cause, msg := a.job.finished(); cause != "" {
		return a.finishedVerdict(cause, string(cause), msg)
	}
	return false
}

func (a *analysis) finishedVerdict(cause Cause, reason, text string) bool {
	if cause == CauseSucceeded {
		return a.setM(CodeFinished, cause, msg("diagnose.finished.succeeded", a.jobArg()), msg("diagnose.finished.succeeded.detail"))
	}
	detail := msg("diagnose.finished.failed.detail", i18n.Name(reason))
	if text != "" {
		detail = i18n.Join(detail, quoted(text))
	}
	a.remedyM("InspectLogs", WhoYou, fmt.Sprintf("kubectl logs %s %s --tail=100", a.jobRef(), a.nsFlag()), msg("diagnose.finished.failed.remedy"))
	return a.setM(CodeFinished, cause, msg("diagnose.finished.failed", a.jobArg()), detail)
}

func (a *analysis) deactivated() bool {
	if a.wl == nil || a.wl.Spec.Active == nil || *a.wl.Spec.Active {
		if a.claim != nil && a.claim.Code == CodeDeactivated {
			return a.useClaim()
		}
		return false
	}
	cause := CauseManual
	reasonText := msg("diagnose.deactivated.why.manual")
	if ev := a.cond(kueue.WorkloadEvicted); ev != nil {
		switch {
		case strings.HasSuffix(ev.Reason, "DueTo"+kueue.WorkloadRequeuingLimitExceeded):
			cause, reasonText = CauseRequeuingLimitExceeded, msg("diagnose.deactivated.why.requeuedLimit")
		case strings.HasSuffix(ev.Reason, "DueTo"+kueue.WorkloadMaximumExecutionTimeExceeded):
			cause, reasonText = CauseMaximumExecutionTimeExceeded, msg("diagnose.deactivated.why.maxExecLabel")
		case strings.HasSuffix(ev.Reason, "DueTo"+kueue.WorkloadEvictedByAdmissionCheck):
			cause, reasonText = CauseAdmissionCheckRejected, msg("diagnose.deactivated.why.checkRejected")
		}
	}
	if dt := a.cond(kueue.WorkloadDeactivationTarget); dt != nil && cause == CauseManual {
		switch dt.Reason {
		case kueue.WorkloadRequeuingLimitExceeded:
			cause, reasonText = CauseRequeuingLimitExceeded, msg("diagnose.deactivated.why.requeued")
		case kueue.WorkloadMaximumExecutionTimeExceeded:
			cause, reasonText = CauseMaximumExecutionTimeExceeded, msg("diagnose.deactivated.why.maxExec")
		case kueue.WorkloadEvictedByAdmissionCheck:
			cause, reasonText = CauseAdmissionCheckRejected, msg("diagnose.deactivated.why.checkRejected")
		}
	}
	rejected := a.checksIn(kueue.CheckStateRejected)
	if len(rejected) > 0 && (cause == CauseManual || cause == CauseAdmissionCheckRejected) {
		cause, reasonText = CauseAdmissionCheckRejected, msg("diagnose.deactivated.why.checksRejected", checksMsg(rejected))
	}
	if kc := a.s.KueueConfig; cause == CauseRequeuingLimitExceeded && kc != nil && kc.WaitForPodsReady != nil && kc.WaitForPodsReady.BackoffLimitCount != nil {
		w := kc.WaitForPodsReady
		reasonText = msg("diagnose.deactivated.why.podsReady", i18n.Verbatim(w.Timeout.String()), i18n.Num(*w.BackoffLimitCount))
	}
	cmd := fmt.Sprintf("kubectl patch workload %s %s --type=merge -p '{\"spec\":{\"active\":true}}'", a.wl.Name, a.nsFlag())
	switch cause {
	case CauseManual:
		// Kueue's batch-user role (and kueuebot-reader) grant no patch on
		// workloads: reactivating is the platform team's; recreating the
		// job is what the user can do.
		a.remedyM("Reactivate", WhoPlatform, cmd, msg("diagnose.deactivated.remedy.reactivateMistake"))
		a.remedyM("Recreate", WhoYou, "", msg("diagnose.deactivated.remedy.recreate"))
	case CauseRequeuingLimitExceeded:
		a.remedyM("FixStartup", WhoYou, fmt.Sprintf("kubectl describe pods -l batch.kubernetes.io/job-name=%s %s", a.r.Target.Name, a.nsFlag()),
			msg("diagnose.deactivated.remedy.fixStartup"))
		a.remedyM("Reactivate", WhoPlatform, cmd, msg("diagnose.deactivated.remedy.reactivateFixed"))
	case CauseMaximumExecutionTimeExceeded:
		a.remedyM("RaiseMaxExecTime", WhoYou, "", msg("diagnose.deactivated.remedy.maxExec"))
	case CauseAdmissionCheckRejected:
		if len(rejected) > 0 {
			a.remedyM("CheckAdmissionCheck", WhoPlatform, "", msg("diagnose.deactivated.remedy.checkNamed", a.checksOwnerMsg(rejected)))
			return a.setM(CodeDeactivated, cause, msg("diagnose.deactivated.headline.rejected", a.jobArg(), checksMsg(rejected)),
				msg("diagnose.deactivated.detail", a.wlArg(a.wl.Name), reasonText))
		}
		a.remedyM("CheckAdmissionCheck", WhoPlatform, "", msg("diagnose.deactivated.remedy.check"))
	}
	return a.setM(CodeDeactivated, cause, msg("diagnose.deactivated.headline", a.jobArg()),
		msg("diagnose.deactivated.detail", a.wlArg(a.wl.Name), reasonText))
}

// reserved handles a Workload that holds quota but is not admitted: it is
// waiting for admission checks or being evicted.
func (a *analysis) reserved() bool {
	if a.qr == nil || a.qr.Status != metav1.ConditionTrue {
		return false
	}
	if a.evicting() {
		return true
	}
	var pending, retry []i18n.Arg
	pendingChecks, retryChecks := a.checksIn(kueue.CheckStatePending), a.checksIn(kueue.CheckStateRetry)
	for _, ac := range a.wl.Status.AdmissionChecks {
		switch ac.State {
		case kueue.CheckStatePending:
			pending = append(pending, a.checkMsg(ac))
		case kueue.CheckStateRetry:
			retry = append(retry, a.checkMsg(ac))
		}
	}
	cq := a.r.Queue.ClusterQueue
	if len(retry) > 0 {
		a.remedyM("WaitForCheck", WhoYou, "", msg("diagnose.checks.remedy.retry", a.checksOwnerMsg(retryChecks)))
		return a.setM(CodeWaitingForAdmissionChecks, CauseCheckRetry,
			msg("diagnose.checks.headline.retry", a.jobArg(), cqArg(cq), checksMsg(retryChecks)),
			msg("diagnose.checks.states", semicolons(append(retry, pending...))))
	}
	if len(pending) > 0 {
		a.remedyM("WaitForCheck", WhoYou, "", msg("diagnose.checks.remedy.pending", checkNamesMsg(pendingChecks)))
		return a.setM(CodeWaitingForAdmissionChecks, CauseCheckPending,
			msg("diagnose.checks.headline.pending", a.jobArg(), cqArg(cq), checksMsg(pendingChecks)),
			msg("diagnose.checks.states", semicolons(pending)))
	}
	if c := a.cond(kueue.WorkloadAdmitted); c != nil && c.Reason == "PendingDelayedTopologyRequests" {
		return a.setM(CodeWaitingForAdmissionChecks, CauseCheckPending,
			msg("diagnose.checks.headline.topology", a.jobArg()),
			msg("diagnose.checks.detail.topology"))
	}
	return a.setM(CodeWaitingForAdmissionChecks, CauseCheckPending,
		msg("diagnose.checks.headline.completing", a.jobArg(), cqArg(cq)),
		msg("diagnose.checks.detail.completing"))
}

// checksIn returns the Workload's admission checks in state st.
func (a *analysis) checksIn(st kueue.CheckState) []kueue.AdmissionCheckState {
	var out []kueue.AdmissionCheckState
	for _, ac := range a.wl.Status.AdmissionChecks {
		if ac.State == st {
			out = append(out, ac)
		}
	}
	return out
}

// evicting reports a Workload being evicted while it still holds quota, and
// sets the verdict.
func (a *analysis) evicting() bool {
	ev := a.cond(kueue.WorkloadEvicted)
	if ev == nil || ev.Status != metav1.ConditionTrue {
		return false
	}
	switch ev.Reason {
	case kueue.WorkloadEvictedByClusterQueueStopped:
		a.remedyM("AskResume", WhoPlatform, fmt.Sprintf("kubectl patch clusterqueue %s --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'", a.r.Queue.ClusterQueue),
			msg("diagnose.evicting.cqStopped.remedy", cqArg(a.r.Queue.ClusterQueue)))
		return a.setM(CodeOnHold, CauseClusterQueueStopped, msg("diagnose.evicting.cqStopped", a.jobArg(), cqArg(a.r.Queue.ClusterQueue)),
			msg("diagnose.evicting.cqStopped.detail"))
	case kueue.WorkloadEvictedByLocalQueueStopped:
		a.remedyM("AskResume", WhoPlatform, fmt.Sprintf("kubectl patch localqueue %s %s --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'", a.r.Queue.LocalQueue, a.nsFlag()),
			msg("diagnose.evicting.lqStopped.remedy", a.lqArg(a.r.Queue.LocalQueue)))
		return a.setM(CodeOnHold, CauseLocalQueueStopped, msg("diagnose.evicting.lqStopped", a.jobArg(), a.lqArg(a.r.Queue.LocalQueue)),
			msg("diagnose.evicting.lqStopped.detail"))
	}
	if a.staleMirror(ev) {
		return true
	}
	cause := CausePreempted
	switch ev.Reason {
	case kueue.WorkloadEvictedByPodsReadyTimeout:
		cause = CausePodsReadyTimeout
	case kueue.WorkloadEvictedDueToNodeFailures:
		cause = CauseNodeFailures
	case kueue.WorkloadEvictedByAdmissionCheck:
		cause = CauseBackoff
	}
	a.remedyM("Wait", WhoYou, "", msg("diagnose.evicting.remedy"))
	return a.setM(CodeRequeuing, cause, msg("diagnose.evicting", a.jobArg(), i18n.Name(ev.Reason)), quoted(ev.Message))
}

// queues checks the queue objects themselves: missing, stopped, inactive,
// namespace not selected. The queues' status wins over a stale message.
func (a *analysis) queues() bool {
	lqName := a.r.Queue.LocalQueue
	lq := a.s.LocalQueue
	if lq == nil {
		if hasGap(a.s, "LocalQueue", lqName) && !a.s.HasGap("LocalQueue", GapNotFound) {
			return false // unknown: let Kueue's message decide
		}
		a.localQueueMissing(lqName)
		return true
	}
	if lq.Spec.StopPolicy != nil && *lq.Spec.StopPolicy != kueue.None {
		a.remedyM("AskResume", WhoPlatform, fmt.Sprintf("kubectl patch localqueue %s %s --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'", lq.Name, a.nsFlag()),
			msg("diagnose.lqStopped.remedy", a.lqArg(lq.Name)))
		a.alternativeQueues()
		return a.setM(CodeOnHold, CauseLocalQueueStopped, msg("diagnose.lqStopped", a.lqArg(lq.Name), a.jobArg()),
			msg("diagnose.lqStopped.detail", a.lqArg(lq.Name), i18n.Name(string(*lq.Spec.StopPolicy))))
	}
	if lq.DeletionTimestamp != nil {
		a.alternativeQueues()
		a.remedyM("AskQueue", WhoPlatform, "", msg("diagnose.lqDeleting.remedy", a.lqArg(lq.Name)))
		return a.setM(CodeMisconfigured, CauseLocalQueueNotFound, msg("diagnose.lqDeleting", a.lqArg(lq.Name), a.jobArg()),
			msg("diagnose.lqDeleting.detail", a.lqArg(lq.Name), i18n.Verbatim(a.age(lq.DeletionTimestamp.Time)), finalizersMsg(lq.Finalizers)))
	}
	cqName := string(lq.Spec.ClusterQueue)
	cq := a.s.ClusterQueue
	if cq == nil {
		if hasGap(a.s, "ClusterQueue", cqName) && !a.s.HasGap("ClusterQueue", GapNotFound) {
			// The ClusterQueue is unreadable; the LocalQueue's status still
			// tells whether it exists and is active.
			if c := apimeta.FindStatusCondition(lq.Status.Conditions, kueue.LocalQueueActive); c != nil && c.Status == metav1.ConditionFalse {
				switch c.Reason {
				case "ClusterQueueDoesNotExist":
					return a.clusterQueueMissing(cqName)
				case "ClusterQueueIsInactive":
					a.remedyM("AskPlatform", WhoPlatform, "", msg("diagnose.cqInactiveUnread.remedy", cqArg(cqName)))
					a.alternativeQueues()
					return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.cqInactiveUnread", cqArg(cqName), a.jobArg()),
						msg("diagnose.cqInactiveUnread.detail", a.lqArg(lq.Name), cqArg(cqName)))
				}
			}
			return false
		}
		return a.clusterQueueMissing(cqName)
	}
	if cq.Spec.StopPolicy != nil && *cq.Spec.StopPolicy != kueue.None {
		a.remedyM("AskResume", WhoPlatform, fmt.Sprintf("kubectl patch clusterqueue %s --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'", cq.Name),
			msg("diagnose.cqStopped.remedy", cqArg(cq.Name)))
		a.alternativeQueues()
		if a.msg.has(ReasonUnusedQuota) || a.msg.has(ReasonMaxCapacity) {
			a.findingM("StaleMessage", SeverityInfo, msg("diagnose.cqStopped.staleMessage", i18n.Verbatim(strconv.Quote(a.qr.Message))))
		}
		return a.setM(CodeOnHold, CauseClusterQueueStopped, msg("diagnose.cqStopped", cqArg(cq.Name), a.jobArg()),
			msg("diagnose.cqStopped.detail", cqArg(cq.Name), i18n.Name(string(*cq.Spec.StopPolicy))))
	}
	if cq.DeletionTimestamp != nil {
		a.remedyM("AskQueue", WhoPlatform, fmt.Sprintf("kubectl get clusterqueue %s -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}'", cq.Name),
			msg("diagnose.cqDeleting.remedy", cqArg(cq.Name), nsArg(a.ns)))
		a.alternativeQueues()
		if a.quota != nil && a.quota.level == fitNow {
			a.findingM("FitsButTerminating", SeverityInfo, msg("diagnose.cqDeleting.fits", cqArg(cq.Name)))
		}
		return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.cqDeleting", cqArg(cq.Name), a.jobArg()),
			msg("diagnose.cqDeleting.detail", cqArg(cq.Name), i18n.Verbatim(a.age(cq.DeletionTimestamp.Time)), finalizersMsg(cq.Finalizers)))
	}
	if len(a.quotaMissingFlavors()) > 0 {
		missing := a.quotaMissingFlavors()
		a.remedyM("CreateFlavor", WhoPlatform, "",
			msg("diagnose.flavorMissing.remedy", nameList(missing...), cqArg(cq.Name)))
		return a.setM(CodeMisconfigured, CauseFlavorNotFound, msg("diagnose.flavorMissing", cqArg(cq.Name), i18n.Num(len(missing)), nameList(missing...)),
			msg("diagnose.flavorMissing.detail", nameList(missing...)))
	}
	if c := apimeta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive); c != nil && c.Status == metav1.ConditionFalse {
		if c.Reason == "FlavorNotFound" {
			if m := reMissingFlavors.FindStringSubmatch(c.Message); m != nil {
				names := strings.Join(strings.Fields(strings.ReplaceAll(m[1], ",", " ")), ", ")
				a.remedyM("CreateFlavor", WhoPlatform, "", msg("diagnose.flavorMissing.remedy", nameList(names), cqArg(cq.Name)))
				return a.setM(CodeMisconfigured, CauseFlavorNotFound, msg("diagnose.flavorMissing", cqArg(cq.Name), i18n.Num(1), nameList(names)), quoted(c.Message))
			}
			a.remedyM("CreateFlavor", WhoPlatform, "", msg("diagnose.flavorMissing.remedyAny", cqArg(cq.Name)))
			return a.setM(CodeMisconfigured, CauseFlavorNotFound, msg("diagnose.flavorMissing.any", cqArg(cq.Name)), quoted(c.Message))
		}
		if a.inactiveCheck(cq, c) {
			return true
		}
		a.remedyM("FixClusterQueue", WhoPlatform, fmt.Sprintf("kubectl describe clusterqueue %s", cq.Name),
			msg("diagnose.cqInactive.remedy", cqArg(cq.Name), i18n.Verbatim(c.Message)))
		return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.cqInactive", cqArg(cq.Name)),
			msg("diagnose.kueueReports", i18n.Name(c.Reason), i18n.Verbatim(c.Message)))
	}
	if a.quota != nil && a.quota.tree.cycle != "" {
		a.remedyM("FixCohort", WhoPlatform, "", msg("diagnose.cohortCycle.remedy", i18n.Obj("Cohort", "", a.quota.tree.cycle)))
		return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.cohortCycle", cqArg(cq.Name)),
			msg("diagnose.cohortCycle.detail", i18n.Obj("Cohort", "", a.quota.tree.cycle)))
	}
	if sel, known := a.namespaceSelected(cq); (known && !sel) || (!known && a.msg.NamespaceMismatch) {
		a.remedyM("UseOtherQueue", WhoYou, "", msg("diagnose.nsNotSelected.remedy.other", nsArg(a.ns), lqSuggestionMsg(a.s.NamespaceLocalQueues, lq.Name)))
		a.remedyM("SelectNamespace", WhoPlatform, fmt.Sprintf("kubectl get clusterqueue %s -o jsonpath='{.spec.namespaceSelector}'", cq.Name),
			msg("diagnose.nsNotSelected.remedy.select", nsArg(a.ns), cqArg(cq.Name)))
		detail := msg("diagnose.nsNotSelected.detail", cqArg(cq.Name), nsArg(a.ns))
		if cq.Spec.NamespaceSelector == nil {
			detail = msg("diagnose.nsNotSelected.detail.nil", cqArg(cq.Name))
		}
		return a.setM(CodeMisconfigured, CauseNamespaceNotSelected, msg("diagnose.nsNotSelected", nsArg(a.ns), cqArg(cq.Name)), detail)
	}
	return false
}

func (a *analysis) quotaMissingFlavors() []string {
	if a.quota == nil {
		return nil
	}
	return a.quota.missingFlavors
}

// namespaceSelected evaluates the ClusterQueue's namespaceSelector against
// the namespace's labels; known is false when the namespace was not read.
func (a *analysis) namespaceSelected(cq *kueue.ClusterQueue) (selected, known bool) {
	if a.s.Namespace == nil {
		return false, false
	}
	if cq.Spec.NamespaceSelector == nil {
		return false, true
	}
	sel, err := metav1.LabelSelectorAsSelector(cq.Spec.NamespaceSelector)
	if err != nil {
		return false, false
	}
	return sel.Matches(labels.Set(a.s.Namespace.Labels)), true
}

func (a *analysis) localQueueMissing(name string) {
	detail := msg("diagnose.lqMissing.detail", i18n.Name(QueueNameLabel), i18n.Verbatim(strconv.Quote(name)), nsArg(a.ns))
	if best := closest(name, a.s.NamespaceLocalQueues); best != "" {
		detail = i18n.Join(detail, msg("diagnose.lqMissing.didYouMean", i18n.Verbatim(strconv.Quote(best))))
		a.remedyM("FixQueueName", WhoYou, a.relabelCommand(best),
			msg("diagnose.lqMissing.remedy.fix", a.lqArg(best)))
	} else if len(a.s.NamespaceLocalQueues) > 0 {
		a.remedyM("FixQueueName", WhoYou, "", msg("diagnose.lqMissing.remedy.relabel", nsArg(a.ns), i18n.Name(lqNames(a.s.NamespaceLocalQueues))))
	} else {
		a.remedyM("CreateLocalQueue", WhoPlatform, "", msg("diagnose.lqMissing.remedy.create", a.lqArg(name), nsArg(a.ns)))
	}
	a.setM(CodeMisconfigured, CauseLocalQueueNotFound, msg("diagnose.lqMissing", a.lqArg(name), nsArg(a.ns), a.jobArg()), detail)
}

func (a *analysis) clusterQueueMissing(name string) bool {
	a.remedyM("CreateClusterQueue", WhoPlatform, fmt.Sprintf("kubectl get localqueue %s %s -o jsonpath='{.spec.clusterQueue}'", a.r.Queue.LocalQueue, a.nsFlag()),
		msg("diagnose.cqMissing.remedy", cqArg(name)))
	a.alternativeQueues()
	return a.setM(CodeMisconfigured, CauseClusterQueueNotFound, msg("diagnose.cqMissing", a.lqArg(a.r.Queue.LocalQueue), cqArg(name)),
		msg("diagnose.cqMissing.detail"))
}

// reMissingFlavors reads a ClusterQueue's FlavorNotFound message, e.g.
// "Can't admit new workloads: references missing ResourceFlavor(s): [a b]."
var reMissingFlavors = regexp.MustCompile(`references missing ResourceFlavor\(s\): \[?([^\]]+?)\]?\.?$`)

// multiKueueController is the controllerName of MultiKueue's admission
// check.
const multiKueueController = "kueue.x-k8s.io/multikueue"

// reInactiveClusters reads MultiKueue's AdmissionCheck message, e.g.
// "Missing clusters: [a], Inactive clusters: [b c]".
var reInactiveClusters = regexp.MustCompile(`(Missing|Inactive) clusters: \[([^\]]*)\]`)

// InactiveByCheck reports whether Kueue keeps the ClusterQueue inactive
// because of an AdmissionCheck it uses (missing or inactive): the checks
// then say why, even for a Workload that holds no quota.
func InactiveByCheck(cq *kueue.ClusterQueue) bool {
	c := apimeta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive)
	return c != nil && c.Status == metav1.ConditionFalse && (c.Reason == "AdmissionCheckInactive" || c.Reason == "AdmissionCheckNotFound")
}

// inactiveCheck answers a ClusterQueue that Kueue keeps inactive because
// an AdmissionCheck it uses is inactive or missing, naming the check, its
// condition and, for MultiKueue, the worker clusters that are not usable.
func (a *analysis) inactiveCheck(cq *kueue.ClusterQueue, c *metav1.Condition) bool {
	if !InactiveByCheck(cq) {
		return false
	}
	for _, ref := range ClusterQueueChecks(cq) {
		var ac *kueue.AdmissionCheck
		for i := range a.s.AdmissionChecks {
			if a.s.AdmissionChecks[i].Name == ref {
				ac = &a.s.AdmissionChecks[i]
			}
		}
		if ac == nil {
			if c.Reason != "AdmissionCheckNotFound" || hasGap(a.s, "AdmissionCheck", ref) && !a.s.HasGap("AdmissionCheck", GapNotFound) {
				continue
			}
			a.remedyM("CreateCheck", WhoPlatform, "", msg("diagnose.checkMissing.remedy", i18n.Obj("AdmissionCheck", "", ref), cqArg(cq.Name)))
			return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.checkMissing", cqArg(cq.Name), i18n.Obj("AdmissionCheck", "", ref)),
				msg("diagnose.kueueReports", i18n.Name(c.Reason), i18n.Verbatim(c.Message)))
		}
		active := apimeta.FindStatusCondition(ac.Status.Conditions, kueue.AdmissionCheckActive)
		if active == nil || active.Status == metav1.ConditionTrue {
			continue
		}
		cond := fmt.Sprintf("Active=%s (%s: %s)", active.Status, active.Reason, active.Message)
		if ac.Spec.ControllerName == multiKueueController {
			clusters := InactiveClusters(active.Message)
			config := ""
			if p := ac.Spec.Parameters; p != nil && p.Kind == "MultiKueueConfig" {
				config = " (MultiKueueConfig " + p.Name + ")"
			}
			if len(clusters) > 0 {
				names := "MultiKueueCluster " + strings.Join(clusters, ", MultiKueueCluster ")
				cmd := "kubectl get multikueuecluster " + strings.Join(clusters, " ") + " -o yaml"
				why, seen := a.workerConditions(clusters)
				if seen {
					a.remedyM("FixWorkerCluster", WhoPlatform, cmd, msg("diagnose.multikueue.remedy.fix", i18n.Verbatim(names), why))
					return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.multikueue.noWorker", cqArg(cq.Name), i18n.Obj("AdmissionCheck", "", ac.Name), why),
						msg("diagnose.multikueue.detail", i18n.Obj("AdmissionCheck", "", ac.Name), i18n.Verbatim(config), i18n.Verbatim(cond), cqArg(cq.Name), i18n.Name(c.Reason)))
				}
				a.remedyM("FixWorkerCluster", WhoPlatform, cmd, msg("diagnose.multikueue.remedy.unread", i18n.Verbatim(names)))
				return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.multikueue.notActive", cqArg(cq.Name), i18n.Obj("AdmissionCheck", "", ac.Name), i18n.Verbatim(names)),
					msg("diagnose.multikueue.detail", i18n.Obj("AdmissionCheck", "", ac.Name), i18n.Verbatim(config), i18n.Verbatim(cond), cqArg(cq.Name), i18n.Name(c.Reason)))
			}
		}
		owner := ""
		if ac.Spec.ControllerName != "" {
			owner = " (controller " + ac.Spec.ControllerName + ")"
		}
		a.remedyM("FixCheck", WhoPlatform, fmt.Sprintf("kubectl get admissioncheck %s -o yaml", ac.Name), msg("diagnose.checkInactive.remedy", i18n.Obj("AdmissionCheck", "", ac.Name), i18n.Verbatim(owner), i18n.Verbatim(cond)))
		return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.checkInactive", cqArg(cq.Name), i18n.Obj("AdmissionCheck", "", ac.Name), i18n.Name(active.Reason)),
			msg("diagnose.checkInactive.detail", i18n.Obj("AdmissionCheck", "", ac.Name), i18n.Verbatim(owner), i18n.Verbatim(cond), cqArg(cq.Name)))
	}
	return false
}

// InactiveClusters are the MultiKueueClusters a MultiKueue
// AdmissionCheck's Active message names as missing or inactive, in order.
func InactiveClusters(msg string) []string {
	var out []string
	for _, m := range reInactiveClusters.FindAllStringSubmatch(msg, -1) {
		out = append(out, strings.Fields(m[2])...)
	}
	return out
}

// workerConditions says, for the named MultiKueueClusters the Snapshot
// holds, why each is not usable, e.g. "MultiKueueCluster w1 is
// Active=False (ClientConnectionFailed: dial tcp 127.0.0.1:1: connection
// refused)"; one missing from a config that was read "does not exist".
// seen is false when the Snapshot holds none of them (not read).
func (a *analysis) workerConditions(clusters []string) (i18n.List, bool) {
	var parts []i18n.Arg
	seen := false
	for _, n := range clusters {
		var mc *kueue.MultiKueueCluster
		for i := range a.s.MultiKueueClusters {
			if a.s.MultiKueueClusters[i].Name == n {
				mc = &a.s.MultiKueueClusters[i]
			}
		}
		obj := i18n.Obj("MultiKueueCluster", "", n)
		if mc == nil {
			if a.s.MultiKueueClusters != nil {
				parts = append(parts, msg("diagnose.mkCluster.missing", obj))
				seen = true
			} else {
				parts = append(parts, msg("diagnose.mkCluster.inactive", obj))
			}
			continue
		}
		seen = true
		c := apimeta.FindStatusCondition(mc.Status.Conditions, kueue.MultiKueueClusterActive)
		if c == nil {
			parts = append(parts, msg("diagnose.mkCluster.noCondition", obj))
			continue
		}
		m := c.Message
		if len(m) > 200 {
			m = m[:197] + "..."
		}
		parts = append(parts, msg("diagnose.mkCluster.condition", obj, i18n.Name(string(c.Status)), i18n.Name(c.Reason), i18n.Verbatim(m)))
	}
	return i18n.List{Items: parts, Semicolons: true}, seen
}

// ClusterQueueChecks lists the AdmissionChecks the ClusterQueue uses, in
// order, once each.
func ClusterQueueChecks(cq *kueue.ClusterQueue) []string {
	if cq.Spec.AdmissionChecksStrategy == nil {
		return nil
	}
	var out []string
	for _, r := range cq.Spec.AdmissionChecksStrategy.AdmissionChecks {
		if !slices.Contains(out, string(r.Name)) {
			out = append(out, string(r.Name))
		}
	}
	return out
}

// alternativeQueues suggests the other LocalQueues of the namespace.
func (a *analysis) alternativeQueues() {
	var others []string
	for _, lq := range a.s.NamespaceLocalQueues {
		if lq.Name == a.r.Queue.LocalQueue {
			continue
		}
		if c := apimeta.FindStatusCondition(lq.Status.Conditions, kueue.LocalQueueActive); c != nil && c.Status != metav1.ConditionTrue {
			continue
		}
		others = append(others, lq.Name)
	}
	if len(others) > 0 {
		a.remedyM("UseOtherQueue", WhoYou, "", msg("diagnose.otherQueues.remedy", nsArg(a.ns), nameList(others...), i18n.Name(QueueNameLabel)))
	}
}

// requeue handles Workloads parked after an eviction or in backoff.
func (a *analysis) requeue() bool {
	rq := a.cond(kueue.WorkloadRequeued)
	ev := a.cond(kueue.WorkloadEvicted)
	if a.evictedForPodsReadyTimeout() && (rq == nil || rq.Status == metav1.ConditionFalse) && (a.qr == nil || a.qr.Status != metav1.ConditionTrue) {
		return a.podsReadyTimeout()
	}
	if st := a.wl.Status.RequeueState; st != nil && st.RequeueAt != nil && st.RequeueAt.After(a.s.Now) {
		wait := st.RequeueAt.Sub(a.s.Now).Round(1e9)
		n := int32(0)
		if st.Count != nil {
			n = *st.Count
		}
		a.remedyM("Wait", WhoYou, "", msg("diagnose.backoff.remedy", i18n.Verbatim(wait.String())))
		return a.setM(CodeRequeuing, CauseBackoff, msg("diagnose.backoff.headline", a.jobArg(), i18n.Verbatim(wait.String())),
			msg("diagnose.backoff.detail", i18n.Num(n), i18n.Verbatim(st.RequeueAt.UTC().Format("15:04:05 MST"))))
	}
	if rq != nil && rq.Status == metav1.ConditionFalse && rq.Reason != kueue.WorkloadInadmissible {
		cause := CauseBackoff
		if rq.Reason == kueue.WorkloadEvictedByPodsReadyTimeout {
			cause = CausePodsReadyTimeout
		}
		a.remedyM("Wait", WhoYou, "", msg("diagnose.evictedNotQueued.remedy"))
		return a.setM(CodeRequeuing, cause, msg("diagnose.evictedNotQueued.headline", a.jobArg(), i18n.Name(rq.Reason)), quotedOpt(rq.Message))
	}
	// Evicted by preemption or node failure and not holding quota again:
	// the Evicted condition stays True until quota is reserved again, even
	// after Kueue re-evaluated the Workload (seen with v0.17).
	if ev != nil && ev.Status == metav1.ConditionTrue && (a.qr == nil || a.qr.Status != metav1.ConditionTrue) {
		var cause Cause
		switch ev.Reason {
		case kueue.WorkloadEvictedByPreemption:
			cause = CausePreempted
		case kueue.WorkloadEvictedDueToNodeFailures:
			cause = CauseNodeFailures
		default:
			return false
		}
		detail := []i18n.Message{msg("diagnose.quoted.period", i18n.Verbatim(ev.Message))}
		if cause == CausePreempted {
			if who := a.preemptorMsg(); !who.IsZero() {
				detail = []i18n.Message{who}
				if pc := a.cond(kueue.WorkloadPreempted); pc != nil {
					detail = append(detail, msg("diagnose.preempted.reason", preemptionReason(pc.Reason)))
				}
			}
		}
		if a.quota != nil && a.quota.level == fitLater {
			detail = append(detail, msg("diagnose.preempted.backInQueue", a.shortfallMsg(true)))
			a.waitRemedies(CauseQuotaInUse)
		} else {
			a.remedyM("Wait", WhoYou, "", msg("diagnose.preempted.remedy.wait"))
		}
		by := msg("diagnose.preempted.by.other")
		if pc := a.cond(kueue.WorkloadPreempted); pc != nil {
			switch pc.Reason {
			case kueue.InClusterQueueReason:
				by = msg("diagnose.preempted.by.inCQ")
			case kueue.InCohortReclamationReason:
				by = msg("diagnose.preempted.by.reclaim")
			case kueue.InCohortFairSharingReason:
				by = msg("diagnose.preempted.by.fairSharing")
			case kueue.InCohortReclaimWhileBorrowingReason:
				by = msg("diagnose.preempted.by.borrowing")
			}
		}
		head := msg("diagnose.preempted.headline", a.jobArg(), by)
		if cause == CausePreempted {
			a.preemptionRemedies()
		} else {
			head = msg("diagnose.nodeFailures.headline", a.jobArg())
		}
		return a.setM(CodeRequeuing, cause, head, i18n.Join(detail...))
	}
	return false
}

// preemptionReason says in words why Kueue preempted
// (pkg/scheduler/preemption HumanReadablePreemptionReasons).
func preemptionReason(reason string) i18n.Message {
	switch reason {
	case kueue.InClusterQueueReason:
		return msg("diagnose.preemption.reason.inCQ")
	case kueue.InCohortReclamationReason:
		return msg("diagnose.preemption.reason.reclaim")
	case kueue.InCohortFairSharingReason:
		return msg("diagnose.preemption.reason.fairSharing")
	case kueue.InCohortReclaimWhileBorrowingReason:
		return msg("diagnose.preemption.reason.borrowing")
	}
	return msg("diagnose.preemption.reason.other", i18n.Name(reason))
}

func (a *analysis) preemptionRemedies() {
	a.remedyM("UsePriority", WhoYou, "", msg("diagnose.preemption.remedy"))
}

// gates handles the AdmissionGated and WaitingForPodsReady holds.
func (a *analysis) gates() bool {
	if a.qr != nil && a.qr.Status == metav1.ConditionFalse {
		switch a.qr.Reason {
		case kueue.WorkloadAdmissionGated:
			gate := a.wl.Annotations[AdmissionGatedBy]
			if gate == "" {
				a.remedyM("WaitForGate", WhoYou, "", msg("diagnose.gate.remedy.unnamed", i18n.Name(AdmissionGatedBy)))
				return a.setM(CodeAdmissionGated, CauseNone, msg("diagnose.gate.headline.unnamed", a.jobArg()),
					msg("diagnose.gate.detail", i18n.Name(AdmissionGatedBy), i18n.Verbatim(strconv.Quote(gate)), quotedOpt(a.qr.Message)))
			}
			a.remedyM("WaitForGate", WhoYou, "", msg("diagnose.gate.remedy", i18n.Name(gate), i18n.Name(AdmissionGatedBy), a.wlArg(a.wl.Name)))
			return a.setM(CodeAdmissionGated, CauseNone, msg("diagnose.gate.headline", a.jobArg(), i18n.Name(gate)),
				msg("diagnose.gate.detail", i18n.Name(AdmissionGatedBy), i18n.Verbatim(strconv.Quote(gate)), quotedOpt(a.qr.Message)))
		case "Waiting", "WaitingForPodsReady":
			a.remedyM("Wait", WhoYou, "", msg("diagnose.podsReadyWait.remedy"))
			return a.setM(CodeWaitingForPodsReady, CauseNone, msg("diagnose.podsReadyWait.headline", a.jobArg()), quotedOpt(a.qr.Message))
		}
	}
	if a.claim != nil && (a.claim.Code == CodeAdmissionGated || a.claim.Code == CodeWaitingForPodsReady) {
		return a.useClaim()
	}
	return false
}

func (a *analysis) failedChecks() bool {
	var failed []i18n.Arg
	var failedChecks []kueue.AdmissionCheckState
	for _, ac := range a.wl.Status.AdmissionChecks {
		if ac.State == kueue.CheckStateRetry || ac.State == kueue.CheckStateRejected {
			failed = append(failed, a.checkMsg(ac))
			failedChecks = append(failedChecks, ac)
		}
	}
	if len(failed) == 0 && !a.msg.FailedAdmissionChecks {
		return false
	}
	if len(failed) > 0 {
		a.remedyM("WaitForCheck", WhoYou, "", msg("diagnose.failedChecks.remedy", a.checksOwnerMsg(failedChecks)))
		return a.setM(CodeWaitingForAdmissionChecks, CauseCheckRetry, msg("diagnose.failedChecks.headline", a.jobArg(), checksMsg(failedChecks)),
			msg("diagnose.checks.states", semicolons(failed)))
	}
	a.remedyM("WaitForCheck", WhoYou, "", msg("diagnose.failedChecks.remedy.unnamed"))
	return a.setM(CodeWaitingForAdmissionChecks, CauseCheckRetry, msg("diagnose.failedChecks.headline.unnamed", a.jobArg()),
		msg("diagnose.failedChecks.detail", i18n.Verbatim("The workload has failed admission checks")))
}

func (a *analysis) invalidResources() bool {
	if !a.msg.InvalidResources {
		return false
	}
	a.remedyM("FixResources", WhoYou, fmt.Sprintf("kubectl get limitrange %s -o yaml", a.nsFlag()), msg("diagnose.invalidResources.remedy"))
	return a.setM(CodeMisconfigured, CauseInvalidResources, msg("diagnose.invalidResources.headline", a.jobArg()), quotedOpt(a.qr.Message))
}

// order explains a Workload that Kueue has not evaluated yet.
func (a *analysis) order() bool {
	cq := a.s.ClusterQueue
	if cq != nil && cq.Spec.QueueingStrategy == kueue.StrictFIFO && len(a.s.QueueAhead) > 0 {
		head := a.s.QueueAhead[0]
		headName := i18n.Name(head.Namespace + "/" + head.Name)
		a.remedyM("Wait", WhoYou, "", msg("diagnose.fifo.remedy.head", headName, cqArg(cq.Name)))
		a.remedyM("UseOtherQueue", WhoYou, "", msg("diagnose.fifo.remedy.fixHead"))
		return a.setM(CodePendingEvaluation, CauseStrictFIFOBlocked,
			msg("diagnose.fifo.headline", a.jobArg(), i18n.Num(len(a.s.QueueAhead)), cqArg(cq.Name)),
			msg("diagnose.fifo.detail", cqArg(cq.Name), headName))
	}
	if cq != nil && cq.Spec.QueueingStrategy == kueue.StrictFIFO && a.s.Position == nil && a.qr == nil && cq.Status.PendingWorkloads > 1 {
		// The queue order is unknown (no visibility API), but a Workload
		// Kueue never evaluated in a StrictFIFO queue with others pending
		// sits behind a head that cannot be admitted.
		a.remedyM("Wait", WhoYou, "", msg("diagnose.fifo.remedy.unknownHead", cqArg(cq.Name)))
		a.remedyM("FindHead", WhoPlatform, fmt.Sprintf("kubectl get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/%s/pendingworkloads", cq.Name),
			msg("diagnose.fifo.remedy.findHead", cqArg(cq.Name)))
		return a.setM(CodePendingEvaluation, CauseStrictFIFOBlocked,
			msg("diagnose.fifo.headline.unknownHead", a.jobArg(), cqArg(cq.Name)),
			msg("diagnose.fifo.detail.unknownHead", cqArg(cq.Name), i18n.Num(cq.Status.PendingWorkloads)))
	}
	detail := []i18n.Message{msg("diagnose.order.notEvaluated")}
	if p := a.s.Position; p != nil {
		detail = []i18n.Message{msg("diagnose.order.position", ordinal(p.InLocalQueue, p.Tied), a.lqArg(a.r.Queue.LocalQueue), ordinal(p.InClusterQueue, p.Tied), cqArg(a.r.Queue.ClusterQueue))}
		if p.Tied > 0 {
			detail = append(detail, msg("diagnose.order.tied", i18n.Num(p.Tied)))
		}
	}
	if n := len(a.s.QueueAhead); n > 0 {
		head := a.s.QueueAhead[0]
		detail = append(detail, msg("diagnose.order.ahead", i18n.Num(n), i18n.Name(head.Namespace+"/"+head.Name)))
	}
	if a.quota != nil && a.quota.level == fitNow {
		detail = append(detail, msg("diagnose.order.fitsNow"))
	}
	a.remedyM("Wait", WhoYou, "", msg("diagnose.order.remedy"))
	return a.setM(CodePendingEvaluation, CauseNotYetEvaluated, msg("diagnose.order.headline", a.jobArg()), i18n.Join(detail...))
}

// ordinal is "number 3" for a 0-based position, or "number 3 to 5" when
// tied others may come before it.
func ordinal(pos, tied int32) i18n.Message {
	if tied == 0 {
		return msg("diagnose.ordinal", i18n.Num(pos+1))
	}
	return msg("diagnose.ordinal.tied", i18n.Num(pos+1), i18n.Num(pos+1+tied))
}

// quotedOpt is quoted, or the zero Message for "".
func quotedOpt(s string) i18n.Message {
	if s == "" {
		return i18n.Message{}
	}
	return quoted(s)
}

func dropTargetGaps(gaps []Gap, t Target) []Gap {
	out := gaps[:0]
	for _, g := range gaps {
		if g.Name == t.Name || g.Kind == "Workload" || g.Kind == t.Kind {
			continue
		}
		out = append(out, g)
	}
	return out
}

func sortGaps(g []Gap) {
	sort.SliceStable(g, func(i, j int) bool {
		if g[i].Kind != g[j].Kind {
			return g[i].Kind < g[j].Kind
		}
		return g[i].Name < g[j].Name
	})
}

func kindPlural(kind string) string {
	if kind == "" {
		return "jobs"
	}
	return strings.ToLower(kind) + "s"
}

func lqNames(lqs []kueue.LocalQueue) string {
	names := make([]string, 0, len(lqs))
	for _, lq := range lqs {
		names = append(names, lq.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// closest returns the LocalQueue name nearest to name by edit distance, if
// it is a plausible typo.
func closest(name string, lqs []kueue.LocalQueue) string {
	best, bestD := "", 1<<30
	for _, lq := range lqs {
		d := editDistance(name, lq.Name)
		if d < bestD || (d == bestD && lq.Name < best) {
			best, bestD = lq.Name, d
		}
	}
	if best == "" || bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
