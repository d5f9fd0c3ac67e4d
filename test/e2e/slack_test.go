package e2e

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// slackBot is the whole Slack pipeline (Socket Mode transport, dispatcher,
// handlers, Web API replies) in front of the bot of newBot, which reads the
// sandbox as each asking user.
type slackBot struct {
	fs   *slackfake.Server
	conn *websocket.Conn
	n    int
}

func startSlackBot(t *testing.T, sb string) *slackBot {
	t.Helper()
	return startSlackBotWith(t, sb, nil)
}

// startSlackBotWith is startSlackBot with setup run on the Asker before it
// answers (the fake Slack and the bot's Slack client at hand).
func startSlackBotWith(t *testing.T, sb string, setup func(a *bot.Asker, fs *slackfake.Server, api *slack.Client)) *slackBot {
	t.Helper()
	asker := newBot(t, sb)
	ex, ok := asker.Explain.(*explain.Explainer)
	if !ok {
		t.Fatalf("newBot's Explain is %T", asker.Explain)
	}
	asker.Jobs, asker.Queues = ex, ex
	fs := slackfake.New(t)
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-e2e", AppToken: "xapp-e2e", APIURL: fs.APIURL()})
	if setup != nil {
		setup(asker, fs, api)
	}
	disp := dispatch.New(&bot.Bot{Asker: asker, Replier: &delivery.SlackReplier{API: api}}, dispatch.Options{})
	sm := &transport.SocketMode{Client: socketmode.New(api), Dispatcher: disp, Decoder: &transport.Decoder{}}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- sm.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Socket Mode: %v", err)
		}
		_ = disp.Shutdown(context.Background())
	})
	return &slackBot{fs: fs, conn: slackfake.Receive(t, fs.Conns, "the Socket Mode connection")}
}

// ask sends one envelope and returns the bot's answer (its text and the
// write).
func (s *slackBot) ask(t *testing.T, env map[string]any) (string, slackfake.Post) {
	t.Helper()
	if _, err := s.fs.Send(s.conn, env); err != nil {
		t.Fatal(err)
	}
	p := slackfake.Receive(t, s.fs.Posts, "the answer")
	return p.Blocks, p
}

func (s *slackBot) id(prefix string) string {
	s.n++
	return prefix + strings.Repeat("x", s.n)
}

var reRefreshValue = regexp.MustCompile(`"action_id":"` + blocks.ActionRefresh + `","value":"([^"]+)"`)

// window is a time span in which one entry point's reads happened.
type window struct {
	what       string
	from, till time.Time
}

