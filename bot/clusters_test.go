package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// clusterAsker asks a Fleet of the real Kueue's dumps of a MultiKueue
// manager ("manager") and its worker ("gpu-west"), which both hold the Job
// train.
func clusterAsker(t *testing.T) *Asker {
	t.Helper()
	load := func(p string) explain.Reader {
		d, err := fetch.LoadFiles([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		return &explain.DumpReader{Dump: d, Unrestricted: true}
	}
	f, err := explain.NewFleet([]*explain.Cluster{
		{Name: "manager", Explainer: &explain.Explainer{Reader: load("../deploy/examples/scenarios/multikueue-admitted.yaml")}, Timeout: time.Second},
		{Name: "gpu-west", MultiKueueCluster: "sc-mk-admitted-worker1", Explainer: &explain.Explainer{Reader: load("../deploy/examples/scenarios/worker/multikueue-admitted.yaml")}, Timeout: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Asker{Resolve: &fakeResolver{ids: map[string]rbac.Identity{"U1": {User: "alice"}}}, Explain: f, Jobs: f, Queues: f}
}

func TestAskWhichCluster(t *testing.T) {
	a := clusterAsker(t)
	u := rbac.SlackUser{ID: "U1", TeamID: "T1"}
	m := a.Ask(t.Context(), u, "why is train waiting -n sc-multikueue-admitted")
	text := blocks.Text(m.Blocks)
	if !strings.Contains(text, "is in several clusters. Which one do you mean?") || !strings.Contains(text, "manager") || !strings.Contains(text, "gpu-west") {
		t.Fatalf("want a which-cluster answer, got:\n%s", text)
	}
	var values []string
	for _, b := range m.Blocks {
		if ab, ok := b.(*slack.ActionBlock); ok {
			for _, el := range ab.Elements.ElementSet {
				if btn, ok := el.(*slack.ButtonBlockElement); ok && btn.ActionID == blocks.ActionCluster {
					values = append(values, btn.Value)
				}
			}
		}
	}
	if strings.Join(values, ",") != "sc-multikueue-admitted/Job/train/manager,sc-multikueue-admitted/Job/train/gpu-west" {
		t.Fatalf("buttons %v, want one per cluster carrying the job there", values)
	}

	// Naming the cluster ("on gpu-west", `/kueue why train gpu-west`) answers there, and says so.
	for _, q := range []string{"why is train waiting on gpu-west -n sc-multikueue-admitted", "train gpu-west -n sc-multikueue-admitted"} {
		m = a.Ask(t.Context(), u, q)
		text = blocks.Text(m.Blocks)
		if !strings.Contains(text, "*Cluster* `gpu-west`") {
			t.Errorf("%q: the answer must name cluster gpu-west:\n%s", q, text)
		}
		if strings.Contains(text, "several clusters") {
			t.Errorf("%q: asked again which cluster:\n%s", q, text)
		}
	}
}

func TestMyJobsAcrossClusters(t *testing.T) {
	a := clusterAsker(t)
	m := a.Ask(t.Context(), rbac.SlackUser{ID: "U1", TeamID: "T1"}, "my jobs -n sc-multikueue-admitted")
	text := blocks.Text(m.Blocks)
	for _, want := range []string{"manager: sc-multikueue-admitted/train", "gpu-west: sc-multikueue-admitted/train"} {
		if !strings.Contains(text, want) {
			t.Errorf("my jobs lacks %q:\n%s", want, text)
		}
	}
}

// "my jobs on gpu-west", `/kueue jobs gpu-west` and "queues on gpu-west"
// list in that cluster only; `-n gpu-west` stays a namespace.
func TestListsOnACluster(t *testing.T) {
	a := clusterAsker(t)
	// alice's configured namespace, for the lists that name none.
	a.Resolve = &fakeResolver{ids: map[string]rbac.Identity{"U1": {User: "alice", Namespaces: []string{"sc-multikueue-admitted"}}}}
	u := rbac.SlackUser{ID: "U1", TeamID: "T1"}
	for _, q := range []string{"my jobs on gpu-west -n sc-multikueue-admitted", "mes jobs sur gpu-west -n sc-multikueue-admitted"} {
		text := blocks.Text(a.Ask(t.Context(), u, q).Blocks)
		if !strings.Contains(text, "gpu-west: sc-multikueue-admitted/train") || strings.Contains(text, "manager:") {
			t.Errorf("%q lists other clusters, or not gpu-west's:\n%s", q, text)
		}
	}
	slash := func(text string) string {
		o := a.ask(t.Context(), event.EntrySlash, u, text)
		if o.jobs == nil {
			t.Fatalf("/kueue %s: no job list: %s", text, blocks.Text(o.notice.Blocks))
		}
		return blocks.Text(jobListMessage(*o.jobs, o.lang).Blocks)
	}
	text := slash("jobs gpu-west")
	if !strings.Contains(text, "gpu-west: sc-multikueue-admitted/train") || strings.Contains(text, "manager:") {
		t.Errorf("/kueue jobs gpu-west lists other clusters, or not gpu-west's:\n%s", text)
	}
	text = slash("jobs -n gpu-west")
	if strings.Contains(text, "sc-multikueue-admitted/train") {
		t.Errorf("/kueue jobs -n gpu-west is namespace gpu-west, not the cluster:\n%s", text)
	}
	text = blocks.Text(a.Ask(t.Context(), u, "queues on gpu-west -n sc-multikueue-admitted").Blocks)
	if !strings.Contains(text, "gpu-west: sc-multikueue-admitted/") || strings.Contains(text, "manager:") {
		t.Errorf("queues on gpu-west lists other clusters, or not gpu-west's:\n%s", text)
	}
	// A name that is not a cluster is still a job.
	text = blocks.Text(a.Ask(t.Context(), u, "my job train -n sc-multikueue-admitted").Blocks)
	if !strings.Contains(text, "several clusters") {
		t.Errorf("my job train is a question about train:\n%s", text)
	}
}

func TestQueuesAcrossClusters(t *testing.T) {
	a := clusterAsker(t)
	u := rbac.SlackUser{ID: "U1", TeamID: "T1"}
	m := a.Ask(t.Context(), u, "my queues -n sc-multikueue-admitted")
	text := blocks.Text(m.Blocks)
	for _, want := range []string{"manager: sc-multikueue-admitted/", "gpu-west: sc-multikueue-admitted/"} {
		if !strings.Contains(text, want) {
			t.Errorf("my queues lacks %q:\n%s", want, text)
		}
	}
	// Naming a cluster lists there only.
	m = a.Ask(t.Context(), u, "queues gpu-west -n sc-multikueue-admitted")
	text = blocks.Text(m.Blocks)
	if !strings.Contains(text, "gpu-west: sc-multikueue-admitted/") || strings.Contains(text, "manager:") {
		t.Errorf("queues gpu-west lists other clusters, or not gpu-west's:\n%s", text)
	}
}

func TestQueuesClusterFails(t *testing.T) {
	a := clusterAsker(t)
	f := a.Queues.(*explain.Fleet)
	down, err := explain.NewFleet([]*explain.Cluster{
		f.Cluster("manager"),
		{Name: "gpu-east", Explainer: &explain.Explainer{Reader: downReader{}}, Timeout: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	a.Queues = down
	m := a.Ask(t.Context(), rbac.SlackUser{ID: "U1", TeamID: "T1"}, "my queues -n sc-multikueue-admitted")
	text := blocks.Text(m.Blocks)
	if !strings.Contains(text, "manager: sc-multikueue-admitted/") || !strings.Contains(text, "`gpu-east` did not answer: connection refused") {
		t.Errorf("want manager's queues and gpu-east named as failed:\n%s", text)
	}
}

// downReader is a cluster whose API server refuses every connection.
type downReader struct{}

func (downReader) Namespaces(context.Context, rbac.Identity, string) (rbac.Namespaces, error) {
	return rbac.Namespaces{}, errors.New("connection refused")
}

func (downReader) Snapshot(context.Context, rbac.Identity, diagnose.Target) (*diagnose.Snapshot, error) {
	return nil, errors.New("connection refused")
}

func (downReader) List(context.Context, rbac.Identity, []string) (explain.Listing, error) {
	return explain.Listing{}, errors.New("connection refused")
}

// A support-channel question is answered as its poster across their
// clusters, as a mention is: the cluster it names, else a "which one?".
func TestTriageAcrossClusters(t *testing.T) {
	a := clusterAsker(t)
	u := rbac.SlackUser{ID: "U1", TeamID: "T1"}
	o := a.triage(t.Context(), u, "why is train still pending on gpu-west -n sc-multikueue-admitted?")
	if o.report == nil || o.report.Cluster != "gpu-west" {
		t.Fatalf("triage naming gpu-west: %+v", o)
	}
	o = a.triage(t.Context(), u, "why is train still pending -n sc-multikueue-admitted?")
	if o.verdict != "which-cluster" || o.notice == nil || !strings.Contains(blocks.Text(o.notice.Blocks), "gpu-west") {
		t.Fatalf("triage in two clusters: want which-cluster, got %+v", o)
	}
}
