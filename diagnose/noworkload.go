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

	"github.com/kueuebot/kueuebot/kinds"
)

// workloadMissing explains a job that names a LocalQueue but has no
// Workload, with the cause the objects show when they show one: a missing
// WorkloadPriorityClass, an incomplete pod group, Kueue's own
// ErrWorkloadCompose event, or a job Kueue's webhook never took.
func (a *analysis) workloadMissing() bool {
	lq := a.job.queueName()
	head := fmt.Sprintf("Kueue has not picked up %s yet.", a.jobRef())
	detail := fmt.Sprintf("The job names LocalQueue %q, but Kueue has not created a Workload for it.", lq)
	if hasGap(a.s, "Workload", "") && !a.s.HasGap("Workload", GapNotFound) {
		detail = fmt.Sprintf("The job names LocalQueue %q, but I could not read its Workload (see the gaps below).", lq)
	}
	kueueRemedy := func(summary string, args ...any) {
		a.remedy("CheckKueue", WhoPlatform, "kubectl -n kueue-system logs deploy/kueue-controller-manager --since=15m | grep "+a.r.Target.Name, summary, args...)
	}

	if a.notManagedByConfig() {
		return true
	}
	if name := a.job.label(WorkloadPriorityClassLabel); name != "" && a.s.PriorityClass == nil && a.s.HasGap("WorkloadPriorityClass", GapNotFound) {
		a.remedy("FixPriorityClass", WhoYou, "", "Recreate the job with %s naming a WorkloadPriorityClass that exists (ask the platform team which ones do), or without the label.", WorkloadPriorityClassLabel)
		a.remedy("CreatePriorityClass", WhoPlatform, "", "Or ask the platform team to create WorkloadPriorityClass %s.", name)
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue cannot create a Workload for %s: WorkloadPriorityClass %s does not exist.", a.jobRef(), name),
			fmt.Sprintf("The job's %s label names WorkloadPriorityClass %s, which does not exist, so Kueue cannot set the Workload's priority and creates none. The job stays suspended.", WorkloadPriorityClassLabel, name))
	}
	if a.podsGatedMissing(kueueRemedy) {
		return true
	}
	if g := a.job.label(PodGroupNameLabel); g != "" && a.job.kind() == "Pod" {
		if total, err := strconv.Atoi(a.job.annotation(PodGroupTotalCountAnnotation)); err == nil && total > 0 {
			if have := len(activePods(a.s.Pods)); have < total && !hasGap(a.s, "Pod", "") {
				msg := a.eventWith("ErrWorkloadCompose")
				d := fmt.Sprintf("Pod group %s declares %d pods (%s) but %d exist and are not finished; Kueue creates the group's Workload only once all of them exist.", g, total, PodGroupTotalCountAnnotation, have)
				if msg != "" {
					d += " Kueue reports: " + msg
				}
				a.remedy("CompleteGroup", WhoYou, "", "Create the missing %d pod(s) of group %s, or recreate the group with %s=%d.", total-have, g, PodGroupTotalCountAnnotation, have)
				return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Pod group %s is incomplete: %d of %d pods, so Kueue has not created its Workload.", g, have, total), d)
			}
		}
	}
	if msg := a.eventWith("ErrWorkloadCompose"); msg != "" {
		a.remedy("FixJob", WhoYou, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), "Fix what Kueue reports, then recreate the job.")
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue cannot create a Workload for %s.", a.jobRef()),
			"Kueue reports that it could not build the Workload: "+msg)
	}
	if a.unreadPriorityClass() {
		return true
	}
	susp, hasSuspend := a.job.suspended()
	if hasSuspend && !susp && !a.hasActivePods() {
		// Kueue's webhook suspends every job that names a LocalQueue when
		// it is created (jobframework.WorkloadShouldBeSuspended), whatever
		// its namespace; one that never was did not go through it.
		kueueRemedy("Ask the platform team whether Kueue's %s integration is enabled and whether Kueue's webhook was up when the job was created; then recreate the job.", a.r.Target.Kind)
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue does not manage %s: it never suspended it.", a.jobRef()),
			detail+fmt.Sprintf(" The job is not suspended, which Kueue's webhook does to every job that names a LocalQueue when it is created: the %s integration is not enabled, or the webhook did not see the job. Kubernetes runs it outside any quota.", a.r.Target.Kind))
	}
	if hasSuspend && !susp {
		detail += " The job is not suspended and still has active pods; Kueue waits for them to stop before it creates the Workload."
		kueueRemedy("Check that the Kueue controller runs and that the %s integration is enabled for namespace %s.", a.r.Target.Kind, a.ns)
		return a.set(CodeWorkloadMissing, CauseNone, head, detail)
	}
	if hasSuspend && a.s.KueueConfig != nil {
		// Kueue's Configuration enables the kind and manages the namespace
		// (notManagedByConfig said nothing): the controller is the cause.
		kueueRemedy("Ask the platform team to check Kueue's controller: it runs, and its logs name the job if it fails on it.")
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue suspended %s but has not created its Workload.", a.jobRef()),
			detail+fmt.Sprintf(" Kueue's webhook suspended the job and nothing reports an error on it; Kueue's Configuration enables the %s integration and manages namespace %s, so Kueue's controller is down or fails on the job.", a.r.Target.Kind, a.ns))
	}
	if hasSuspend {
		// Suspended by Kueue's webhook, and no Workload: Kueue's controller
		// ignores the namespace (managedJobsNamespaceSelector, enforced by
		// the controller only: ManagedJobsNamespaceSelectorAlwaysRespected),
		// or it is down or failing on the job.
		kueueRemedy("Ask the platform team whether namespace %s is in Kueue's managedJobsNamespaceSelector (if not, nothing will ever unsuspend the job: run it in a namespace Kueue manages) and whether Kueue's controller runs; its logs name the job if it fails on it.", a.ns)
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue suspended %s but has not created its Workload.", a.jobRef()),
			detail+fmt.Sprintf(" Kueue's webhook suspended the job, as it does with every job that names a LocalQueue, and nothing reports an error on it. Either namespace %s is outside Kueue's managedJobsNamespaceSelector (the webhook still suspends such a job, Kueue's controller then ignores it, and it stays suspended for good), or Kueue's controller is down or fails on the job.", a.ns))
	}
	kueueRemedy("Check that the Kueue controller runs and that the %s integration is enabled for namespace %s.", a.r.Target.Kind, a.ns)
	return a.set(CodeWorkloadMissing, CauseNone, head, detail+
		" Usually Kueue's controller is down, this job kind's integration is not enabled, or the namespace is excluded by managedJobsNamespaceSelector.")
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
	k, ok := kinds.ByKind(a.r.Target.Kind)
	op := ""
	if ok {
		op = k.Operator
	}
	c := apimeta.FindStatusCondition(a.wl.Status.Conditions, kueue.WorkloadAdmitted)
	if op == "" || c == nil || a.s.Now.Sub(c.LastTransitionTime.Time) < operatorIdle || a.eventWith("FailedCreate") != "" || hasGap(a.s, "Pod", "") {
		return false
	}
	since := a.s.Now.Sub(c.LastTransitionTime.Time).Round(time.Minute)
	a.remedy("AskOperator", WhoPlatform, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()),
		"Ask the platform team whether %s runs and watches namespace %s; Kueue's part is done.", op, a.ns)
	return a.set(CodeStarting, CausePodsNotCreated, fmt.Sprintf("%s was admitted %s ago, but %s does not seem to act on it.", a.jobRef(), since, op),
		fmt.Sprintf("Kueue admitted the Workload and unsuspended the %s %s ago; no pods exist and nothing reports a failure to create them. Creating them is the job of %s, not Kueue's.", strings.ToLower(a.r.Target.Kind), since, op))
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
		a.remedy("EnableIntegration", WhoPlatform, "", "Ask the platform team to enable the %s integration in Kueue's Configuration (integrations.frameworks), or run the work as a kind that is enabled (%s).", fw, strings.Join(kc.Frameworks, ", "))
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue does not manage %s: its %s integration is not enabled.", a.jobRef(), fw),
			fmt.Sprintf("Kueue's Configuration enables the integrations %s, not %s, so Kueue ignores the job and its queue-name label.", strings.Join(kc.Frameworks, ", "), fw))
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
		a.remedy("ManageNamespace", WhoPlatform, "", "Ask the platform team to let Kueue manage namespace %s (managedJobsNamespaceSelector in Kueue's Configuration: %s), or run the job in a namespace it manages.", a.ns, s)
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue does not manage jobs in namespace %s.", a.ns),
			fmt.Sprintf("Kueue's managedJobsNamespaceSelector (%s) does not select namespace %s, so Kueue ignores %s and its queue-name label.", s, a.ns, a.jobRef()))
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
	a.remedy("CheckPriorityClass", WhoPlatform, "kubectl get workloadpriorityclass "+name,
		"Ask the platform team whether WorkloadPriorityClass %s exists; if it does not, they can create it, or tell you which class to use.", name)
	a.remedy("FixPriorityClass", WhoYou, "", "If it does not exist, recreate the job with %s naming a class that does, or without the label.", WorkloadPriorityClassLabel)
	return a.set(CodeWorkloadMissing, CauseNone,
		fmt.Sprintf("Kueue has not created a Workload for %s, probably because WorkloadPriorityClass %s does not exist.", a.jobRef(), name),
		fmt.Sprintf("The job's %s label names WorkloadPriorityClass %s, which I could not read (see the gaps below). Kueue's webhook suspended the job and nothing reports another error; when the class a job names does not exist, Kueue cannot set the Workload's priority and creates none, without an event on the job. The job stays suspended.", WorkloadPriorityClassLabel, name))
}
