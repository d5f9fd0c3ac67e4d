package diagnose

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// structuredClaim reads the structured pending reasons newer Kueue writes
// (KEP-10852) on QuotaReserved=False and Admitted=False. It returns nil for
// v0.17's plain reasons (Pending, Inadmissible, ...), which are parsed from
// the message instead.
func structuredClaim(wl *kueue.Workload) *Verdict {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	if c != nil && c.Status == metav1.ConditionFalse {
		v := func(code Code, cause Cause, headline string) *Verdict {
			return &Verdict{Stage: StageOf(code), Code: code, Cause: cause, Headline: headline, Detail: c.Message}
		}
		switch c.Reason {
		case "WaitingForQuota":
			return v(CodeWaitingForQuota, CauseQuotaInUse, "The job waits for quota to free up.")
		case "WaitingForPreemptedWorkloads":
			return v(CodeWaitingForQuota, CausePendingPreemption, "Kueue is preempting other workloads to make room for the job.")
		case "ExceedsMaxQuota":
			return v(CodeExceedsMaxQuota, CauseNone, "The job asks for more than its queue can ever hold.")
		case "NoMatchingFlavor":
			cause := CauseNodeAffinityMismatch
			switch m := strings.ToLower(c.Message); {
			case strings.Contains(m, "taint"):
				cause = CauseUntoleratedTaint
			case strings.Contains(m, "topology"):
				cause = CauseTopologyMismatch
			}
			return v(CodeNoMatchingFlavor, cause, "No ResourceFlavor of the queue can take the job's pods.")
		case "TopologyPlacementFailed":
			return v(CodeNoMatchingFlavor, CauseTopologyMismatch, "Kueue cannot place the job's pods in the requested topology.")
		case "Misconfigured":
			return v(CodeMisconfigured, misconfiguredCause(c.Message), "The job's queue is misconfigured.")
		case "OnHold":
			if strings.Contains(c.Message, "LocalQueue") {
				return v(CodeOnHold, CauseLocalQueueStopped, "The job's LocalQueue is on hold.")
			}
			return v(CodeOnHold, CauseClusterQueueStopped, "The job's ClusterQueue is on hold.")
		case "Suspended":
			return v(CodeDeactivated, CauseManual, "The job's Workload is deactivated.")
		case "AdmissionGated":
			return v(CodeAdmissionGated, CauseNone, "The job is held back by an admission gate.")
		case "WaitingForPodsReady":
			return v(CodeWaitingForPodsReady, CauseNone, "The job waits for other admitted jobs to start their pods.")
		case "PendingEvaluation":
			return v(CodePendingEvaluation, CauseNotYetEvaluated, "The job is queued and waits for Kueue to evaluate it.")
		}
	}
	if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted); c != nil && c.Status == metav1.ConditionFalse && c.Reason == "UnsatisfiedAdmissionChecks" {
		return &Verdict{Stage: StageAdmission, Code: CodeWaitingForAdmissionChecks, Cause: CauseCheckPending, Headline: "The job waits for admission checks.", Detail: c.Message}
	}
	return nil
}

// misconfiguredCause refines a structured Misconfigured reason by its
// message.
func misconfiguredCause(msg string) Cause {
	m := strings.ToLower(msg)
	missing := strings.Contains(m, "doesn't exist") || strings.Contains(m, "not found") || strings.Contains(m, "missing")
	switch {
	case strings.Contains(m, "localqueue") && missing:
		return CauseLocalQueueNotFound
	case strings.Contains(m, "flavor") && missing:
		return CauseFlavorNotFound
	case strings.Contains(m, "clusterqueue") && missing:
		return CauseClusterQueueNotFound
	case strings.Contains(m, "namespace"):
		return CauseNamespaceNotSelected
	case strings.Contains(m, "validation") || strings.Contains(m, "limitrange"):
		return CauseInvalidResources
	case strings.Contains(m, "unavailable") || strings.Contains(m, "not covered"):
		return CauseResourceNotCovered
	}
	return CauseClusterQueueInactive
}

