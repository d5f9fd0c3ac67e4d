package diagnose

import (
	"cmp"
	"container/heap"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// Estimate is when a pending Workload is expected to be admitted: a range
// and what it rests on, or, when nothing the objects hold allows an
// honest figure, no estimate and why. Its JSON form is part of the
// report's contract (estimate:{earliest,likely,latest,basis}).
type Estimate struct {
	// At is the moment the estimate was made (the Snapshot's Now).
	At time.Time `json:"at"`
	// Earliest, Likely and Latest bound the admission time. Likely is nil
	// when there is no estimate; Latest is nil when the pessimistic replay
	// never admits the Workload (some workload ahead may hold its quota
	// forever) while the likely one does.
	Earliest *time.Time `json:"earliest,omitempty"`
	Likely   *time.Time `json:"likely,omitempty"`
	Latest   *time.Time `json:"latest,omitempty"`
	// Basis says what the figures rest on, e.g. "3 running with limits,
	// 14 finished in ClusterQueue team-a in the last 24h, 2 ahead".
	Basis string `json:"basis,omitempty"`
	// NoEstimate, when set, is why there is no estimate (the figures are
	// then nil): a workload it waits for runs without a limit and the
	// queue has no history, it can never fit, a queue is stopped, ...
	NoEstimate string `json:"noEstimate,omitempty"`
	// BasisMsg and NoEstimateMsg are Basis and NoEstimate as catalog
	// messages, for answers in another language.
	BasisMsg      i18n.Message `json:"-"`
	NoEstimateMsg i18n.Message `json:"-"`
}

// none sets why there is no estimate.
func (e *Estimate) none(m i18n.Message) {
	e.NoEstimateMsg, e.NoEstimate = m, m.String()
}

// Known reports whether the estimate has figures.
func (e *Estimate) Known() bool { return e != nil && e.Likely != nil }

// ForecastInput is the store's view of the ClusterQueues a forecast
// replays: what the caller could read, at one moment.
type ForecastInput struct {
	// Now is the moment of the reads; the forecast never reads a clock.
	Now time.Time
	// Objects are the Workloads of every phase (admitted ones with their
	// admission, finished ones for their run times, pending ones for the
	// order) and the queue objects: LocalQueues (to place pending
	// Workloads in their ClusterQueue), ClusterQueues, Cohorts and
	// ResourceFlavors.
	Objects Objects
	// Deadlines are the jobs' own run-time limits (a batch Job's
	// activeDeadlineSeconds) by the job's UID, for the jobs the reads
	// held; a Workload is matched to its job by ownerReference.
	Deadlines map[types.UID]time.Duration
	// Incomplete, when set, says which Workloads could not be read (e.g.
	// "the Workloads of other namespaces"), as a catalog message: the
	// basis says so, and quota a ClusterQueue reserves for workloads not
	// read is held for the whole replay.
	Incomplete i18n.Message
	// Queued are pending Workloads in Kueue's own order, by ClusterQueue
	// name, as Kueue's visibility API lists them (PositionInClusterQueue;
	// the list may leave some out). When set for a ClusterQueue, the
	// Workloads it lists are replayed in that order; the others, and every
	// ClusterQueue without it (the API not served or refused), in the order
	// the objects give (priority, then creation or eviction time).
	Queued map[string][]QueuedWorkload
}

// Forecast replays the quota of ClusterQueues and their cohorts forward
// in time and gives each pending Workload an Estimate. Each cohort tree is
// replayed once per scenario, on first use, whatever the number of
// Workloads asked about. A Forecast is pure (the same input gives the same
// estimates) and safe for concurrent use.
type Forecast struct {
	in  ForecastInput
	lqs map[string]*kueue.LocalQueue
	cqs map[string]*kueue.ClusterQueue
	// inferred maps "namespace/localQueue" to a ClusterQueue, for
	// LocalQueues the reads did not hold.
	inferred map[string]string
	// byCQ are the Workloads of each ClusterQueue, in input order.
	byCQ  map[string][]*kueue.Workload
	mu    sync.Mutex
	trees map[string]*replay // by the name of any ClusterQueue of the tree
}

// Scenario quantiles of the run-time distribution: the optimistic replay
// takes the 20th percentile of what remains of each run, the likely one
// the median, the pessimistic one the 80th percentile.
var scenarioQuantiles = [3]float64{0.2, 0.5, 0.8}

// Limits on history: a LocalQueue's own run times are used when it has at
// least minLocalSamples; the most recent maxSamples of each are kept.
const (
	minLocalSamples = 3
	maxSamples      = 500
)

// staleStatus is how long after a Workload's finish a ClusterQueue's
// status may still count its quota (Kueue writes the status after the
// Workloads, batched; on a busy API server seconds later): quota the
// status holds beyond the admitted Workloads read is taken for theirs,
// not for Workloads the reads did not see, up to what those that
// finished within it held.
const staleStatus = time.Minute

// NewForecast returns the forecast of in. It derives nothing until asked.
func NewForecast(in ForecastInput) *Forecast {
	f := &Forecast{in: in, lqs: map[string]*kueue.LocalQueue{}, cqs: map[string]*kueue.ClusterQueue{}, inferred: map[string]string{}, trees: map[string]*replay{}}
	for _, lq := range in.Objects.LocalQueues {
		f.lqs[lq.Namespace+"/"+lq.Name] = lq
	}
	for _, cq := range in.Objects.ClusterQueues {
		f.cqs[cq.Name] = cq
	}
	// A LocalQueue the reads did not hold is placed in the ClusterQueue
	// its Workloads were admitted to (the latest admitted wins).
	var latest map[string]time.Time
	for _, wl := range in.Objects.Workloads {
		key := wl.Namespace + "/" + string(wl.Spec.QueueName)
		if wl.Status.Admission == nil || wl.Spec.QueueName == "" || f.lqs[key] != nil {
			continue
		}
		if latest == nil {
			latest = map[string]time.Time{}
		}
		if at := reservedAt(wl); f.inferred[key] == "" || at.After(latest[key]) || at.Equal(latest[key]) && string(wl.Status.Admission.ClusterQueue) < f.inferred[key] {
			f.inferred[key], latest[key] = string(wl.Status.Admission.ClusterQueue), at
		}
	}
	f.byCQ = map[string][]*kueue.Workload{}
	for _, wl := range in.Objects.Workloads {
		if cq := f.clusterQueueOf(wl); cq != "" {
			f.byCQ[cq] = append(f.byCQ[cq], wl)
		}
	}
	return f
}

// Estimable reports whether a report gets an Estimate (with figures or
// with the reason there are none): it is about a job waiting for
// admission.
func Estimable(r *Report) bool {
	switch r.Verdict.Code {
	case CodeWaitingForQuota, CodePendingEvaluation, CodeRequeuing, CodeExceedsMaxQuota, CodeOnHold,
		CodeMisconfigured, CodeNoMatchingFlavor, CodeDeactivated, CodeWorkloadMissing,
		CodeWaitingForAdmissionChecks, CodeAdmissionGated:
		return true
	}
	return false
}

// Replayed reports whether the estimate of a report needs the replay (and
// so the reads of its queue): it waits for quota or for Kueue's next
// attempt. The other estimable verdicts are estimated from the verdict
// alone.
func Replayed(r *Report) bool {
	switch r.Verdict.Code {
	case CodeWaitingForQuota, CodePendingEvaluation, CodeRequeuing:
		return true
	}
	return false
}

// Estimate returns the estimate of the Workload wl, whose report is r:
// nil when r is not about a Workload waiting for admission (it runs, has
// finished, or has quota reserved), an Estimate with NoEstimate when
// waiting alone will not admit it or the objects do not allow a figure,
// and otherwise the range from the replay.
func (f *Forecast) Estimate(wl *kueue.Workload, r *Report) *Estimate {
	if f == nil || r == nil {
		return nil
	}
	e := &Estimate{At: f.in.Now}
	switch r.Verdict.Code {
	case CodeWaitingForQuota, CodePendingEvaluation, CodeRequeuing:
	case CodeExceedsMaxQuota:
		e.none(msg("diagnose.est.none.exceeds", i18n.Obj("ClusterQueue", "", r.Queue.ClusterQueue)))
		return e
	case CodeOnHold:
		what := msg("diagnose.est.held.queue")
		switch r.Verdict.Cause {
		case CauseLocalQueueStopped:
			what = msg("diagnose.est.held.lqPolicy", i18n.Obj("LocalQueue", r.Target.Namespace, r.Queue.LocalQueue))
		case CauseClusterQueueStopped:
			what = msg("diagnose.est.held.cqPolicy", i18n.Obj("ClusterQueue", "", r.Queue.ClusterQueue))
		}
		e.none(msg("diagnose.est.none.held", what))
		return e
	case CodeMisconfigured, CodeNoMatchingFlavor, CodeDeactivated, CodeWorkloadMissing:
		e.none(msg("diagnose.est.none.cause", i18n.Verbatim(string(r.Verdict.Code))))
		return e
	case CodeWaitingForAdmissionChecks:
		e.none(msg("diagnose.est.none.checks"))
		return e
	case CodeAdmissionGated:
		e.none(msg("diagnose.est.none.gate"))
		return e
	default:
		return nil
	}
	if wl == nil {
		return nil
	}
	cq := f.clusterQueueOf(wl)
	if cq == "" || f.cqs[cq] == nil {
		if name := cmp.Or(cq, r.Queue.ClusterQueue); name != "" {
			e.none(msg("diagnose.est.none.noCQ", i18n.Obj("ClusterQueue", "", name)))
		} else {
			e.none(msg("diagnose.est.none.noCQOf", i18n.Obj("LocalQueue", wl.Namespace, string(wl.Spec.QueueName))))
		}
		return e
	}
	rp := f.replayOf(cq)
	rp.estimate(wl, e)
	return e
}

// clusterQueueOf is the ClusterQueue a pending Workload waits in: its
// LocalQueue's, else the one another Workload of the same LocalQueue was
// admitted to.
func (f *Forecast) clusterQueueOf(wl *kueue.Workload) string {
	if wl.Status.Admission != nil {
		return string(wl.Status.Admission.ClusterQueue)
	}
	if lq := f.lqs[wl.Namespace+"/"+string(wl.Spec.QueueName)]; lq != nil {
		return string(lq.Spec.ClusterQueue)
	}
	return f.inferred[wl.Namespace+"/"+string(wl.Spec.QueueName)]
}

// replayOf returns the replay of cq's cohort tree, running it once.
func (f *Forecast) replayOf(cq string) *replay {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rp := f.trees[cq]; rp != nil {
		return rp
	}
	rp := f.newReplay(cq)
	for name := range rp.cqs {
		f.trees[name] = rp
	}
	rp.run()
	return rp
}

// replay is the forward replay of one cohort tree.
type replay struct {
	now  time.Time
	tree *quotaTree
	cqs  map[string]*cqReplay
	// running are the tree's Workloads holding quota now.
	running []*runningWL
	// pending are the tree's pending Workloads in Kueue's order.
	pending []*pendingWL
	// unread is quota a ClusterQueue reserves that no Workload read
	// accounts for: held for the whole replay.
	unread     map[*qnode]map[fr]int64
	incomplete i18n.Message
	// starts are, per scenario, when each pending Workload is admitted.
	starts [3]map[string]time.Time
	// once makes running1, history and never, the words every estimate
	// of the replay shares.
	once                     sync.Once
	running1, history, never i18n.Message
	// index is each pending Workload's place in pending, ahead how many
	// Workloads that may be admitted are ahead of it in its ClusterQueue.
	index map[string]int
	ahead []int
	// unseen counts, per ClusterQueue, the pending Workloads its status
	// counts beyond those read (of namespaces the reads did not cover):
	// some may be ahead.
	unseen map[string]int
	// finished counts the finished Workloads the run times come from, and
	// since is the oldest of their finishes.
	finished int
	since    time.Time
	// handover is how long, after a Workload finishes, the next one waits
	// to be admitted (Kueue's status writes and scheduling cycle): the
	// median of what the tree's Workloads show, once there are at least
	// minLocalSamples; 0 before.
	handover time.Duration
}

// cqReplay is one ClusterQueue of the tree.
type cqReplay struct {
	cq     *kueue.ClusterQueue
	node   *qnode
	strict bool
	// held is why nothing of it is admitted (stopped); zero otherwise.
	held i18n.Message
	fx   *flavorIndex
	// hist is what the run times of its finished Workloads say.
	hist history
}

// runningWL is an admitted Workload of the tree.
type runningWL struct {
	key   string
	wl    *kueue.Workload
	cq    *cqReplay
	usage map[fr]int64
	// elapsed is how long it has held its quota; bound what its limits
	// leave it in all (nil when it has none).
	elapsed time.Duration
	bound   *time.Duration
	hist    history
}

// pendingWL is a pending Workload of the tree.
type pendingWL struct {
	key       string
	wl        *kueue.Workload
	cq        *cqReplay
	held      i18n.Message
	prio      int32
	ts        time.Time
	notBefore time.Time
	reqs      []podSetRequest
	bound     *time.Duration
	hist      history
	never     bool
	shapeKey  string
}

func (f *Forecast) newReplay(cqName string) *replay {
	in := f.in
	root := f.cqs[cqName]
	s := &Snapshot{ClusterQueue: root, Cohorts: derefAll(in.Objects.Cohorts)}
	if root.Spec.CohortName != "" {
		s.CohortClusterQueues = derefAll(in.Objects.ClusterQueues)
	}
	rp := &replay{now: in.Now, tree: buildQuotaTree(s), cqs: map[string]*cqReplay{}, unread: map[*qnode]map[fr]int64{}, incomplete: in.Incomplete}
	rfs := derefAll(in.Objects.ResourceFlavors)
	// The tree holds every cohort the ClusterQueues name; the replay
	// keeps the one of cqName.
	top := rootName(rp.tree.cq)
	var nodes []*qnode
	for _, n := range rp.tree.nodes {
		if rootName(n) == top {
			nodes = append(nodes, n)
		}
	}
	rp.tree.nodes = nodes
	for _, n := range rp.tree.nodes {
		if n.isCohort || f.cqs[n.name] == nil {
			continue
		}
		n.use = maps.Clone(n.use)
		cq := f.cqs[n.name]
		c := &cqReplay{cq: cq, node: n, strict: cq.Spec.QueueingStrategy == kueue.StrictFIFO,
			fx: newFlavorIndex(&Snapshot{ClusterQueue: cq, ResourceFlavors: rfs})}
		if cq.Spec.StopPolicy != nil && *cq.Spec.StopPolicy != kueue.None {
			c.held = msg("diagnose.est.held.cq", i18n.Obj("ClusterQueue", "", cq.Name))
		}
		rp.cqs[cq.Name] = c
	}
	lqRuns := map[string][]finishedRun{}
	cqRuns := map[string][]finishedRun{}
	var treeRuns []finishedRun
	var admissions []admission
	// known is what the admitted Workloads read hold; finishedLately
	// what those that finished within staleStatus held.
	known, finishedLately := map[*qnode]map[fr]int64{}, map[*qnode]map[fr]int64{}
	names := make([]string, 0, len(rp.cqs))
	for name := range rp.cqs {
		names = append(names, name)
	}
	slices.Sort(names)
	var wls []*kueue.Workload
	for _, name := range names {
		wls = append(wls, f.byCQ[name]...)
	}
	for _, wl := range wls {
		cqName := f.clusterQueueOf(wl)
		c := rp.cqs[cqName]
		key := wl.Namespace + "/" + wl.Name
		lqKey := wl.Namespace + "/" + string(wl.Spec.QueueName)
		if qr := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved); qr != nil && qr.Status == metav1.ConditionTrue {
			admissions = append(admissions, admission{queued: QueuedSince(wl), at: qr.LastTransitionTime.Time})
		}
		switch PhaseOf(wl) {
		case PhaseFinished:
			if run, ok := runTime(wl); ok {
				fin := finishedRun{run: run, at: FinishedAt(wl), bound: f.bound(wl)}
				lqRuns[lqKey] = append(lqRuns[lqKey], fin)
				cqRuns[cqName] = append(cqRuns[cqName], fin)
				treeRuns = append(treeRuns, fin)
			}
			if at := FinishedAt(wl); !at.After(in.Now) && in.Now.Sub(at) <= staleStatus {
				for k, v := range ownUsage(c.cq, wl) {
					if finishedLately[c.node] == nil {
						finishedLately[c.node] = map[fr]int64{}
					}
					finishedLately[c.node][k] += v
				}
			}
		case PhaseAdmitted, PhaseReserved:
			u := ownUsage(c.cq, wl)
			for k, v := range u {
				if known[c.node] == nil {
					known[c.node] = map[fr]int64{}
				}
				known[c.node][k] += v
			}
			rw := &runningWL{key: key, wl: wl, cq: c, usage: u, elapsed: max(0, in.Now.Sub(reservedAt(wl))), bound: f.bound(wl)}
			if rw.bound != nil && wl.Status.AccumulatedPastExecutionTimeSeconds != nil {
				b := max(0, *rw.bound-time.Duration(*wl.Status.AccumulatedPastExecutionTimeSeconds)*time.Second)
				rw.bound = &b
			}
			rp.running = append(rp.running, rw)
		default:
			if wl.Spec.Active != nil && !*wl.Spec.Active {
				continue
			}
			pw := &pendingWL{key: key, wl: wl, cq: c, held: c.held, prio: priorityOf(wl), ts: QueuedSince(wl), notBefore: in.Now,
				reqs: workloadRequests(wl, nil), bound: f.bound(wl)}
			if lq := f.lqs[lqKey]; lq != nil && lq.Spec.StopPolicy != nil && *lq.Spec.StopPolicy != kueue.None {
				pw.held = msg("diagnose.est.held.lq", i18n.Verbatim(lqKey))
			}
			if rs := wl.Status.RequeueState; rs != nil && rs.RequeueAt != nil && rs.RequeueAt.After(in.Now) {
				pw.notBefore = rs.RequeueAt.Time
			}
			rp.pending = append(rp.pending, pw)
		}
	}
	// Run times: the LocalQueue's own when it has enough, else its
	// ClusterQueue's when it has enough, else the whole cohort tree's.
	tree := historyOf(treeRuns)
	for name, c := range rp.cqs {
		c.hist = historyOf(cqRuns[name])
		rp.finished += len(c.hist.runs)
		for _, fin := range lastRuns(cqRuns[name]) {
			if rp.since.IsZero() || fin.at.Before(rp.since) {
				rp.since = fin.at
			}
		}
	}
	histFor := func(ns string, lq kueue.LocalQueueName, c *cqReplay) history {
		return pooled(historyOf(lqRuns[ns+"/"+string(lq)]), c.hist, tree)
	}
	for _, rw := range rp.running {
		rw.hist = histFor(rw.wl.Namespace, rw.wl.Spec.QueueName, rw.cq)
	}
	for _, pw := range rp.pending {
		pw.hist = histFor(pw.wl.Namespace, pw.wl.Spec.QueueName, pw.cq)
	}
	rp.handover = handoverOf(admissions, treeRuns)
	// What a ClusterQueue's status reserves beyond the Workloads read is
	// held throughout, but for what the Workloads read that finished
	// lately held: Kueue writes the status after the Workloads, so a
	// status older than the Workloads read counts them (and fewer of
	// the admitted ones: those are counted as read).
	for _, c := range rp.cqs {
		for k, v := range known[c.node] {
			if c.node.use[k] < v {
				c.node.use[k] = v
			}
		}
		for k, v := range c.node.use {
			rest := v - known[c.node][k]
			if stale := min(rest, finishedLately[c.node][k]); stale > 0 {
				c.node.use[k] -= stale
				rest -= stale
			}
			if rest > 0 {
				if rp.unread[c.node] == nil {
					rp.unread[c.node] = map[fr]int64{}
				}
				rp.unread[c.node][k] = rest
			}
		}
	}
	seen := map[*cqReplay]int{}
	for _, pw := range rp.pending {
		seen[pw.cq]++
	}
	rp.unseen = map[string]int{}
	for name, c := range rp.cqs {
		if n := int(c.cq.Status.PendingWorkloads) - seen[c]; n > 0 {
			rp.unseen[name] = n
		}
	}
	slices.SortFunc(rp.running, func(a, b *runningWL) int { return cmp.Compare(a.key, b.key) })
	slices.SortFunc(rp.pending, func(a, b *pendingWL) int {
		return cmp.Or(cmp.Compare(b.prio, a.prio), a.ts.Compare(b.ts), cmp.Compare(a.wl.UID, b.wl.UID), cmp.Compare(a.key, b.key))
	})
	rp.pending = visibilityOrder(rp.pending, in.Queued)
	return rp
}

