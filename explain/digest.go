package explain

import (
	"context"
	"time"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// DigestQuery asks for one digest.
type DigestQuery struct {
	// Name names the digest.
	Name string
	// Scope is what it covers; its Namespaces are also where it lists (one
	// namespace at a time; cluster-wide when there are none).
	Scope digest.Scope
	// Options are its thresholds.
	Options digest.Options
	// Previous are the previous digest's figures, for the trend; nil for
	// the first.
	Previous *digest.Figures
}

// DigestResult is a computed digest and what reading it cost.
type DigestResult struct {
	Digest *digest.Digest
	// Stats are what the LISTs did (nil for a dump): requests, objects,
	// and the LISTs that failed, whose gaps the verdicts carry.
	Stats *fetch.ListStats
	// Read is how long the reads took.
	Read time.Duration
}

// Digest computes a digest, reading as id (the digest's configured
// identity; never the bot's): the same join as Jobs, identity -> reader ->
// store -> classify, over the digest's scope instead of the caller's
// namespaces.
func (e *Explainer) Digest(ctx context.Context, id rbac.Identity, q DigestQuery) (DigestResult, error) {
	lister, err := e.lister()
	if err != nil {
		return DigestResult{}, err
	}
	start := time.Now()
	l, err := lister.List(ctx, id, q.Scope.Namespaces)
	if err != nil {
		return DigestResult{}, err
	}
	res := DigestResult{Stats: l.Stats, Read: time.Since(start)}
	res.Digest, err = BuildDigest(&l, q, clock(e.Now))
	return res, err
}

// BuildDigest computes a digest from a Listing, with no request: it selects
// the scope, classifies every readable workload in it that is not
// finished (and every job in it without a Workload) with the same pure
// core as `kueuebot diagnose`, and computes the digest from those that are
// pending and those admitted longer than the stuck threshold whose pods do
// not run.
func BuildDigest(l *Listing, q DigestQuery, now time.Time) (*digest.Digest, error) {
	st := l.Store
	scope := q.Scope
	objs := digest.Select(st.Objects(), scope)
	if !l.All {
		objs.Workloads = readableWorkloads(l, objs.Workloads)
	}
	inScope := make(map[*kueue.Workload]bool, len(objs.Workloads))
	for _, wl := range objs.Workloads {
		inScope[wl] = true
	}
	stuckAfter := q.Options.StuckAfter
	if stuckAfter <= 0 {
		stuckAfter = digest.DefaultStuckAfter
	}
	lqs := digest.LocalQueueIndex(st.LocalQueues())
	var pending, admitted []fetch.Subject
	for _, sub := range st.Subjects() {
		wl := sub.Workload
		if wl == nil {
			cq := ""
			if lq := lqs[sub.Target.Namespace+"/"+sub.LocalQueue]; lq != nil {
				cq = string(lq.Spec.ClusterQueue)
			}
			if l.Readable(sub.Target.Namespace) && scope.Includes(sub.Target.Namespace, sub.LocalQueue, cq) {
				pending = append(pending, sub)
			}
			continue
		}
		if !inScope[wl] {
			continue
		}
		switch digest.PhaseOf(wl) {
		case diagnose.PhaseFinished:
		case diagnose.PhaseAdmitted:
			// Only those admitted long enough to be stuck are classified.
			if now.Sub(digest.AdmittedAt(wl)) > stuckAfter {
				admitted = append(admitted, sub)
			}
		default:
			pending = append(pending, sub)
		}
	}
	// A digest shows verdicts, queues and remedies: brief reports.
	brief := fetch.ClassifyOptions{Brief: true}
	items := make([]digest.Item, len(pending))
	fc := forecastOf(l, now)
	err := st.Classify(pending, now, brief, func(i int, r *diagnose.Report) {
		items[i] = digest.ItemOf(pending[i].Workload, pending[i].Created, r, now)
		if diagnose.Estimable(r) {
			items[i].Estimate = fc.Estimate(pending[i].Workload, r)
		}
	})
	if err != nil {
		return nil, err
	}
	stuck := make([]digest.Item, len(admitted))
	err = st.Classify(admitted, now, brief, func(i int, r *diagnose.Report) {
		if digest.Stuck(r.Verdict.Code) {
			stuck[i] = digest.AdmittedItemOf(admitted[i].Workload, r, now)
		}
	})
	if err != nil {
		return nil, err
	}
	kept := stuck[:0]
	for _, it := range stuck {
		if it.Code != "" {
			kept = append(kept, it)
		}
	}
	return digest.Compute(digest.Input{Name: q.Name, Now: now, Objects: objs, Pending: items, Admitted: kept, Previous: q.Previous, Options: q.Options}), nil
}

// readableWorkloads keeps the Workloads of readable namespaces.
func readableWorkloads(l *Listing, wls []*kueue.Workload) []*kueue.Workload {
	out := wls[:0:0]
	for _, wl := range wls {
		if l.Readable(wl.Namespace) {
			out = append(out, wl)
		}
	}
	return out
}
