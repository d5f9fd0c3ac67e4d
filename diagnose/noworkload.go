package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/kinds"
)

// workloadMissing explains a job that names a LocalQueue but has no
// Workload, with the cause the objects show when they show one: a missing
// WorkloadPriorityClass, an incomplete pod group, Kueue's own
// ErrWorkloadCompose event, or a job Kueue's webhook never took.
func (a *analysis) workloadMissing() bool {
	lq := a.job.queueName()
	head := msg("diagnose.nowl.headline", a.jobArg())
	detail := msg("diagnose.nowl.detail", i18n.Verbatim(strconv.Quote(lq)))
	if hasGap(a.s, "Workload", "") && !a.s.HasGap("Workload", GapNotFound) {
		detail = msg("diagnose.nowl.detailGap", i18n.Verbatim(strconv.Quote(lq)))
	}
	kueueRemedy := func(summary i18n.Message) {
		a.remedyM("CheckKueue", WhoPlatform, "kubectl -n kueue-system logs deploy/kueue-controller-manager --since=15m | grep "+a.r.Target.Name, summary)
	}
	kind := i18n.Name(a.r.Target.Kind)

	if a.notManagedByConfig() {
		return true
	}
	if name := a.job.label(WorkloadPriorityClassLabel); name != "" && a.s.PriorityClass == nil && a.s.HasGap("WorkloadPriorityClass", GapNotFound) {
		wpc := i18n.Obj("WorkloadPriorityClass", "", name)
		a.remedyM("FixPriorityClass", WhoYou, "", msg("diagnose.nowl.wpc.fix.remedy", i18n.Name(WorkloadPriorityClassLabel)))
		a.remedyM("CreatePriorityClass", WhoPlatform, "", msg("diagnose.nowl.wpc.create.remedy", wpc))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.wpc.headline", a.jobArg(), wpc),
			msg("diagnose.nowl.wpc.detail", i18n.Name(WorkloadPriorityClassLabel), wpc))
	}
	if a.podsGatedMissing(kueueRemedy) {
		return true
	}
	if g := a.job.label(PodGroupNameLabel); g != "" && a.job.kind() == "Pod" {
		if total, err := strconv.Atoi(a.job.annotation(PodGroupTotalCountAnnotation)); err == nil && total > 0 {
			if have := len(activePods(a.s.Pods)); have < total && !hasGap(a.s, "Pod", "") {
				d := msg("diagnose.nowl.group.detail", i18n.Name(g), i18n.Num(total), i18n.Name(PodGroupTotalCountAnnotation), i18n.Num(have))
				if ev := a.eventWith("ErrWorkloadCompose"); ev != "" {
					d = i18n.Join(d, msg("diagnose.nowl.kueueReports", i18n.Verbatim(ev)))
				}
				a.remedyM("CompleteGroup", WhoYou, "", msg("diagnose.nowl.group.remedy", i18n.Num(total-have), i18n.Name(g), i18n.Name(PodGroupTotalCountAnnotation), i18n.Num(have)))
				return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.group.headline", i18n.Name(g), i18n.Num(have), i18n.Num(total)), d)
			}
		}
	}
	if ev := a.eventWith("ErrWorkloadCompose"); ev != "" {
		a.remedyM("FixJob", WhoYou, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), msg("diagnose.nowl.compose.remedy"))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.compose.headline", a.jobArg()),
			msg("diagnose.nowl.compose.detail", i18n.Verbatim(ev)))
	}
	if a.unreadPriorityClass() {
		return true
	}
	susp, hasSuspend := a.job.suspended()
	if hasSuspend && !susp && !a.hasActivePods() {
		// Kueue's webhook suspends every job that names a LocalQueue when
		// it is created (jobframework.WorkloadShouldBeSuspended), whatever
		// its namespace; one that never was did not go through it.
		kueueRemedy(msg("diagnose.nowl.notSuspended.remedy", kind))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.notSuspended.headline", a.jobArg()),
			i18n.Join(detail, msg("diagnose.nowl.notSuspended.detail", kind)))
	}
	if hasSuspend && !susp {
		kueueRemedy(msg("diagnose.nowl.checkController.remedy", kind, nsArg(a.ns)))
		return a.setM(CodeWorkloadMissing, CauseNone, head, i18n.Join(detail, msg("diagnose.nowl.activePods")))
	}
	if hasSuspend && a.s.KueueConfig != nil {
		// Kueue's Configuration enables the kind and manages the namespace
		// (notManagedByConfig said nothing): the controller is the cause.
		kueueRemedy(msg("diagnose.nowl.controller.remedy"))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.suspended.headline", a.jobArg()),
			i18n.Join(detail, msg("diagnose.nowl.controllerDown.detail", kind, nsArg(a.ns))))
	}
	if hasSuspend {
		// Suspended by Kueue's webhook, and no Workload: Kueue's controller
		// ignores the namespace (managedJobsNamespaceSelector, enforced by
		// the controller only: ManagedJobsNamespaceSelectorAlwaysRespected),
		// or it is down or failing on the job.
		kueueRemedy(msg("diagnose.nowl.nsSelector.remedy", nsArg(a.ns)))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.suspended.headline", a.jobArg()),
			i18n.Join(detail, msg("diagnose.nowl.outsideOrDown.detail", nsArg(a.ns))))
	}
	kueueRemedy(msg("diagnose.nowl.checkController.remedy", kind, nsArg(a.ns)))
	return a.setM(CodeWorkloadMissing, CauseNone, head, i18n.Join(detail, msg("diagnose.nowl.usually")))
}

// hasActivePods reports whether the job's own status counts active pods
// (batch Job status.active).
func (a *analysis) hasActivePods() bool {
	n, _ := a.job.statusInt("active")
	return n > 0
}