// quota decides the verdict from the quota evaluation, or from Kueue's
// message when the ClusterQueue could not be read.
func (a *analysis) quotaVerdict() bool {
	o := a.quota
	if o == nil {
		return a.quotaFromMessage()
	}
	cq := a.s.ClusterQueue
	if nc := o.notCovered(); len(nc) > 0 {
		names := resNames(nc)
		pods := "the pods"
		if a.multiPodSet() {
			pods = "the pods of " + podSetList(o.podSetsNotCovered())
		}
		a.remedy("RemoveResource", WhoYou, "", "Remove the %s request from %s if it is not needed, or use a LocalQueue whose ClusterQueue provides it%s.", names, pods, lqSuggestion(a.s.NamespaceLocalQueues, a.r.Queue.LocalQueue))
		a.remedy("CoverResource", WhoPlatform, "", "Or ask the platform team to add %s to the coveredResources of ClusterQueue %s.", names, cq.Name)
		who := a.jobRef()
		detail := fmt.Sprintf("No resource group of ClusterQueue %s covers %s, so Kueue can never admit the job as it is.", cq.Name, names)
		if a.multiPodSet() {
			by := o.podSetsNotCovered()
			who = podSetList(by) + " of " + a.jobRef()
			detail += a.othersFitText(by)
		}
		return a.set(CodeMisconfigured, CauseResourceNotCovered, fmt.Sprintf("ClusterQueue %s has no quota for %s, which %s requests.", cq.Name, names, who), detail)
	}
	if o.tree.partial {
		a.finding("PartialCohort", SeverityInfo, "ClusterQueue %s is in cohort %s, but the other members could not be read: what it may borrow is unknown, so available and maximum figures are its own quota only.", cq.Name, cq.Spec.CohortName)
	}
	switch o.level {
	case fitIneligible:
		if a.msg.has(ReasonTopology) {
			return a.topologyMismatch()
		}
		return a.noMatchingFlavor()
	case fitNever:
		if o.tree.partial && a.msg.has(ReasonUnusedQuota) {
			break // borrowing may help; Kueue says it fits the maximum
		}
		caps := a.cappingLimits()
		a.sizeRemedies(false)
		a.capRemedies(caps)
		a.alternativeRemedies(fitLater)
		head := fmt.Sprintf("%s asks for more than ClusterQueue %s can ever hold.", a.jobRef(), cq.Name)
		detail := a.shortfallText(false) + a.capsText(caps) + " It will wait forever as it is: make it smaller or get more quota."
		if len(caps) > 0 {
			head = fmt.Sprintf("%s asks for more than ClusterQueue %s can ever hold: the cohort has the quota, but %s keeps it out.", a.jobRef(), cq.Name, heldText(caps))
		}
		if a.multiPodSet() {
			by := o.podSetsAt(fitNever)
			head = fmt.Sprintf("%s asks for more than ClusterQueue %s can ever hold: %s %s.", a.jobRef(), cq.Name, podSetList(by), verb(by, "does not fit", "do not fit"))
			detail += a.othersFitText(by)
		}
		return a.set(CodeExceedsMaxQuota, CauseNone, head, detail)
	case fitLater:
		cause := CauseQuotaInUse
		switch {
		case a.msg.PendingPreemptions > 0:
			cause = CausePendingPreemption
		case a.borrowLimited():
			cause = CauseBorrowingLimited
		}
		a.waitRemedies(cause)
		// it: what needs the quota, the job or, with several pod sets,
		// the ones that do not fit.
		it, detail := "it", a.shortfallText(true)
		if a.multiPodSet() {
			by := o.podSetsAt(fitLater)
			it = podSetList(by)
			detail += a.othersFitText(by)
		}
		needs := "needs"
		if a.multiPodSet() {
			needs = verb(o.podSetsAt(fitLater), "needs", "need")
		}
		head := fmt.Sprintf("%s waits for quota: other workloads in ClusterQueue %s hold what %s %s.", a.jobRef(), cq.Name, it, needs)
		if a.cohortHolds() {
			head = fmt.Sprintf("%s waits for quota: workloads of ClusterQueue %s and of its cohort %s hold what %s %s.", a.jobRef(), cq.Name, cq.Spec.CohortName, it, needs)
		}
		if cause == CauseQuotaInUse {
			if never := a.neverPreempts(); never != "" {
				head = strings.TrimSuffix(head, ".") + fmt.Sprintf(", and ClusterQueue %s never preempts (%s), so the job's priority %d does not make room.", cq.Name, never, priorityOf(a.wl))
				detail += a.holdersOfQueueText()
				a.remedy("AllowPreemption", WhoPlatform, "", "If higher-priority jobs should not wait behind lower ones, ask the platform team to set spec.preemption.withinClusterQueue: LowerPriority on ClusterQueue %s (and reclaimWithinCohort for quota lent to the cohort).", cq.Name)
			}
		}
		switch cause {
		case CausePendingPreemption:
			head = fmt.Sprintf("Kueue is preempting %d workload(s) to make room for %s.", a.msg.PendingPreemptions, a.jobRef())
		case CauseBorrowingLimited:
			head = fmt.Sprintf("%s waits for quota: the cohort has idle quota, but %s keeps it out.", a.jobRef(), a.limitsText())
			if a.multiPodSet() {
				head = fmt.Sprintf("%s waits for quota: the cohort has idle quota for %s, but %s keeps it out.", a.jobRef(), it, a.limitsText())
			}
		}
		return a.set(CodeWaitingForQuota, cause, head, detail)
	case fitNow:
		if a.msg.has(ReasonTopology) {
			return a.topologyMismatch()
		}
		if a.msg.has(ReasonUnusedQuota) || a.msg.has(ReasonMaxCapacity) {
			a.finding("StaleMessage", SeverityInfo, "Kueue's last message (%q) is older than the current quota: by my count the job fits now.", a.qr.Message)
		}
	}
	return false
}

// neverPreempts says how the ClusterQueue is set never to preempt for a
// Workload with a priority above zero, e.g. "withinClusterQueue: Never";
// "" when it may preempt, or when the Workload has no priority to preempt
// with.
func (a *analysis) neverPreempts() string {
	cq := a.s.ClusterQueue
	if cq == nil || a.wl == nil || priorityOf(a.wl) <= 0 {
		return ""
	}
	within, reclaim := kueue.PreemptionPolicy(kueue.PreemptionPolicyNever), kueue.PreemptionPolicy(kueue.PreemptionPolicyNever)
	if p := cq.Spec.Preemption; p != nil {
		if p.WithinClusterQueue != "" {
			within = p.WithinClusterQueue
		}
		if p.ReclaimWithinCohort != "" {
			reclaim = p.ReclaimWithinCohort
		}
	}
	if within != kueue.PreemptionPolicyNever {
		return ""
	}
	if cq.Spec.CohortName == "" {
		return "withinClusterQueue: Never"
	}
	if reclaim != kueue.PreemptionPolicyNever {
		return ""
	}
	return "withinClusterQueue and reclaimWithinCohort: Never"
}

// holdersOfQueueText says how many admitted workloads of the ClusterQueue
// hold its quota and who can list them: the bot reads no other user's
// Workloads.
func (a *analysis) holdersOfQueueText() string {
	cq := a.s.ClusterQueue
	n := cq.Status.ReservingWorkloads
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" Workloads holding quota in ClusterQueue %s now: %d (status.reservingWorkloads). Whoever may read Workloads in all namespaces (the platform team) sees which with kubectl get workloads -A (column RESERVED IN); yours are listed by kubectl get workloads -n %s.", cq.Name, n, a.ns)
}

// holdingLimits lists, once each, the limits that keep idle quota from
// the chosen flavors, with the resource they hold.
func (a *analysis) holdingLimits() []heldBy {
	var out []heldBy
	seen := map[string]bool{}
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			for _, r := range sortedRes(f.shortNow) {
				for _, l := range f.limits[r] {
					key := fmt.Sprintf("%s/%v/%s/%s", l.node.name, l.lending, f.flavor, r)
					if !seen[key] {
						seen[key] = true
						out = append(out, heldBy{limit: l, k: fr{f.flavor, r}, need: p.req.total[r], flavor: f})
					}
				}
			}
		}
	}
	return out
}

// heldBy is one limit that holds a pod set's request back.
type heldBy struct {
	limit  quotaLimit
	k      fr
	need   int64
	flavor flavorFit
}

// text names the limit and its owner, e.g. "the borrowingLimit of
// ClusterQueue team-a (1 cpu in flavor default)".
func (h heldBy) text() string {
	kind, owner := "borrowingLimit", "ClusterQueue"
	if h.limit.lending {
		kind = "lendingLimit"
	}
	if h.limit.node.isCohort {
		owner = "Cohort"
	}
	return fmt.Sprintf("%s %s's %s (%s %s in flavor %s)", owner, h.limit.node.name, kind, fmtQ(h.k.resource, h.limit.value), h.k.resource, h.k.flavor)
}

