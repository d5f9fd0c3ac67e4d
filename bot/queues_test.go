package bot

import (
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// TestAskQueuesAndJobs: "my queues" and "my jobs" answer from the lists
// the Explainer makes, within the caller's namespaces only.
func TestAskQueuesAndJobs(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	ex := &explain.Explainer{Reader: &explain.DumpReader{Dump: dump}}
	a := &Asker{
		Resolve: staticResolver{rbac.Identity{User: "alice", Namespaces: []string{"sc-sample-job"}}},
		Explain: ex, Jobs: ex, Queues: ex,
	}
	user := rbac.SlackUser{ID: "U0000ALICE", TeamID: "T0000ACME1"}
	queues := blocks.Text(a.Ask(t.Context(), user, "my queues").Blocks)
	if !strings.Contains(queues, "Your queues") || !strings.Contains(queues, "sc-sample-job/") || strings.Contains(queues, "sc-preempted") {
		t.Errorf("my queues:\n%s", queues)
	}
	jobs := blocks.Text(a.Ask(t.Context(), user, "what are my jobs?").Blocks)
	if !strings.Contains(jobs, "sample-job") || !strings.Contains(jobs, "ExceedsMaxQuota") || strings.Contains(jobs, "sc-preempted") {
		t.Errorf("my jobs:\n%s", jobs)
	}
}
