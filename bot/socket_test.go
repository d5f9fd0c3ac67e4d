package bot

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestSocketMode(t *testing.T) {
	fs := slackfake.New(t)
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}}
	sm := &SocketMode{
		Client:  fs.Client(),
		Asker:   &Asker{Resolve: &fakeResolver{ids: map[string]rbac.Identity{alice.ID: aliceID}}, Explain: diag},
		Workers: 2,
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- sm.Run(ctx) }()
	conn := slackfake.Receive(t, fs.Conns, "the Socket Mode connection")

	mention := map[string]any{"type": "app_mention", "user": alice.ID, "text": "<@UBOT> why is train-7 waiting?", "ts": "1.0", "channel": "C1", "event_ts": "1.0"}
	envelopes := []map[string]any{
		slackfake.EventsEnvelope("e1", "Ev1", 0, mention),
		slackfake.EventsEnvelope("e2", "Ev1", 1, mention), // Slack's retry: same event_id
		slackfake.EventsEnvelope("e3", "Ev3", 0, map[string]any{"type": "app_mention", "user": "U0OTHER", "bot_id": "B9", "text": "<@UBOT> train-7", "ts": "3.0", "channel": "C1"}),
		slackfake.EventsEnvelope("e4", "Ev4", 0, map[string]any{"type": "message", "channel_type": "im", "user": "UBOT", "text": "train-7", "ts": "4.0", "channel": "D1"}),
		slackfake.EventsEnvelope("e5", "Ev5", 0, map[string]any{"type": "message", "channel_type": "channel", "user": alice.ID, "text": "train-7", "ts": "5.0", "channel": "C1"}),
		slackfake.EventsEnvelope("e6", "Ev6", 0, map[string]any{"type": "message", "subtype": "message_changed", "channel_type": "im", "channel": "D1", "ts": "6.0"}),
		slackfake.EventsEnvelope("e7", "Ev7", 0, map[string]any{"type": "message", "channel_type": "im", "user": alice.ID, "text": "train-7", "ts": "7.0", "channel": "D1"}),
		{
			"envelope_id": "e8", "type": "slash_commands", "accepts_response_payload": true,
			"payload": map[string]any{
				"token": "x", "team_id": slackfake.TeamID, "channel_id": "C2", "user_id": alice.ID,
				"command": "/kueue", "text": "train-7 -n team-a", "response_url": fs.APIURL() + "response", "trigger_id": "t1",
			},
		},
	}
	for _, env := range envelopes {
		if err := conn.WriteJSON(env); err != nil {
			t.Fatalf("sending %v: %v", env["envelope_id"], err)
		}
	}
	var acked []string
	for range envelopes {
		acked = append(acked, slackfake.Receive(t, fs.Acks, "an ack"))
	}
	sort.Strings(acked)
	if diff := cmp.Diff([]string{"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"}, acked); diff != "" {
		t.Errorf("acks (-want +got):\n%s", diff)
	}

	var posts []slackfake.Post
	for range 3 {
		posts = append(posts, slackfake.Receive(t, fs.Posts, "an answer"))
	}
	sort.Slice(posts, func(i, j int) bool { return posts[i].Method+posts[i].Channel < posts[j].Method+posts[j].Channel })
	answer := "train-7 waits for quota in cq-gpu (JobSet team-a/train-7)"
	want := []slackfake.Post{
		{Method: "chat.postEphemeral", Channel: "C2", User: alice.ID, HasBlocks: true, Text: answer},
		{Method: "chat.postMessage", Channel: "C1", ThreadTS: "1.0", HasBlocks: true, Text: answer},
		{Method: "chat.postMessage", Channel: "D1", HasBlocks: true, Text: answer},
	}
	if diff := cmp.Diff(want, posts, cmpopts.IgnoreFields(slackfake.Post{}, "Blocks")); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	// Every event was triaged by the loop before its ack; only three
	// became questions.
	select {
	case p := <-fs.Posts:
		t.Errorf("unexpected extra answer %+v", p)
	case <-time.After(100 * time.Millisecond):
	}
	if n := len(diag.calls); n != 3 {
		t.Errorf("Diagnose called %d times, want 3", n)
	}

	cancel()
	if err := slackfake.Receive(t, errc, "Run to return"); err != nil {
		t.Errorf("Run = %v, want nil after cancel", err)
	}
}

func TestSocketModeInvalidAuth(t *testing.T) {
	fs := slackfake.New(t)
	fs.InvalidAuth = true
	sm := &SocketMode{Client: fs.Client(), Asker: &Asker{Resolve: &fakeResolver{}, Explain: &fakeDiagnoser{}}}
	errc := make(chan error, 1)
	go func() { errc <- sm.Run(t.Context()) }()
	if err := slackfake.Receive(t, errc, "Run to fail"); !errors.Is(err, ErrInvalidAuth) {
		t.Errorf("Run = %v, want ErrInvalidAuth", err)
	}
}

func TestDedupe(t *testing.T) {
	d := newDedupe(2)
	var got []string
	for _, k := range []string{"a", "a", "b", "c", "a", "c"} {
		got = append(got, fmt.Sprint(k, "=", d.add(k)))
	}
	// "a" is forgotten once two newer keys arrived.
	want := []string{"a=true", "a=false", "b=true", "c=true", "a=true", "c=false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
