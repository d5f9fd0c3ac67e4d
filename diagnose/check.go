package diagnose

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// Fit is check's answer for a manifest in one LocalQueue.
type Fit string

const (
	// FitAdmittedNow: the pod sets fit the quota that is free now
	// (borrowing from the cohort as Kueue would); Kueue admits the
	// Workload on its next pass.
	FitAdmittedNow Fit = "AdmittedNow"
	// FitWaits: the pod sets fit the queue's maximum (nominal plus what it
	// may borrow) but not what is free now, or the queue is stopped or
	// admits in StrictFIFO order behind others; the answer names what
	// holds it.
	FitWaits Fit = "Waits"
	// FitNever: Kueue would never admit it as it is: it exceeds the
	// maximum quota, no flavor takes its pods, a resource is not covered,
	// a LimitRange refuses it, or the queue is misconfigured.
	FitNever Fit = "Never"
	// FitUnknown: the ClusterQueue could not be read, so the quota could
	// not be compared; the gaps say why and who can read it.
	FitUnknown Fit = "Unknown"
)

// CheckReport is the answer to "will this manifest fit?": the pod sets
// Kueue would build for it and, for each LocalQueue checked, whether
// Kueue would admit it now, later or never.
type CheckReport struct {
	// Target is the manifest's kind, namespace and name.
	Target TargetInfo `json:"target"`
	// File is where the manifest came from ("-" for stdin).
	File string `json:"file,omitempty"`
	// Cluster is the configured cluster the manifest was checked in, when
	// the bot reads several (explain.Fleet) and one answered for it.
	Cluster string `json:"cluster,omitempty"`
	// Clusters are, when the manifest was checked in several clusters,
	// each cluster and whether its LocalQueue is there (Found), or why it
	// could not be checked (Error).
	Clusters []ClusterLook `json:"clusters,omitempty"`
	// PodSets are the pod sets Kueue would build, with the requests it
	// would count (after LimitRange defaults and RuntimeClass overhead).
	PodSets []PlannedPodSet `json:"podSets"`
	// Adjustments say what LimitRanges and RuntimeClasses changed.
	Adjustments PlanAdjustments `json:"adjustments"`
	// QueueNamed is true when the manifest names its LocalQueue; false
	// when every LocalQueue of the namespace the caller may read was
	// checked.
	QueueNamed bool `json:"queueNamed"`
	// Queues is one answer per LocalQueue checked, in the order checked.
	Queues []QueueCheck `json:"queues"`
	// Notes are facts about the manifest as a whole (no queue label, a
	// LeaderWorkerSet's several Workloads).
	Notes []string `json:"notes"`
	// NotesMsg are Notes as catalog messages, one for one (NotesIn; AddNote
	// adds to both).
	NotesMsg []i18n.Message `json:"-"`
	// Gaps are the reads that failed for the manifest as a whole
	// (LimitRanges, RuntimeClasses, the namespace's LocalQueues).
	Gaps []Gap `json:"gaps"`
}

// AddNote adds a note about the manifest as a whole.
func (r *CheckReport) AddNote(m i18n.Message) {
	r.Notes, r.NotesMsg = append(r.Notes, m.String()), append(r.NotesMsg, m)
}

// NotesIn is Notes in l.
func (r *CheckReport) NotesIn(l i18n.Lang) []string { return textsIn(l, r.NotesMsg, r.Notes) }

// PlannedPodSet is one pod set Kueue would build.
type PlannedPodSet struct {
	Name     string `json:"name"`
	Count    int32  `json:"count"`
	MinCount *int32 `json:"minCount,omitempty"`
	// PerPod is one pod's request as Kueue counts it (overhead, init
	// containers and pod-level resources included).
	PerPod corev1.ResourceList `json:"perPod"`
	// Total is PerPod times Count.
	Total corev1.ResourceList `json:"total"`
}