// visibilityOrder reorders the pending Workloads that Kueue's visibility
// API listed (queued, by ClusterQueue) as it listed them: within each
// ClusterQueue, the places its listed Workloads hold in the objects' order
// are given to them in the API's order; Workloads it did not list keep
// their places.
func visibilityOrder(pending []*pendingWL, queued map[string][]QueuedWorkload) []*pendingWL {
	if len(queued) == 0 {
		return pending
	}
	pos := map[string]int32{}
	for cq, items := range queued {
		for _, it := range items {
			pos[cq+"\x00"+it.Namespace+"/"+it.Name] = it.PositionInClusterQueue
		}
	}
	slots := map[*cqReplay][]int{}
	for i, pw := range pending {
		if _, ok := pos[pw.cq.cq.Name+"\x00"+pw.key]; ok {
			slots[pw.cq] = append(slots[pw.cq], i)
		}
	}
	if len(slots) == 0 {
		return pending
	}
	out := slices.Clone(pending)
	for c, idx := range slots {
		listed := make([]*pendingWL, len(idx))
		for j, i := range idx {
			listed[j] = pending[i]
		}
		slices.SortStableFunc(listed, func(a, b *pendingWL) int {
			return cmp.Compare(pos[c.cq.Name+"\x00"+a.key], pos[c.cq.Name+"\x00"+b.key])
		})
		for j, i := range idx {
			out[i] = listed[j]
		}
	}
	return out
}

