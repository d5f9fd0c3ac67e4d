package explain

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// Question is what a caller asks about one job.
type Question struct {
	// Kind is the Kubernetes kind ("Job", "JobSet", "Workload", ...); empty
	// means the user did not say and every supported kind is tried.
	Kind string
	// Name is the job's name. Required.
	Name string
	// Namespace is the namespace the user named; empty means the caller's
	// namespaces (configured, else discovered).
	Namespace string
	// Candidates, when set, are every word of the question that could be
	// the job's name, best guess first (Candidates[0] == Name): the ones
	// that exist among the caller's jobs win. Nil when the name is certain.
	Candidates []string
	// Cluster is the configured cluster the user named; empty means every
	// cluster where the caller is mapped (Fleet), or the only one.
	Cluster string
}

// Target returns the diagnose.Target of q in namespace ns.
func (q Question) Target(ns string) diagnose.Target {
	return diagnose.Target{Kind: q.Kind, Namespace: ns, Name: q.Name}
}

// String renders q the way a user types it with the CLI, e.g.
// "jobset/train-7 -n team-a".
func (q Question) String() string {
	var b strings.Builder
	if q.Kind != "" {
		b.WriteString(strings.ToLower(q.Kind))
		b.WriteString("/")
	}
	b.WriteString(q.Name)
	if q.Namespace != "" {
		b.WriteString(" -n ")
		b.WriteString(q.Namespace)
	}
	if q.Cluster != "" {
		b.WriteString(" --cluster ")
		b.WriteString(q.Cluster)
	}
	return b.String()
}

// Result is the answer to a Question.
type Result struct {
	// Question is the question answered: the asked one, with Name settled
	// among its Candidates.
	Question Question
	// Report is the diagnosis.
	Report diagnose.Report
	// Namespaces are where the job was looked for, and how they were
	// chosen; the audit line records them.
	Namespaces rbac.Namespaces
	// Cluster is the configured cluster the answer was read in (Fleet);
	// empty with one cluster.
	Cluster string
	// Choices, when the job was found in several clusters (Fleet), are
	// those clusters, in config order, and Report is empty: the caller is
	// asked which one they mean (Report.Clusters says where it looked).
	Choices []Choice
}

// Choice is one cluster where an ambiguous question's job was found.
type Choice struct {
	// Cluster is the configured cluster's name.
	Cluster string
	// Target is the job found there (its namespace and kind settled).
	Target diagnose.Target
	// Verdict is its verdict there, to tell the copies apart.
	Verdict diagnose.Code
}

// VerdictString is the verdict as the audit line records it: "Code" or
// "Code/Cause".
func (r Result) VerdictString() string {
	v := string(r.Report.Verdict.Code)
	if r.Report.Verdict.Cause != "" {
		v += "/" + string(r.Report.Verdict.Cause)
	}
	return v
}

// Reader reads objects as an identity.
type Reader interface {
	// Namespaces returns where a question from id is answered: explicit
	// when the user named a namespace, else the identity's configured
	// namespaces, else the ones the identity may read (discovery).
	Namespaces(ctx context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error)
	// Snapshot reads the objects one target's diagnosis needs, as id.
	Snapshot(ctx context.Context, id rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error)
}

// Explainer answers questions. It is safe for concurrent use.
type Explainer struct {
	// Reader reads as the caller. Required.
	Reader Reader
	// Now is the clock for lists; time.Now when nil.
	Now func() time.Time
	// Workers, when set, reads MultiKueue worker clusters: a job that
	// MultiKueue sent to workers gets each worker's own diagnosis in
	// Report.Workers, read there as the same identity (workers.go).
	Workers WorkerReader
}

