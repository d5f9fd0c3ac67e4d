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

	"github.com/kueuebot/kueuebot/i18n"
)

// structuredClaim reads the structured pending reasons newer Kueue writes
// (KEP-10852) on QuotaReserved=False and Admitted=False. It returns nil for
// v0.17's plain reasons (Pending, Inadmissible, ...), which are parsed from
// the message instead.
func structuredClaim(wl *kueue.Workload) *Verdict {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	if c != nil && c.Status == metav1.ConditionFalse {
		v := func(code Code, cause Cause, id i18n.ID) *Verdict {
			h := msg(id)
			return &Verdict{Stage: StageOf(code), Code: code, Cause: cause, Headline: h.String(), Detail: c.Message, HeadlineMsg: h, DetailMsg: quotedOpt(c.Message)}
		}
		switch c.Reason {
		case "WaitingForQuota":
			return v(CodeWaitingForQuota, CauseQuotaInUse, "diagnose.claim.waitingForQuota")
		case "WaitingForPreemptedWorkloads":
			return v(CodeWaitingForQuota, CausePendingPreemption, "diagnose.claim.preempting")
		case "ExceedsMaxQuota":
			return v(CodeExceedsMaxQuota, CauseNone, "diagnose.claim.exceeds")
		case "NoMatchingFlavor":
			cause := CauseNodeAffinityMismatch
			switch m := strings.ToLower(c.Message); {
			case strings.Contains(m, "taint"):
				cause = CauseUntoleratedTaint
			case strings.Contains(m, "topology"):
				cause = CauseTopologyMismatch
			}
			return v(CodeNoMatchingFlavor, cause, "diagnose.claim.noFlavor")
		case "TopologyPlacementFailed":
			return v(CodeNoMatchingFlavor, CauseTopologyMismatch, "diagnose.claim.topology")
		case "Misconfigured":
			return v(CodeMisconfigured, misconfiguredCause(c.Message), "diagnose.claim.misconfigured")
		case "OnHold":
			if strings.Contains(c.Message, "LocalQueue") {
				return v(CodeOnHold, CauseLocalQueueStopped, "diagnose.claim.lqOnHold")
			}
			return v(CodeOnHold, CauseClusterQueueStopped, "diagnose.claim.cqOnHold")
		case "Suspended":
			return v(CodeDeactivated, CauseManual, "diagnose.claim.deactivated")
		case "AdmissionGated":
			return v(CodeAdmissionGated, CauseNone, "diagnose.claim.gated")
		case "WaitingForPodsReady":
			return v(CodeWaitingForPodsReady, CauseNone, "diagnose.claim.podsReady")
		case "PendingEvaluation":
			return v(CodePendingEvaluation, CauseNotYetEvaluated, "diagnose.claim.pendingEvaluation")
		}
	}
	if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted); c != nil && c.Status == metav1.ConditionFalse && c.Reason == "UnsatisfiedAdmissionChecks" {
		h := msg("diagnose.claim.checks")
		return &Verdict{Stage: StageAdmission, Code: CodeWaitingForAdmissionChecks, Cause: CauseCheckPending, Headline: h.String(), Detail: c.Message, HeadlineMsg: h, DetailMsg: quotedOpt(c.Message)}
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
		names := resNameList(nc)
		pods := msg("diagnose.thePods")
		if a.multiPodSet() {
			pods = msg("diagnose.thePodsOf", podSetsMsg(o.podSetsNotCovered()))
		}
		a.remedyM("RemoveResource", WhoYou, "", msg("diagnose.notCovered.remedy", names, pods, lqSuggestionMsg(a.s.NamespaceLocalQueues, a.r.Queue.LocalQueue)))
		a.remedyM("CoverResource", WhoPlatform, "", msg("diagnose.notCovered.remedy.platform", names, cqArg(cq.Name)))
		who := msg("diagnose.obj", a.jobArg())
		detail := []i18n.Message{msg("diagnose.notCovered.detail", cqArg(cq.Name), names)}
		if a.multiPodSet() {
			by := o.podSetsNotCovered()
			who = msg("diagnose.podSetsOf", podSetsMsg(by), a.jobArg())
			detail = append(detail, a.othersFitMsg(by))
		}
		return a.setM(CodeMisconfigured, CauseResourceNotCovered, msg("diagnose.notCovered.headline", cqArg(cq.Name), names, who), i18n.Join(detail...))
	}
	if o.tree.partial {
		a.findingM("PartialCohort", SeverityInfo, msg("diagnose.partialCohort", cqArg(cq.Name), cohortArg(cq.Spec.CohortName)))
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
		head := msg("diagnose.quota.never", a.jobArg(), cqArg(cq.Name))
		detail := append(append([]i18n.Message{a.shortfallMsg(false)}, a.capsMsgs(caps)...), msg("diagnose.quota.never.forever"))
		if len(caps) > 0 {
			head = msg("diagnose.quota.never.capped", a.jobArg(), cqArg(cq.Name), heldList(caps))
		}
		if a.multiPodSet() {
			by := o.podSetsAt(fitNever)
			head = msg("diagnose.quota.never.podSets", a.jobArg(), cqArg(cq.Name), podSetsMsg(by), i18n.Num(len(by)))
			detail = append(detail, a.othersFitMsg(by))
		}
		return a.setM(CodeExceedsMaxQuota, CauseNone, head, i18n.Join(detail...))
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
		detail := []i18n.Message{a.shortfallMsg(true)}
		var by []string
		if a.multiPodSet() {
			by = o.podSetsAt(fitLater)
			detail = append(detail, a.othersFitMsg(by))
		}
		clause := msg("diagnose.quota.later", a.jobArg(), cqArg(cq.Name))
		switch cohort := a.cohortHolds(); {
		case cohort && by != nil:
			clause = msg("diagnose.quota.later.cohort.podSets", a.jobArg(), cqArg(cq.Name), cohortArg(cq.Spec.CohortName), podSetsMsg(by), i18n.Num(len(by)))
		case cohort:
			clause = msg("diagnose.quota.later.cohort", a.jobArg(), cqArg(cq.Name), cohortArg(cq.Spec.CohortName))
		case by != nil:
			clause = msg("diagnose.quota.later.podSets", a.jobArg(), cqArg(cq.Name), podSetsMsg(by), i18n.Num(len(by)))
		}
		head := msg("diagnose.sentence", clause)
		if cause == CauseQuotaInUse {
			if never := a.neverPreempts(); never != "" {
				head = msg("diagnose.quota.neverPreempts", clause, cqArg(cq.Name), i18n.Verbatim(never), priorityArg(a.wl))
				detail = append(detail, a.holdersOfQueueMsg())
				a.remedyM("AllowPreemption", WhoPlatform, "", msg("diagnose.quota.allowPreemption.remedy", cqArg(cq.Name)))
			}
		}
		switch cause {
		case CausePendingPreemption:
			head = msg("diagnose.quota.preempting", i18n.Num(a.msg.PendingPreemptions), a.jobArg())
		case CauseBorrowingLimited:
			head = msg("diagnose.quota.borrowLimited", a.jobArg(), a.limitsList())
			if a.multiPodSet() {
				head = msg("diagnose.quota.borrowLimited.podSets", a.jobArg(), podSetsMsg(by), a.limitsList())
			}
		}
		return a.setM(CodeWaitingForQuota, cause, head, i18n.Join(detail...))
	case fitNow:
		if a.msg.has(ReasonTopology) {
			return a.topologyMismatch()
		}
		if a.msg.has(ReasonUnusedQuota) || a.msg.has(ReasonMaxCapacity) {
			a.findingM("StaleMessage", SeverityInfo, msg("diagnose.quota.stale", i18n.Verbatim(strconv.Quote(a.qr.Message))))
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

// holdersOfQueueMsg says how many admitted workloads of the ClusterQueue
// hold its quota and who can list them: the bot reads no other user's
// Workloads.
func (a *analysis) holdersOfQueueMsg() i18n.Message {
	cq := a.s.ClusterQueue
	n := cq.Status.ReservingWorkloads
	if n == 0 {
		return i18n.Message{}
	}
	return msg("diagnose.quota.holdersOfQueue", cqArg(cq.Name), i18n.Num(n), i18n.Name(a.ns))
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

// msg names the limit and its owner, e.g. "ClusterQueue team-a's
// borrowingLimit (1 cpu in flavor default)".
func (h heldBy) msg() i18n.Message {
	kind := "borrowingLimit"
	if h.limit.lending {
		kind = "lendingLimit"
	}
	id := i18n.ID("diagnose.limit.cq")
	owner := cqArg(h.limit.node.name)
	if h.limit.node.isCohort {
		id, owner = "diagnose.limit.cohort", cohortArg(h.limit.node.name)
	}
	return msg(id, owner, i18n.Name(kind), i18n.Qty(fmtQ(h.k.resource, h.limit.value)), i18n.Name(string(h.k.resource)), i18n.Name(h.k.flavor))
}

func (a *analysis) limitsList() i18n.List {
	return heldList(a.holdingLimits())
}

func heldList(hs []heldBy) i18n.List {
	var parts []i18n.Arg
	for _, h := range hs {
		parts = append(parts, h.msg())
	}
	if len(parts) == 0 {
		return i18n.And(msg("diagnose.limit.some"))
	}
	return i18n.And(parts...)
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

// capsMsgs says what the cohort holds beyond the limits in caps.
func (a *analysis) capsMsgs(caps []heldBy) []i18n.Message {
	t := a.quota.tree
	var parts []i18n.Message
	for _, h := range caps {
		r := h.k.resource
		more := t.uncapped(h.k, []quotaLimit{h.limit}) - t.most(h.k)
		parts = append(parts, msg("diagnose.caps", cohortArg(a.s.ClusterQueue.Spec.CohortName), i18n.Qty(fmtQ(r, more)), i18n.Name(string(r)), i18n.Name(h.k.flavor), h.msg()))
	}
	return parts
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
	owner, ownerArg := "ClusterQueue", cqArg(h.limit.node.name)
	if h.limit.node.isCohort {
		owner, ownerArg = "Cohort", cohortArg(h.limit.node.name)
	}
	r := h.k.resource
	if v, ok := raise(h.limit, h.k, h.need); ok {
		a.remedyM(code, WhoPlatform, "", msg("diagnose.limit.remedy", i18n.Name(kind), i18n.Name(string(r)), i18n.Name(h.k.flavor), i18n.Name(owner), ownerArg,
			i18n.Qty(fmtQ(r, h.limit.value)), i18n.Qty(fmtQ(r, v))))
		return
	}
	a.remedyM(code, WhoPlatform, "", msg("diagnose.limit.remedy.now", i18n.Name(kind), i18n.Name(string(r)), i18n.Name(h.k.flavor), i18n.Name(owner), ownerArg,
		i18n.Qty(fmtQ(r, h.limit.value))))
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
	head := msg("diagnose.topo.headline", a.jobArg())
	if t, ok := a.topologyFit(); ok {
		var clause i18n.Message
		switch {
		case t.level != "" && t.fit > 0:
			head = msg("diagnose.topo.largest", a.jobArg(), i18n.Name(t.level), i18n.Num(t.want), i18n.Num(t.fit), i18n.Name(t.topology), i18n.Name(t.podSet))
			a.remedyM("RelaxTopology", WhoYou, "", msg("diagnose.topo.relax.remedy.sized", i18n.Num(t.fit), i18n.Name(t.podSet), i18n.Name(t.level)))
			detail := quotedOpt(a.qr.Message)
			if d := a.topologyDomains(t); !d.IsZero() {
				detail = msg("diagnose.topo.kueue", d, i18n.Verbatim(a.qr.Message))
			}
			return a.setM(CodeNoMatchingFlavor, CauseTopologyMismatch, head, detail)
		case t.level != "":
			clause = msg("diagnose.topo.none", a.jobArg(), i18n.Name(t.level), i18n.Num(t.want), i18n.Name(t.topology), i18n.Name(t.podSet))
		case t.fit > 0:
			clause = msg("diagnose.topo.some", a.jobArg(), i18n.Name(t.topology), i18n.Num(t.fit), i18n.Num(t.want))
		default:
			clause = msg("diagnose.topo.zero", a.jobArg(), i18n.Name(t.topology), i18n.Num(t.want))
		}
		head = msg("diagnose.sentence", clause)
		if ex := tasExcluded(a.qr.Message); !ex.IsZero() {
			head = msg("diagnose.topo.excluded", clause, ex)
		}
	}
	a.remedyM("RelaxTopology", WhoYou, "", msg("diagnose.topo.relax.remedy"))
	return a.setM(CodeNoMatchingFlavor, CauseTopologyMismatch, head, quotedOpt(a.qr.Message))
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
func tasExcluded(kueueMsg string) i18n.Message {
	m := reTASNodes.FindStringSubmatch(strings.TrimSuffix(strings.TrimSpace(kueueMsg), "."))
	if m == nil {
		return i18n.Message{}
	}
	var parts []i18n.Arg
	for _, r := range reTASResource.FindAllStringSubmatch(m[2], -1) {
		parts = append(parts, msg("diagnose.tas.lack", i18n.Verbatim(r[2]), i18n.Name(r[1])))
	}
	if len(parts) == 0 {
		return msg("diagnose.tas.excludedRaw", i18n.Verbatim(m[1]), i18n.Verbatim(m[2]))
	}
	return msg("diagnose.tas.excluded", i18n.Verbatim(m[1]), i18n.Commas(parts...))
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
	note := func() i18n.Message { return msg("diagnose.fromMessage", i18n.Verbatim(a.qr.Message)) }
	if (m.has(ReasonUntoleratedTaint) || m.has(ReasonNodeAffinity)) && len(a.wl.Spec.PodSets) > 1 {
		var named []string
		for _, r := range m.Reasons {
			if r.PodSet != "" && !slices.Contains(named, r.PodSet) {
				named = append(named, r.PodSet)
			}
		}
		if len(named) > 0 {
			a.findingM("MessagePodSetUnchecked", SeverityInfo, msg("diagnose.msgPodSetUnchecked", podSetsMsg(named)))
		}
	}
	switch {
	case m.ClusterQueueNotFound:
		return a.clusterQueueMissing(cqName)
	case m.InactiveClusterQueue:
		a.remedyM("FixClusterQueue", WhoPlatform, "", msg("diagnose.cqInactive.remedy.why", cqArg(cqName)))
		return a.setM(CodeMisconfigured, CauseClusterQueueInactive, msg("diagnose.cqInactive.headline.short", cqArg(cqName)), note())
	case m.NamespaceMismatch:
		a.remedyM("SelectNamespace", WhoPlatform, "", msg("diagnose.nsMismatch.remedy.msg", nsArg(a.ns), cqArg(cqName)))
		return a.setM(CodeMisconfigured, CauseNamespaceNotSelected, msg("diagnose.nsMismatch.headline.msg", nsArg(a.ns), cqArg(cqName)), note())
	case m.has(ReasonResourceUnavailable):
		var res []string
		for _, r := range m.Reasons {
			if r.Kind == ReasonResourceUnavailable {
				res = append(res, r.Resource)
			}
		}
		a.remedyM("CoverResource", WhoPlatform, "", msg("diagnose.unavailable.remedy", nameList(res...), cqArg(cqName)))
		return a.setM(CodeMisconfigured, CauseResourceNotCovered, msg("diagnose.unavailable.headline", cqArg(cqName), nameList(res...)), note())
	case m.has(ReasonFlavorNotFound):
		return a.setM(CodeMisconfigured, CauseFlavorNotFound, msg("diagnose.flavorMissing.headline.short", cqArg(cqName)), note())
	case m.has(ReasonTopology):
		return a.topologyMismatch()
	case m.PendingPreemptions > 0:
		a.waitRemedies(CausePendingPreemption)
		return a.setM(CodeWaitingForQuota, CausePendingPreemption, msg("diagnose.quota.preempting", i18n.Num(m.PendingPreemptions), a.jobArg()), quotedOpt(a.qr.Message))
	case m.has(ReasonUnusedQuota):
		a.waitRemedies(CauseQuotaInUse)
		return a.setM(CodeWaitingForQuota, CauseQuotaInUse, msg("diagnose.quota.later.msg", a.jobArg(), cqArg(cqName)), note())
	case m.has(ReasonMaxCapacity):
		a.remedyM("Shrink", WhoYou, "", msg("diagnose.shrink.msg.remedy"))
		return a.setM(CodeExceedsMaxQuota, CauseNone, msg("diagnose.quota.never", a.jobArg(), cqArg(cqName)), note())
	case m.has(ReasonUntoleratedTaint) && !m.has(ReasonNodeAffinity):
		a.flavorRemedies(CauseUntoleratedTaint, nil)
		return a.setM(CodeNoMatchingFlavor, CauseUntoleratedTaint, msg("diagnose.taint.headline.msg"), note())
	case m.has(ReasonNodeAffinity):
		a.flavorRemedies(CauseNodeAffinityMismatch, nil)
		return a.setM(CodeNoMatchingFlavor, CauseNodeAffinityMismatch, msg("diagnose.affinity.headline.msg"), note())
	case m.Transient:
		return a.setM(CodePendingEvaluation, CauseNotYetEvaluated, msg("diagnose.race.headline", a.jobArg()), quotedOpt(a.qr.Message))
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
		a.remedyM("Shrink", WhoYou, "", msg("diagnose.claim.shrink.remedy"))
		a.remedyM("RaiseQuota", WhoPlatform, "", msg("diagnose.claim.raise.remedy", cqArg(a.r.Queue.ClusterQueue)))
	case CodeNoMatchingFlavor:
		a.flavorRemedies(c.Cause, nil)
	case CodeMisconfigured, CodeOnHold:
		a.remedyM("AskPlatform", WhoPlatform, "", msg("diagnose.claim.askPlatform.remedy", i18n.Verbatim(c.Detail)))
	case CodeDeactivated:
		a.remedyM("Reactivate", WhoPlatform, "", msg("diagnose.claim.reactivate.remedy"))
	case CodeAdmissionGated, CodeWaitingForPodsReady, CodePendingEvaluation, CodeWaitingForAdmissionChecks:
		a.remedyM("Wait", WhoYou, "", msg("diagnose.claim.wait.remedy"))
	}
	a.findingM("FromKueueReason", SeverityInfo, msg("diagnose.claim.finding", i18n.Name(string(c.Code))))
	if c.HeadlineMsg.IsZero() {
		return a.set(c.Code, c.Cause, c.Headline, c.Detail)
	}
	return a.setM(c.Code, c.Cause, c.HeadlineMsg, c.DetailMsg)
}

// shortfallMsg describes the request against the quota of the flavor(s)
// Kueue would use.
func (a *analysis) shortfallMsg(now bool) i18n.Message {
	var parts []i18n.Message
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
				rn := i18n.Name(string(r))
				arith := perPodArithmetic(p.req, r, a.podCountOrigin(p.req.name))
				var prior i18n.Message
				if n := f.prior[r]; n > 0 {
					id := i18n.ID("diagnose.short.prior.never")
					if now {
						id = "diagnose.short.prior.now"
					}
					args := []i18n.Arg{i18n.Qty(fmtQ(r, n)), rn, podSetsMsg(f.priorBy[r]), i18n.Num(len(f.priorBy[r]))}
					if !now {
						args = append(args, i18n.Name(f.flavor))
					}
					prior = msg(id, args...)
				}
				if now {
					s := msg("diagnose.short.now", i18n.Name(p.req.name), i18n.Qty(fmtQ(r, req)), rn, arith, i18n.Name(f.flavor), prior,
						i18n.Qty(fmtQ(r, max(0, t.free(k)))), i18n.Qty(fmtQ(r, t.cq.nominal[k])), i18n.Qty(fmtQ(r, t.reserved(k))), a.borrowMsg(k), i18n.Qty(fmtQ(r, short[r])))
					if len(f.limits[r]) == 0 {
						if h := a.holdersMsg(k); !h.IsZero() {
							s = msg("diagnose.concat", s, h)
						}
					}
					parts = append(parts, s)
				} else {
					parts = append(parts, msg("diagnose.short.never", i18n.Name(p.req.name), i18n.Qty(fmtQ(r, req)), rn, arith, prior,
						i18n.Name(f.flavor), cqArg(a.s.ClusterQueue.Name), i18n.Qty(fmtQ(r, t.most(k))), i18n.Qty(fmtQ(r, t.cq.nominal[k])), a.borrowMsg(k), i18n.Qty(fmtQ(r, short[r]))))
				}
			}
		}
	}
	if len(parts) == 0 {
		return msg("diagnose.short.none")
	}
	return i18n.Join(parts...)
}

// holdersMsg names the ClusterQueues of the cohort that hold k, when the
// capacity is really taken.
func (a *analysis) holdersMsg(k fr) i18n.Message {
	t := a.quota.tree
	if t.cq.parent == nil {
		return i18n.Message{}
	}
	var parts []i18n.Arg
	for i, n := range t.holders(k) {
		if i == 3 {
			parts = append(parts, msg("diagnose.holder.more"))
			break
		}
		used := i18n.Qty(fmtQ(k.resource, t.used(n, k)))
		if n == t.cq {
			parts = append(parts, msg("diagnose.holder.self", used))
			continue
		}
		parts = append(parts, msg("diagnose.holder.cq", cqArg(n.name), used))
	}
	if len(parts) == 0 {
		return i18n.Message{}
	}
	return msg("diagnose.holders", cohortArg(a.s.ClusterQueue.Spec.CohortName), i18n.Name(k.flavor), i18n.Name(string(k.resource)), i18n.Commas(parts...))
}

func (a *analysis) borrowMsg(k fr) i18n.Message {
	t := a.quota.tree.cq
	if t.parent == nil {
		return msg("diagnose.borrow.noCohort")
	}
	if b, ok := t.borrow[k]; ok {
		return msg("diagnose.borrow.upTo", i18n.Qty(fmtQ(k.resource, b)), cohortArg(a.s.ClusterQueue.Spec.CohortName))
	}
	return msg("diagnose.borrow.any", cohortArg(a.s.ClusterQueue.Spec.CohortName))
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
		var all i18n.Message
		if a.multiPodSet() {
			all = msg("diagnose.raiseQuota.all")
		}
		a.remedyM("RaiseQuota", WhoPlatform, cmd, msg("diagnose.raiseQuota.remedy", i18n.Name(string(r)), i18n.Name(k.flavor), cqArg(cq.Name),
			i18n.Qty(fmtQ(r, by)), i18n.Qty(fmtQ(r, a.quota.tree.cq.nominal[k])), i18n.Qty(fmtQ(r, newNominal)), all))
	}
}

func (a *analysis) shrinkRemedy(p podSetFit, fits int64, now bool) {
	when := msg("diagnose.when.ever")
	if now {
		when = msg("diagnose.when.now")
	}
	if fits == 0 && now {
		return // nothing smaller fits now either: waiting is the answer
	}
	if fits == 0 {
		a.remedyM("ShrinkPods", WhoYou, "", msg("diagnose.shrinkPods.remedy", i18n.Name(p.req.name), when, perPodList(p.req)))
		return
	}
	if minCount := p.req.spec.MinCount; minCount != nil && int64(*minCount) <= fits {
		// Partial admission: Kueue itself admits it with fewer pods, down
		// to minCount, once that many fit.
		a.remedyM("Shrink", WhoYou, "", msg("diagnose.shrink.partial.remedy", i18n.Name(p.req.name), i18n.Num(*minCount), i18n.Num(fits), when))
		return
	}
	if cmd, ok := a.shrinkCommand(p, fits); ok {
		var partial i18n.Message
		if v, ok := a.job.u.GetAnnotations()[JobMinParallelismAnnotation]; ok {
			partial = msg("diagnose.shrink.patchMin", i18n.Name(JobMinParallelismAnnotation), i18n.Verbatim(v))
		}
		requeue := msg("diagnose.shrink.requeue")
		if a.s.Planned != nil {
			requeue = msg("diagnose.shrink.create")
		}
		a.remedyM("Shrink", WhoYou, cmd, msg("diagnose.shrink.patch.remedy", i18n.Num(fits), when, i18n.Num(p.req.count), requeue, partial))
		return
	}
	if a.r.Target.Kind == "StatefulSet" {
		// Kueue's statefulset webhook refuses a new spec.replicas while it
		// manages the StatefulSet (ValidateUpdate: immutable unless from
		// or to 0, and not while the old Workload is being deleted).
		a.remedyM("Shrink", WhoYou, "", msg("diagnose.shrink.sts.remedy", i18n.Num(fits), i18n.Name(p.req.name), when, i18n.Num(p.req.count), a.jobArg(), i18n.Num(fits)))
		return
	}
	a.remedyM("Shrink", WhoYou, "", msg("diagnose.shrink.remedy", i18n.Num(fits), i18n.Name(p.req.name), when, i18n.Num(p.req.count)))
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
	wait := msg("diagnose.wait.remedy")
	if p := a.s.Position; p != nil {
		wait = msg("diagnose.wait.remedy.position", ordinal(p.InClusterQueue, p.Tied), cqArg(a.r.Queue.ClusterQueue))
	}
	if n := len(a.s.QueueAhead); n > 0 {
		var ahead []i18n.Arg
		for i, w := range a.s.QueueAhead {
			if i == 3 {
				ahead = append(ahead, msg("diagnose.wait.aheadMore", i18n.Num(n-3)))
				break
			}
			ahead = append(ahead, i18n.Name(w.Namespace+"/"+w.Name))
		}
		wait = msg("diagnose.wait.ahead", wait, i18n.Commas(ahead...))
	}
	switch cause {
	case CausePendingPreemption:
		a.remedyM("Wait", WhoYou, "", msg("diagnose.wait.preempting.remedy"))
		return
	case CauseBorrowingLimited:
		a.remedyM("Wait", WhoYou, "", wait)
		if a.quota != nil {
			for _, h := range a.holdingLimits() {
				h.need = h.flavor.neededNow(h.k.resource)
				a.limitRemedy(h, a.quota.tree.raised)
			}
		}
	default:
		a.remedyM("Wait", WhoYou, "", wait)
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
			a.remedyM("UseOtherQueue", WhoYou, cmd, msg("diagnose.altQueue.now.remedy", a.lqArg(alt.LocalQueue.Name), cqArg(cq.Name)))
			continue
		}
		a.remedyM("UseOtherQueue", WhoYou, cmd, msg("diagnose.altQueue.later.remedy", a.lqArg(alt.LocalQueue.Name), cqArg(cq.Name)))
	}
}

