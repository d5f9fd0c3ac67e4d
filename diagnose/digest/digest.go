// Package digest computes a pending-queue digest from classified workloads
// and queue objects: totals, per-queue lines, pending workloads grouped by
// verdict code, what needs someone to act, and the trend against the
// previous digest. It is pure like diagnose: no I/O, no clock reads, output
// in a fixed order, so a digest is reproducible from its inputs.
package digest

import (
	"cmp"
	"slices"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// Defaults of Options.
const (
	DefaultLongWait   = 24 * time.Hour
	DefaultStuckAfter = 30 * time.Minute
	DefaultTopN       = 5
)

// Options are a digest's thresholds.
type Options struct {
	// LongWait is how long a pending workload waits before it counts as a
	// long wait; DefaultLongWait when zero.
	LongWait time.Duration
	// StuckAfter is how long an admitted workload's pods may not run
	// before it counts as stuck after admission; DefaultStuckAfter when
	// zero.
	StuckAfter time.Duration
	// TopN is how many workloads each list names in the short form (text
	// and the channel message; JSON and the thread have them all);
	// DefaultTopN when zero.
	TopN int
}

func (o Options) withDefaults() Options {
	if o.LongWait <= 0 {
		o.LongWait = DefaultLongWait
	}
	if o.StuckAfter <= 0 {
		o.StuckAfter = DefaultStuckAfter
	}
	if o.TopN <= 0 {
		o.TopN = DefaultTopN
	}
	return o
}

// NeedsActionCodes are the verdicts waiting will not fix: someone has to
// change the job or the queues.
var NeedsActionCodes = []diagnose.Code{
	diagnose.CodeMisconfigured, diagnose.CodeExceedsMaxQuota, diagnose.CodeNoMatchingFlavor,
	diagnose.CodeOnHold, diagnose.CodeDeactivated, diagnose.CodeWorkloadMissing,
}

// NeedsAction reports whether a verdict code is one waiting will not fix.
func NeedsAction(c diagnose.Code) bool { return slices.Contains(NeedsActionCodes, c) }

// Item is one pending workload (or job without a Workload) as a digest
// shows it.
type Item struct {
	Namespace string `json:"namespace"`
	// Kind and Name are what its owner asks about: the job (Job, JobSet,
	// ...), or the Workload when there is no job.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Workload is the Workload's name; empty for a job without one.
	Workload     string `json:"workload,omitempty"`
	LocalQueue   string `json:"localQueue,omitempty"`
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// Priority is the Workload's priority (0 when unset).
	Priority int32          `json:"priority"`
	Code     diagnose.Code  `json:"code"`
	Cause    diagnose.Cause `json:"cause,omitempty"`
	// Headline is the verdict's one sentence.
	Headline string `json:"headline"`
	// HeadlineMsg is Headline as a catalog message (zero when the
	// diagnosis gave none), for renderings in another language.
	HeadlineMsg i18n.Message `json:"-"`
	// Wait is how long it has waited (Now minus QueuedSince; for a job
	// without a Workload, since the job's creation; for a workload stuck
	// after admission, since its admission); WaitSeconds is the same in
	// whole seconds, for JSON.
	Wait        time.Duration `json:"-"`
	WaitSeconds int64         `json:"waitSeconds"`
	// Who are those the remedies name, in order (the job's owner, the
	// platform team).
	Who []diagnose.Who `json:"who,omitempty"`
	// Remedy is the first remedy's summary.
	Remedy string `json:"remedy,omitempty"`
	// RemedyMsg is Remedy as a catalog message (zero when none).
	RemedyMsg i18n.Message `json:"-"`
	// Estimate is when it is likely admitted, or why there is no
	// estimate (diagnose.Forecast); nil when none was made.
	Estimate *diagnose.Estimate `json:"estimate,omitempty"`
}

// Ref returns "namespace/kind/name" as users type it to the bot.
func (it *Item) Ref() string {
	return it.Namespace + "/" + it.Kind + "/" + it.Name
}

// Verdict is "Code" or "Code/Cause".
func (it *Item) Verdict() string {
	if it.Cause == "" {
		return string(it.Code)
	}
	return string(it.Code) + "/" + string(it.Cause)
}

// ItemOf reduces a workload's report to what a digest keeps of it. wl may
// be nil (a job without a Workload); created is then the job's creation.
func ItemOf(wl *kueue.Workload, created time.Time, r *diagnose.Report, now time.Time) Item {
	it := Item{
		Namespace: r.Target.Namespace, Kind: r.Target.Kind, Name: r.Target.Name, Workload: r.Target.Workload,
		LocalQueue: r.Queue.LocalQueue, ClusterQueue: r.Queue.ClusterQueue,
		Code: r.Verdict.Code, Cause: r.Verdict.Cause, Headline: r.Verdict.Headline, HeadlineMsg: r.Verdict.HeadlineMsg,
		Wait: now.Sub(created),
	}
	if wl != nil {
		it.Wait = now.Sub(diagnose.QueuedSince(wl))
		if wl.Spec.Priority != nil {
			it.Priority = *wl.Spec.Priority
		}
		if it.Workload == "" {
			it.Workload = wl.Name
		}
		if it.LocalQueue == "" {
			it.LocalQueue = string(wl.Spec.QueueName)
		}
	}
	it.Wait = max(it.Wait, 0)
	it.WaitSeconds = int64(it.Wait / time.Second)
	for _, rem := range r.Remedies {
		if !slices.Contains(it.Who, rem.Who) {
			it.Who = append(it.Who, rem.Who)
		}
	}
	if len(r.Remedies) > 0 {
		it.Remedy, it.RemedyMsg = r.Remedies[0].Summary, r.Remedies[0].SummaryMsg
	}
	return it
}

// AdmittedItemOf is ItemOf for an admitted workload: its Wait is how long
// it has held its quota (Now minus AdmittedAt).
func AdmittedItemOf(wl *kueue.Workload, r *diagnose.Report, now time.Time) Item {
	it := ItemOf(wl, wl.CreationTimestamp.Time, r, now)
	it.Wait = max(now.Sub(AdmittedAt(wl)), 0)
	it.WaitSeconds = int64(it.Wait / time.Second)
	return it
}

// AdmittedAt is when a Workload was admitted (its Admitted condition's
// last transition), else when it reserved quota, else its creation.
func AdmittedAt(wl *kueue.Workload) time.Time {
	for _, typ := range []string{kueue.WorkloadAdmitted, kueue.WorkloadQuotaReserved} {
		if c := apimeta.FindStatusCondition(wl.Status.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return wl.CreationTimestamp.Time
}

// PhaseOf is the phase a digest counts a Workload in: diagnose.PhaseOf,
// except that an admitted Workload Kueue is evicting (Evicted=True; Kueue
// keeps it Admitted until its job stops, for good when a MultiKueue job's
// copied status stays active: Requeuing/StaleJobStatus) holds quota
// without running, on its way back to the queue: PhaseReserved, pending.
func PhaseOf(wl *kueue.Workload) diagnose.Phase {
	p := diagnose.PhaseOf(wl)
	if p == diagnose.PhaseAdmitted && apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadEvicted) {
		return diagnose.PhaseReserved
	}
	return p
}

// StuckCodes are the verdicts of an admitted workload whose pods do not
// run: it holds quota others may wait for, and someone has to act.
var StuckCodes = []diagnose.Code{diagnose.CodeStarting, diagnose.CodePodsUnschedulable, diagnose.CodePodsNotStarting}

// Stuck reports whether a verdict code is one of StuckCodes.
func Stuck(c diagnose.Code) bool { return slices.Contains(StuckCodes, c) }

// Input is what a digest is computed from, all within its scope.
type Input struct {
	// Name names the digest (config digests[].name).
	Name string
	// Now is the digest's time; the previous digest's time, when known,
	// starts the "finished since" window (else Now minus a day).
	Now time.Time
	// Objects are the queue objects and every Workload in scope (all
	// phases: totals count admitted and finished ones).
	Objects diagnose.Objects
	// Pending are the classified workloads that are not admitted and not
	// finished, and the jobs without a Workload. The digest points into
	// this slice.
	Pending []Item
	// Admitted are the classified admitted workloads whose verdict is one
	// of StuckCodes, made with AdmittedItemOf; those admitted longer than
	// Options.StuckAfter are named as stuck after admission. The digest
	// points into this slice.
	Admitted []Item
	// Previous are the previous digest's figures, for the trend; nil for
	// the first digest.
	Previous *Figures
	Options  Options
}

// Digest is one computed digest.
type Digest struct {
	Name string `json:"name"`
	// Cluster is the configured cluster the digest read, when the bot
	// reads several and the digest names one; empty otherwise.
	Cluster string `json:"cluster,omitempty"`
	// Now is when it was computed; Since starts the "finished since"
	// window (the previous digest, or a day before Now).
	Now   time.Time `json:"time"`
	Since time.Time `json:"since"`
	// LongWait and TopN are the thresholds used (LongWaitSeconds is
	// LongWait in seconds, for JSON).
	LongWait        time.Duration `json:"-"`
	LongWaitSeconds int64         `json:"longWaitSeconds"`
	// StuckAfter is the threshold of Stuck (StuckAfterSeconds in seconds,
	// for JSON).
	StuckAfter        time.Duration `json:"-"`
	StuckAfterSeconds int64         `json:"stuckAfterSeconds"`
	TopN              int           `json:"topN"`

	Totals Totals `json:"totals"`
	// Queues are the queues in scope: ClusterQueues first, then
	// LocalQueues, each with its long waits.
	Queues []Queue `json:"queues"`
	// Groups are the pending workloads by verdict code, largest group
	// first; each lists every workload, longest wait first.
	Groups []Group `json:"groups"`
	// NeedsAction are the pending workloads whose verdict waiting will not
	// fix (NeedsActionCodes), longest wait first.
	NeedsAction []*Item `json:"needsAction"`
	// LongWaits are the pending workloads waiting longer than LongWait,
	// longest first.
	LongWaits []*Item `json:"longWaits"`
	// Stuck are the admitted workloads whose pods have not run for longer
	// than StuckAfter (no pods created, pods refused by a ResourceQuota,
	// unschedulable, or not starting): they hold quota others wait for.
	// Longest first; Wait is the time since admission, Who who acts.
	Stuck []*Item `json:"stuckAfterAdmission"`
	// Trend compares with the previous digest; nil for the first.
	Trend *Trend `json:"trend,omitempty"`
}

// Totals are a digest's headline figures.
type Totals struct {
	// Pending counts the workloads not admitted and not finished
	// (Reserved included) and the jobs without a Workload.
	Pending int `json:"pending"`
	// Reserved counts those holding quota while admission checks run, or
	// while Kueue evicts them (PhaseOf).
	Reserved int `json:"reserved"`
	// Admitted counts admitted workloads that have not finished.
	Admitted int `json:"admitted"`
	// Finished counts the workloads that finished since Since (only those
	// whose Workload still exists).
	Finished int `json:"finishedSince"`
	// LongWaits counts the pending workloads waiting longer than LongWait.
	LongWaits int `json:"longWaits"`
	// NeedsAction counts the pending workloads with a NeedsActionCodes
	// verdict.
	NeedsAction int `json:"needsAction"`
	// Stuck counts the admitted workloads stuck after admission.
	Stuck int `json:"stuckAfterAdmission"`
	// WillNotDrainToday counts the queues whose pending workloads are not
	// all likely admitted by the end of the digest's day (Drain.Today).
	WillNotDrainToday int `json:"willNotDrainToday"`
}

// Queue is one queue's line.
type Queue struct {
	diagnose.QueueSummary
	// LongWaits counts its pending workloads waiting longer than LongWait.
	LongWaits int `json:"longWaits"`
	// Drain is when its pending workloads are likely all admitted; nil
	// when nothing is pending or no estimates were made.
	Drain *Drain `json:"drain,omitempty"`
}

// Drain is when a queue's pending workloads are likely all admitted,
// from their estimates.
type Drain struct {
	// Likely is when the last of them is likely admitted; nil when some
	// have no estimate.
	Likely *time.Time `json:"likely,omitempty"`
	// Estimated and NoEstimate count its pending workloads with and
	// without an estimate.
	Estimated  int `json:"estimated"`
	NoEstimate int `json:"noEstimate"`
	// Today is true when all are likely admitted before the end of the
	// digest's day (midnight after Now, in Now's location).
	Today bool `json:"today"`
}

// Group is the pending workloads that share a verdict code.
type Group struct {
	Code  diagnose.Code  `json:"code"`
	Stage diagnose.Stage `json:"stage"`
	Count int            `json:"count"`
	// Causes counts the group's workloads by cause, largest first.
	Causes []CauseCount `json:"causes"`
	// NeedsAction is true for a NeedsActionCodes code.
	NeedsAction bool    `json:"needsAction"`
	Workloads   []*Item `json:"workloads"`
}

// CauseCount is how many workloads of a group have one cause.
type CauseCount struct {
	Cause diagnose.Cause `json:"cause"`
	Count int            `json:"count"`
}

// Figures are what the next digest's trend compares against; they are kept
// between runs (the bot stores them in its state ConfigMap).
type Figures struct {
	At     time.Time             `json:"at"`
	Totals Totals                `json:"totals"`
	ByCode map[diagnose.Code]int `json:"byCode"`
	// Queues maps a queue's key (QueueSummary.Key, prefixed by its kind) to
	// its pending count.
	Queues map[string]int `json:"queues"`
}

// Trend is the change since the previous digest.
type Trend struct {
	Since time.Time `json:"since"`
	// Pending, Admitted, Finished, LongWaits and NeedsAction are
	// differences (now minus then).
	Pending     int `json:"pending"`
	Admitted    int `json:"admitted"`
	Finished    int `json:"finishedSince"`
	LongWaits   int `json:"longWaits"`
	NeedsAction int `json:"needsAction"`
	Stuck       int `json:"stuckAfterAdmission"`
	// ByCode lists the codes whose count changed, in contract order.
	ByCode []CodeDelta `json:"byCode"`
	// Queues maps a queue key (as in Figures) to its pending change, for
	// queues whose count changed.
	Queues map[string]int `json:"queues"`
}

// CodeDelta is one code's change.
type CodeDelta struct {
	Code  diagnose.Code `json:"code"`
	Then  int           `json:"then"`
	Now   int           `json:"now"`
	Delta int           `json:"delta"`
}

// Compute builds the digest.
func Compute(in Input) *Digest {
	opts := in.Options.withDefaults()
	d := &Digest{
		Name: in.Name, Now: in.Now, Since: in.Now.Add(-24 * time.Hour),
		LongWait: opts.LongWait, LongWaitSeconds: int64(opts.LongWait / time.Second), TopN: opts.TopN,
		StuckAfter: opts.StuckAfter, StuckAfterSeconds: int64(opts.StuckAfter / time.Second),
	}
	if in.Previous != nil && !in.Previous.At.IsZero() && in.Previous.At.Before(in.Now) {
		d.Since = in.Previous.At
	}

	for _, wl := range in.Objects.Workloads {
		switch PhaseOf(wl) {
		case diagnose.PhaseReserved:
			d.Totals.Reserved++
		case diagnose.PhaseAdmitted:
			d.Totals.Admitted++
		case diagnose.PhaseFinished:
			if at := diagnose.FinishedAt(wl); at.After(d.Since) && !at.After(in.Now) {
				d.Totals.Finished++
			}
		}
	}

	pending := make([]*Item, len(in.Pending))
	for i := range in.Pending {
		pending[i] = &in.Pending[i]
	}
	slices.SortFunc(pending, byWait)
	d.Totals.Pending = len(pending)
	groups := map[diagnose.Code]*Group{}
	longByQueue := map[string]int{}
	d.NeedsAction, d.LongWaits = []*Item{}, []*Item{}
	for _, it := range pending {
		g := groups[it.Code]
		if g == nil {
			g = &Group{Code: it.Code, Stage: diagnose.StageOf(it.Code), NeedsAction: NeedsAction(it.Code)}
			groups[it.Code] = g
		}
		g.Count++
		g.Workloads = append(g.Workloads, it)
		if g.NeedsAction {
			d.NeedsAction = append(d.NeedsAction, it)
		}
		if it.Wait > opts.LongWait {
			d.LongWaits = append(d.LongWaits, it)
			longByQueue[string(diagnose.QueueKindLocal)+" "+it.Namespace+"/"+it.LocalQueue]++
			if it.ClusterQueue != "" {
				longByQueue[string(diagnose.QueueKindCluster)+" "+it.ClusterQueue]++
			}
		}
	}
	d.Totals.LongWaits, d.Totals.NeedsAction = len(d.LongWaits), len(d.NeedsAction)
	d.Stuck = []*Item{}
	for i := range in.Admitted {
		if it := &in.Admitted[i]; Stuck(it.Code) && it.Wait > opts.StuckAfter {
			d.Stuck = append(d.Stuck, it)
		}
	}
	slices.SortFunc(d.Stuck, byWait)
	d.Totals.Stuck = len(d.Stuck)
	d.Groups = make([]Group, 0, len(groups))
	for _, g := range groups {
		g.Causes = causeCounts(g.Workloads)
		d.Groups = append(d.Groups, *g)
	}
	slices.SortFunc(d.Groups, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(codeRank(a.Code), codeRank(b.Code)), cmp.Compare(a.Code, b.Code))
	})

	drains := drainsOf(pending, in.Now)
	for _, q := range diagnose.QueueSummaries(in.Objects, in.Now) {
		line := Queue{QueueSummary: q, LongWaits: longByQueue[queueKey(&q)], Drain: drains[queueKey(&q)]}
		if line.Drain != nil && !line.Drain.Today {
			d.Totals.WillNotDrainToday++
		}
		d.Queues = append(d.Queues, line)
	}
	if in.Previous != nil {
		d.Trend = trend(d, in.Previous)
	}
	return d
}