// TestSlackEntryPointsReadAsTheCaller drives every way to ask through the
// Slack pipeline against the sandbox: a mention, /kueue, the Refresh
// button and "my jobs" (/kueue jobs) from alice are answered from reads the API server's
// audit log shows made as alice (impersonated, with her Slack user ID); the
// same from carol, who is not mapped, are refused and cause no request at
// all.
func TestSlackEntryPointsReadAsTheCaller(t *testing.T) {
	sb := sandbox(t)
	s := startSlackBot(t, sb)
	start := time.Now().Add(-time.Second)
	const question = "why is sample-job -n sc-sample-job waiting?"

	var windows []window
	step := func(what string, env map[string]any, want string) slackfake.Post {
		t.Helper()
		from := time.Now().Add(-100 * time.Millisecond)
		got, p := s.ask(t, env)
		windows = append(windows, window{what, from, time.Now().Add(100 * time.Millisecond)})
		if !strings.Contains(got, want) {
			t.Errorf("%s: answer lacks %q:\n%s", what, want, got)
		}
		return p
	}

	mention := step("mention", slackfake.EventsEnvelope(s.id("m"), s.id("Ev"), 0, slackfake.Mention("U0000ALICE", "C1", "1.0", "", "<@UBOT> "+question)), "ExceedsMaxQuota")
	if mention.Method != "chat.postEphemeral" || mention.User != "U0000ALICE" {
		t.Errorf("mention answered as %+v, want ephemeral to alice", mention)
	}
	step("slash", slackfake.SlashEnvelope(s.id("s"), slackfake.SlashCommand("U0000ALICE", "C1", "why sample-job -n sc-sample-job", s.fs.ResponseURL("s1"), s.id("trig"))), "ExceedsMaxQuota")
	m := reRefreshValue.FindStringSubmatch(mention.Blocks)
	if m == nil {
		t.Fatalf("the answer has no Refresh button:\n%s", mention.Blocks)
	}
	refresh := step("refresh", slackfake.InteractiveEnvelope(s.id("b"), slackfake.BlockAction{
		User: "U0000ALICE", Channel: "C1", MessageTS: "1.5", Ephemeral: true, ActionID: blocks.ActionRefresh, Value: m[1],
		ResponseURL: s.fs.ResponseURL("b1"), TriggerID: s.id("trig"),
	}.Payload()), "ExceedsMaxQuota")
	if !refresh.ReplaceOriginal {
		t.Errorf("Refresh did not replace the ephemeral answer: %+v", refresh)
	}
	step("my jobs", slackfake.SlashEnvelope(s.id("s"), slackfake.SlashCommand("U0000ALICE", "C1", "jobs -n sc-sample-job", s.fs.ResponseURL("s2"), s.id("trig"))), "sc-sample-job/Job/sample-job")

	// carol: every entry point refused, nothing read.
	for _, env := range []map[string]any{
		slackfake.EventsEnvelope(s.id("m"), s.id("Ev"), 0, slackfake.Mention("U0000CAROL", "C1", "2.0", "", "<@UBOT> "+question)),
		slackfake.SlashEnvelope(s.id("s"), slackfake.SlashCommand("U0000CAROL", "C1", "why sample-job -n sc-sample-job", s.fs.ResponseURL("c1"), s.id("trig"))),
		slackfake.InteractiveEnvelope(s.id("b"), slackfake.BlockAction{
			User: "U0000CAROL", Channel: "C1", MessageTS: "1.5", ActionID: blocks.ActionRefresh, Value: m[1],
			ResponseURL: s.fs.ResponseURL("c2"), TriggerID: s.id("trig"),
		}.Payload()),
		slackfake.SlashEnvelope(s.id("s"), slackfake.SlashCommand("U0000CAROL", "C1", "jobs", s.fs.ResponseURL("c3"), s.id("trig"))),
	} {
		if got, _ := s.ask(t, env); !strings.Contains(got, "#platform-help") || strings.Contains(got, "ExceedsMaxQuota") {
			t.Errorf("carol should be refused with the contact:\n%s", got)
		}
	}

	// The audit log: each of alice's entry points read as alice; nothing
	// namespaced as the bot itself; nothing for carol.
	var events []auditEvent
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		events = auditEvents(t, filepath.Join(sb, "audit.log"), start)
		if impersonatedIn(events, "alice", windows[len(windows)-1]) || time.Now().After(deadline) {
			break
		}
	}
	for _, w := range windows {
		if !impersonatedIn(events, "alice", w) {
			t.Errorf("%s: no read impersonating alice in the audit log", w.what)
		}
	}
	for _, ev := range events {
		imp := ""
		if ev.ImpersonatedUser != nil {
			imp = ev.ImpersonatedUser.Username
			if ids := ev.ImpersonatedUser.Extra[rbac.ExtraSlackUserID]; len(ids) > 0 && ids[0] == "U0000CAROL" {
				t.Errorf("a request was made for carol: %s %s", ev.Verb, ev.RequestURI)
			}
		}
		if imp == "" && ev.ObjectRef.Namespace != "" {
			t.Errorf("namespaced read by the bot's own identity: %s %s", ev.Verb, ev.RequestURI)
		}
	}
}

// impersonatedIn reports whether a request impersonating user with a
// Slack user ID was received within w.
func impersonatedIn(events []auditEvent, user string, w window) bool {
	for _, ev := range events {
		if ev.ImpersonatedUser != nil && ev.ImpersonatedUser.Username == user && len(ev.ImpersonatedUser.Extra[rbac.ExtraSlackUserID]) == 1 &&
			!ev.RequestReceivedTimestamp.Before(w.from) && !ev.RequestReceivedTimestamp.After(w.till) {
			return true
		}
	}
	return false
}