func derefAll[T any](in []*T) []T {
	out := make([]T, 0, len(in))
	for _, p := range in {
		out = append(out, *p)
	}
	return out
}

// finishedRun is one finished Workload's run time, finish and bound
// (nil when it had none).
type finishedRun struct {
	run   time.Duration
	at    time.Time
	bound *time.Duration
}

// history is what a run's end is predicted from: the run times of
// finished Workloads (shortest first) and, of those that had a bound, the
// share of it they used (smallest first).
type history struct {
	runs   []time.Duration
	shares []float64
}

// historyOf is the history of the most recent maxSamples runs of in.
func historyOf(in []finishedRun) history {
	last := lastRuns(in)
	h := history{runs: make([]time.Duration, 0, len(last))}
	for _, r := range last {
		h.runs = append(h.runs, r.run)
		if r.bound != nil && *r.bound > 0 {
			h.shares = append(h.shares, min(1, float64(r.run)/float64(*r.bound)))
		}
	}
	slices.Sort(h.runs)
	slices.Sort(h.shares)
	return h
}

// pooled is the history a run is predicted from: run times and shares of
// the first of local (its LocalQueue), cq and tree (its cohort tree) with
// at least minLocalSamples of them, else the tree's, which holds the
// others.
func pooled(local, cq, tree history) history {
	var h history
	h.runs = tree.runs
	for _, c := range []history{local, cq} {
		if len(c.runs) >= minLocalSamples {
			h.runs = c.runs
			break
		}
	}
	h.shares = tree.shares
	for _, c := range []history{local, cq} {
		if len(c.shares) >= minLocalSamples {
			h.shares = c.shares
			break
		}
	}
	return h
}