// drainsOf is, per queue key, when its pending items are likely all
// admitted; queues with no estimated item have none.
func drainsOf(pending []*Item, now time.Time) map[string]*Drain {
	endOfDay := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, now.Location())
	out := map[string]*Drain{}
	add := func(key string, it *Item) {
		dr := out[key]
		if dr == nil {
			dr = &Drain{}
			out[key] = dr
		}
		if !it.Estimate.Known() {
			dr.NoEstimate++
			return
		}
		dr.Estimated++
		if dr.Likely == nil || it.Estimate.Likely.After(*dr.Likely) {
			l := *it.Estimate.Likely
			dr.Likely = &l
		}
	}
	for _, it := range pending {
		if it.Estimate == nil {
			continue
		}
		add(string(diagnose.QueueKindLocal)+" "+it.Namespace+"/"+it.LocalQueue, it)
		if it.ClusterQueue != "" {
			add(string(diagnose.QueueKindCluster)+" "+it.ClusterQueue, it)
		}
	}
	for _, dr := range out {
		if dr.NoEstimate > 0 {
			dr.Likely = nil
		}
		dr.Today = dr.NoEstimate == 0 && dr.Likely != nil && dr.Likely.Before(endOfDay)
	}
	return out
}

// byWait orders items longest wait first, then by reference.
func byWait(a, b *Item) int {
	// Not cmp.Or, which compares every field of tens of thousands of
	// items even when the waits differ.
	if c := cmp.Compare(b.Wait, a.Wait); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

func causeCounts(items []*Item) []CauseCount {
	counts := map[diagnose.Cause]int{}
	for _, it := range items {
		counts[it.Cause]++
	}
	out := make([]CauseCount, 0, len(counts))
	for c, n := range counts {
		out = append(out, CauseCount{Cause: c, Count: n})
	}
	slices.SortFunc(out, func(a, b CauseCount) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Cause, b.Cause)) })
	return out
}