func (a *analysis) limitsText() string {
	return heldText(a.holdingLimits())
}

func heldText(hs []heldBy) string {
	var parts []string
	for _, h := range hs {
		parts = append(parts, h.text())
	}
	if len(parts) == 0 {
		return "a borrowing limit"
	}
	return strings.Join(parts, " and ")
}

// cappingLimits lists, once each, the borrowingLimits and lendingLimits
// without which the chosen flavors could ever hold what the pod sets need:
// the cohort has the capacity, a limit keeps it from the ClusterQueue
// (e.g. the only lender's lendingLimit of 0). need is what must fit.
func (a *analysis) cappingLimits() []heldBy {
	var out []heldBy
	seen := map[string]bool{}
	t := a.quota.tree
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			for _, r := range sortedRes(f.shortEver) {
				k := fr{f.flavor, r}
				need := f.maxCap[r] + f.shortEver[r]
				for _, l := range t.limitsCapping(k, need) {
					key := fmt.Sprintf("%s/%v/%s/%s", l.node.name, l.lending, f.flavor, r)
					if !seen[key] {
						seen[key] = true
						out = append(out, heldBy{limit: l, k: k, need: need, flavor: f})
					}
				}
			}
		}
	}
	return out
}

// capsText says what the cohort holds beyond the limits in caps.
func (a *analysis) capsText(caps []heldBy) string {
	if len(caps) == 0 {
		return ""
	}
	t := a.quota.tree
	var parts []string
	for _, h := range caps {
		r := h.k.resource
		more := t.uncapped(h.k, []quotaLimit{h.limit}) - t.most(h.k)
		parts = append(parts, fmt.Sprintf(" Cohort %s has %s %s more in flavor %s, but %s keeps it out.", a.s.ClusterQueue.Spec.CohortName, fmtQ(r, more), r, h.k.flavor, h.text()))
	}
	return strings.Join(parts, "")
}

// capRemedies asks for the limits in caps to be raised as far as the
// request needs.
func (a *analysis) capRemedies(caps []heldBy) {
	for _, h := range caps {
		a.limitRemedy(h, a.quota.tree.raisedEver)
	}
}

// limitRemedy asks the platform team to raise the limit h as far as raise
// says it must rise.
func (a *analysis) limitRemedy(h heldBy, raise func(quotaLimit, fr, int64) (int64, bool)) {
	kind, code := "borrowingLimit", "RaiseBorrowingLimit"
	if h.limit.lending {
		kind, code = "lendingLimit", "RaiseLendingLimit"
	}
	owner := "ClusterQueue"
	if h.limit.node.isCohort {
		owner = "Cohort"
	}
	r := h.k.resource
	if v, ok := raise(h.limit, h.k, h.need); ok {
		a.remedy(code, WhoPlatform, "", "Or ask the platform team to raise the %s of %s in flavor %s of %s %s from %s to %s; the cohort has the idle quota.",
			kind, r, h.k.flavor, owner, h.limit.node.name, fmtQ(r, h.limit.value), fmtQ(r, v))
		return
	}
	a.remedy(code, WhoPlatform, "", "Or ask the platform team to raise the %s of %s in flavor %s of %s %s (now %s); the cohort has idle quota.",
		kind, r, h.k.flavor, owner, h.limit.node.name, fmtQ(r, h.limit.value))
}

// cohortHolds reports whether other ClusterQueues of the cohort hold some
// of what the chosen flavors lack now.
func (a *analysis) cohortHolds() bool {
	t := a.quota.tree
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			for r := range f.shortNow {
				for _, n := range t.holders(fr{f.flavor, r}) {
					if n != t.cq {
						return true
					}
				}
			}
		}
	}
	return false
}

func (a *analysis) borrowLimited() bool {
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			if f.level == fitLater && f.borrowOnly {
				return true
			}
		}
	}
	return false
}

func (a *analysis) topologyMismatch() bool {
	head := fmt.Sprintf("Kueue cannot place the pods of %s in the requested topology.", a.jobRef())
	if t, ok := a.topologyFit(); ok {
		switch {
		case t.level != "" && t.fit > 0:
			head = fmt.Sprintf("Kueue cannot place the pods of %s: no %s has room for %d pods; the largest holds %d (topology %s, required by pod set %s).", a.jobRef(), t.level, t.want, t.fit, t.topology, t.podSet)
			a.remedy("RelaxTopology", WhoYou, "", "Run at most %d pods of pod set %s, or relax its topology request: a higher level than %s, or preferred instead of required.", t.fit, t.podSet, t.level)
			detail := a.qr.Message
			if d := a.topologyDomains(t); d != "" {
				detail = d + " Kueue: " + detail
			}
			return a.set(CodeNoMatchingFlavor, CauseTopologyMismatch, head, detail)
		case t.level != "":
			head = fmt.Sprintf("Kueue cannot place the pods of %s: no %s has room for even one of its %d pods (topology %s, required by pod set %s).", a.jobRef(), t.level, t.want, t.topology, t.podSet)
		case t.fit > 0:
			head = fmt.Sprintf("Kueue cannot place the pods of %s: topology %s has room for %d of its %d pods.", a.jobRef(), t.topology, t.fit, t.want)
		default:
			head = fmt.Sprintf("Kueue cannot place the pods of %s: topology %s has room for none of its %d pods.", a.jobRef(), t.topology, t.want)
		}
		if ex := tasExcluded(a.qr.Message); ex != "" {
			head = strings.TrimSuffix(head, ".") + "; " + ex + "."
		}
	}
	a.remedy("RelaxTopology", WhoYou, "", "Relax the topology request (preferred instead of required, or a higher level), or reduce the number of pods.")
	return a.set(CodeNoMatchingFlavor, CauseTopologyMismatch, head, a.qr.Message)
}

// reTASFit is Kueue's TAS refusal (pkg/cache/scheduler tas_flavor_snapshot
// notFitMessage).
var reTASFit = regexp.MustCompile(`topology "([^"]+)" (?:doesn't allow to fit any of (\d+)|allows to fit only (\d+) out of (\d+)) pod\(s\)`)