// QueueCheck is the answer for one LocalQueue.
type QueueCheck struct {
	// Cluster is the configured cluster of the LocalQueue, when the
	// manifest was checked in several (explain.Fleet).
	Cluster      string `json:"cluster,omitempty"`
	LocalQueue   string `json:"localQueue"`
	ClusterQueue string `json:"clusterQueue,omitempty"`
	Cohort       string `json:"cohort,omitempty"`
	Fit          Fit    `json:"fit"`
	// Headline and Detail say it in words, naming what holds it.
	Headline string `json:"headline"`
	Detail   string `json:"detail,omitempty"`
	// HeadlineMsg and DetailMsg are Headline and Detail as catalog
	// messages (HeadlineIn, DetailIn render them in a language).
	HeadlineMsg i18n.Message `json:"-"`
	DetailMsg   i18n.Message `json:"-"`
	// Verdict is the diagnosis the Workload would get if it were submitted
	// now.
	Verdict  Verdict    `json:"verdict"`
	Quota    []QuotaRow `json:"quota"`
	Remedies []Remedy   `json:"remedies"`
	Findings []Finding  `json:"findings"`
	Gaps     []Gap      `json:"gaps"`
	// Estimate is when a waiting Workload would likely be admitted if it
	// were submitted now (behind every Workload pending in its queue), or
	// why there is no estimate; nil unless Fit is FitWaits.
	Estimate *Estimate `json:"estimate"`
}

// PlannedWorkload is the Workload Kueue would create for job in its
// namespace, queued in lq, with the (adjusted) pod sets.
func PlannedWorkload(job *unstructured.Unstructured, ns, lq string, podSets []kueue.PodSet) *kueue.Workload {
	return &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(job.GetKind()) + "-" + job.GetName(), Namespace: ns},
		Spec:       kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(lq), PodSets: podSets},
	}
}

// SummarizePodSets returns the pod sets with the requests Kueue would
// count, in Kueue's units turned back into quantities.
func SummarizePodSets(podSets []kueue.PodSet) []PlannedPodSet {
	out := make([]PlannedPodSet, 0, len(podSets))
	for i := range podSets {
		ps := &podSets[i]
		per := podRequests(&ps.Template.Spec)
		p := PlannedPodSet{Name: string(ps.Name), Count: ps.Count, MinCount: ps.MinCount, PerPod: corev1.ResourceList{}, Total: corev1.ResourceList{}}
		for _, r := range sortedRes(per) {
			p.PerPod[r] = quantity(r, per[r])
			p.Total[r] = quantity(r, per[r]*int64(ps.Count))
		}
		out = append(out, p)
	}
	return out
}

// HeadlineIn is the headline in l; the English Headline when it has no
// catalog message.
func (qc QueueCheck) HeadlineIn(l i18n.Lang) string { return textIn(l, qc.HeadlineMsg, qc.Headline) }

// DetailIn is the detail in l.
func (qc QueueCheck) DetailIn(l i18n.Lang) string { return textIn(l, qc.DetailMsg, qc.Detail) }