// admission is when a Workload began to wait (created or requeued) and
// when it reserved quota.
type admission struct {
	queued, at time.Time
}

// handoverOf is the median time from a finish to the admission it let in:
// for each admission of a Workload that was already waiting when the
// latest finish before it happened, the time since that finish. 0 with
// fewer than minLocalSamples.
func handoverOf(admissions []admission, finished []finishedRun) time.Duration {
	ends := make([]time.Time, 0, len(finished))
	for _, f := range finished {
		ends = append(ends, f.at)
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	slices.SortFunc(admissions, func(a, b admission) int { return cmp.Or(b.at.Compare(a.at), a.queued.Compare(b.queued)) })
	var delays []time.Duration
	for _, a := range admissions {
		if len(delays) == maxSamples {
			break
		}
		i := sort.Search(len(ends), func(i int) bool { return ends[i].After(a.at) })
		if i == 0 {
			continue
		}
		if end := ends[i-1]; end.After(a.queued) {
			delays = append(delays, a.at.Sub(end))
		}
	}
	if len(delays) < minLocalSamples {
		return 0
	}
	slices.Sort(delays)
	return quantile(delays, 0.5)
}

// lastRuns are the most recent maxSamples runs, latest first.
func lastRuns(in []finishedRun) []finishedRun {
	in = slices.Clone(in)
	slices.SortFunc(in, func(a, b finishedRun) int { return cmp.Or(b.at.Compare(a.at), cmp.Compare(a.run, b.run)) })
	if len(in) > maxSamples {
		in = in[:maxSamples]
	}
	return in
}

// runTime is how long a finished Workload held its quota: from its quota
// reservation to its finish.
func runTime(wl *kueue.Workload) (time.Duration, bool) {
	qr := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	fin := FinishedAt(wl)
	if qr == nil || qr.Status != metav1.ConditionTrue || fin.IsZero() || fin.Before(qr.LastTransitionTime.Time) {
		return 0, false
	}
	return fin.Sub(qr.LastTransitionTime.Time), true
}

// reservedAt is when an admitted Workload reserved its quota.
func reservedAt(wl *kueue.Workload) time.Time {
	for _, typ := range []string{kueue.WorkloadQuotaReserved, kueue.WorkloadAdmitted} {
		if c := apimeta.FindStatusCondition(wl.Status.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return wl.CreationTimestamp.Time
}

// bound is the most a Workload may run once admitted: its
// maximumExecutionTimeSeconds (Kueue evicts it then) or its job's
// activeDeadlineSeconds (the job controller fails it), the smaller; nil
// when it has neither.
func (f *Forecast) bound(wl *kueue.Workload) *time.Duration {
	var b *time.Duration
	if m := wl.Spec.MaximumExecutionTimeSeconds; m != nil && *m > 0 {
		d := time.Duration(*m) * time.Second
		b = &d
	}
	for _, o := range wl.OwnerReferences {
		if d, ok := f.in.Deadlines[o.UID]; ok && (b == nil || d < *b) {
			b = &d
		}
	}
	return b
}

// remaining is how much longer a run that has lasted elapsed goes on, at
// quantile q: with a bound and shares of their bounds that finished runs
// used, the share of its own bound, of the shares that would have lasted
// past elapsed; else as remaining says of the run times.
func (h history) remaining(elapsed time.Duration, bound *time.Duration, q float64) (time.Duration, bool) {
	if bound != nil && *bound > 0 {
		b := float64(*bound)
		i := sort.Search(len(h.shares), func(i int) bool { return time.Duration(h.shares[i]*b) > elapsed })
		if i < len(h.shares) {
			share := quantileFloat(h.shares[i:], q)
			return max(0, time.Duration(share*b).Round(100*time.Millisecond)-elapsed), true
		}
	}
	return remaining(h.runs, elapsed, bound, q)
}

// quantileFloat is the q-quantile of sorted (linear between order
// statistics).
func quantileFloat(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// remaining is how much longer a run that has lasted elapsed goes on, at
// quantile q of the finished runs that lasted longer and, when it has a
// bound, no longer than the bound (the run-time distribution conditioned
// on what is known of this run); at its bound when no finished run is in
// that window. ok is false when neither the history nor a bound says
// anything.
func remaining(runs []time.Duration, elapsed time.Duration, bound *time.Duration, q float64) (time.Duration, bool) {
	i := sort.Search(len(runs), func(i int) bool { return runs[i] > elapsed })
	j := len(runs)
	if bound != nil {
		j = sort.Search(len(runs), func(j int) bool { return runs[j] > *bound })
	}
	if i < j {
		return quantile(runs[i:j], q) - elapsed, true
	}
	if bound != nil {
		return max(0, *bound-elapsed), true
	}
	return 0, false
}

// quantile is the q-quantile of sorted (linear between order statistics,
// rounded to the second's tenth so that replays are reproducible across
// platforms).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	frac := pos - float64(lo)
	d := float64(sorted[lo]) + frac*float64(sorted[hi]-sorted[lo])
	return time.Duration(d).Round(100 * time.Millisecond)
}

// simEvent is a running Workload's end in one replay.
type simEvent struct {
	at    time.Time
	node  *qnode
	usage map[fr]int64
	seq   int
}

// run replays the tree once per scenario.
func (rp *replay) run() {
	for i, q := range scenarioQuantiles {
		rp.starts[i] = rp.simulate(q)
	}
	rp.index, rp.ahead = make(map[string]int, len(rp.pending)), make([]int, len(rp.pending))
	counts := map[*cqReplay]int{}
	for i, pw := range rp.pending {
		rp.index[pw.key] = i
		rp.ahead[i] = counts[pw.cq]
		if pw.held.IsZero() && !pw.never {
			counts[pw.cq]++
		}
	}
}

// simulate replays the tree with every run ending at quantile q of what
// remains of it: at each moment something frees quota (and at the start),
// the pending Workloads, in Kueue's order, take what fits; a
// StrictFIFO ClusterQueue admits nothing past its first Workload that does
// not fit. It returns when each pending Workload is admitted.
func (rp *replay) simulate(q float64) map[string]time.Time {
	// The tree's nodes hold the replay's use while it runs (the tree is
	// the replay's own), and what the reads found afterwards.
	orig := make(map[*qnode]map[fr]int64, len(rp.tree.nodes))
	for _, n := range rp.tree.nodes {
		orig[n] = n.use
		m := make(map[fr]int64, len(n.use))
		for k, v := range n.use {
			m[k] = v
		}
		n.use = m
	}
	defer func() {
		for n, u := range orig {
			n.use = u
		}
	}()
	events := &eventHeap{}
	seq := 0
	push := func(at time.Time, n *qnode, u map[fr]int64) {
		heap.Push(events, simEvent{at: at, node: n, usage: u, seq: seq})
		seq++
	}
	for _, rw := range rp.running {
		if d, ok := rw.hist.remaining(rw.elapsed, rw.bound, q); ok {
			push(rp.now.Add(d+rp.handover), rw.cq.node, rw.usage)
		}
	}
	for _, pw := range rp.pending {
		if pw.notBefore.After(rp.now) {
			push(pw.notBefore, nil, nil)
		}
	}
	starts := map[string]time.Time{}
	waiting := slices.Clone(rp.pending)
	for t := rp.now; ; {
		rp.admit(t, q, &waiting, starts, push)
		if len(waiting) == 0 || events.Len() == 0 {
			return starts
		}
		t = (*events)[0].at
		for events.Len() > 0 && !(*events)[0].at.After(t) {
			ev := heap.Pop(events).(simEvent)
			if ev.node != nil {
				for k, v := range ev.usage {
					ev.node.use[k] = max(0, ev.node.use[k]-v)
				}
			}
		}
	}
}

// eventHeap orders a replay's events by time, then by when they were
// pushed (container/heap).
type eventHeap []simEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	return h[i].at.Before(h[j].at) || h[i].at.Equal(h[j].at) && h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface.
func (h *eventHeap) Push(x any) { *h = append(*h, x.(simEvent)) }

// Pop implements heap.Interface.
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// admit admits, at t, every waiting Workload that fits, as Kueue's
// scheduler orders them: those that fit within their ClusterQueue's
// nominal quota first, then those that must borrow, each in Kueue's
// queue order. Each runs for quantile q of its queue's run times (or to
// its bound).
func (rp *replay) admit(t time.Time, q float64, waiting *[]*pendingWL, starts map[string]time.Time, push func(time.Time, *qnode, map[fr]int64)) {
	for _, mayBorrow := range []bool{false, true} {
		blocked := map[*cqReplay]bool{}
		// A shape that did not fit a ClusterQueue does not fit it later
		// in the pass either (admitting only takes quota): the many
		// Workloads of one template are tried once.
		failed := map[*cqReplay]map[string]bool{}
		kept := (*waiting)[:0]
		for _, pw := range *waiting {
			if !pw.held.IsZero() || pw.never || blocked[pw.cq] || pw.notBefore.After(t) || failed[pw.cq][pw.shape()] {
				kept = append(kept, pw)
				continue
			}
			u, fits, ever := rp.fit(pw)
			if !ever {
				// It can never fit (ExceedsMaxQuota): Kueue sets it aside.
				pw.never = true
				kept = append(kept, pw)
				continue
			}
			if !fits || !mayBorrow && borrows(pw.cq.node, u) {
				if pw.cq.strict {
					blocked[pw.cq] = true
				}
				if !fits {
					if failed[pw.cq] == nil {
						failed[pw.cq] = map[string]bool{}
					}
					failed[pw.cq][pw.shape()] = true
				}
				kept = append(kept, pw)
				continue
			}
			for k, v := range u {
				pw.cq.node.use[k] += v
			}
			starts[pw.key] = t
			if d, ok := pw.hist.remaining(0, pw.bound, q); ok {
				push(t.Add(d+rp.handover), pw.cq.node, u)
			}
		}
		*waiting = kept
	}
}

// shape names what a pending Workload asks for, pod set by pod set
// (computed once): Workloads of one shape fit alike.
func (pw *pendingWL) shape() string {
	if pw.shapeKey != "" {
		return pw.shapeKey
	}
	var b strings.Builder
	for _, req := range pw.reqs {
		fmt.Fprintf(&b, "%d;", req.count)
		for _, r := range req.resources() {
			fmt.Fprintf(&b, "%s=%d,", r, req.total[r])
		}
		// Eligibility depends on the pod template: shapes of different
		// templates never match.
		fmt.Fprintf(&b, "%p|", req.spec)
	}
	pw.shapeKey = b.String()
	return pw.shapeKey
}

// borrows reports whether taking u would put the ClusterQueue n over its
// nominal quota of some resource.
func borrows(n *qnode, u map[fr]int64) bool {
	for k, v := range u {
		if n.use[k]+v > n.nominal[k] {
			return true
		}
	}
	return false
}

// fit places a pending Workload's pod sets as Kueue's flavor assigner
// does (per resource group, the first eligible flavor whose resources all
// fit, what earlier pod sets took counted first) against the replay's
// use. It returns
// what the Workload would take, whether it fits now and whether it could
// ever fit.
func (rp *replay) fit(pw *pendingWL) (map[fr]int64, bool, bool) {
	c := pw.cq
	v := &quotaView{quotaTree: &quotaTree{cq: c.node, nodes: rp.tree.nodes, partial: rp.tree.partial}}
	take := map[fr]int64{}
	fitsNow, fitsEver := true, true
	for _, req := range pw.reqs {
		total := req.total
		if c.fx.coversPods && req.count > 0 {
			total = make(map[corev1.ResourceName]int64, len(req.total)+1)
			for r, q := range req.total {
				total[r] = q
			}
			total[corev1.ResourcePods] = int64(req.count)
		}
		byGroup := map[int][]corev1.ResourceName{}
		for r := range total {
			gi := groupOf(c.cq, r)
			if gi < 0 {
				return nil, false, false
			}
			byGroup[gi] = append(byGroup[gi], r)
		}
		groups := make([]int, 0, len(byGroup))
		for gi := range byGroup {
			groups = append(groups, gi)
		}
		slices.Sort(groups)
		for _, gi := range groups {
			res := byGroup[gi]
			chosen, everAny := "", false
			for _, fl := range c.cq.Spec.ResourceGroups[gi].Flavors {
				name := string(fl.Name)
				if rf := c.fx.rfs[name]; rf != nil && flavorEligibility(req.spec, rf, c.fx.labelKeys[gi]) != nil {
					continue
				}
				now, ever := true, true
				for _, r := range res {
					k := fr{name, r}
					need := take[k] + total[r]
					if need > max(0, v.free(k)) {
						now = false
					}
					if need > v.most(k) {
						ever = false
					}
				}
				everAny = everAny || ever
				if now {
					chosen = name
					break
				}
			}
			if !everAny {
				fitsEver = false
			}
			if chosen == "" {
				fitsNow = false
				continue
			}
			for _, r := range res {
				take[fr{chosen, r}] += total[r]
			}
		}
	}
	return take, fitsNow && fitsEver, fitsEver
}

// estimate fills e for the pending Workload wl from the replays.
func (rp *replay) estimate(wl *kueue.Workload, e *Estimate) {
	key := wl.Namespace + "/" + wl.Name
	i, ok := rp.index[key]
	if !ok {
		e.none(msg("diagnose.est.none.notRead"))
		return
	}
	self, ahead := rp.pending[i], rp.ahead[i]
	if !self.held.IsZero() {
		e.none(msg("diagnose.est.none.held", self.held))
		return
	}
	var got [3]*time.Time
	for i := range rp.starts {
		if t, ok := rp.starts[i][key]; ok {
			got[i] = &t
		}
	}
	if got[1] == nil {
		rp.once.Do(rp.summarize)
		e.none(rp.never)
		return
	}
	// Earlier ends can reorder a BestEffortFIFO queue: keep the range
	// ordered.
	times := []time.Time{*got[1]}
	if got[0] != nil {
		times = append(times, *got[0])
	}
	if got[2] != nil {
		times = append(times, *got[2])
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	earliest, likely := times[0], *got[1]
	e.Earliest, e.Likely = &earliest, &likely
	if got[2] != nil {
		latest := times[len(times)-1]
		e.Latest = &latest
	}
	e.BasisMsg = rp.basis(self, ahead)
	e.Basis = e.BasisMsg.String()
}

// basis says what the replay of self rests on.
func (rp *replay) basis(self *pendingWL, ahead int) i18n.Message {
	rp.once.Do(rp.summarize)
	parts := []i18n.Arg{rp.running1, rp.history}
	parts = append(parts, msg("diagnose.est.basis.ahead", i18n.Num(ahead), i18n.Obj("ClusterQueue", "", self.cq.cq.Name)))
	if n := rp.unseen[self.cq.cq.Name]; n > 0 {
		parts = append(parts, msg("diagnose.est.basis.unseen", i18n.Num(n)))
	}
	if rp.tree.cq.parent != nil || len(rp.cqs) > 1 {
		parts = append(parts, msg("diagnose.est.basis.cohort", i18n.Obj("Cohort", "", rootName(self.cq.node))))
	}
	if !rp.incomplete.IsZero() {
		parts = append(parts, msg("diagnose.est.basis.incomplete", rp.incomplete))
	}
	return msg("diagnose.est.list", i18n.Commas(parts...))
}

func rootName(n *qnode) string {
	for n.parent != nil {
		n = n.parent
	}
	return n.name
}

// roundSpan is a span as the basis shows it: "40s", "12m", "3h", "2d".
func roundSpan(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(1, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Round(time.Hour)/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// summarize words what every estimate of the replay rests on alike: the
// running workloads, the history, and why a Workload is never admitted.
func (rp *replay) summarize() {
	var limited, learned, unknown int
	for _, rw := range rp.running {
		switch {
		case rw.bound != nil:
			limited++
		case len(rw.hist.runs) > 0:
			learned++
		default:
			unknown++
		}
	}
	switch n := len(rp.running); n {
	case 0:
		rp.running1 = msg("diagnose.est.running.none")
	default:
		var how []i18n.Arg
		if limited > 0 {
			how = append(how, msg("diagnose.est.running.limited", i18n.Num(limited)))
		}
		if learned > 0 {
			how = append(how, msg("diagnose.est.running.learned", i18n.Num(learned)))
		}
		if unknown > 0 {
			how = append(how, msg("diagnose.est.running.unknown", i18n.Num(unknown)))
		}
		rp.running1 = msg("diagnose.est.running", i18n.Num(n), i18n.Commas(how...))
	}
	rp.history = msg("diagnose.est.history.none")
	if rp.finished > 0 {
		rp.history = msg("diagnose.est.history", i18n.Num(rp.finished), i18n.Verbatim(roundSpan(rp.now.Sub(rp.since))))
	}
	rp.never = rp.whyNever()
}

// whyNever says why the likely replay never admits self: quota that
// stays held for the whole replay (running workloads with neither a limit
// nor a history, quota the reads do not account for, workloads ahead that
// would hold it forever once admitted).
func (rp *replay) whyNever() i18n.Message {
	var forever []string
	for _, rw := range rp.running {
		if _, ok := rw.hist.remaining(rw.elapsed, rw.bound, 0.5); !ok {
			forever = append(forever, rw.key)
		}
	}
	var reasons []i18n.Arg
	if len(forever) > 0 {
		var shown []i18n.Arg
		for _, k := range forever[:min(len(forever), 3)] {
			shown = append(shown, i18n.Verbatim(k))
		}
		if len(forever) > 3 {
			shown = append(shown, msg("diagnose.est.more", i18n.Num(len(forever)-3)))
		}
		what := msg("diagnose.est.never.notThatLong")
		if rp.finished == 0 {
			what = msg("diagnose.est.never.noHistory")
		}
		reasons = append(reasons, msg("diagnose.est.never.forever", i18n.Num(len(forever)), what, i18n.Commas(shown...)))
	}
	nodes := make([]*qnode, 0, len(rp.unread))
	for n := range rp.unread {
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b *qnode) int { return cmp.Compare(a.name, b.name) })
	for _, n := range nodes {
		keys := make([]fr, 0, len(rp.unread[n]))
		for k := range rp.unread[n] {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b fr) int { return cmp.Or(cmp.Compare(a.flavor, b.flavor), cmp.Compare(a.resource, b.resource)) })
		var held []i18n.Arg
		for _, k := range keys {
			q := quantity(k.resource, rp.unread[n][k])
			held = append(held, msg("diagnose.est.never.heldQty", i18n.Qty(q.String()), i18n.Name(string(k.resource)), i18n.Obj("ResourceFlavor", "", string(k.flavor))))
		}
		reasons = append(reasons, msg("diagnose.est.never.unread", i18n.Obj("ClusterQueue", "", n.name), i18n.Commas(held...)))
	}
	if len(reasons) == 0 {
		reasons = append(reasons, msg("diagnose.est.never.ahead"))
	}
	return msg("diagnose.est.list", i18n.List{Items: reasons, Semicolons: true})
}