var (
	reTASNodes    = regexp.MustCompile(`Total nodes: (\d+); excluded: (.*)$`)
	reTASResource = regexp.MustCompile(`resource "([^"]+)": (\d+)`)
)

// tasExcluded says which of the topology's nodes Kueue ruled out, e.g.
// "of its 2 nodes, 2 lack free cpu"; "" when the message does not say.
func tasExcluded(msg string) string {
	m := reTASNodes.FindStringSubmatch(strings.TrimSuffix(strings.TrimSpace(msg), "."))
	if m == nil {
		return ""
	}
	var parts []string
	for _, r := range reTASResource.FindAllStringSubmatch(m[2], -1) {
		parts = append(parts, fmt.Sprintf("%s lack free %s", r[2], r[1]))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("of its %s nodes, Kueue excluded %s", m[1], m[2])
	}
	return fmt.Sprintf("of its %s nodes, %s", m[1], strings.Join(parts, ", "))
}

// topologyFit is Kueue's TAS refusal read with the pod set's request.
type topologyFit struct {
	topology, podSet string
	// level is the topology level the pod set requires ("" when it only
	// prefers one, or asks for none).
	level     string
	fit, want int
}

// topologyFit reads Kueue's TAS message: with a required level, the
// count that fits is what the largest domain of that level holds.
func (a *analysis) topologyFit() (topologyFit, bool) {
	if a.qr == nil {
		return topologyFit{}, false
	}
	m := reTASFit.FindStringSubmatch(a.qr.Message)
	if m == nil {
		return topologyFit{}, false
	}
	t := topologyFit{topology: m[1]}
	if m[2] != "" {
		t.want, _ = strconv.Atoi(m[2])
	} else {
		t.fit, _ = strconv.Atoi(m[3])
		t.want, _ = strconv.Atoi(m[4])
	}
	for _, r := range a.msg.Reasons {
		if r.Kind == ReasonTopology && r.PodSet != "" {
			t.podSet = r.PodSet
			break
		}
	}
	for i := range a.wl.Spec.PodSets {
		ps := &a.wl.Spec.PodSets[i]
		if t.podSet != "" && string(ps.Name) != t.podSet {
			continue
		}
		t.podSet = string(ps.Name)
		if tr := ps.TopologyRequest; tr != nil && tr.Required != nil {
			t.level = *tr.Required
		}
		break
	}
	return t, true
}

// quotaFromMessage decides from Kueue's message when the ClusterQueue could
// not be read (the objects cannot confirm it, which the report says).
func (a *analysis) quotaFromMessage() bool {
	m := a.msg
	cqName := a.r.Queue.ClusterQueue
	note := " (from Kueue's message; I could not read the ClusterQueue to check the numbers)"
	if (m.has(ReasonUntoleratedTaint) || m.has(ReasonNodeAffinity)) && len(a.wl.Spec.PodSets) > 1 {
		var named []string
		for _, r := range m.Reasons {
			if r.PodSet != "" && !slices.Contains(named, r.PodSet) {
				named = append(named, r.PodSet)
			}
		}
		if len(named) > 0 {
			a.finding("MessagePodSetUnchecked", SeverityInfo, "Kueue's message names %s. With several pod sets it may name one that fits: after a failed attempt Kueue resumes its flavor search at the next flavor. I could not read the ClusterQueue and its flavors to tell which pod set is stuck; check the node selectors and tolerations of every pod set.", podSetList(named))
		}
	}
	switch {
	case m.ClusterQueueNotFound:
		return a.clusterQueueMissing(cqName)
	case m.InactiveClusterQueue:
		a.remedy("FixClusterQueue", WhoPlatform, "", "Ask the platform team why ClusterQueue %s is inactive.", cqName)
		return a.set(CodeMisconfigured, CauseClusterQueueInactive, fmt.Sprintf("ClusterQueue %s is inactive.", cqName), a.qr.Message+note)
	case m.NamespaceMismatch:
		a.remedy("SelectNamespace", WhoPlatform, "", "Ask the platform team to add namespace %s to the namespaceSelector of ClusterQueue %s.", a.ns, cqName)
		return a.set(CodeMisconfigured, CauseNamespaceNotSelected, fmt.Sprintf("Namespace %s may not use ClusterQueue %s.", a.ns, cqName), a.qr.Message+note)
	case m.has(ReasonResourceUnavailable):
		var res []string
		for _, r := range m.Reasons {
			if r.Kind == ReasonResourceUnavailable {
				res = append(res, r.Resource)
			}
		}
		a.remedy("CoverResource", WhoPlatform, "", "Ask the platform team to add %s to ClusterQueue %s, or remove the request.", strings.Join(res, ", "), cqName)
		return a.set(CodeMisconfigured, CauseResourceNotCovered, fmt.Sprintf("ClusterQueue %s has no quota for %s.", cqName, strings.Join(res, ", ")), a.qr.Message+note)
	case m.has(ReasonFlavorNotFound):
		return a.set(CodeMisconfigured, CauseFlavorNotFound, fmt.Sprintf("ClusterQueue %s refers to a ResourceFlavor that does not exist.", cqName), a.qr.Message+note)
	case m.has(ReasonTopology):
		return a.topologyMismatch()
	case m.PendingPreemptions > 0:
		a.waitRemedies(CausePendingPreemption)
		return a.set(CodeWaitingForQuota, CausePendingPreemption, fmt.Sprintf("Kueue is preempting %d workload(s) to make room for %s.", m.PendingPreemptions, a.jobRef()), a.qr.Message)
	case m.has(ReasonUnusedQuota):
		a.waitRemedies(CauseQuotaInUse)
		return a.set(CodeWaitingForQuota, CauseQuotaInUse, fmt.Sprintf("%s waits for quota in ClusterQueue %s.", a.jobRef(), cqName), a.qr.Message+note)
	case m.has(ReasonMaxCapacity):
		a.remedy("Shrink", WhoYou, "", "Reduce the job's size (parallelism or per-pod requests) below the maximum capacity in the message.")
		return a.set(CodeExceedsMaxQuota, CauseNone, fmt.Sprintf("%s asks for more than ClusterQueue %s can ever hold.", a.jobRef(), cqName), a.qr.Message+note)
	case m.has(ReasonUntoleratedTaint) && !m.has(ReasonNodeAffinity):
		a.flavorRemedies(CauseUntoleratedTaint, nil)
		return a.set(CodeNoMatchingFlavor, CauseUntoleratedTaint, "No ResourceFlavor can take the job's pods: they do not tolerate the flavors' taints.", a.qr.Message+note)
	case m.has(ReasonNodeAffinity):
		a.flavorRemedies(CauseNodeAffinityMismatch, nil)
		return a.set(CodeNoMatchingFlavor, CauseNodeAffinityMismatch, "No ResourceFlavor matches the job's node selector or affinity.", a.qr.Message+note)
	case m.Transient:
		return a.set(CodePendingEvaluation, CauseNotYetEvaluated, fmt.Sprintf("%s lost a race for quota and is retried.", a.jobRef()), a.qr.Message)
	}
	if a.claim != nil {
		return a.useClaim()
	}
	return false
}

