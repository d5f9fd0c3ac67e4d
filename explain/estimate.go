package explain

import (
	"context"
	"errors"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// QueueReader is implemented by Readers that can read what the estimate
// of one job replays beyond the job's own Snapshot: the Workloads of its
// ClusterQueue and cohort (admitted, pending, finished), with at most one
// paginated LIST of Workloads as the caller (another, of the job's
// namespace alone, when the caller may not list them cluster-wide), and
// never a request per workload.
type QueueReader interface {
	// Queue returns the forecast input of s's ClusterQueue: s's own queue
	// objects, and the Workloads id may read.
	Queue(ctx context.Context, id rbac.Identity, s *diagnose.Snapshot) (diagnose.ForecastInput, error)
}

// estimate sets r.Estimate for the job of s when it waits for admission,
// reading its queue through the Reader (when it is a QueueReader). A read
// that fails does not fail the answer: the estimate says why there is
// none.
func (e *Explainer) estimate(ctx context.Context, id rbac.Identity, s *diagnose.Snapshot, r *diagnose.Report) {
	if !diagnose.Estimable(r) {
		return
	}
	qr, ok := e.Reader.(QueueReader)
	if !ok {
		return
	}
	if s.Workload == nil || !diagnose.Replayed(r) {
		// The verdict alone says why there is no estimate: no read.
		r.Estimate = diagnose.NewForecast(diagnose.ForecastInput{Now: s.Now}).Estimate(s.Workload, r)
		return
	}
	in, err := qr.Queue(ctx, id, s)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		r.Estimate = diagnose.EstimateUnread(s.Now, r.Queue.ClusterQueue, readFailure(err))
		return
	}
	r.Estimate = diagnose.NewForecast(in).Estimate(s.Workload, r)
}

// readFailure is a short account of a failed read for an estimate, as a
// catalog message ("you may not list them").
func readFailure(err error) i18n.Message {
	switch {
	case apierrors.IsForbidden(err):
		return i18n.M("explain.est.forbidden")
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err):
		return i18n.M("explain.est.timeout")
	}
	var re *fetch.ReadError
	if errors.As(err, &re) {
		return re.UserMsg()
	}
	return i18n.M("explain.est.readFailed")
}

// snapshotQueue is the forecast input of s's queue with the Workloads
// wls: s's ClusterQueue, its cohort's members, Cohorts and flavors, and
// the LocalQueues of s's namespace.
func snapshotQueue(s *diagnose.Snapshot, wls []*kueue.Workload) diagnose.ForecastInput {
	in := diagnose.ForecastInput{Now: s.Now, Objects: diagnose.Objects{Workloads: wls}}
	if s.ClusterQueue != nil {
		in.Objects.ClusterQueues = append(in.Objects.ClusterQueues, s.ClusterQueue)
	}
	for i := range s.CohortClusterQueues {
		if s.ClusterQueue == nil || s.CohortClusterQueues[i].Name != s.ClusterQueue.Name {
			in.Objects.ClusterQueues = append(in.Objects.ClusterQueues, &s.CohortClusterQueues[i])
		}
	}
	for i := range s.Cohorts {
		in.Objects.Cohorts = append(in.Objects.Cohorts, &s.Cohorts[i])
	}
	for i := range s.ResourceFlavors {
		in.Objects.ResourceFlavors = append(in.Objects.ResourceFlavors, &s.ResourceFlavors[i])
	}
	if s.LocalQueue != nil {
		in.Objects.LocalQueues = append(in.Objects.LocalQueues, s.LocalQueue)
	}
	for i := range s.NamespaceLocalQueues {
		lq := &s.NamespaceLocalQueues[i]
		if s.LocalQueue == nil || lq.Name != s.LocalQueue.Name || lq.Namespace != s.LocalQueue.Namespace {
			in.Objects.LocalQueues = append(in.Objects.LocalQueues, lq)
		}
	}
	return in
}

// listQueue makes the one paginated LIST of Workloads an estimate reads,
// as the clients' identity: cluster-wide, or, when that is refused, in
// the job's namespace (the estimate then says the others were not read).
func listQueue(ctx context.Context, c fetch.Clients, s *diagnose.Snapshot, timeout time.Duration) (diagnose.ForecastInput, error) {
	st := fetch.NewStore()
	stats, err := st.ListInto(ctx, c, fetch.ListOptions{WorkloadsOnly: true, Timeout: timeout})
	if err != nil {
		return diagnose.ForecastInput{}, err
	}
	var incomplete i18n.Message
	if len(stats.Failed) > 0 {
		ferr := stats.Failed[0].Err
		if !apierrors.IsForbidden(ferr) || s.Target.Namespace == "" {
			return diagnose.ForecastInput{}, ferr
		}
		st = fetch.NewStore()
		stats, err = st.ListInto(ctx, c, fetch.ListOptions{WorkloadsOnly: true, Timeout: timeout, Namespaces: []string{s.Target.Namespace}})
		if err != nil {
			return diagnose.ForecastInput{}, err
		}
		if len(stats.Failed) > 0 {
			return diagnose.ForecastInput{}, stats.Failed[0].Err
		}
		incomplete = i18n.M("explain.est.otherNamespaces")
	}
	in := snapshotQueue(s, st.Workloads())
	in.Incomplete = incomplete
	in.Queued = visibilityQueued(s)
	return in, nil
}