// operatorIdle is how long after admission a job without Pods means its
// operator does not act.
const operatorIdle = 2 * time.Minute

// operatorSilent explains an admitted, unsuspended job with no Pods long
// after admission: the kind's own operator does not seem to act. It
// returns false when it is too early to say, or something else explains it.
func (a *analysis) operatorSilent() bool {
	k, _ := kinds.ByKind(a.r.Target.Kind)
	c := apimeta.FindStatusCondition(a.wl.Status.Conditions, kueue.WorkloadAdmitted)
	if k.Operator.IsZero() || c == nil || a.s.Now.Sub(c.LastTransitionTime.Time) < operatorIdle || a.eventWith("FailedCreate") != "" || hasGap(a.s, "Pod", "") {
		return false
	}
	since := a.s.Now.Sub(c.LastTransitionTime.Time).Round(time.Minute)
	a.remedyM("AskOperator", WhoPlatform, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()),
		msg("diagnose.nowl.operator.remedy", operatorMsg(k.Operator), nsArg(a.ns)))
	return a.setM(CodeStarting, CausePodsNotCreated, msg("diagnose.nowl.operator.headline", a.jobArg(), i18n.Verbatim(since.String()), operatorMsg(k.Operator)),
		msg("diagnose.nowl.operator.detail", i18n.Name(strings.ToLower(a.r.Target.Kind)), i18n.Verbatim(since.String()), operatorMsg(k.Operator)))
}

// notManagedByConfig uses Kueue's own Configuration, when it was read, to
// say for certain that Kueue does not manage the job: its integration is
// not enabled, or its namespace is outside managedJobsNamespaceSelector.
func (a *analysis) notManagedByConfig() bool {
	kc := a.s.KueueConfig
	if kc == nil {
		return false
	}
	kind := a.r.Target.Kind
	if k, ok := kinds.ByKind(kind); ok && k.Framework != "" && !slices.Contains(kc.Frameworks, k.Framework) {
		fw := k.Framework
		a.remedyM("EnableIntegration", WhoPlatform, "", msg("diagnose.nowl.integration.remedy", i18n.Name(fw), nameList(kc.Frameworks...)))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.integration.headline", a.jobArg(), i18n.Name(fw)),
			msg("diagnose.nowl.integration.detail", nameList(kc.Frameworks...), i18n.Name(fw)))
	}
	if sel := kc.ManagedJobsNamespaceSelector; sel != nil {
		labels := map[string]string{corev1.LabelMetadataName: a.ns}
		if a.s.Namespace != nil {
			labels = a.s.Namespace.Labels
		} else if SelectorNeedsLabels(sel) {
			return false // the namespace's labels are unknown
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Matches(k8slabels.Set(labels)) {
			return false
		}
		a.remedyM("ManageNamespace", WhoPlatform, "", msg("diagnose.nowl.manageNs.remedy", nsArg(a.ns), i18n.Verbatim(s.String())))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.manageNs.headline", nsArg(a.ns)),
			msg("diagnose.nowl.manageNs.detail", i18n.Verbatim(s.String()), nsArg(a.ns), a.jobArg()))
	}
	return false
}

// SelectorNeedsLabels reports whether a namespace selector's answer
// depends on the namespace's labels: false for nil (matches nothing), {}
// (matches all), and a selector that tests only kubernetes.io/metadata.name,
// the namespace's name, which is known without reading the namespace.
func SelectorNeedsLabels(sel *metav1.LabelSelector) bool {
	if sel == nil {
		return false
	}
	for k := range sel.MatchLabels {
		if k != corev1.LabelMetadataName {
			return true
		}
	}
	for _, r := range sel.MatchExpressions {
		if r.Key != corev1.LabelMetadataName {
			return true
		}
	}
	return false
}

// unreadPriorityClass explains a job that names a WorkloadPriorityClass the
// caller may not read (or that could not be read): Kueue's webhook
// suspended the job, and nothing reports another reason for making no
// Workload. A class that does not exist is then the likely cause: Kueue's reconciler
// fails to set the Workload's priority, logs the error and creates nothing,
// with no event on the job. The answer says it could not check, and who can.
func (a *analysis) unreadPriorityClass() bool {
	name := a.job.label(WorkloadPriorityClassLabel)
	if name == "" || a.s.PriorityClass != nil || !hasGap(a.s, "WorkloadPriorityClass", name) || a.s.HasGap("WorkloadPriorityClass", GapNotFound) {
		return false
	}
	if susp, ok := a.job.suspended(); !ok || !susp {
		return false
	}
	wpc := i18n.Obj("WorkloadPriorityClass", "", name)
	a.remedyM("CheckPriorityClass", WhoPlatform, "kubectl get workloadpriorityclass "+name, msg("diagnose.nowl.wpcUnread.remedy", wpc))
	a.remedyM("FixPriorityClass", WhoYou, "", msg("diagnose.nowl.wpcUnread.fix.remedy", i18n.Name(WorkloadPriorityClassLabel)))
	return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.nowl.wpcUnread.headline", a.jobArg(), wpc),
		msg("diagnose.nowl.wpcUnread.detail", i18n.Name(WorkloadPriorityClassLabel), wpc))
}

// operatorMsg names the controller of a kind: "the KubeRay operator",
// "the JobSet controller (jobset-controller-manager)".
func operatorMsg(o kinds.Operator) i18n.Message {
	id := "diagnose.operator." + string(o.Noun)
	if o.Runs != "" {
		return msg(i18n.ID(id+"Runs"), i18n.Name(o.Name), i18n.Name(o.Runs))
	}
	return msg(i18n.ID(id), i18n.Name(o.Name))
}
