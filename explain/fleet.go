package explain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// DefaultClusterTimeout bounds one cluster's look-up when Cluster.Timeout
// is zero.
const DefaultClusterTimeout = 10 * time.Second

// IdentityMapper maps the caller's identity (resolved with the top-level
// mapping) to theirs in one cluster. ok false: the caller is not mapped
// there, and the cluster is not searched for them.
type IdentityMapper func(ctx context.Context, id rbac.Identity) (mapped rbac.Identity, ok bool, err error)

// Cluster is one configured cluster of a Fleet.
type Cluster struct {
	// Name is the configured cluster's name. Required, unique.
	Name string
	// MultiKueueCluster is the MultiKueueCluster name that points at this
	// cluster from a manager; empty: none.
	MultiKueueCluster string
	// Explainer reads this cluster. Required. NewFleet sets its Workers to
	// the Fleet when it has none.
	Explainer *Explainer
	// Identity maps the caller to this cluster's identity; nil: the same
	// identity everywhere.
	Identity IdentityMapper
	// Timeout bounds one look-up here; DefaultClusterTimeout when zero.
	Timeout time.Duration
}

func (c *Cluster) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultClusterTimeout
}

// identity is the caller's identity in c.
func (c *Cluster) identity(ctx context.Context, id rbac.Identity) (rbac.Identity, bool, error) {
	if c.Identity == nil {
		return id, true, nil
	}
	return c.Identity(ctx, id)
}

// Fleet answers questions across several clusters: a question that names a
// cluster is answered there; one that does not is looked for in every
// cluster where the caller is mapped, in parallel, as the caller in each,
// each look-up bounded by its cluster's timeout. A cluster that fails or
// does not answer is named in the answer and never makes it "not found".
// It is safe for concurrent use.
type Fleet struct {
	clusters []*Cluster
	byName   map[string]*Cluster
	byMK     map[string]*Cluster
}

// NewFleet returns the Fleet of clusters (in config order).
func NewFleet(clusters []*Cluster) (*Fleet, error) {
	if len(clusters) == 0 {
		return nil, errors.New("explain: a Fleet needs at least one cluster")
	}
	f := &Fleet{clusters: clusters, byName: map[string]*Cluster{}, byMK: map[string]*Cluster{}}
	for _, c := range clusters {
		if c.Name == "" || c.Explainer == nil {
			return nil, fmt.Errorf("explain: cluster %q needs a name and an Explainer", c.Name)
		}
		if _, dup := f.byName[c.Name]; dup {
			return nil, fmt.Errorf("explain: cluster %q is configured twice", c.Name)
		}
		f.byName[c.Name] = c
		if c.MultiKueueCluster != "" {
			f.byMK[c.MultiKueueCluster] = c
		}
	}
	for _, c := range clusters {
		if c.Explainer.Workers == nil {
			c.Explainer.Workers = f
		}
	}
	return f, nil
}

// Names are the clusters' names, in config order.
func (f *Fleet) Names() []string {
	out := make([]string, 0, len(f.clusters))
	for _, c := range f.clusters {
		out = append(out, c.Name)
	}
	return out
}

// Cluster returns the configured cluster called name, nil when none is.
func (f *Fleet) Cluster(name string) *Cluster { return f.byName[name] }

// Worker implements WorkerReader: the configured cluster whose
// multiKueueCluster is name, read as the caller mapped there (nil when no
// configured cluster has that MultiKueueCluster).
func (f *Fleet) Worker(name string) Reader {
	c := f.byMK[name]
	if c == nil {
		return nil
	}
	return &mappedReader{c: c}
}

// mappedReader reads one cluster as the caller mapped there, each call
// bounded by the cluster's timeout.
type mappedReader struct{ c *Cluster }

func (m *mappedReader) as(ctx context.Context, id rbac.Identity) (rbac.Identity, error) {
	mid, ok, err := m.c.identity(ctx, id)
	if err != nil {
		return rbac.Identity{}, err
	}
	if !ok {
		return rbac.Identity{}, userErr("explain.notMappedIn", i18n.Name(m.c.Name))
	}
	return mid, nil
}

