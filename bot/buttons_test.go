package bot

import (
	"context"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

const trainRef = "team-a/JobSet/train-7"

// fakeJobs lists two waiting jobs for whoever asks, and records who.
type fakeJobs struct {
	mu    sync.Mutex
	calls []rbac.Identity
}

func (f *fakeJobs) Jobs(_ context.Context, id rbac.Identity, _ explain.JobsQuery) (explain.JobsResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, id)
	f.mu.Unlock()
	other := waitingReport()
	other.Target.Name, other.Verdict.Headline = "train-8", "train-8 waits for quota in cq-gpu"
	return explain.JobsResult{
		Jobs:       []diagnose.Report{waitingReport(), other},
		Namespaces: rbac.Namespaces{Names: id.Namespaces, Source: rbac.SourceConfigured},
	}, nil
}

func (f *fakeJobs) Calls() []rbac.Identity {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rbac.Identity(nil), f.calls...)
}

// fakeQueues summarises two LocalQueues for whoever asks.
type fakeQueues struct{}

func (fakeQueues) Queues(_ context.Context, id rbac.Identity, _ explain.QueuesQuery) (explain.QueuesResult, error) {
	return explain.QueuesResult{
		Queues: []diagnose.QueueSummary{
			{Kind: diagnose.QueueKindLocal, Namespace: "team-a", Name: "gpu", ClusterQueue: "cq-gpu", State: diagnose.QueueActive, Pending: 3, Admitted: 1, NominalKnown: true,
				Usage: []diagnose.ResourceUsage{{Flavor: "a100", Resource: "nvidia.com/gpu", Used: resource.MustParse("4"), Nominal: resource.MustParse("8"), Percent: 50}}},
			{Kind: diagnose.QueueKindLocal, Namespace: "team-a", Name: "cpu <!here>", ClusterQueue: "cq-cpu", State: diagnose.QueueStopped},
		},
		Namespaces: rbac.Namespaces{Names: id.Namespaces},
	}, nil
}

