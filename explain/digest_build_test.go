package explain

import (
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// scenarioNow is after every recorded scenario.
var scenarioNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Every pending workload of the recorded real-Kueue scenarios is grouped
// under the verdict its own diagnosis gives.
func TestBuildDigestGroupsByOwnVerdict(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildDigest(&Listing{Store: dump.Store(), All: true}, DigestQuery{Name: "all"}, scenarioNow)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[diagnose.Code]bool{}
	n := 0
	for _, g := range d.Groups {
		if g.Count != len(g.Workloads) {
			t.Errorf("group %s counts %d but lists %d", g.Code, g.Count, len(g.Workloads))
		}
		for _, it := range g.Workloads {
			n++
			seen[g.Code] = true
			s, err := dump.Snapshot(diagnose.Target{Kind: it.Kind, Namespace: it.Namespace, Name: it.Name}, scenarioNow)
			if err != nil {
				t.Fatal(err)
			}
			if own := diagnose.Analyze(s).Verdict.Code; own != g.Code || it.Code != g.Code {
				t.Errorf("%s is in group %s (item code %s) but its own diagnosis says %s", it.Ref(), g.Code, it.Code, own)
			}
		}
	}
	if n != d.Totals.Pending || n < 15 {
		t.Errorf("%d workloads in groups, %d pending: want equal, and the scenarios hold more than 15", n, d.Totals.Pending)
	}
	for _, want := range []diagnose.Code{diagnose.CodeWaitingForQuota, diagnose.CodeMisconfigured, diagnose.CodeOnHold, diagnose.CodeDeactivated, diagnose.CodeExceedsMaxQuota} {
		if !seen[want] {
			t.Errorf("no %s group; the scenarios have one", want)
		}
	}
	for _, it := range d.NeedsAction {
		if !digest.NeedsAction(it.Code) {
			t.Errorf("%s (%s) listed as needing action", it.Ref(), it.Code)
		}
	}
}

// A scope narrows the digest to its namespaces, and a job without a
// Workload is in it.
func TestBuildDigestScope(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	scope := digest.Scope{Namespaces: []string{"sc-quota-in-use", "sc-lq-missing-cq"}}
	d, err := BuildDigest(&Listing{Store: dump.Store(), All: true}, DigestQuery{Name: "two", Scope: scope}, scenarioNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range d.Groups {
		for _, it := range g.Workloads {
			if it.Namespace != "sc-quota-in-use" && it.Namespace != "sc-lq-missing-cq" {
				t.Errorf("%s is outside the scope", it.Ref())
			}
		}
	}
	for _, q := range d.Queues {
		if q.Kind == diagnose.QueueKindLocal && q.Namespace != "sc-quota-in-use" && q.Namespace != "sc-lq-missing-cq" {
			t.Errorf("queue %s is outside the scope", q.Key())
		}
	}
	if d.Totals.Pending == 0 {
		t.Error("nothing pending in scope")
	}
}
