package digests

import (
	"time"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// Build computes one digest from a filled store, with no request: it
// selects the scope, classifies every workload in it that is not admitted
// and not finished (and every job in it without a Workload) with the same
// pure core as `kueuebot diagnose`, and computes the digest. prev, the
// previous digest's figures, may be nil.
func Build(st *fetch.Store, name string, scope digest.Scope, now time.Time, prev *digest.Figures, opts digest.Options) (*digest.Digest, error) {
	objs := digest.Select(st.Objects(), scope)
	inScope := make(map[*kueue.Workload]bool, len(objs.Workloads))
	for _, wl := range objs.Workloads {
		inScope[wl] = true
	}
	lqs := digest.LocalQueueIndex(st.LocalQueues())
	subjects := st.Subjects() // a copy: filtered in place
	pending := subjects[:0]
	for _, sub := range subjects {
		if wl := sub.Workload; wl != nil {
			if !inScope[wl] {
				continue
			}
			if p := diagnose.PhaseOf(wl); p == diagnose.PhaseAdmitted || p == diagnose.PhaseFinished {
				continue
			}
		} else {
			cq := ""
			if lq := lqs[sub.Target.Namespace+"/"+sub.LocalQueue]; lq != nil {
				cq = string(lq.Spec.ClusterQueue)
			}
			if !scope.Includes(sub.Target.Namespace, sub.LocalQueue, cq) {
				continue
			}
		}
		pending = append(pending, sub)
	}
	items := make([]digest.Item, len(pending))
	// A digest shows verdicts, queues and remedies: brief reports.
	err := st.Classify(pending, now, fetch.ClassifyOptions{Brief: true}, func(i int, r *diagnose.Report) {
		items[i] = digest.ItemOf(pending[i].Workload, pending[i].Created, r, now)
	})
	if err != nil {
		return nil, err
	}
	return digest.Compute(digest.Input{Name: name, Now: now, Objects: objs, Pending: items, Previous: prev, Options: opts}), nil
}
