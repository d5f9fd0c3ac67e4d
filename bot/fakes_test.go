package bot

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// userError is an error with a user-facing message, as the rbac resolver
// returns for refusals.
type userError struct{ msg, internal string }

func (e *userError) Error() string       { return e.internal }
func (e *userError) UserMessage() string { return e.msg }

// fakeResolver knows the users in ids; others get err (or a refusal).
type fakeResolver struct {
	ids map[string]rbac.Identity
	err error

	mu    sync.Mutex
	calls []rbac.SlackUser
}

func (f *fakeResolver) Resolve(_ context.Context, u rbac.SlackUser) (rbac.Identity, error) {
	f.mu.Lock()
	f.calls = append(f.calls, u)
	f.mu.Unlock()
	if f.err != nil {
		return rbac.Identity{}, f.err
	}
	id, ok := f.ids[u.ID]
	if !ok {
		return rbac.Identity{}, &userError{msg: "You are not allowed to use kueuebot. Ask your platform team for access.", internal: "rbac: user " + u.ID + " not in static map"}
	}
	return id, nil
}

type diagnoseCall struct {
	ID  rbac.Identity
	Req parse.Request
	// Cluster is the question's cluster.
	Cluster string
}

// fakeDiagnoser answers from reports by request name, or fails with err.
// block makes it wait for the context to end; gate, when set, makes it
// wait for a value (or the context); delay makes it sleep first; a
// question about panicOn panics.
type fakeDiagnoser struct {
	reports map[string]diagnose.Report
	err     error
	block   bool
	gate    chan struct{}
	delay   time.Duration
	panicOn string
	// views, keyed "user/name", is what one identity sees of a job, in
	// place of reports (a NotFound report: the job is hidden from them).
	views map[string]diagnose.Report

	mu    sync.Mutex
	calls []diagnoseCall
}

func (f *fakeDiagnoser) Explain(ctx context.Context, id rbac.Identity, q explain.Question) (explain.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, diagnoseCall{ID: id, Req: parse.Request{Intent: parse.IntentDiagnose, Kind: q.Kind, Name: q.Name, Namespace: q.Namespace}, Cluster: q.Cluster})
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return explain.Result{}, ctx.Err()
	}
	if q.Name == f.panicOn && f.panicOn != "" {
		panic("boom: " + q.Name)
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return explain.Result{}, ctx.Err()
		}
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return explain.Result{}, ctx.Err()
		}
	}
	if f.err != nil {
		return explain.Result{}, f.err
	}
	f.mu.Lock()
	r, ok := f.views[id.User+"/"+q.Name]
	f.mu.Unlock()
	if !ok {
		r, ok = f.reports[q.Name]
	}
	if !ok {
		return explain.Result{Report: diagnose.Report{
			Verdict: diagnose.Verdict{Stage: diagnose.StageResolve, Code: diagnose.CodeNotFound, Headline: "I cannot find " + q.Name + ", or you may not see it"},
			Target:  diagnose.TargetInfo{Kind: q.Kind, Namespace: q.Namespace, Name: q.Name},
		}}, nil
	}
	return explain.Result{Report: r}, nil
}

var errInternal = errors.New("dial tcp 10.0.0.7:6443: connect: connection refused (token sk-secret)")

var alice = rbac.SlackUser{ID: "U0ALICE", TeamID: slackfake.TeamID}

var aliceID = rbac.Identity{
	User:       "alice@example.com",
	Groups:     []string{"ml-team"},
	Extra:      map[string][]string{"slack.com/user-id": {"U0ALICE"}},
	Namespaces: []string{"team-a"},
}

func waitingReport() diagnose.Report {
	pos := int32(1)
	return diagnose.Report{
		Verdict: diagnose.Verdict{
			Stage: diagnose.StageAdmission, Code: diagnose.CodeWaitingForQuota, Cause: diagnose.CauseQuotaInUse,
			Headline: "train-7 waits for quota in cq-gpu",
			Detail:   "It needs 8 GPUs; 4 are free.",
		},
		Target: diagnose.TargetInfo{Kind: "JobSet", Namespace: "team-a", Name: "train-7", Workload: "jobset-train-7-3f2a1"},
		Queue:  diagnose.QueueInfo{LocalQueue: "team-a", ClusterQueue: "cq-gpu", PositionInLocalQueue: &pos},
		Remedies: []diagnose.Remedy{
			{Summary: "Ask for 4 GPUs instead of 8.", Who: diagnose.WhoYou, Command: "kubectl -n team-a edit jobset train-7"},
		},
	}
}

// setViews sets views while the bot runs.
func (f *fakeDiagnoser) setViews(v map[string]diagnose.Report) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views = v
}
