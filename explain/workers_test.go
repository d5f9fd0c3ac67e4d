package explain_test

import (
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// TestFollowWorkers: a job MultiKueue dispatched (the real Kueue's dumps of
// the manager and of the worker) gets the worker's own diagnosis; a worker
// the bot cannot read is named, not skipped.
func TestFollowWorkers(t *testing.T) {
	load := func(p string) explain.Reader {
		d, err := fetch.LoadFiles([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		return &explain.DumpReader{Dump: d, Unrestricted: true}
	}
	for _, tc := range []struct {
		scenario, worker, workerCQ, workerCode string
	}{
		{"multikueue-admitted", "sc-mk-admitted-worker1", "sc-multikueue-admitted-worker", "PodsNotStarting"},
		// Until a worker admits its copy, it holds the Workload alone (no Job).
		{"multikueue-waiting", "sc-mk-waiting-worker1", "sc-multikueue-waiting-worker", "WaitingForQuota"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			q := explain.Question{Kind: "Job", Name: "train", Namespace: "sc-" + tc.scenario}
			manager := load("../deploy/examples/scenarios/" + tc.scenario + ".yaml")
			worker := load("../deploy/examples/scenarios/worker/" + tc.scenario + ".yaml")
			e := &explain.Explainer{Reader: manager, Workers: explain.WorkerReaders{tc.worker: worker}}
			res, err := e.Explain(t.Context(), rbac.Identity{}, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Report.Workers) != 1 || res.Report.Workers[0].Report == nil {
				t.Fatalf("want the worker's report, got %+v", res.Report.Workers)
			}
			wr := res.Report.Workers[0]
			if wr.Cluster != tc.worker || wr.Report.Queue.ClusterQueue != tc.workerCQ {
				t.Errorf("worker report of %s in ClusterQueue %s, want %s in %s", wr.Cluster, wr.Report.Queue.ClusterQueue, tc.worker, tc.workerCQ)
			}
			if got := string(wr.Report.Verdict.Code); got != tc.workerCode {
				t.Errorf("worker verdict %s, want %s: %s", got, tc.workerCode, wr.Report.Verdict.Headline)
			}
			if wr.Report.Target.Workload == "" {
				t.Errorf("the worker's report names no Workload: %+v", wr.Report.Target)
			}
			// Not configured: said so.
			e.Workers = explain.WorkerReaders{}
			res, err = e.Explain(t.Context(), rbac.Identity{}, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Report.Workers) != 1 || !strings.Contains(res.Report.Workers[0].Error, "not configured to read worker cluster "+tc.worker) {
				t.Errorf("an unreadable worker must be named: %+v", res.Report.Workers)
			}
		})
	}
}
