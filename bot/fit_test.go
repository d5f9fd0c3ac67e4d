package bot

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// fakeChecker answers every manifest with "waits" and records what it was
// given, as whom.
type fakeChecker struct {
	mu    sync.Mutex
	calls []checkCall
}

type checkCall struct {
	ID       rbac.Identity
	Manifest string
	File     string
}

func (f *fakeChecker) Check(_ context.Context, id rbac.Identity, req explain.CheckRequest) (explain.CheckResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, checkCall{ID: id, Manifest: string(req.Manifest), File: req.File})
	f.mu.Unlock()
	return explain.CheckResult{Report: diagnose.CheckReport{
		Target:     diagnose.TargetInfo{Kind: "Job", Namespace: "team-a", Name: "train-7"},
		QueueNamed: true,
		Queues: []diagnose.QueueCheck{{
			LocalQueue: "user-queue", ClusterQueue: "gpu", Fit: diagnose.FitWaits,
			Headline: "job/train-7 would wait: other workloads in ClusterQueue gpu hold 6 of its 8 nvidia.com/gpu",
		}},
	}}, nil
}

func (f *fakeChecker) Calls() []checkCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]checkCall(nil), f.calls...)
}

const fitManifest = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train-7\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"

// TestWillItFitShortcut: the "Will this fit?" shortcut checks the manifest
// of the message it was used on (a code block, with Slack's escaping
// undone; else an attached YAML file downloaded with the bot token) as the
// presser, and answers privately through response_url; a message with no
// manifest and an unmapped presser get a notice and no check.
func TestWillItFitShortcut(t *testing.T) {
	chk := &fakeChecker{}
	h := startSocket(t, harnessOptions{check: chk})
	shortcut := func(id, user, text string) map[string]any {
		return slackfake.MessageShortcut(user, "C1", transport.ShortcutFit, "6.0", text, h.fs.ResponseURL(id), "trig-"+id)
	}

	h.send(t, slackfake.InteractiveEnvelope("f1", shortcut("f1", alice.ID, "will this fit?\n```"+fitManifest+"```")))
	p := h.post(t)
	if p.Method != slackfake.MethodResponseURL || p.ResponseURL != "f1" || p.ResponseType == "in_channel" {
		t.Errorf("answer went to %s %q (%s), want the presser's response_url, privately", p.Method, p.ResponseURL, p.ResponseType)
	}
	if txt := textOf(t, p.Blocks); !strings.Contains(txt, "Will job/train-7 fit?") || !strings.Contains(txt, "hold 6 of its 8") {
		t.Errorf("answer:\n%s", txt)
	}
	calls := chk.Calls()
	if len(calls) != 1 || calls[0].ID.User != aliceID.User || calls[0].Manifest != fitManifest || calls[0].File != "" {
		t.Fatalf("checks %+v, want one of the code block as alice", calls)
	}

	url := h.fs.AddFile("train.yaml", []byte(fitManifest))
	h.send(t, slackfake.InteractiveEnvelope("f2", slackfake.WithFiles(shortcut("f2", alice.ID, "here is my job"), map[string]string{"train.yaml": url})))
	p = h.post(t)
	if txt := textOf(t, p.Blocks); !strings.Contains(txt, "Will job/train-7 fit?") {
		t.Errorf("answer to a file:\n%s", txt)
	}
	if calls := chk.Calls(); len(calls) != 2 || calls[1].Manifest != fitManifest || calls[1].File != "train.yaml" {
		t.Errorf("checks %+v, want the file's content, named train.yaml", calls)
	}

	h.send(t, slackfake.InteractiveEnvelope("f3", shortcut("f3", alice.ID, "lunch at noon?")))
	p = h.post(t)
	if txt := textOf(t, p.Blocks); !strings.Contains(txt, "found no manifest") {
		t.Errorf("shortcut on chatter answered:\n%s", txt)
	}
	h.send(t, slackfake.InteractiveEnvelope("f4", shortcut("f4", carol.ID, "```"+fitManifest+"```")))
	p = h.post(t)
	if txt := textOf(t, p.Blocks); !strings.Contains(txt, "not allowed") {
		t.Errorf("an unmapped presser was answered:\n%s", txt)
	}
	if n := len(chk.Calls()); n != 2 {
		t.Errorf("%d checks, want 2 (none for chatter or an unmapped user)", n)
	}
}