// flavorRemedies suggests how to get a flavor; b is the pod set no
// flavor takes, nil when only Kueue's message is known.
func (a *analysis) flavorRemedies(cause Cause, b *blockedPodSet) {
	template := msg("diagnose.template")
	if b != nil && a.quota != nil && len(a.quota.podSets) > 1 {
		template = msg("diagnose.template.podSet", i18n.Name(b.name))
	}
	switch cause {
	case CauseUntoleratedTaint:
		what := msg("diagnose.taint.generic")
		if b != nil && b.open != nil {
			what = msg("diagnose.taint.named", i18n.Verbatim(b.open.inel.taint), i18n.Name(b.open.flavor))
		}
		cmd := a.tolerationCommand(b)
		a.remedyM("AddToleration", WhoYou, cmd, msg("diagnose.toleration.remedy", what, template))
		a.remedyM("FlavorToleration", WhoPlatform, "", msg("diagnose.toleration.platform.remedy"))
	case CauseNodeAffinityMismatch:
		a.remedyM("FixNodeSelector", WhoYou, "", msg("diagnose.nodeSelector.remedy", template))
		a.remedyM("AddFlavor", WhoPlatform, "", msg("diagnose.addFlavor.remedy"))
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

// perPodList is the per-pod requests, "2 cpu, 4Gi memory".
func perPodList(p podSetRequest) i18n.List {
	var parts []i18n.Arg
	for _, r := range sortedRes(p.perPod) {
		if r == corev1.ResourcePods {
			continue
		}
		parts = append(parts, msg("diagnose.qtyRes", i18n.Qty(fmtQ(r, p.perPod[r])), i18n.Name(string(r))))
	}
	return i18n.Commas(parts...)
}

// resNameList is resNames as a message argument.
func resNameList(rs []corev1.ResourceName) i18n.List {
	return nameList(strings.Split(resNames(rs), ", ")...)
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
func (a *analysis) topologyDomains(t topologyFit) i18n.Message {
	if len(a.s.Nodes) == 0 || t.level == "" {
		return i18n.Message{}
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
		return i18n.Message{}
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
	var parts []i18n.Arg
	for i, d := range ds {
		if i == maxDomainsNamed {
			parts = append(parts, msg("diagnose.topo.domain.more", i18n.Num(len(ds)-i)))
			break
		}
		var alloc []i18n.Arg
		for _, r := range res {
			alloc = append(alloc, msg("diagnose.qtyRes", i18n.Qty(fmtQ(r, d.alloc[r])), i18n.Name(string(r))))
		}
		var allocM, room i18n.Message
		if len(alloc) > 0 {
			allocM = msg("diagnose.topo.domain.alloc", i18n.Commas(alloc...))
		}
		if len(per) > 0 {
			room = msg("diagnose.topo.domain.room", i18n.Num(d.fit))
		}
		parts = append(parts, msg("diagnose.topo.domain", i18n.Name(d.name), i18n.Num(d.nodes), allocM, room))
	}
	out := msg("diagnose.topo.domains", i18n.Name(t.level), i18n.Commas(parts...), i18n.Name(t.level), i18n.Name(ds[0].name))
	for _, tp := range a.s.Topologies {
		if tp.Name == t.topology {
			levels := make([]string, 0, len(tp.Spec.Levels))
			for _, l := range tp.Spec.Levels {
				levels = append(levels, l.NodeLabel)
			}
			out = i18n.Join(msg("diagnose.topo.levels", i18n.Name(tp.Name), nameList(levels...)), out)
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