// Namespaces implements Reader.
func (m *mappedReader) Namespaces(ctx context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error) {
	mid, err := m.as(ctx, id)
	if err != nil {
		return rbac.Namespaces{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.c.timeout())
	defer cancel()
	return m.c.Explainer.Reader.Namespaces(ctx, mid, explicit)
}

// Snapshot implements Reader.
func (m *mappedReader) Snapshot(ctx context.Context, id rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	mid, err := m.as(ctx, id)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.c.timeout())
	defer cancel()
	s, err := m.c.Explainer.Reader.Snapshot(ctx, mid, t)
	if err != nil && ctx.Err() != nil {
		return nil, userErr("explain.noAnswerWithin", i18n.Verbatim(m.c.timeout().String())).because(err)
	}
	return s, err
}

// clusterWords are the words that may stand before a cluster's name
// ("on cluster gpu-west"), dropped from a question's candidates with it.
var clusterWords = []string{"cluster", "clusters", "cluster-", "クラスタ", "クラスター", "集群"}

// PickCluster settles q.Cluster from the question's words: when one of
// its Candidates is a configured cluster's name ("why is train-7 waiting
// on gpu-west", `/kueue why train-7 gpu-west`, "gpu-west の train-7"),
// that word names the cluster, not the job, and leaves the candidates. A
// question that names a cluster already, or whose name is certain (no
// candidates), is returned as is.
func PickCluster(q Question, names []string) Question {
	if q.Cluster != "" || len(q.Candidates) < 2 {
		return q
	}
	for _, w := range q.Candidates {
		if slices.Contains(names, w) {
			q.Cluster = w
			break
		}
	}
	if q.Cluster == "" {
		return q
	}
	rest := make([]string, 0, len(q.Candidates)-1)
	for _, w := range q.Candidates {
		if w != q.Cluster && !slices.Contains(clusterWords, w) {
			rest = append(rest, w)
		}
	}
	if len(rest) == 0 {
		// The cluster's name is the only word: it names the job after all.
		q.Cluster = ""
		return q
	}
	q.Name = rest[0]
	q.Candidates = rest
	if len(rest) == 1 {
		q.Candidates = nil
	}
	return q
}

// look is one cluster's answer to a fanned-out question.
type look struct {
	c      *Cluster
	mapped bool
	res    Result
	err    error
	// timedOut is true when the cluster did not answer in its timeout.
	timedOut bool
}

// found reports whether the job is in the cluster.
func (l *look) found() bool {
	if l.err != nil {
		return errors.Is(l.err, errSeveralNamespaces)
	}
	return l.mapped && l.res.Report.Verdict.Code != diagnose.CodeNotFound
}

// failure is why the cluster could not be searched, "" when it was.
func (l *look) failure() string {
	switch {
	case !l.mapped:
		return ""
	case l.timedOut:
		return l.failureMsg().String()
	case l.err != nil && !errors.Is(l.err, errSeveralNamespaces):
		return userText(l.err)
	}
	return ""
}

// clusterLook is the look as Report.Clusters records it: found or not, and
// why the cluster could not be searched, in English and as a message.
func (l *look) clusterLook(found bool) diagnose.ClusterLook {
	return diagnose.ClusterLook{Cluster: l.c.Name, Found: found, Error: l.failure(), ErrorMsg: l.failureMsg()}
}

// Explain answers q: in the cluster it names (Question.Cluster, or a word
// PickCluster recognises), else in every cluster where the caller is
// mapped. Found in one: that cluster's answer, naming it (Result.Cluster,
// Report.Cluster), with every cluster that failed named in
// Report.Clusters. Found in several: Result.Choices. Found nowhere: one
// not-found report saying which clusters were searched, or, when a cluster
// could not be searched, an *Error naming it instead of "not found".
func (f *Fleet) Explain(ctx context.Context, id rbac.Identity, q Question) (Result, error) {
	q = PickCluster(q, f.Names())
	if q.Cluster != "" {
		return f.explainIn(ctx, id, q)
	}
	if q.Name == "" {
		return Result{}, userErr("explain.noJob", i18n.Verbatim("`why is train-7 waiting?`"))
	}
	looks := f.fanOut(ctx, id, func(ctx context.Context, c *Cluster, cid rbac.Identity) (Result, error) {
		return c.Explainer.Explain(ctx, cid, q)
	})
	if err := ctx.Err(); err != nil {
		return Result{Question: q}, err
	}
	return f.settle(q, looks)
}

