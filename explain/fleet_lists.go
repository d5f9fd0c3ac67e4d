package explain

import (
	"context"
	"errors"
	"sync"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// answer is one cluster's answer to a list or a check fanned out with each.
type answer[T any] struct {
	c      *Cluster
	mapped bool
	res    T
	err    error
	// timedOut is true when the cluster did not answer in its timeout.
	timedOut bool
}

// look is the answer as a look, for failure and failedList.
func (a *answer[T]) look() *look {
	return &look{c: a.c, mapped: a.mapped, err: a.err, timedOut: a.timedOut}
}

// tally is what the mapped clusters of a fanned-out list said.
type tally struct {
	// looks are the mapped clusters as Result.Clusters records them, in
	// the order of the answers.
	looks []diagnose.ClusterLook
	// failed are the clusters that failed or did not answer.
	failed []*look
	// firstErr is the first of their errors.
	firstErr error
	// answered counts the clusters that answered.
	answered int
}

// tallied folds answers from each: add is called with the result of every
// cluster that answered, in the order of the answers, and the rest are
// counted as failed. Unmapped clusters are left out.
func tallied[T any](answers []*answer[T], add func(c *Cluster, res T)) tally {
	var t tally
	for _, a := range answers {
		if !a.mapped {
			continue
		}
		l := a.look()
		t.looks = append(t.looks, l.clusterLook(a.err == nil))
		if a.err != nil {
			t.failed = append(t.failed, l)
			if t.firstErr == nil {
				t.firstErr = a.err
			}
			continue
		}
		t.answered++
		add(a.c, a.res)
	}
	return t
}

// addNamespaces adds one cluster's namespaces to a list across clusters,
// each named "cluster/namespace".
func addNamespaces(dst *rbac.Namespaces, cluster string, src rbac.Namespaces) {
	for _, ns := range src.Names {
		dst.Names = append(dst.Names, cluster+"/"+ns)
	}
	dst.Truncated = dst.Truncated || src.Truncated
}

// each runs ask in every cluster of cs where the caller is mapped, in
// parallel, each bounded by its cluster's timeout; answers are in the
// order of cs, unmapped clusters with mapped false.
func each[T any](ctx context.Context, cs []*Cluster, id rbac.Identity, ask func(context.Context, *Cluster, rbac.Identity) (T, error)) []*answer[T] {
	out := make([]*answer[T], len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		a := &answer[T]{c: c}
		out[i] = a
		cid, ok, err := c.identity(ctx, id)
		if err != nil {
			a.mapped, a.err = true, err
			continue
		}
		if !ok {
			continue
		}
		a.mapped = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, c.timeout())
			defer cancel()
			a.res, a.err = ask(cctx, c, cid)
			if cctx.Err() != nil && ctx.Err() == nil {
				a.timedOut = true
				if a.err == nil {
					a.err = cctx.Err()
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// named is the one cluster a question names, or an error saying the
// cluster is unknown or the caller is not mapped there.
func (f *Fleet) named(ctx context.Context, id rbac.Identity, name string) (*Cluster, rbac.Identity, error) {
	c := f.byName[name]
	if c == nil {
		return nil, rbac.Identity{}, userErr("explain.unknownCluster", i18n.Name(name), namesList(f.Names()))
	}
	cid, ok, err := c.identity(ctx, id)
	if err != nil {
		return nil, rbac.Identity{}, err
	}
	if !ok {
		return nil, rbac.Identity{}, userErr("explain.notMappedCluster", i18n.Name(c.Name))
	}
	return c, cid, nil
}

// prefixed names the cluster in a user error from it ("gpu-west: ...").
func prefixed(c *Cluster, err error) error {
	var ue *Error
	if err != nil && errors.As(err, &ue) {
		return inCluster(c.Name, ue, nil, err)
	}
	return err
}

// errNotMappedAnywhere is the error when the caller is mapped in none of
// the clusters.
func (f *Fleet) errNotMappedAnywhere() error {
	return userErr("explain.notMappedAny", namesList(f.Names()))
}

// scope is the clusters a list reads: the one named (an error when the
// caller may not use it there, as named says), else every cluster.
func (f *Fleet) scope(ctx context.Context, id rbac.Identity, name string) ([]*Cluster, error) {
	if name == "" {
		return f.clusters, nil
	}
	c, _, err := f.named(ctx, id, name)
	if err != nil {
		return nil, err
	}
	return []*Cluster{c}, nil
}

// Queues summarises the caller's LocalQueues: in the cluster q names, else
// in every cluster where the caller is mapped, in parallel, each bounded
// by its timeout. Each queue names its cluster (QueueSummary.Cluster), in
// config order; a cluster that fails is named in Result.Clusters with the
// queues of those that answered; only when none answers is the result an
// error.
func (f *Fleet) Queues(ctx context.Context, id rbac.Identity, q QueuesQuery) (QueuesResult, error) {
	cs, err := f.scope(ctx, id, q.Cluster)
	if err != nil {
		return QueuesResult{}, err
	}
	answers := each(ctx, cs, id, func(ctx context.Context, c *Cluster, cid rbac.Identity) (QueuesResult, error) {
		return c.Explainer.Queues(ctx, cid, q)
	})
	if err := ctx.Err(); err != nil {
		return QueuesResult{}, err
	}
	var res QueuesResult
	res.Namespaces.Source = rbac.SourceConfigured
	t := tallied(answers, func(c *Cluster, r QueuesResult) {
		addNamespaces(&res.Namespaces, c.Name, r.Namespaces)
		for _, s := range r.Queues {
			s.Cluster = c.Name
			res.Queues = append(res.Queues, s)
		}
	})
	res.Clusters = t.looks
	switch {
	case len(res.Clusters) == 0:
		return res, f.errNotMappedAnywhere()
	case q.Cluster != "" && t.answered == 0:
		return res, prefixed(cs[0], t.firstErr)
	case t.answered == 0:
		return res, userErr("explain.couldNotListQueues", failedList(t.failed)).because(t.firstErr)
	}
	return res, nil
}

// Jobs lists the caller's jobs that are not running: in the cluster q
// names, else in every cluster where the caller is mapped, in parallel,
// each bounded by its timeout (each). Each cluster's jobs (newest first)
// come in config order, whatever order the clusters answer in, each with
// Report.Cluster set. A cluster that fails or does not answer is named in
// Result.Clusters with the jobs of those that answered; only when none
// answers is the result an error, naming each cluster and why.
func (f *Fleet) Jobs(ctx context.Context, id rbac.Identity, q JobsQuery) (JobsResult, error) {
	cs, err := f.scope(ctx, id, q.Cluster)
	if err != nil {
		return JobsResult{}, err
	}
	answers := each(ctx, cs, id, func(ctx context.Context, c *Cluster, cid rbac.Identity) (JobsResult, error) {
		return c.Explainer.Jobs(ctx, cid, q)
	})
	if err := ctx.Err(); err != nil {
		return JobsResult{}, err
	}
	var res JobsResult
	res.Namespaces.Source = rbac.SourceConfigured
	t := tallied(answers, func(c *Cluster, r JobsResult) {
		addNamespaces(&res.Namespaces, c.Name, r.Namespaces)
		for _, j := range r.Jobs {
			j.Cluster = c.Name
			res.Jobs = append(res.Jobs, j)
		}
	})
	res.Clusters = t.looks
	switch {
	case len(res.Clusters) == 0:
		return res, f.errNotMappedAnywhere()
	case t.answered == 0:
		return res, userErr("explain.couldNotListJobs", failedList(t.failed)).because(t.firstErr)
	}
	return res, nil
}

// Check checks a manifest: in the cluster req names, else in every cluster
// where the caller is mapped, in parallel, each bounded by its timeout,
// keeping the clusters where the manifest's LocalQueue exists (with no
// queue label: where the namespace has LocalQueues the caller may read).
// One such cluster: its answer, naming it (Report.Cluster). Several: one
// report whose Queues name their cluster (QueueCheck.Cluster), the pod
// sets and notes those of the first. None: the first searched cluster's
// answer (it says the LocalQueue is missing) naming every cluster, or,
// when a cluster could not be checked, an error naming it. Every cluster
// looked in is in Report.Clusters.
func (f *Fleet) Check(ctx context.Context, id rbac.Identity, req CheckRequest) (CheckResult, error) {
	if req.Cluster != "" {
		c, cid, err := f.named(ctx, id, req.Cluster)
		if err != nil {
			return CheckResult{}, err
		}
		res, err := c.Explainer.Check(ctx, cid, req)
		res.Report.Cluster = c.Name
		for i := range res.Report.Queues {
			res.Report.Queues[i].Cluster = c.Name
		}
		return res, prefixed(c, err)
	}
	answers := each(ctx, f.clusters, id, func(ctx context.Context, c *Cluster, cid rbac.Identity) (CheckResult, error) {
		return c.Explainer.Check(ctx, cid, req)
	})
	if err := ctx.Err(); err != nil {
		return CheckResult{}, err
	}
	var found, searched []*answer[CheckResult]
	var failed []*look
	var looks []diagnose.ClusterLook
	var firstUserErr error
	for _, a := range answers {
		if !a.mapped {
			continue
		}
		l := a.look()
		var ue *Error
		switch {
		case a.err == nil && queueThere(a.res.Report):
			found = append(found, a)
			looks = append(looks, diagnose.ClusterLook{Cluster: a.c.Name, Found: true})
		case a.err == nil:
			searched = append(searched, a)
			looks = append(looks, diagnose.ClusterLook{Cluster: a.c.Name})
		case !a.timedOut && errors.As(a.err, &ue):
			// The manifest or its namespace as this cluster sees it (no
			// LocalQueue there, a namespace it cannot settle): not a
			// failure of the cluster.
			if firstUserErr == nil {
				firstUserErr = prefixed(a.c, a.err)
			}
			looks = append(looks, diagnose.ClusterLook{Cluster: a.c.Name})
		default:
			failed = append(failed, l)
			looks = append(looks, l.clusterLook(false))
		}
	}
	switch {
	case len(looks) == 0:
		return CheckResult{}, f.errNotMappedAnywhere()
	case len(found) == 1 && len(looks) == 1:
		res := found[0].res
		res.Report.Cluster = found[0].c.Name
		return res, nil
	case len(found) > 0:
		res := found[0].res
		rep := &res.Report
		if len(found) == 1 {
			rep.Cluster = found[0].c.Name
		}
		rep.Clusters = looks
		rep.Queues = nil
		for _, a := range found {
			for _, qc := range a.res.Report.Queues {
				if len(found) > 1 && !qcThere(qc) {
					continue
				}
				qc.Cluster = a.c.Name
				rep.Queues = append(rep.Queues, qc)
			}
		}
		return res, nil
	case len(failed) > 0:
		return CheckResult{Report: diagnose.CheckReport{Clusters: looks}}, userErr("explain.couldNotCheck", failedList(failed))
	case len(searched) > 0:
		a := searched[0]
		res := a.res
		res.Report.Cluster = a.c.Name
		res.Report.Clusters = looks
		return res, nil
	}
	return CheckResult{Report: diagnose.CheckReport{Clusters: looks}}, firstUserErr
}

// queueThere reports whether a check found the manifest's LocalQueue (or,
// with no queue label, any LocalQueue) in its cluster.
func queueThere(r diagnose.CheckReport) bool {
	for _, qc := range r.Queues {
		if qcThere(qc) {
			return true
		}
	}
	return false
}

func qcThere(qc diagnose.QueueCheck) bool {
	return qc.Verdict.Cause != diagnose.CauseLocalQueueNotFound
}