// useClaim takes Kueue's structured reason as the verdict when the objects
// cannot confirm or contradict it, with the remedies that fit it.
func (a *analysis) useClaim() bool {
	c := a.claim
	switch c.Code {
	case CodeWaitingForQuota:
		a.waitRemedies(c.Cause)
	case CodeExceedsMaxQuota:
		a.remedy("Shrink", WhoYou, "", "Reduce the job's size (parallelism or per-pod requests); it asks for more than its queue can ever hold.")
		a.remedy("RaiseQuota", WhoPlatform, "", "Or ask the platform team to raise the quota of ClusterQueue %s.", a.r.Queue.ClusterQueue)
	case CodeNoMatchingFlavor:
		a.flavorRemedies(c.Cause, nil)
	case CodeMisconfigured, CodeOnHold:
		a.remedy("AskPlatform", WhoPlatform, "", "Ask the platform team to fix or resume the queue: %s", c.Detail)
	case CodeDeactivated:
		a.remedy("Reactivate", WhoPlatform, "", "Ask the platform team to reactivate the Workload (spec.active=true) once the cause is fixed, or recreate the job.")
	case CodeAdmissionGated, CodeWaitingForPodsReady, CodePendingEvaluation, CodeWaitingForAdmissionChecks:
		a.remedy("Wait", WhoYou, "", "Wait: Kueue admits the job by itself once this clears.")
	}
	a.finding("FromKueueReason", SeverityInfo, "This verdict rests on Kueue's own reason %s; I could not check it against the queue objects.", c.Code)
	return a.set(c.Code, c.Cause, c.Headline, c.Detail)
}

// shortfallText describes the request against the quota of the flavor(s)
// Kueue would use.
func (a *analysis) shortfallText(now bool) string {
	var parts []string
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			short := f.shortEver
			if now {
				short = f.shortNow
			}
			for _, r := range sortedRes(short) {
				k := fr{f.flavor, r}
				t := a.quota.tree
				req := p.req.total[r]
				s := fmt.Sprintf("Pod set %s requests %s %s", p.req.name, fmtQ(r, req), r) + perPodArithmetic(p.req, r, a.podCountOrigin(p.req.name))
				prior := ""
				if n := f.prior[r]; n > 0 {
					prior = fmt.Sprintf(" on top of the %s %s that %s %s", fmtQ(r, n), r, podSetList(f.priorBy[r]), verb(f.priorBy[r], "takes", "take"))
				}
				if now {
					if prior != "" {
						prior += " there"
					}
					s += fmt.Sprintf(" in flavor %s%s, where %s %s is free now (nominal %s, %s reserved by other workloads%s); it is short by %s.",
						f.flavor, prior, fmtQ(r, max(0, t.free(k))), r, fmtQ(r, t.cq.nominal[k]), fmtQ(r, t.reserved(k)), a.borrowText(k), fmtQ(r, short[r]))
					if len(f.limits[r]) == 0 {
						s += a.holdersText(k)
					}
				} else {
					if prior != "" {
						prior += " in flavor " + f.flavor
					}
					s += fmt.Sprintf("%s, but flavor %s of ClusterQueue %s can hold at most %s %s (nominal %s%s); %s more would be needed.",
						prior, f.flavor, a.s.ClusterQueue.Name, fmtQ(r, t.most(k)), r, fmtQ(r, t.cq.nominal[k]), a.borrowText(k), fmtQ(r, short[r]))
				}
				parts = append(parts, s)
			}
		}
	}
	if len(parts) == 0 {
		return "The request does not fit."
	}
	return strings.Join(parts, " ")
}

// holdersText names the ClusterQueues of the cohort that hold k, when the
// capacity is really taken.
func (a *analysis) holdersText(k fr) string {
	t := a.quota.tree
	if t.cq.parent == nil {
		return ""
	}
	var parts []string
	for i, n := range t.holders(k) {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		who := "ClusterQueue " + n.name
		if n == t.cq {
			who = "this ClusterQueue's other workloads"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", who, fmtQ(k.resource, t.used(n, k))))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf(" In cohort %s, %s %s is held by %s.", a.s.ClusterQueue.Spec.CohortName, k.flavor, k.resource, strings.Join(parts, ", "))
}

func (a *analysis) borrowText(k fr) string {
	t := a.quota.tree.cq
	if t.parent == nil {
		return ", no cohort to borrow from"
	}
	if b, ok := t.borrow[k]; ok {
		return fmt.Sprintf(", may borrow up to %s from cohort %s", fmtQ(k.resource, b), a.s.ClusterQueue.Spec.CohortName)
	}
	return fmt.Sprintf(", may borrow from cohort %s", a.s.ClusterQueue.Spec.CohortName)
}

// sizeRemedies suggests the largest size that fits and the exact quota
// increase that would make the current size fit.
func (a *analysis) sizeRemedies(now bool) {
	cq := a.s.ClusterQueue
	for _, p := range a.quota.podSets {
		fits := int64(-1)
		for _, g := range p.groups {
			best := int64(-1)
			for _, f := range g.flavors {
				if f.inel != nil {
					continue
				}
				n := f.maxEver
				if now {
					n = f.maxNow
				}
				best = max(best, n)
			}
			if best >= 0 {
				fits = minPods(fits, best)
			}
		}
		if fits >= 0 && fits < int64(p.req.count) {
			a.shrinkRemedy(p, fits, now)
		}
	}
	if now {
		return
	}
	// One raise per flavor and resource that some pod set lacks, enough
	// for every pod set of the Workload that Kueue would put there.
	need := map[fr]int64{}
	var short []fr
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			for r := range f.avail {
				k := fr{f.flavor, r}
				need[k] += p.req.total[r]
				if _, ok := f.shortEver[r]; ok && !slices.Contains(short, k) {
					short = append(short, k)
				}
			}
		}
	}
	for _, k := range short {
		r := k.resource
		by := need[k] - a.quota.tree.most(k)
		if by <= 0 {
			continue
		}
		gi, fi, ri := resourceIndex(cq, k.flavor, r)
		newNominal := a.quota.tree.cq.nominal[k] + by
		cmd := ""
		if gi >= 0 {
			cmd = raiseQuotaCommand(cq.Name, gi, fi, ri, k.flavor, r, exactQ(r, newNominal))
		}
		all := ""
		if a.multiPodSet() {
			all = ", enough for all pod sets of the job in that flavor"
		}
		a.remedy("RaiseQuota", WhoPlatform, cmd, "Or ask the platform team to raise the nominal quota of %s in flavor %s of ClusterQueue %s by %s (from %s to %s%s).",
			r, k.flavor, cq.Name, fmtQ(r, by), fmtQ(r, a.quota.tree.cq.nominal[k]), fmtQ(r, newNominal), all)
	}
}

