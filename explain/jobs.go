package explain

import (
	"cmp"
	"context"
	"errors"
	"slices"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// Lister is implemented by Readers that can read every workload of a set
// of namespaces at once, for lists (my jobs, queues, App Home): a handful
// of paginated LISTs as the caller, whatever the number of workloads, then
// the pure core classifies each one with no request per workload.
type Lister interface {
	// List fills a store with what classifying every workload of the
	// namespaces needs, read as id, and says which of the namespaces id
	// may read: only their workloads and queues are answered.
	List(ctx context.Context, id rbac.Identity, namespaces []string) (st *fetch.Store, readable []string, err error)
}

// errNoLister is returned when the Reader cannot list.
var errNoLister = errors.New("explain: the Reader cannot list workloads")

// list finds the caller's namespaces and fills a store from them. allowed
// holds the namespaces whose objects may be answered.
func (e *Explainer) list(ctx context.Context, id rbac.Identity, namespace string) (st *fetch.Store, nss rbac.Namespaces, allowed map[string]bool, err error) {
	if e.Reader == nil {
		return nil, nss, nil, errNoReader
	}
	lister, ok := e.Reader.(Lister)
	if !ok {
		return nil, nss, nil, errNoLister
	}
	nss, err = e.Reader.Namespaces(ctx, id, namespace)
	if err != nil {
		return nil, nss, nil, err
	}
	if len(nss.Names) == 0 {
		return nil, nss, nil, &Error{Message: "You can't list workloads in any namespace I know of. Ask your platform team for access, or name a namespace: `jobs -n NAMESPACE`."}
	}
	st, readable, err := lister.List(ctx, id, nss.Names)
	if err != nil {
		return nil, nss, nil, err
	}
	allowed = make(map[string]bool, len(readable))
	for _, ns := range readable {
		allowed[ns] = true
	}
	return st, nss, allowed, nil
}

// Jobs lists the caller's jobs that are not running: every Workload of the
// caller's namespaces that has not finished, classified by the same pure
// core as a single question, keeping those whose verdict is not Running or
// Finished, newest first. The reads are a few paginated LISTs per
// namespace, as the caller; there is no request per workload.
func (e *Explainer) Jobs(ctx context.Context, id rbac.Identity, q JobsQuery) (JobsResult, error) {
	st, nss, allowed, err := e.list(ctx, id, q.Namespace)
	res := JobsResult{Namespaces: nss}
	if err != nil {
		return res, err
	}
	now := clock(e.Now)
	type entry struct {
		created diagnose.Report
		wl      *kueue.Workload
	}
	seen := map[diagnose.Target]bool{}
	var jobs []entry
	for _, wl := range st.Workloads() {
		if !allowed[wl.Namespace] || diagnose.PhaseOf(wl) == diagnose.PhaseFinished {
			continue
		}
		t := fetch.TargetOf(wl, st)
		if seen[t] {
			continue // several Workloads of one job: its Snapshot picks one
		}
		seen[t] = true
		snap, err := st.Snapshot(t, now)
		if err != nil {
			return res, err
		}
		rep := diagnose.Analyze(snap)
		switch rep.Verdict.Stage {
		case diagnose.StageRunning, diagnose.StageFinished:
			continue
		}
		jobs = append(jobs, entry{created: rep, wl: wl})
	}
	slices.SortStableFunc(jobs, func(a, b entry) int {
		if c := b.wl.CreationTimestamp.Compare(a.wl.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.wl.Namespace, b.wl.Namespace), cmp.Compare(a.wl.Name, b.wl.Name))
	})
	res.Jobs = make([]diagnose.Report, 0, len(jobs))
	for _, j := range jobs {
		res.Jobs = append(res.Jobs, j.created)
	}
	return res, nil
}

// QueuesQuery asks for the caller's LocalQueues.
type QueuesQuery struct {
	// Namespace restricts the list to one namespace; empty means the
	// caller's namespaces.
	Namespace string
}

// QueuesResult lists the caller's LocalQueues.
type QueuesResult struct {
	// Queues are the caller's LocalQueues with pending and admitted counts
	// and usage against their ClusterQueue's nominal quota, by namespace
	// and name.
	Queues []diagnose.QueueSummary
	// Namespaces are where the queues were listed.
	Namespaces rbac.Namespaces
}

// Queues summarises the caller's LocalQueues from one store filled as the
// caller (ClusterQueue figures only where the caller may read them).
func (e *Explainer) Queues(ctx context.Context, id rbac.Identity, q QueuesQuery) (QueuesResult, error) {
	st, nss, allowed, err := e.list(ctx, id, q.Namespace)
	res := QueuesResult{Namespaces: nss}
	if err != nil {
		return res, err
	}
	for _, s := range diagnose.QueueSummaries(st.Objects(), clock(e.Now)) {
		if s.Kind == diagnose.QueueKindLocal && allowed[s.Namespace] {
			res.Queues = append(res.Queues, s)
		}
	}
	return res, nil
}
