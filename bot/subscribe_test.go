package bot

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// fakeSubscriber records what the bot asked of notifications, for whom.
type fakeSubscriber struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeSubscriber) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeSubscriber) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeSubscriber) Subscribe(_ context.Context, u rbac.SlackUser, r blocks.JobRef) (blocks.Message, error) {
	f.record("subscribe " + u.ID + " " + r.String())
	return blocks.Notice("", "I will tell you when "+r.Name+" starts."), nil
}

func (f *fakeSubscriber) Unsubscribe(_ context.Context, u rbac.SlackUser, id string) (blocks.Message, error) {
	f.record("unsubscribe " + u.ID + " " + id)
	return blocks.Notice("", "Stopped."), nil
}

func (f *fakeSubscriber) StopAll(_ context.Context, u rbac.SlackUser) (blocks.Message, error) {
	f.record("stopall " + u.ID)
	return blocks.Notice("", "Stopped all."), nil
}

// TestNotifyEntryPoints: "Tell me when it starts" is offered on a pending
// answer and subscribes the presser; `/kueue notify JOB` finds the job as
// a question does (as the asker) and subscribes them; "stop" in the DM
// ends every subscription of the sender; Stop on a notification ends that
// one. An unmapped user is refused before anything is subscribed.
func TestNotifyEntryPoints(t *testing.T) {
	sub := &fakeSubscriber{}
	h := startSocket(t, harnessOptions{notify: sub})
	fs := h.fs

	h.send(t, slackfake.EventsEnvelope("n1", "Ev-n1", 0, slackfake.DirectMessage(alice.ID, "D1", "1.0", "why is train-7 waiting?")))
	p := h.post(t)
	if txt := textOf(t, p.Blocks); !strings.Contains(txt, "action="+blocks.ActionNotify) {
		t.Errorf("a pending answer offers no Tell me when it starts:\n%s", txt)
	}

	h.send(t, slackfake.SlashEnvelope("n2", slackfake.SlashCommand(alice.ID, "C1", "notify train-7", fs.ResponseURL("n2"), "trig-n2")))
	p = h.post(t)
	if txt := textOf(t, p.Blocks); p.Method != slackfake.MethodResponseURL || !strings.Contains(txt, "I will tell you when train-7 starts") {
		t.Errorf("/kueue notify answered by %s:\n%s", p.Method, txt)
	}
	if calls := h.diag.Calls(); len(calls) != 2 || calls[1].ID.User != aliceID.User || calls[1].Req.Name != "train-7" {
		t.Errorf("the job was not found as alice: %+v", calls)
	}

	h.send(t, slackfake.InteractiveEnvelope("n3", slackfake.BlockAction{User: bob.ID, Channel: "C1", MessageTS: "2.0", Ephemeral: true,
		ActionID: blocks.ActionNotify, Value: trainRef, ResponseURL: fs.ResponseURL("n3"), TriggerID: "trig-n3"}.Payload()))
	p = h.post(t)
	if p.Method != slackfake.MethodResponseURL || p.ResponseURL != "n3" || p.ReplaceOriginal {
		t.Errorf("the press was answered as %+v, want privately without replacing the answer", p)
	}

	h.send(t, slackfake.InteractiveEnvelope("n4", slackfake.BlockAction{User: alice.ID, Channel: "D1", MessageTS: "3.0",
		ActionID: blocks.ActionNotifyStop, Value: "sub-1", ResponseURL: fs.ResponseURL("n4"), TriggerID: "trig-n4"}.Payload()))
	h.post(t)
	h.send(t, slackfake.EventsEnvelope("n5", "Ev-n5", 0, slackfake.DirectMessage(alice.ID, "D1", "4.0", "stop")))
	if txt := textOf(t, h.post(t).Blocks); !strings.Contains(txt, "Stopped all") {
		t.Errorf("stop in the DM answered:\n%s", txt)
	}
	h.send(t, slackfake.SlashEnvelope("n6", slackfake.SlashCommand(carol.ID, "C1", "notify train-7", fs.ResponseURL("n6"), "trig-n6")))
	h.post(t)

	want := []string{
		"subscribe " + alice.ID + " " + trainRef,
		"subscribe " + bob.ID + " " + trainRef,
		"unsubscribe " + alice.ID + " sub-1",
		"stopall " + alice.ID,
	}
	if got := sub.Calls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notification calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNotifyButtonOnlyWhenPending: the button is on answers about jobs
// that have not started, and only when notifications are on.
func TestNotifyButtonOnlyWhenPending(t *testing.T) {
	running := waitingReport()
	running.Verdict.Stage, running.Verdict.Code = diagnose.StageRunning, diagnose.CodeRunning
	for _, tc := range []struct {
		name   string
		r      diagnose.Report
		notify bool
		want   bool
	}{
		{"pending, on", waitingReport(), true, true},
		{"pending, off", waitingReport(), false, false},
		{"running, on", running, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := blocks.Answer(tc.r, blocks.AnswerOptions{Notify: tc.notify})
			js, err := json.Marshal(m.Blocks)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(textOf(t, string(js)), "action="+blocks.ActionNotify); got != tc.want {
				t.Errorf("button offered: %t, want %t", got, tc.want)
			}
		})
	}
}