func (a *analysis) shrinkRemedy(p podSetFit, fits int64, now bool) {
	when := "within the queue's maximum quota"
	if now {
		when = "in the quota that is free now"
	}
	if fits == 0 && now {
		return // nothing smaller fits now either: waiting is the answer
	}
	if fits == 0 {
		a.remedy("ShrinkPods", WhoYou, "", "Even one pod of pod set %s does not fit %s: reduce the per-pod requests (%s).", p.req.name, when, perPodText(p.req))
		return
	}
	if minCount := p.req.spec.MinCount; minCount != nil && int64(*minCount) <= fits {
		// Partial admission: Kueue itself admits it with fewer pods, down
		// to minCount, once that many fit.
		a.remedy("Shrink", WhoYou, "", "Nothing to change: with partial admission Kueue admits pod set %s with as few as %d pods once they fit; %d fit %s.", p.req.name, *minCount, fits, when)
		return
	}
	if cmd, ok := a.shrinkCommand(p, fits); ok {
		partial := ""
		if v, ok := a.job.u.GetAnnotations()[JobMinParallelismAnnotation]; ok {
			partial = fmt.Sprintf(" The patch also removes %s=%s: partial admission needs a minimum below parallelism, and Kueue fails a Workload whose minimum exceeds its pod count.", JobMinParallelismAnnotation, v)
		}
		requeue := " (Kueue re-queues a suspended job with the new size.)"
		if a.s.Planned != nil {
			requeue = " Create it with the new size:"
		}
		a.remedy("Shrink", WhoYou, cmd, "Run it smaller: parallelism %d fits %s, %d does not.%s%s", fits, when, p.req.count, requeue, partial)
		return
	}
	pods := "pods of pod set %s fit"
	if fits == 1 {
		pods = "pod of pod set %s fits"
	}
	if a.r.Target.Kind == "StatefulSet" {
		// Kueue's statefulset webhook refuses a new spec.replicas while it
		// manages the StatefulSet (ValidateUpdate: immutable unless from
		// or to 0, and not while the old Workload is being deleted).
		a.remedy("Shrink", WhoYou, "", "Run it smaller: %d "+pods+" %s, %d do not. Kueue's webhook refuses a new spec.replicas on a StatefulSet it manages, except through 0: scale %s to 0, wait until its Workload is gone, then scale it to %d.", fits, p.req.name, when, p.req.count, a.jobRef(), fits)
		return
	}
	a.remedy("Shrink", WhoYou, "", "Run it smaller: %d "+pods+" %s, %d do not.", fits, p.req.name, when, p.req.count)
}

// shrinkCommand is the patch that sets a suspended batch Job's parallelism
// to n as Kueue's and Kubernetes' validation accept it: a partial-admission
// minimum (job-min-parallelism must stay below the pod count, and Kueue
// fails a Workload whose minCount exceeds its count) is removed in the same
// patch, and completions follow parallelism when Kueue keeps them equal.
// ok is false when no patch is safe: another kind, several pod sets, a job
// Kueue does not consider suspended, or a size that does not come from
// parallelism alone.
func (a *analysis) shrinkCommand(p podSetFit, n int64) (string, bool) {
	par, isJob := a.job.parallelism()
	if !isJob || len(a.quota.podSets) != 1 || par != int64(p.req.count) || (a.s.Planned == nil && !a.job.suspendedForKueue()) {
		return "", false
	}
	ann := a.job.u.GetAnnotations()
	spec := fmt.Sprintf(`"parallelism":%d`, n)
	if v, ok := ann[JobCompletionsEqualParallelismAnnotation]; ok {
		if on, err := strconv.ParseBool(v); err != nil {
			return "", false
		} else if on {
			spec += fmt.Sprintf(`,"completions":%d`, n)
		}
	}
	meta := ""
	if _, ok := ann[JobMinParallelismAnnotation]; ok {
		meta = fmt.Sprintf(`"metadata":{"annotations":{%q:null}},`, JobMinParallelismAnnotation)
	}
	patch := fmt.Sprintf("'{%s\"spec\":{%s}}'", meta, spec)
	if a.s.Planned != nil {
		return plannedEdit(a.s.Planned, a.ns, "patch", "--type=merge -p "+patch), true
	}
	return fmt.Sprintf("kubectl patch %s %s --type=merge -p %s", a.jobRef(), a.nsFlag(), patch), true
}

// plannedEdit is the command that edits a manifest that is not submitted
// yet and creates the result: kubectl's --local changes only the file's
// object, nothing in the cluster.
func plannedEdit(p *Planned, ns, verb, args string) string {
	return PlannedEditCommand(p.File, ns, verb, args)
}

// PlannedEditCommand is the command that edits the manifest in file with
// `kubectl VERB --local` (no request) and creates the result in ns.
func PlannedEditCommand(file, ns, verb, args string) string {
	return fmt.Sprintf("kubectl %s --local -f %s %s -o yaml | kubectl create -n %s -f -", verb, file, args, ns)
}

