package explain

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

func loadExamples(t *testing.T) *fetch.Dump {
	t.Helper()
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	return dump
}

// scenarioNamespaces are the namespaces of the embedded real-Kueue dumps.
func scenarioNamespaces(t *testing.T, dump *fetch.Dump) []string {
	t.Helper()
	var nss []string
	for _, wl := range dump.Store().Workloads() {
		if !slices.Contains(nss, wl.Namespace) {
			nss = append(nss, wl.Namespace)
		}
	}
	slices.Sort(nss)
	if len(nss) < 5 {
		t.Fatalf("only %d namespaces with Workloads in the examples", len(nss))
	}
	return nss
}

// TestJobsAgreeWithExplain: every job of the list carries the verdict a
// question about that job alone gets, none is running or finished, and
// the list is newest first.
func TestJobsAgreeWithExplain(t *testing.T) {
	dump := loadExamples(t)
	nss := scenarioNamespaces(t, dump)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := &Explainer{Reader: &DumpReader{Dump: dump, Now: func() time.Time { return now }}, Now: func() time.Time { return now }}
	id := rbac.Identity{User: "alice", Namespaces: nss}
	res, err := e.Jobs(t.Context(), id, JobsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) == 0 {
		t.Fatal("no jobs listed")
	}
	for _, rep := range res.Jobs {
		if rep.Verdict.Stage == diagnose.StageRunning || rep.Verdict.Stage == diagnose.StageFinished {
			t.Errorf("%s/%s is listed but %s", rep.Target.Namespace, rep.Target.Name, rep.Verdict.Code)
		}
		one, err := e.Explain(t.Context(), id, Question{Kind: rep.Target.Kind, Name: rep.Target.Name, Namespace: rep.Target.Namespace})
		if err != nil {
			t.Fatalf("%s/%s: %v", rep.Target.Namespace, rep.Target.Name, err)
		}
		if one.Report.Verdict.Code != rep.Verdict.Code || one.Report.Verdict.Cause != rep.Verdict.Cause {
			t.Errorf("%s/%s: listed as %s/%s, asked alone %s/%s", rep.Target.Namespace, rep.Target.Name,
				rep.Verdict.Code, rep.Verdict.Cause, one.Report.Verdict.Code, one.Report.Verdict.Cause)
		}
	}
	codes := map[diagnose.Code]bool{}
	for _, rep := range res.Jobs {
		codes[rep.Verdict.Code] = true
	}
	if len(codes) < 4 {
		t.Errorf("only %d verdict codes among %d jobs: %v", len(codes), len(res.Jobs), codes)
	}
}

// TestJobsStayInTheCallersNamespaces: a job of a namespace the caller
// does not have never appears, nor does a queue of one.
func TestJobsStayInTheCallersNamespaces(t *testing.T) {
	dump := loadExamples(t)
	nss := scenarioNamespaces(t, dump)
	mine := nss[:2]
	e := &Explainer{Reader: &DumpReader{Dump: dump}}
	id := rbac.Identity{User: "alice", Namespaces: mine}
	jobs, err := e.Jobs(t.Context(), id, JobsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range jobs.Jobs {
		if !slices.Contains(mine, rep.Target.Namespace) {
			t.Errorf("job %s/%s of another namespace listed", rep.Target.Namespace, rep.Target.Name)
		}
	}
	queues, err := e.Queues(t.Context(), id, QueuesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(queues.Queues) == 0 {
		t.Fatal("no queues listed")
	}
	for _, q := range queues.Queues {
		if q.Kind != diagnose.QueueKindLocal || !slices.Contains(mine, q.Namespace) {
			t.Errorf("queue %s %s/%s listed for a caller of %v", q.Kind, q.Namespace, q.Name, mine)
		}
	}
	// One namespace asked: only that one.
	one, err := e.Jobs(t.Context(), id, JobsQuery{Namespace: mine[1]})
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range one.Jobs {
		if rep.Target.Namespace != mine[1] {
			t.Errorf("asked for %s, got %s/%s", mine[1], rep.Target.Namespace, rep.Target.Name)
		}
	}
	// A namespace that is not the caller's reads as empty.
	other, err := e.Jobs(t.Context(), id, JobsQuery{Namespace: nss[len(nss)-1]})
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Jobs) != 0 {
		t.Errorf("a namespace outside the caller's listed %d jobs", len(other.Jobs))
	}
}

func TestJobsNewestFirst(t *testing.T) {
	dump := loadExamples(t)
	e := &Explainer{Reader: &DumpReader{Dump: dump}}
	res, err := e.Jobs(t.Context(), rbac.Identity{User: "a", Namespaces: scenarioNamespaces(t, dump)}, JobsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	created := map[string]time.Time{}
	for _, wl := range dump.Store().Workloads() {
		created[wl.Namespace+"/"+wl.Name] = wl.CreationTimestamp.Time
	}
	for i := 1; i < len(res.Jobs); i++ {
		a, b := res.Jobs[i-1].Target, res.Jobs[i].Target
		ca, oka := created[a.Namespace+"/"+a.Workload]
		cb, okb := created[b.Namespace+"/"+b.Workload]
		if !oka || !okb {
			t.Fatalf("listed jobs without their Workload: %+v %+v", a, b)
		}
		if ca.Before(cb) {
			t.Errorf("%s/%s (created %s) listed before the newer %s/%s (%s)", a.Namespace, a.Name, ca, b.Namespace, b.Name, cb)
		}
	}
}

func TestJobsNoNamespaces(t *testing.T) {
	e := &Explainer{Reader: &DumpReader{Dump: loadExamples(t)}}
	_, err := e.Jobs(t.Context(), rbac.Identity{User: "a"}, JobsQuery{})
	var ue *Error
	if err == nil || !errors.As(err, &ue) || !strings.Contains(ue.Message, "any namespace") {
		t.Errorf("err = %v, want a user message about namespaces", err)
	}
}

// TestQueuesCountJobsWithoutWorkload: a LocalQueue's summary counts the
// jobs that name it but that Kueue made no Workload for, which "my jobs"
// lists and Pending does not count (sc-missing-priority-class's job names
// a WorkloadPriorityClass that does not exist).
func TestQueuesCountJobsWithoutWorkload(t *testing.T) {
	dump := loadExamples(t)
	e := &Explainer{Reader: &DumpReader{Dump: dump}}
	id := rbac.Identity{User: "alice", Namespaces: []string{"sc-missing-priority-class"}}
	queues, err := e.Queues(t.Context(), id, QueuesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := e.Jobs(t.Context(), id, JobsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, rep := range jobs.Jobs {
		if rep.Verdict.Code == diagnose.CodeWorkloadMissing {
			missing++
		}
	}
	counted := 0
	for _, q := range queues.Queues {
		counted += q.WithoutWorkload
	}
	if missing == 0 || counted != missing {
		t.Errorf("queues count %d jobs without a Workload, my jobs lists %d WorkloadMissing", counted, missing)
	}
}
