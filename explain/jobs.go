package explain

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// Lister is implemented by Readers that can read every workload of a set
// of namespaces at once, for lists (my jobs, queues, App Home) and
// digests: a handful of paginated LISTs as the caller, whatever the number
// of workloads, then the pure core classifies each one with no request per
// workload.
type Lister interface {
	// List fills a store with what classifying every workload of the
	// namespaces needs (every namespace when there are none), read as id,
	// and says which namespaces id may read: only their workloads and
	// queues are answered.
	List(ctx context.Context, id rbac.Identity, namespaces []string) (Listing, error)
}

// Listing is what a Lister read.
type Listing struct {
	// Store holds the objects.
	Store *fetch.Store
	// All is true when every namespace of the store may be answered (the
	// LISTs were made as the caller: RBAC decided what they returned).
	All bool
	// Namespaces are the namespaces that may be answered, when not All.
	Namespaces []string
	// Stats are what the LISTs did; nil for a dump.
	Stats *fetch.ListStats
}

// Readable reports whether the objects of namespace ns may be answered.
func (l *Listing) Readable(ns string) bool { return l.All || slices.Contains(l.Namespaces, ns) }

// errNoLister is returned when the Reader cannot list.
var errNoLister = errors.New("explain: the Reader cannot list workloads")

// lister returns e's Reader as a Lister.
func (e *Explainer) lister() (Lister, error) {
	if e.Reader == nil {
		return nil, errNoReader
	}
	lister, ok := e.Reader.(Lister)
	if !ok {
		return nil, errNoLister
	}
	return lister, nil
}

// list finds the caller's namespaces and fills a store from them.
func (e *Explainer) list(ctx context.Context, id rbac.Identity, namespace string) (Listing, rbac.Namespaces, error) {
	lister, err := e.lister()
	if err != nil {
		return Listing{}, rbac.Namespaces{}, err
	}
	nss, err := e.Reader.Namespaces(ctx, id, namespace)
	if err != nil {
		return Listing{}, nss, err
	}
	if len(nss.Names) == 0 {
		return Listing{}, nss, userErr("explain.noListNamespace", i18n.Verbatim("`jobs -n NAMESPACE`"))
	}
	l, err := lister.List(ctx, id, nss.Names)
	if err != nil {
		return Listing{}, nss, err
	}
	if l.All {
		// Only the namespaces asked are answered, whatever else the
		// store holds.
		l.All, l.Namespaces = false, nss.Names
	}
	return l, nss, nil
}

// Jobs lists the caller's jobs that are not running: every subject of the
// caller's namespaces (each Workload that has not finished, and each job
// that names a LocalQueue but has no Workload) classified by the same pure
// core as a single question, keeping those whose verdict is not Running or
// Finished, newest first. The reads are a few paginated LISTs per
// namespace, as the caller; there is no request per workload.
func (e *Explainer) Jobs(ctx context.Context, id rbac.Identity, q JobsQuery) (JobsResult, error) {
	l, nss, err := e.list(ctx, id, q.Namespace)
	res := JobsResult{Namespaces: nss}
	if err != nil {
		return res, err
	}
	var subjects []fetch.Subject
	for _, sub := range l.Store.Subjects() {
		if !l.Readable(sub.Target.Namespace) || sub.Workload != nil && diagnose.PhaseOf(sub.Workload) == diagnose.PhaseFinished {
			continue
		}
		subjects = append(subjects, sub)
	}
	reports := make([]diagnose.Report, len(subjects))
	now := clock(e.Now)
	err = l.Store.Classify(subjects, now, fetch.ClassifyOptions{}, func(i int, r *diagnose.Report) { reports[i] = *r })
	if err != nil {
		return res, err
	}
	order := make([]int, 0, len(subjects))
	for i := range subjects {
		switch reports[i].Verdict.Stage {
		case diagnose.StageRunning, diagnose.StageFinished:
			continue
		}
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := &subjects[a], &subjects[b]
		if c := sb.Created.Compare(sa.Created); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(sa.Target.Namespace, sb.Target.Namespace), cmp.Compare(sa.Target.Name, sb.Target.Name), cmp.Compare(sa.Target.Kind, sb.Target.Kind))
	})
	fc := forecastOf(&l, now)
	res.Jobs = make([]diagnose.Report, 0, len(order))
	for _, i := range order {
		r := reports[i]
		if diagnose.Estimable(&r) {
			r.Estimate = fc.Estimate(subjects[i].Workload, &r)
		}
		res.Jobs = append(res.Jobs, r)
	}
	return res, nil
}

// QueuesQuery asks for the caller's LocalQueues.
type QueuesQuery struct {
	// Namespace restricts the list to one namespace; empty means the
	// caller's namespaces.
	Namespace string
	// Cluster, with several clusters (Fleet), is the one cluster to list
	// in; empty means every cluster where the caller is mapped.
	Cluster string
}

// QueuesResult lists the caller's LocalQueues.
type QueuesResult struct {
	// Queues are the caller's LocalQueues with pending and admitted counts
	// and usage against their ClusterQueue's nominal quota, by namespace
	// and name.
	Queues []diagnose.QueueSummary
	// Namespaces are where the queues were listed.
	Namespaces rbac.Namespaces
	// Clusters are, for a list across several clusters (Fleet), each
	// cluster where the caller is mapped and whether it answered.
	Clusters []diagnose.ClusterLook
}

// Queues summarises the caller's LocalQueues from one store filled as the
// caller (ClusterQueue figures only where the caller may read them).
func (e *Explainer) Queues(ctx context.Context, id rbac.Identity, q QueuesQuery) (QueuesResult, error) {
	l, nss, err := e.list(ctx, id, q.Namespace)
	res := QueuesResult{Namespaces: nss}
	if err != nil {
		return res, err
	}
	// Jobs Kueue made no Workload for wait in their LocalQueue too: the
	// same subjects "my jobs" lists.
	missing := map[string]int{}
	for _, sub := range l.Store.Subjects() {
		if sub.Workload == nil && sub.LocalQueue != "" {
			missing[sub.Target.Namespace+"/"+sub.LocalQueue]++
		}
	}
	for _, s := range diagnose.QueueSummaries(l.Store.Objects(), clock(e.Now)) {
		if s.Kind == diagnose.QueueKindLocal && l.Readable(s.Namespace) {
			s.WithoutWorkload = missing[s.Key()]
			res.Queues = append(res.Queues, s)
		}
	}
	return res, nil
}