// explainIn answers q in the one cluster it names.
func (f *Fleet) explainIn(ctx context.Context, id rbac.Identity, q Question) (Result, error) {
	c := f.byName[q.Cluster]
	if c == nil {
		return Result{Question: q}, userErr("explain.unknownCluster", i18n.Name(q.Cluster), namesList(f.Names()))
	}
	cid, ok, err := c.identity(ctx, id)
	if err != nil {
		return Result{Question: q}, err
	}
	if !ok {
		return Result{Question: q}, userErr("explain.notMappedCluster", i18n.Name(c.Name))
	}
	res, err := c.Explainer.Explain(ctx, cid, q)
	res.Cluster = c.Name
	res.Question.Cluster = c.Name
	res.Report.Cluster = c.Name
	if err != nil {
		var ue *Error
		if errors.As(err, &ue) {
			return res, inCluster(c.Name, ue, nil, err)
		}
	}
	return res, err
}

// fanOut runs ask in every cluster where the caller is mapped, as each
// does (in parallel, each bounded by its cluster's timeout); looks are in
// config order.
func (f *Fleet) fanOut(ctx context.Context, id rbac.Identity, ask func(context.Context, *Cluster, rbac.Identity) (Result, error)) []*look {
	answers := each(ctx, f.clusters, id, ask)
	looks := make([]*look, len(answers))
	for i, a := range answers {
		looks[i] = a.look()
		looks[i].res = a.res
	}
	return looks
}

// clusterLooks are the looks as the report records them.
func clusterLooks(looks []*look) []diagnose.ClusterLook {
	var out []diagnose.ClusterLook
	for _, l := range looks {
		if !l.mapped {
			continue
		}
		out = append(out, l.clusterLook(l.found()))
	}
	return out
}

// settle turns the looks of a fanned-out question into one answer.
func (f *Fleet) settle(q Question, looks []*look) (Result, error) {
	var found, failed, searched []*look
	for _, l := range looks {
		switch {
		case !l.mapped:
		case l.found():
			found = append(found, l)
		case l.failure() != "":
			failed = append(failed, l)
		default:
			searched = append(searched, l)
		}
	}
	cls := clusterLooks(looks)
	switch {
	case len(found) == 1:
		l := found[0]
		res := l.res
		res.Cluster = l.c.Name
		res.Question.Cluster = l.c.Name
		res.Report.Cluster = l.c.Name
		res.Report.Clusters = cls
		if l.err != nil {
			var ue *Error
			if errors.As(l.err, &ue) {
				return res, inCluster(l.c.Name, ue, failed, l.err)
			}
			return res, l.err
		}
		return res, nil
	case len(found) > 1:
		res := Result{Question: q}
		res.Report.Clusters = cls
		for _, l := range found {
			ch := Choice{Cluster: l.c.Name, Target: l.res.Question.Target(l.res.Report.Target.Namespace), Verdict: l.res.Report.Verdict.Code}
			if l.res.Question.Name != "" {
				ch.Target.Name = l.res.Question.Name
			} else {
				ch.Target.Name = q.Name
			}
			if l.res.Report.Target.Kind != "" {
				ch.Target.Kind = l.res.Report.Target.Kind
			}
			res.Choices = append(res.Choices, ch)
		}
		return res, nil
	case len(searched) == 0 && len(failed) == 0:
		return Result{Question: q}, userErr("explain.notMappedAny", namesList(f.Names()))
	case len(failed) > 0:
		example := i18n.Verbatim("`" + q.Name + " on " + failed[0].c.Name + "`")
		err := userErr("explain.couldNotLookFor", i18n.Name(q.Name), failedList(failed), example)
		if len(searched) > 0 {
			err = userErr("explain.notFoundSomeFailed", i18n.Name(q.Name), lookNames(searched), failedList(failed), example)
		}
		return Result{Question: q, Report: diagnose.Report{Clusters: cls}}, err
	}
	// Searched everywhere the caller is mapped, found nowhere.
	l := searched[0]
	res := l.res
	res.Question = q
	r := &res.Report
	r.Verdict.HeadlineMsg = i18n.M("explain.notFoundClusters", i18n.Name(q.Name), lookNames(searched))
	r.Verdict.Headline = r.Verdict.HeadlineMsg.String()
	r.Target.Namespace = ""
	summary := i18n.M("explain.checkName", i18n.Verbatim("`"+q.Name+" on CLUSTER -n NAMESPACE`"))
	r.Remedies = []diagnose.Remedy{{Code: "CheckName", Who: diagnose.WhoYou, Summary: summary.String(), SummaryMsg: summary}}
	r.Clusters = cls
	return res, nil
}
