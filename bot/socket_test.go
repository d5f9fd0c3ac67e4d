package bot

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

const answerHeadline = "train-7 waits for quota in cq-gpu"

// TestSocketModeEntryPoints sends each way to ask through a real
// socketmode.Client and checks where the answer goes: private by default
// in channels, normal in DMs, through response_url for the slash command
// and the shortcut (even in a conversation the bot is not in), the Home
// tab through views.publish. Bots, the bot itself, channel chatter, edits
// and Slack's retries get no answer.
func TestSocketModeEntryPoints(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	fs := h.fs

	tests := []struct {
		name     string
		envelope map[string]any
		want     slackfake.Post // Blocks and At ignored; Text must contain want.Text
	}{
		{
			name:     "mention in a channel: ephemeral, in the channel (not a thread)",
			envelope: slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> why is train-7 waiting?")),
			want:     slackfake.Post{Method: "chat.postEphemeral", Channel: "C1", User: alice.ID},
		},
		{
			name:     "mention in a thread: ephemeral in the thread",
			envelope: slackfake.EventsEnvelope("m2", "EvM2", 0, slackfake.Mention(alice.ID, "C1", "2.5", "2.0", "<@UBOT> train-7")),
			want:     slackfake.Post{Method: "chat.postEphemeral", Channel: "C1", User: alice.ID, ThreadTS: "2.0"},
		},
		{
			name:     "direct message: a normal message in the DM",
			envelope: slackfake.EventsEnvelope("d1", "EvD1", 0, slackfake.DirectMessage(alice.ID, "D1", "3.0", "train-7")),
			want:     slackfake.Post{Method: "chat.postMessage", Channel: "D1"},
		},
		{
			name:     "slash command in a DM between two people: response_url",
			envelope: slackfake.SlashEnvelope("s1", slackfake.SlashCommand(alice.ID, "D0PEOPLE", "why train-7", fs.ResponseURL("s1"), "trig-s1")),
			want:     slackfake.Post{Method: slackfake.MethodResponseURL, ResponseURL: "s1", ResponseType: "ephemeral"},
		},
		{
			name:     "message shortcut: response_url, private",
			envelope: slackfake.InteractiveEnvelope("sc1", slackfake.MessageShortcut(alice.ID, "C1", transport.ShortcutWhy, "4.0", "hey, why is train-7 still pending?", fs.ResponseURL("sc1"), "trig-sc1")),
			want:     slackfake.Post{Method: slackfake.MethodResponseURL, ResponseURL: "sc1", ResponseType: "ephemeral"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ephemerals := fs.Calls("chat.postEphemeral")
			h.send(t, tt.envelope)
			got := h.post(t)
			if tt.want.Method == slackfake.MethodResponseURL && fs.Calls("chat.postEphemeral") != ephemerals {
				// chat.postEphemeral fails channel_not_found in a DM
				// between two people: response_url works anywhere.
				t.Error("answered with chat.postEphemeral, not through response_url")
			}
			if !strings.Contains(textOf(t, got.Blocks), answerHeadline) {
				t.Errorf("answer lacks the diagnosis:\n%s", textOf(t, got.Blocks))
			}
			got.Blocks, got.HasBlocks, got.Text, got.At = "", false, "", time.Time{}
			if got != tt.want {
				t.Errorf("delivered as %+v\nwant %+v", got, tt.want)
			}
		})
	}

	t.Run("retries, bots, itself, chatter and edits get nothing", func(t *testing.T) {
		before := len(h.diag.Calls())
		for _, env := range []map[string]any{
			slackfake.EventsEnvelope("r1", "EvM1", 1, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> why is train-7 waiting?")),
			slackfake.EventsEnvelope("b1", "EvB1", 0, map[string]any{"type": "app_mention", "user": "U0OTHER", "bot_id": "B9", "text": "<@UBOT> train-7", "ts": "5.0", "channel": "C1"}),
			slackfake.EventsEnvelope("b2", "EvB2", 0, slackfake.DirectMessage(slackfake.BotUserID, "D1", "6.0", "train-7")),
			slackfake.EventsEnvelope("b3", "EvB3", 0, map[string]any{"type": "message", "channel_type": "channel", "user": alice.ID, "text": "train-7", "ts": "7.0", "channel": "C1"}),
			slackfake.EventsEnvelope("b4", "EvB4", 0, map[string]any{"type": "message", "subtype": "message_changed", "channel_type": "im", "channel": "D1", "ts": "8.0"}),
			slackfake.EventsEnvelope("b5", "EvB5", 0, slackfake.HomeOpened(alice.ID)),
		} {
			h.send(t, env)
		}
		// Only the Home tab (the last one) is published.
		if got := h.post(t); got.Method != "views.publish" || got.User != alice.ID {
			t.Errorf("want only the Home tab published, got %+v", got)
		}
		slackfake.Quiet(t, fs.Posts, 200*time.Millisecond, "answer")
		if n := len(h.diag.Calls()) - before; n != 0 {
			t.Errorf("Explain called %d more times, want 0", n)
		}
	})

	if err := h.stop(t, 5*time.Second); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestThreadMode: with slack.replies thread, mentions are answered in the
// thread for everyone; the slash command stays private.
func TestThreadMode(t *testing.T) {
	h := startSocket(t, harnessOptions{mode: RepliesThread})
	h.send(t, slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> train-7")))
	if got := h.post(t); got.Method != "chat.postMessage" || got.Channel != "C1" || got.ThreadTS != "1.0" {
		t.Errorf("mention answered as %+v, want in the thread 1.0", got)
	} else if strings.Contains(textOf(t, got.Blocks), "action="+blocks.ActionShare) {
		t.Error("a public answer offers Share in channel")
	}
	h.send(t, slackfake.SlashEnvelope("s1", slackfake.SlashCommand(alice.ID, "C1", "train-7", h.fs.ResponseURL("s1"), "t1")))
	if got := h.post(t); got.Method != slackfake.MethodResponseURL || got.ResponseType != "ephemeral" {
		t.Errorf("slash answered as %+v, want ephemeral through response_url", got)
	}
}

// TestPrivateAnswersCanBeShared: a private answer carries Share in
// channel; a DM's does not.
func TestPrivateAnswersCanBeShared(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	h.send(t, slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> train-7")))
	got := textOf(t, h.post(t).Blocks)
	for _, want := range []string{"action=" + blocks.ActionRefresh, "action=" + blocks.ActionDetails, "action=" + blocks.ActionShare, "value=team-a/JobSet/train-7"} {
		if !strings.Contains(got, want) {
			t.Errorf("ephemeral answer lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "gpu-a100") {
		t.Errorf("the compact answer shows the quota table:\n%s", got)
	}
	h.send(t, slackfake.EventsEnvelope("d1", "EvD1", 0, slackfake.DirectMessage(alice.ID, "D1", "2.0", "train-7")))
	if got := textOf(t, h.post(t).Blocks); strings.Contains(got, "action="+blocks.ActionShare) {
		t.Errorf("a DM answer offers Share in channel:\n%s", got)
	}
}

// TestUnmappedUserRefused: a user the resolver does not know is refused
// privately, and nothing is read for them.
func TestUnmappedUserRefused(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	h.send(t, slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(carol.ID, "C1", "1.0", "", "<@UBOT> train-7")))
	got := h.post(t)
	if got.Method != "chat.postEphemeral" || got.User != carol.ID || !strings.Contains(textOf(t, got.Blocks), "not allowed") {
		t.Errorf("refusal %+v:\n%s", got, textOf(t, got.Blocks))
	}
	if n := len(h.diag.Calls()); n != 0 {
		t.Errorf("Explain called %d times for an unmapped user", n)
	}
}

// TestRateLimitedAnswerRetried: a 429 with Retry-After on the answer's
// call is retried after the wait, and the answer arrives.
func TestRateLimitedAnswerRetried(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	h.fs.RateLimit("chat.postEphemeral", 1, 1)
	start := time.Now()
	h.send(t, slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> train-7")))
	got := h.post(t)
	if got.Method != "chat.postEphemeral" || !strings.Contains(textOf(t, got.Blocks), answerHeadline) {
		t.Fatalf("got %+v", got)
	}
	if waited := got.At.Sub(start); waited < time.Second {
		t.Errorf("answered after %s: Retry-After 1 s was not honoured", waited)
	}
	if n := h.fs.Calls("chat.postEphemeral"); n != 2 {
		t.Errorf("chat.postEphemeral called %d times, want 2 (the 429, then the answer)", n)
	}
}

// TestResponseURLFailureFallsBackToDM: an expired response_url does not
// lose the answer: it goes to the asker's DM with the bot.
func TestResponseURLFailureFallsBackToDM(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	h.fs.Fail(slackfake.MethodResponseURL, 1, "expired_url")
	h.send(t, slackfake.SlashEnvelope("s1", slackfake.SlashCommand(alice.ID, "C1", "train-7", h.fs.ResponseURL("s1"), "t1")))
	got := h.post(t)
	if got.Method != "chat.postMessage" || got.Channel != alice.ID || !strings.Contains(textOf(t, got.Blocks), answerHeadline) {
		t.Errorf("fallback %+v", got)
	}
}

// TestSocketModeShutdownDeliversInFlight: SIGTERM (the context ends) with
// ten questions in flight: the transport stops, and every acked question
// is answered.
func TestSocketModeShutdownDeliversInFlight(t *testing.T) {
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{}, delay: 300 * time.Millisecond}
	h := startSocket(t, harnessOptions{diag: diag, disp: dispatch.Options{Workers: 4}})
	for i := range 10 {
		id := fmt.Sprintf("e%d", i)
		h.send(t, slackfake.EventsEnvelope(id, "Ev"+id, 0, slackfake.Mention(alice.ID, "C1", id, "", fmt.Sprintf("<@UBOT> job-%d", i))))
	}
	if err := h.stop(t, 10*time.Second); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	seen := map[string]bool{}
	for range 10 {
		p := h.post(t)
		for i := range 10 {
			if strings.Contains(textOf(t, p.Blocks), fmt.Sprintf("job-%d", i)) {
				seen[fmt.Sprint(i)] = true
			}
		}
	}
	if len(seen) != 10 {
		t.Errorf("answered %d of 10 questions in flight", len(seen))
	}
	if ok, _ := h.ready.Ready(); ok {
		t.Error("still ready after shutdown")
	}
}

func TestSocketModeInvalidAuth(t *testing.T) {
	fs := slackfake.New(t)
	fs.InvalidAuth = true
	d := dispatch.New(&Bot{Asker: &Asker{Resolve: &fakeResolver{}, Explain: &fakeDiagnoser{}}}, dispatch.Options{})
	defer d.Shutdown(t.Context()) //nolint:errcheck // nothing in flight
	sm := &transport.SocketMode{Client: fs.Client(), Dispatcher: d}
	errc := make(chan error, 1)
	go func() { errc <- sm.Run(t.Context()) }()
	if err := slackfake.Receive(t, errc, "Run to fail"); !errors.Is(err, transport.ErrInvalidAuth) {
		t.Errorf("Run = %v, want transport.ErrInvalidAuth", err)
	}
}

// TestReadiness: ready while connected, not before, not after.
func TestReadiness(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if ok, _ := h.ready.Ready(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready while connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := h.stop(t, time.Second); err != nil {
		t.Fatal(err)
	}
	if ok, reason := h.ready.Ready(); ok {
		t.Errorf("ready after stop (%s)", reason)
	}
}

// TestSocketModeReconnects: when Slack asks the connection to close
// ({"type":"disconnect"}), the client opens a new one and questions sent
// on it are answered.
func TestSocketModeReconnects(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	if _, err := h.fs.Send(h.conn, map[string]any{"type": "disconnect", "reason": "refresh_requested", "debug_info": map[string]any{"host": "applink-1"}}); err != nil {
		t.Fatal(err)
	}
	h.conn = slackfake.Receive(t, h.fs.Conns, "a new Socket Mode connection")
	h.send(t, mention("after", "train-7"))
	if got := textOf(t, h.post(t).Blocks); !strings.Contains(got, answerHeadline) {
		t.Errorf("after reconnecting, answered with:\n%s", got)
	}
	if n := h.fs.Calls("apps.connections.open"); n != 2 {
		t.Errorf("apps.connections.open called %d times, want 2", n)
	}
}

// TestReactions: the Replier's reactions reach Slack (the triage feature
// marks messages with them).
func TestReactions(t *testing.T) {
	fs := slackfake.New(t)
	r := &delivery.SlackReplier{API: delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-test", APIURL: fs.APIURL()})}
	if err := r.AddReaction(t.Context(), "C1", "1.0", "eyes"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveReaction(t.Context(), "C1", "1.0", "eyes"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reactions.add", "reactions.remove"} {
		if p := slackfake.Receive(t, fs.Posts, want); p.Method != want || p.Channel != "C1" || p.TS != "1.0" || p.Reaction != "eyes" {
			t.Errorf("got %+v, want %s of eyes on C1/1.0", p, want)
		}
	}
}