// CheckQueue answers for the planned Workload of s (Snapshot.Planned set,
// Workload the one PlannedWorkload returns, the queue objects read as the
// caller): the diagnosis it would get now, turned into Fit.
func CheckQueue(s *Snapshot, adj PlanAdjustments) QueueCheck {
	a := analyze(s)
	r := a.r
	qc := QueueCheck{
		LocalQueue: r.Queue.LocalQueue, ClusterQueue: r.Queue.ClusterQueue, Cohort: r.Queue.Cohort,
		Verdict: r.Verdict, Quota: r.Quota, Remedies: r.Remedies, Findings: r.Findings, Gaps: r.Gaps,
		Headline: r.Verdict.Headline, Detail: r.Verdict.Detail,
		HeadlineMsg: r.Verdict.HeadlineMsg, DetailMsg: r.Verdict.DetailMsg,
	}
	setText := func(headline, detail i18n.Message) {
		qc.HeadlineMsg, qc.Headline = headline, headline.String()
		qc.DetailMsg, qc.Detail = detail, detail.String()
	}
	level := fitIneligible
	if a.quota != nil {
		level = a.quota.level
	}
	switch v := r.Verdict; {
	case len(adj.LimitRangeViolations) > 0 && v.Code != CodeMisconfigured:
		qc.Fit = FitNever
		head := msg("diagnose.check.invalid.headline", a.jobArg(), nsArg(a.ns))
		items := verbatims(adj.LimitRangeViolations)
		if len(adj.LimitRangeViolationsMsg) == len(adj.LimitRangeViolations) {
			for i, m := range adj.LimitRangeViolationsMsg {
				items[i] = m
			}
		}
		detail := msg("diagnose.sentence", i18n.List{Items: items, Semicolons: true})
		qc.Verdict = Verdict{Stage: StageAdmission, Code: CodeMisconfigured, Cause: CauseInvalidResources,
			Headline: head.String(), Detail: detail.String(), HeadlineMsg: head, DetailMsg: detail}
		setText(head, detail)
		fix := msg("diagnose.check.invalid.remedy")
		qc.Remedies = []Remedy{{Code: "FixResources", Who: WhoYou, Command: "kubectl get limitrange " + a.nsFlag() + " -o yaml",
			Summary: fix.String(), SummaryMsg: fix}}
	case v.Code == CodePendingEvaluation && v.Cause == CauseNotYetEvaluated && level == fitNow:
		qc.Fit = FitAdmittedNow
		setText(msg("diagnose.check.fits.headline", a.jobArg(), a.lqArg(qc.LocalQueue), cqArg(qc.ClusterQueue)), a.fitsNowMsg())
		qc.Remedies = []Remedy{}
	case v.Code == CodePendingEvaluation && level == fitNow:
		qc.Fit = FitWaits // StrictFIFO: behind the head of the queue
	case v.Code == CodeWaitingForQuota || v.Code == CodeOnHold:
		qc.Fit = FitWaits
	case v.Code == CodeExceedsMaxQuota || v.Code == CodeNoMatchingFlavor || v.Code == CodeMisconfigured:
		qc.Fit = FitNever
	default:
		qc.Fit = FitUnknown
		if qc.ClusterQueue != "" && s.ClusterQueue == nil {
			setText(msg("diagnose.check.unread.headline", cqArg(qc.ClusterQueue), a.jobArg()), msg("diagnose.check.unread.detail"))
			ask := msg("diagnose.check.unread.remedy", cqArg(qc.ClusterQueue))
			qc.Remedies = []Remedy{{Code: "AskPlatform", Who: WhoPlatform, Command: "kueuebot check -f " + s.Planned.File + " " + a.nsFlag(),
				Summary: ask.String(), SummaryMsg: ask}}
		}
	}
	if qc.Fit == FitWaits && qc.Headline == r.Verdict.Headline {
		h := msg("diagnose.check.ifNow", qc.HeadlineMsg)
		qc.HeadlineMsg, qc.Headline = h, h.String()
	}
	return qc
}

// fitsNowMsg says, for each pod set, the flavor Kueue would pick and how
// much of what is free now the pod set takes, naming borrowing.
func (a *analysis) fitsNowMsg() i18n.Message {
	t := a.quota.tree
	var parts []i18n.Message
	for _, p := range a.quota.podSets {
		for _, f := range p.chosen() {
			for _, r := range p.req.resources() {
				if _, ok := f.avail[r]; !ok || r == corev1.ResourcePods {
					continue
				}
				k := fr{f.flavor, r}
				req := p.req.total[r]
				var borrow i18n.Message
				own := max(0, t.cq.nominal[k]-t.reserved(k))
				if need := f.prior[r] + req; need > own {
					borrow = msg("diagnose.check.borrow", cqArg(a.s.ClusterQueue.Name), i18n.Qty(fmtQ(r, need-own)), i18n.Name(string(r)), i18n.Obj("Cohort", "", string(a.s.ClusterQueue.Spec.CohortName)))
				}
				parts = append(parts, msg("diagnose.check.takes", i18n.Name(p.req.name), i18n.Qty(fmtQ(r, req)), i18n.Name(string(r)),
					perPodArithmetic(p.req, r, a.podCountOrigin(p.req.name)), i18n.Name(f.flavor), i18n.Qty(fmtQ(r, f.avail[r])), borrow))
			}
		}
	}
	return i18n.Join(parts...)
}