// visibilityQueued is the order Kueue's visibility API gave a live
// snapshot of a pending job, for the replay: the job and the Workloads
// ahead of it in its LocalQueue, with their places in its ClusterQueue.
// nil when the API was not read, not served or refused (the snapshot then
// has no Position): the replay falls back on the objects' order.
func visibilityQueued(s *diagnose.Snapshot) map[string][]diagnose.QueuedWorkload {
	if s.Position == nil || s.Workload == nil || s.ClusterQueue == nil {
		return nil
	}
	items := append(slices.Clone(s.QueueAhead), diagnose.QueuedWorkload{
		Namespace: s.Workload.Namespace, Name: s.Workload.Name, LocalQueue: string(s.Workload.Spec.QueueName),
		PositionInClusterQueue: s.Position.InClusterQueue,
	})
	if s.Workload.Spec.Priority != nil {
		items[len(items)-1].Priority = *s.Workload.Spec.Priority
	}
	return map[string][]diagnose.QueuedWorkload{s.ClusterQueue.Name: items}
}

// Queue implements QueueReader with one paginated LIST of Workloads as
// id.
func (k *KubeReader) Queue(ctx context.Context, id rbac.Identity, s *diagnose.Snapshot) (diagnose.ForecastInput, error) {
	c, err := k.reader(id)
	if err != nil {
		return diagnose.ForecastInput{}, err
	}
	return listQueue(ctx, fetch.Clients{Kube: c.clients.Kube, Kueue: c.clients.Kueue}, s, k.Timeout)
}

// Queue implements QueueReader with one paginated LIST of Workloads as
// whoever the clients authenticate as.
func (c *ClientReader) Queue(ctx context.Context, _ rbac.Identity, s *diagnose.Snapshot) (diagnose.ForecastInput, error) {
	f := c.Fetcher
	return listQueue(ctx, fetch.Clients{Kube: f.Kube, Kueue: f.Kueue}, s, f.Timeout)
}

// Queue implements QueueReader from the dump: its Workloads and queue
// objects of the namespaces the identity may read (all, Unrestricted),
// and its Jobs' deadlines.
func (d *DumpReader) Queue(_ context.Context, id rbac.Identity, s *diagnose.Snapshot) (diagnose.ForecastInput, error) {
	l := Listing{Store: d.Dump.Store(), All: d.Unrestricted, Namespaces: id.Namespaces}
	in := forecastInput(&l, s.Now)
	return in, nil
}

// forecastInput is the forecast input of a listing: its store's queue
// objects, its readable Workloads and LocalQueues, and its Jobs'
// deadlines.
func forecastInput(l *Listing, now time.Time) diagnose.ForecastInput {
	objs := l.Store.Objects()
	in := diagnose.ForecastInput{Now: now, Deadlines: l.Store.JobDeadlines()}
	if !l.All {
		// What the store holds of other namespaces is not answered (a
		// dump's): the forecast sees what the caller could have listed.
		// Kueue's ClusterQueue status says what else holds quota or waits.
		objs.Workloads = readableWorkloads(l, objs.Workloads)
		objs.LocalQueues = slices.DeleteFunc(slices.Clone(objs.LocalQueues), func(lq *kueue.LocalQueue) bool { return !l.Readable(lq.Namespace) })
	}
	in.Objects = objs
	return in
}

// forecastOf is the forecast of a listing, for lists and digests: every
// cohort tree is replayed once, whatever the number of workloads.
func forecastOf(l *Listing, now time.Time) *diagnose.Forecast {
	return diagnose.NewForecast(forecastInput(l, now))
}

// checkEstimate estimates when a checked manifest that would wait in qc's
// queue would be admitted if it were submitted now: the planned Workload
// joins the queue's Workloads (one paginated LIST, as for a question) as
// the newest pending one, and the forecast replays the queue with it.
func (e *Explainer) checkEstimate(ctx context.Context, id rbac.Identity, s *diagnose.Snapshot, qc *diagnose.QueueCheck) *diagnose.Estimate {
	r := &diagnose.Report{Verdict: qc.Verdict, Queue: diagnose.QueueInfo{LocalQueue: qc.LocalQueue, ClusterQueue: qc.ClusterQueue}}
	if !diagnose.Replayed(r) {
		r.Verdict.Code = diagnose.CodeWaitingForQuota // it fits the queue's maximum, not now
	}
	qr, ok := e.Reader.(QueueReader)
	if !ok || s.Workload == nil {
		return diagnose.EstimateUnreadable(s.Now)
	}
	in, err := qr.Queue(ctx, id, s)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return diagnose.EstimateUnread(s.Now, qc.ClusterQueue, readFailure(err))
	}
	wl := s.Workload.DeepCopy()
	wl.CreationTimestamp = metav1.NewTime(s.Now)
	wl.Status = kueue.WorkloadStatus{}
	in.Objects.Workloads = append(slices.Clone(in.Objects.Workloads), wl)
	return diagnose.NewForecast(in).Estimate(wl, r)
}