// TestButtons presses every button as Slack sends it and checks where the
// answer goes and whom it is read as.
func TestButtons(t *testing.T) {
	jobs := &fakeJobs{}
	h := startSocket(t, harnessOptions{jobs: jobs, queues: fakeQueues{}})
	fs := h.fs
	press := func(env string, b slackfake.BlockAction) slackfake.Post {
		t.Helper()
		if b.ResponseURL == "" && !b.InHome {
			b.ResponseURL = fs.ResponseURL(env)
		}
		b.TriggerID = "trig-" + env
		h.send(t, slackfake.InteractiveEnvelope(env, b.Payload()))
		return h.post(t)
	}
	lastAs := func() string {
		calls := h.diag.Calls()
		if len(calls) == 0 {
			return ""
		}
		return calls[len(calls)-1].ID.User
	}

	t.Run("Refresh on an ephemeral answer replaces it through response_url", func(t *testing.T) {
		p := press("r1", slackfake.BlockAction{User: alice.ID, Channel: "C1", MessageTS: "1.0", Ephemeral: true, ActionID: blocks.ActionRefresh, Value: trainRef})
		if p.Method != slackfake.MethodResponseURL || !p.ReplaceOriginal || p.ResponseType != "ephemeral" {
			t.Errorf("refresh delivered as %+v", p)
		}
		got := textOf(t, p.Blocks)
		if !strings.Contains(got, answerHeadline) || !strings.Contains(got, "action="+blocks.ActionShare) {
			t.Errorf("refreshed answer:\n%s", got)
		}
		if as := lastAs(); as != aliceID.User {
			t.Errorf("read as %q, want alice", as)
		}
		if q := h.diag.Calls()[len(h.diag.Calls())-1].Req; q.Namespace != "team-a" || q.Kind != "JobSet" || q.Name != "train-7" {
			t.Errorf("asked %+v, want the button's job", q)
		}
	})
	t.Run("Refresh in a DM updates the message in place", func(t *testing.T) {
		p := press("r2", slackfake.BlockAction{User: alice.ID, Channel: "D1", MessageTS: "2.0", ActionID: blocks.ActionRefresh, Value: trainRef})
		if p.Method != "chat.update" || p.Channel != "D1" || p.TS != "2.0" {
			t.Errorf("refresh delivered as %+v", p)
		}
	})
	t.Run("Show quota and evidence replaces with the details", func(t *testing.T) {
		p := press("d1", slackfake.BlockAction{User: alice.ID, Channel: "C1", MessageTS: "3.0", Ephemeral: true, ActionID: blocks.ActionDetails, Value: trainRef})
		got := textOf(t, p.Blocks)
		if p.Method != slackfake.MethodResponseURL || !p.ReplaceOriginal || !strings.Contains(got, "gpu-a100") || strings.Contains(got, "action="+blocks.ActionDetails) {
			t.Errorf("details delivered as %+v:\n%s", p, got)
		}
	})
	t.Run("Refresh pressed by someone else on a shared answer: answered as them, privately", func(t *testing.T) {
		p := press("o1", slackfake.BlockAction{User: bob.ID, Channel: "C1", MessageTS: "4.0", ActionID: blocks.ActionRefresh, Value: trainRef})
		if p.Method != slackfake.MethodResponseURL || p.ReplaceOriginal || p.ResponseType != "ephemeral" {
			t.Errorf("bob's refresh delivered as %+v: the shared message must not change", p)
		}
		if as := lastAs(); as != bobID.User {
			t.Errorf("read as %q, want bob", as)
		}
	})
	t.Run("a press by an unmapped user is refused, nothing read", func(t *testing.T) {
		before := len(h.diag.Calls())
		p := press("u1", slackfake.BlockAction{User: carol.ID, Channel: "C1", MessageTS: "4.0", ActionID: blocks.ActionRefresh, Value: trainRef})
		if p.Method != slackfake.MethodResponseURL || p.ReplaceOriginal || !strings.Contains(textOf(t, p.Blocks), "not allowed") {
			t.Errorf("carol's press delivered as %+v", p)
		}
		if len(h.diag.Calls()) != before {
			t.Error("read the cluster for an unmapped user")
		}
	})
	t.Run("Share in channel posts in the thread for everyone and removes the ephemeral", func(t *testing.T) {
		p := press("s1", slackfake.BlockAction{User: alice.ID, Channel: "C1", MessageTS: "5.1", ThreadTS: "5.0", Ephemeral: true, ActionID: blocks.ActionShare, Value: trainRef})
		got := textOf(t, p.Blocks)
		if p.Method != "chat.postMessage" || p.Channel != "C1" || p.ThreadTS != "5.0" || !strings.Contains(got, "Shared by <@"+alice.ID+">") || strings.Contains(got, "action="+blocks.ActionShare) {
			t.Errorf("share delivered as %+v:\n%s", p, got)
		}
		if del := h.post(t); del.Method != slackfake.MethodResponseURL || !del.DeleteOriginal {
			t.Errorf("ephemeral not removed: %+v", del)
		}
	})
	t.Run("Share in a DM between two people goes through response_url", func(t *testing.T) {
		fs.Fail("chat.postMessage", 1, "channel_not_found")
		p := press("s2", slackfake.BlockAction{User: alice.ID, Channel: "D0PEOPLE", MessageTS: "6.0", Ephemeral: true, ActionID: blocks.ActionShare, Value: trainRef})
		if p.Method != slackfake.MethodResponseURL || p.ResponseType != "in_channel" {
			t.Errorf("share delivered as %+v", p)
		}
		if del := h.post(t); !del.DeleteOriginal {
			t.Errorf("ephemeral not removed: %+v", del)
		}
	})
	t.Run("a which-cluster button replaces the question with the job's answer in that cluster", func(t *testing.T) {
		p := press("c1", slackfake.BlockAction{User: alice.ID, Channel: "C1", MessageTS: "8.0", Ephemeral: true, ActionID: blocks.ActionCluster, Value: trainRef + "/gpu-west"})
		if p.Method != slackfake.MethodResponseURL || !p.ReplaceOriginal || !strings.Contains(textOf(t, p.Blocks), answerHeadline) {
			t.Errorf("cluster choice delivered as %+v", p)
		}
		if c := h.diag.Calls()[len(h.diag.Calls())-1]; c.Cluster != "gpu-west" || c.Req.Name != "train-7" || c.ID.User != aliceID.User {
			t.Errorf("asked %+v, want train-7 on gpu-west as alice", c)
		}
	})
	t.Run("the picker opens the job privately", func(t *testing.T) {
		p := press("p1", slackfake.BlockAction{User: alice.ID, Channel: "C1", MessageTS: "7.0", Ephemeral: true, ActionID: blocks.ActionPick, Selected: trainRef})
		if p.Method != slackfake.MethodResponseURL || p.ReplaceOriginal || !strings.Contains(textOf(t, p.Blocks), answerHeadline) {
			t.Errorf("pick delivered as %+v", p)
		}
	})
	t.Run("the picker on the Home tab answers in the DM", func(t *testing.T) {
		p := press("p2", slackfake.BlockAction{User: alice.ID, InHome: true, ActionID: blocks.ActionPick, Selected: trainRef})
		if p.Method != "chat.postMessage" || p.Channel != alice.ID || !strings.Contains(textOf(t, p.Blocks), answerHeadline) {
			t.Errorf("home pick delivered as %+v", p)
		}
	})
	t.Run("a forged value is refused", func(t *testing.T) {
		before := len(h.diag.Calls())
		p := press("f1", slackfake.BlockAction{User: alice.ID, Channel: "C1", MessageTS: "8.0", Ephemeral: true, ActionID: blocks.ActionRefresh, Value: "../etc/passwd"})
		if !strings.Contains(textOf(t, p.Blocks), "out of date") || len(h.diag.Calls()) != before {
			t.Errorf("forged value answered %+v", p)
		}
	})
	t.Run("Home tab: the opener's jobs, read as them", func(t *testing.T) {
		h.send(t, slackfake.EventsEnvelope("h1", "EvH1", 0, slackfake.HomeOpened(bob.ID)))
		p := h.post(t)
		got := textOf(t, p.Blocks)
		if p.Method != "views.publish" || p.User != bob.ID || !strings.Contains(got, "train-8") || !strings.Contains(got, "action="+blocks.ActionPick) {
			t.Errorf("home published as %+v:\n%s", p, got)
		}
		if calls := jobs.Calls(); len(calls) == 0 || calls[len(calls)-1].User != bobID.User {
			t.Errorf("jobs listed as %+v, want bob", calls)
		}
	})
	t.Run("Home tab of an unmapped user shows the refusal", func(t *testing.T) {
		n := len(jobs.Calls())
		h.send(t, slackfake.EventsEnvelope("h2", "EvH2", 0, slackfake.HomeOpened(carol.ID)))
		p := h.post(t)
		if p.Method != "views.publish" || p.User != carol.ID || !strings.Contains(textOf(t, p.Blocks), "not allowed") || len(jobs.Calls()) != n {
			t.Errorf("carol's home %+v", p)
		}
	})
	t.Run("/kueue jobs lists the caller's jobs with a picker", func(t *testing.T) {
		h.send(t, slackfake.SlashEnvelope("j1", slackfake.SlashCommand(alice.ID, "C1", "jobs", fs.ResponseURL("j1"), "trig-j1")))
		p := h.post(t)
		got := textOf(t, p.Blocks)
		if p.Method != slackfake.MethodResponseURL || !strings.Contains(got, "train-8") || !strings.Contains(got, "value="+trainRef) {
			t.Errorf("jobs delivered as %+v:\n%s", p, got)
		}
	})
	t.Run("/kueue queues lists the caller's queues, escaped", func(t *testing.T) {
		h.send(t, slackfake.SlashEnvelope("q1", slackfake.SlashCommand(alice.ID, "C1", "queues", fs.ResponseURL("q1"), "trig-q1")))
		p := h.post(t)
		got := textOf(t, p.Blocks)
		for _, want := range []string{"Your queues", "team-a/gpu", "`cq-gpu`", "3 pending · 1 admitted", "4 / 8", "50%", "&lt;!here&gt;"} {
			if !strings.Contains(got, want) {
				t.Errorf("queues answer lacks %q:\n%s", want, got)
			}
		}
		if p.Method != slackfake.MethodResponseURL || strings.Contains(got, "<!here>") {
			t.Errorf("queues delivered as %+v", p)
		}
	})
	t.Run("queue NAME narrows the list", func(t *testing.T) {
		h.send(t, slackfake.SlashEnvelope("q2", slackfake.SlashCommand(alice.ID, "C1", "queues gpu", fs.ResponseURL("q2"), "trig-q2")))
		got := textOf(t, h.post(t).Blocks)
		if !strings.Contains(got, "team-a/gpu") || strings.Contains(got, "cq-cpu") {
			t.Errorf("one queue asked, got:\n%s", got)
		}
	})
}