// Error is an error whose text is meant for the user (plain text, escaped
// before it is shown). Cause, when set, is for logs only.
type Error struct {
	// Message is shown to the user: the English of Msg when Msg is set.
	Message string
	// Msg is Message as a catalog message (UserMessageIn renders it in
	// the asker's language).
	Msg i18n.Message
	// Cause is the underlying error, if any.
	Cause error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

// UserMessage is the text to show the user, in English.
func (e *Error) UserMessage() string { return e.Message }

// UserMessageIn is the text to show the user in l.
func (e *Error) UserMessageIn(l i18n.Lang) string {
	if e.Msg.IsZero() {
		return e.Message
	}
	return e.Msg.In(l)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// maxShownNamespaces is how many namespaces a "not found" answer lists.
const maxShownNamespaces = 5

// Explain diagnoses the job q names, reading as id. It looks in each of the
// caller's namespaces in order and analyzes the job where it is found.
// Found in several: an *Error asks the user to name the namespace. Found
// nowhere: the NotFound report, which reads the same whether the job does
// not exist or the caller may not see it. Errors that implement
// UserMessage() are meant for the user; others are internal.
func (e *Explainer) Explain(ctx context.Context, id rbac.Identity, q Question) (Result, error) {
	if e.Reader == nil {
		return Result{}, errNoReader
	}
	if q.Name == "" {
		return Result{}, userErr("explain.noJob", i18n.Verbatim("`why is train-7 waiting?`"))
	}
	nss, err := e.Reader.Namespaces(ctx, id, q.Namespace)
	if err != nil {
		return Result{}, err
	}
	res := Result{Namespaces: nss}
	if len(nss.Names) == 0 {
		return res, userErr("explain.noNamespace", i18n.Verbatim("`-n NAMESPACE`"))
	}
	q = e.resolveCandidates(ctx, id, q, nss.Names)
	res.Question = q
	var found []*diagnose.Snapshot
	var first *diagnose.Snapshot
	for _, ns := range nss.Names {
		s, err := e.Reader.Snapshot(ctx, id, q.Target(ns))
		if err != nil {
			return res, err
		}
		if first == nil {
			first = s
		}
		if s.Job != nil || s.Workload != nil {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		res.Report = notFound(first, q, nss)
		return res, nil
	case 1:
		res.Report = diagnose.Analyze(found[0])
		e.estimate(ctx, id, found[0], &res.Report)
		e.followWorkers(ctx, id, found[0].Target, &res.Report)
		return res, nil
	}
	where := make([]string, 0, len(found))
	for _, s := range found {
		where = append(where, s.Target.Namespace)
	}
	return res, userErr("explain.severalNamespaces", i18n.Name(q.Name), namesList(where), i18n.Verbatim("`-n NAMESPACE`")).because(errSeveralNamespaces)
}

// notFound is the report for a job found in none of the namespaces.
func notFound(first *diagnose.Snapshot, q Question, nss rbac.Namespaces) diagnose.Report {
	r := diagnose.Analyze(first)
	if len(nss.Names) > 1 {
		shown := i18n.Names(nss.Names...)
		if len(shown) > maxShownNamespaces {
			shown = append(shown[:maxShownNamespaces:maxShownNamespaces], i18n.M("explain.andMore", i18n.Num(len(nss.Names)-maxShownNamespaces)))
		}
		r.Verdict.HeadlineMsg = i18n.M("explain.notFoundNamespaces", i18n.Name(q.Name), i18n.Commas(shown...))
		r.Verdict.Headline = r.Verdict.HeadlineMsg.String()
		r.Target.Namespace = ""
		summary := i18n.M("explain.checkNameNamespace", i18n.Verbatim("`"+q.Name+" -n NAMESPACE`"))
		r.Remedies = []diagnose.Remedy{{Code: "CheckName", Who: diagnose.WhoYou, Summary: summary.String(), SummaryMsg: summary}}
	}
	if nss.Truncated {
		r.Verdict.DetailMsg = i18n.M("explain.firstNamespaces", i18n.Num(len(nss.Names)), i18n.Verbatim("`"+q.Name+" -n NAMESPACE`"))
		r.Verdict.Detail = r.Verdict.DetailMsg.String()
	}
	return r
}

// clock returns now, or time.Now when now is nil.
func clock(now func() time.Time) time.Time {
	if now != nil {
		return now()
	}
	return time.Now()
}

// errSeveralNamespaces marks the answer of a job found in several
// namespaces: the job exists (Fleet counts it as found).
var errSeveralNamespaces = errors.New("found in several namespaces")

// errNoReader is returned by an Explainer without a Reader.
var errNoReader = errors.New("explain: Explainer has no Reader")

// JobsQuery asks for the caller's jobs that are not running.
type JobsQuery struct {
	// Namespace restricts the list to one namespace; empty means the
	// caller's namespaces.
	Namespace string
	// Cluster, with several clusters (Fleet), is the one cluster to list
	// in; empty means every cluster where the caller is mapped.
	Cluster string
}

// JobsResult lists the caller's jobs that are not running.
type JobsResult struct {
	// Jobs are the reports of the caller's jobs that are not running
	// (pending, blocked, admitted without progress), newest first.
	Jobs []diagnose.Report
	// Namespaces are where the jobs were listed.
	Namespaces rbac.Namespaces
	// Clusters are, for a list across several clusters (Fleet), each
	// cluster listed and whether it answered; each job's Report.Cluster
	// says where it is.
	Clusters []diagnose.ClusterLook
}