func (a *analysis) waitRemedies(cause Cause) {
	wait := "Wait: the job is admitted automatically when running workloads finish and free the quota."
	if p := a.s.Position; p != nil {
		wait = fmt.Sprintf("Wait: the job is %s in ClusterQueue %s and is admitted automatically when quota frees up.", ordinal(p.InClusterQueue, p.Tied), a.r.Queue.ClusterQueue)
	}
	if n := len(a.s.QueueAhead); n > 0 {
		var ahead []string
		for i, w := range a.s.QueueAhead {
			if i == 3 {
				ahead = append(ahead, fmt.Sprintf("and %d more", n-3))
				break
			}
			ahead = append(ahead, w.Namespace+"/"+w.Name)
		}
		wait += " Ahead of it: " + strings.Join(ahead, ", ") + "."
	}
	switch cause {
	case CausePendingPreemption:
		a.remedy("Wait", WhoYou, "", "Wait: the preempted workloads are being stopped; the job is admitted once their quota is released (usually within a minute).")
		return
	case CauseBorrowingLimited:
		a.remedy("Wait", WhoYou, "", "%s", wait)
		if a.quota != nil {
			for _, h := range a.holdingLimits() {
				h.need = h.flavor.neededNow(h.k.resource)
				a.limitRemedy(h, a.quota.tree.raised)
			}
		}
	default:
		a.remedy("Wait", WhoYou, "", "%s", wait)
	}
	if a.quota != nil {
		a.sizeRemedies(true)
		a.alternativeRemedies(fitNow)
	}
}

// alternativeRemedies suggests the namespace's other LocalQueues whose
// ClusterQueue could take the Workload: now (want fitNow), or at all (want
// fitLater, for a request too big for its own queue). Cohort borrowing of
// those queues is not counted, so the suggestion errs on the safe side.
func (a *analysis) alternativeRemedies(want fitLevel) {
	suggested := 0
	for i := range a.s.AlternativeQueues {
		alt := &a.s.AlternativeQueues[i]
		cq := &alt.ClusterQueue
		if suggested == 2 || (cq.Spec.StopPolicy != nil && *cq.Spec.StopPolicy != kueue.None) {
			continue
		}
		if c := apimeta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive); c != nil && c.Status != metav1.ConditionTrue {
			continue
		}
		if sel, known := a.namespaceSelected(cq); known && !sel {
			continue
		}
		sub := *a.s
		sub.ClusterQueue, sub.CohortClusterQueues, sub.Cohorts = cq, nil, nil
		sub.ResourceFlavors = alt.ResourceFlavors
		if alt.ResourceFlavors == nil {
			sub.Gaps = append(append([]Gap(nil), a.s.Gaps...), Gap{Kind: "ResourceFlavor", Reason: GapForbidden})
		}
		o := evaluateQuota(&sub, a.wl)
		if len(o.notCovered()) > 0 || o.level < want {
			continue
		}
		suggested++
		cmd := a.relabelCommand(alt.LocalQueue.Name)
		if o.level == fitNow {
			a.remedy("UseOtherQueue", WhoYou, cmd, "LocalQueue %s (ClusterQueue %s) has room for this job now: move the job there if your team may use it (the label can change while the job is suspended).",
				alt.LocalQueue.Name, cq.Name)
			continue
		}
		a.remedy("UseOtherQueue", WhoYou, cmd, "LocalQueue %s (ClusterQueue %s) is big enough for this job (it would wait for quota there): move the job there if your team may use it.",
			alt.LocalQueue.Name, cq.Name)
	}
}

// flavorRemedies suggests how to get a flavor; b is the pod set no
// flavor takes, nil when only Kueue's message is known.
func (a *analysis) flavorRemedies(cause Cause, b *blockedPodSet) {
	template := "the pod template"
	if b != nil && a.quota != nil && len(a.quota.podSets) > 1 {
		template = "the pod template of pod set " + b.name
	}
	switch cause {
	case CauseUntoleratedTaint:
		what := "the flavor's taint"
		if b != nil && b.open != nil {
			what = fmt.Sprintf("the taint %s of flavor %s", b.open.inel.taint, b.open.flavor)
		}
		cmd := a.tolerationCommand(b)
		a.remedy("AddToleration", WhoYou, cmd, "Add a toleration for %s to %s, if your pods may run on those nodes (allowed while the job is suspended and has never started).", what, template)
		a.remedy("FlavorToleration", WhoPlatform, "", "Or ask the platform team to add the toleration to the ResourceFlavor's spec.tolerations, or to add an untainted flavor.")
	case CauseNodeAffinityMismatch:
		a.remedy("FixNodeSelector", WhoYou, "", "Remove or change the nodeSelector / required node affinity of %s so it matches a flavor's node labels (see the quota table for which flavors exist).", template)
		a.remedy("AddFlavor", WhoPlatform, "", "Or ask the platform team for a flavor with the node labels you need.")
	}
}

// raiseQuotaCommand is a JSON patch of one nominalQuota. Its test
// operations make the API server refuse it if the indexes no longer name
// that flavor and resource (the ClusterQueue changed since it was read).
func raiseQuotaCommand(cq string, gi, fi, ri int, flavor string, r corev1.ResourceName, value string) string {
	base := fmt.Sprintf("/spec/resourceGroups/%d/flavors/%d", gi, fi)
	return fmt.Sprintf(`kubectl patch clusterqueue %s --type=json -p '[{"op":"test","path":"%s/name","value":%q},{"op":"test","path":"%s/resources/%d/name","value":%q},{"op":"replace","path":"%s/resources/%d/nominalQuota","value":%q}]'`,
		cq, base, flavor, base, ri, string(r), base, ri, value)
}

// relabelCommand moves the job to LocalQueue lq. Kueue accepts a new
// queue name only while the job is suspended (and not being stopped); the
// command is given for batch Jobs, the kind the sandbox tests it with.
func (a *analysis) relabelCommand(lq string) string {
	if a.s.Planned != nil {
		return plannedEdit(a.s.Planned, a.ns, "label", fmt.Sprintf("%s=%s --overwrite", QueueNameLabel, lq))
	}
	if a.r.Target.Kind != "Job" || !a.job.suspendedForKueue() {
		return ""
	}
	return fmt.Sprintf("kubectl label %s %s %s=%s --overwrite", a.jobRef(), a.nsFlag(), QueueNameLabel, lq)
}