// codeRank is a code's place in the contract order.
func codeRank(c diagnose.Code) int {
	if i := slices.Index(diagnose.AllCodes(), c); i >= 0 {
		return i
	}
	return len(diagnose.AllCodes())
}

// queueKey names a queue in Figures and Trend: "LocalQueue ns/name" or
// "ClusterQueue name".
func queueKey(q *diagnose.QueueSummary) string {
	return string(q.Kind) + " " + q.Key()
}

// QueueKey returns the key a queue has in Figures.Queues and Trend.Queues.
func QueueKey(q *diagnose.QueueSummary) string { return queueKey(q) }

// Figures returns what the next digest compares against.
func (d *Digest) Figures() Figures {
	f := Figures{At: d.Now, Totals: d.Totals, ByCode: map[diagnose.Code]int{}, Queues: map[string]int{}}
	for _, g := range d.Groups {
		f.ByCode[g.Code] = g.Count
	}
	for i := range d.Queues {
		f.Queues[queueKey(&d.Queues[i].QueueSummary)] = d.Queues[i].Pending
	}
	return f
}

func trend(d *Digest, prev *Figures) *Trend {
	now := d.Figures()
	t := &Trend{
		Since:       prev.At,
		Pending:     now.Totals.Pending - prev.Totals.Pending,
		Admitted:    now.Totals.Admitted - prev.Totals.Admitted,
		Finished:    now.Totals.Finished - prev.Totals.Finished,
		LongWaits:   now.Totals.LongWaits - prev.Totals.LongWaits,
		NeedsAction: now.Totals.NeedsAction - prev.Totals.NeedsAction,
		Stuck:       now.Totals.Stuck - prev.Totals.Stuck,
		ByCode:      []CodeDelta{},
		Queues:      map[string]int{},
	}
	codes := diagnose.AllCodes()
	for c := range prev.ByCode {
		if !slices.Contains(codes, c) {
			codes = append(codes, c) // a code this version no longer knows
		}
	}
	for _, c := range codes {
		if then, cur := prev.ByCode[c], now.ByCode[c]; then != cur {
			t.ByCode = append(t.ByCode, CodeDelta{Code: c, Then: then, Now: cur, Delta: cur - then})
		}
	}
	for k, cur := range now.Queues {
		if then := prev.Queues[k]; then != cur {
			t.Queues[k] = cur - then
		}
	}
	for k, then := range prev.Queues {
		if _, ok := now.Queues[k]; !ok && then != 0 {
			t.Queues[k] = -then
		}
	}
	return t
}