// tolerationCommand adds, to a suspended batch Job that never started (the
// only state in which Kubernetes lets its pod template's tolerations
// change), the toleration that the one flavor ruled out only by its taint
// needs. The pod spec's tolerations list is atomic, so a JSON patch appends
// to it instead of a merge patch that would replace it. Empty when no such
// flavor or job exists.
func (a *analysis) tolerationCommand(b *blockedPodSet) string {
	if b == nil || b.open == nil || b.open.inel.fix == "" || a.quota == nil || a.r.Target.Kind != "Job" || len(a.quota.podSets) != 1 || a.s.Planned != nil || !a.job.suspendedForKueue() || a.job.started() {
		return ""
	}
	// Kueue tries flavors in order: the first one that only its taint
	// rules out is the one to open.
	fix := b.open.inel.fix
	if a.job.tolerations() > 0 {
		return fmt.Sprintf(`kubectl patch %s %s --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations/-","value":%s}]'`, a.jobRef(), a.nsFlag(), fix)
	}
	return fmt.Sprintf(`kubectl patch %s %s --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[%s]}]'`, a.jobRef(), a.nsFlag(), fix)
}

func resourceIndex(cq *kueue.ClusterQueue, flavor string, r corev1.ResourceName) (int, int, int) {
	for gi, g := range cq.Spec.ResourceGroups {
		for fi, f := range g.Flavors {
			if string(f.Name) != flavor {
				continue
			}
			for ri, res := range f.Resources {
				if res.Name == r {
					return gi, fi, ri
				}
			}
		}
	}
	return -1, -1, -1
}

// fmtQ is a quantity in Kueue's units for prose (FormatQuantity).
func fmtQ(r corev1.ResourceName, v int64) string {
	return FormatQuantity(quantity(r, v))
}

// exactQ is the quantity as an exact string for a command: Kueue's units
// back to a Quantity (millicores for cpu), integers for everything else.
func exactQ(r corev1.ResourceName, v int64) string {
	q := quantity(r, v)
	return q.String()
}

func perPodText(p podSetRequest) string {
	var parts []string
	for _, r := range sortedRes(p.perPod) {
		if r == corev1.ResourcePods {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", fmtQ(r, p.perPod[r]), r))
	}
	return strings.Join(parts, ", ")
}

func resNames(rs []corev1.ResourceName) string {
	var out []string
	seen := map[corev1.ResourceName]bool{}
	for _, r := range rs {
		if !seen[r] {
			seen[r] = true
			out = append(out, string(r))
		}
	}
	return strings.Join(out, ", ")
}

func sortedRes(m map[corev1.ResourceName]int64) []corev1.ResourceName {
	return slices.Sorted(maps.Keys(m))
}

// maxDomainsNamed caps the topology domains an answer lists.
const maxDomainsNamed = 4

// topologyDomains describes, from the Nodes the Snapshot holds, the
// domains of the required level, largest first by what their allocatable
// holds of the pod set's pods (before what already runs there), e.g.
// "The Topology default's levels are cloud.com/rack, kubernetes.io/hostname.
// Ready Nodes by cloud.com/rack: r1 (2 nodes, 8 cpu allocatable, room for
// 4 pods when empty), r2 (...)."; "" without Nodes.
func (a *analysis) topologyDomains(t topologyFit) string {
	if len(a.s.Nodes) == 0 || t.level == "" {
		return ""
	}
	var per map[corev1.ResourceName]int64
	for _, req := range workloadRequests(a.wl, a.s.Shared) {
		if req.name == t.podSet {
			per = req.perPod
		}
	}
	type domain struct {
		name  string
		nodes int
		alloc map[corev1.ResourceName]int64
		fit   int64
	}
	byName := map[string]*domain{}
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		v, ok := n.Labels[t.level]
		if !ok || n.Spec.Unschedulable || !nodeReady(n) || !a.topologyNode(n, t.topology) {
			continue
		}
		d := byName[v]
		if d == nil {
			d = &domain{name: v, alloc: map[corev1.ResourceName]int64{}}
			byName[v] = d
		}
		d.nodes++
		fit := int64(-1)
		for r, q := range n.Status.Allocatable {
			d.alloc[r] += value(r, q)
		}
		for r, p := range per {
			if p <= 0 {
				continue
			}
			q := n.Status.Allocatable[r]
			if f := value(r, q) / p; fit < 0 || f < fit {
				fit = f
			}
		}
		d.fit += max(fit, 0)
	}
	if len(byName) == 0 {
		return ""
	}
	ds := make([]*domain, 0, len(byName))
	for _, d := range byName {
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(x, y *domain) int {
		if x.fit != y.fit {
			return int(y.fit - x.fit)
		}
		return strings.Compare(x.name, y.name)
	})
	res := make([]corev1.ResourceName, 0, len(per))
	for r := range per {
		res = append(res, r)
	}
	slices.Sort(res)
	var parts []string
	for i, d := range ds {
		if i == maxDomainsNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(ds)-i))
			break
		}
		var alloc []string
		for _, r := range res {
			alloc = append(alloc, fmtQ(r, d.alloc[r])+" "+string(r))
		}
		nodes := "1 node"
		if d.nodes != 1 {
			nodes = fmt.Sprintf("%d nodes", d.nodes)
		}
		s := fmt.Sprintf("%s (%s", d.name, nodes)
		if len(alloc) > 0 {
			s += ", " + strings.Join(alloc, ", ") + " allocatable"
		}
		if len(per) > 0 {
			s += fmt.Sprintf(", room for %d pods when empty", d.fit)
		}
		parts = append(parts, s+")")
	}
	out := fmt.Sprintf("Ready Nodes by %s: %s; the largest %s is %s.", t.level, strings.Join(parts, ", "), t.level, ds[0].name)
	for _, tp := range a.s.Topologies {
		if tp.Name == t.topology {
			levels := make([]string, 0, len(tp.Spec.Levels))
			for _, l := range tp.Spec.Levels {
				levels = append(levels, l.NodeLabel)
			}
			out = fmt.Sprintf("Topology %s has the levels %s. ", tp.Name, strings.Join(levels, ", ")) + out
		}
	}
	return out
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// topologyNode reports whether node n carries the nodeLabels of a flavor
// of the ClusterQueue with that topologyName (every node when no flavor
// read names it).
func (a *analysis) topologyNode(n *corev1.Node, topology string) bool {
	found := false
	for i := range a.s.ResourceFlavors {
		rf := &a.s.ResourceFlavors[i]
		if rf.Spec.TopologyName == nil || string(*rf.Spec.TopologyName) != topology {
			continue
		}
		found = true
		match := true
		for k, v := range rf.Spec.NodeLabels {
			match = match && n.Labels[k] == v
		}
		if match {
			return true
		}
	}
	return !found
}
