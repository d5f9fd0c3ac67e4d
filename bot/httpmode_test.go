package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/ops"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5"

type httpHarness struct {
	fs   *slackfake.Server
	base string
	diag *fakeDiagnoser
	stop func() error
}

func startHTTP(t *testing.T) *httpHarness {
	t.Helper()
	fs := slackfake.New(t)
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": detailedReport()}}
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-test", APIURL: fs.APIURL()})
	b := &Bot{Asker: &Asker{Resolve: testResolver(), Explain: diag}, Replier: &delivery.SlackReplier{API: api}}
	disp := dispatch.New(b, dispatch.Options{})
	ready := &ops.Readiness{}
	hm := &transport.HTTPMode{Addr: "127.0.0.1:0", SigningSecret: signingSecret, Dispatcher: disp, API: api, Ready: ready}
	if err := hm.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- hm.Run(ctx) }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if ok, _ := ready.Ready(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("HTTP mode never ready")
		}
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		err := <-errc
		_ = disp.Shutdown(context.Background())
		if ok, _ := ready.Ready(); ok {
			t.Error("still ready after stopping")
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return &httpHarness{fs: fs, base: "http://" + hm.ListenAddr(), diag: diag, stop: stop}
}

// do sends a request to the bot, signed at `at` unless unsigned; tamper
// changes the body after signing.
func (h *httpHarness) do(t *testing.T, path, contentType string, body []byte, at time.Time, unsigned, tamper bool) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !unsigned {
		slackfake.Sign(req, signingSecret, body, at)
	}
	if tamper {
		body = bytes.Replace(body, []byte("train-7"), []byte("train-8"), 1)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func jsonBody(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func formBody(fields map[string]string) []byte {
	v := url.Values{}
	for k, s := range fields {
		v.Set(k, s)
	}
	return []byte(v.Encode())
}

// TestHTTPMode sends real signed requests to the three endpoints: the
// challenge is echoed, a mention, the slash command and a button are
// acked with 200 and answered through the same dispatcher; Slack's retry
// of an event is acked and dropped; unsigned, stale and tampered requests
// get 401 and no answer.
func TestHTTPMode(t *testing.T) {
	h := startHTTP(t)
	const js, form = "application/json", "application/x-www-form-urlencoded"
	now := time.Now()

	if code, body := h.do(t, transport.PathEvents, js, []byte(`{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`), now, false, false); code != 200 || body != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Errorf("url_verification: %d %q", code, body)
	}

	mention := jsonBody(t, slackfake.EventCallback("EvH1", slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> why is train-7 waiting?")))
	if code, _ := h.do(t, transport.PathEvents, js, mention, now, false, false); code != 200 {
		t.Fatalf("mention: %d", code)
	}
	if got := slackfake.Receive(t, h.fs.Posts, "the mention's answer"); got.Method != "chat.postEphemeral" || got.User != alice.ID || !strings.Contains(textOf(t, got.Blocks), answerHeadline) {
		t.Errorf("mention answered as %+v", got)
	}
	// Slack's retry (same event_id) is acked, not answered again.
	if code, _ := h.do(t, transport.PathEvents, js, mention, now, false, false); code != 200 {
		t.Errorf("retry: %d", code)
	}

	cmd := formBody(slackfake.SlashCommand(alice.ID, "D0PEOPLE", "why train-7", h.fs.ResponseURL("cmd1"), "trig-cmd1"))
	if code, _ := h.do(t, transport.PathCommands, form, cmd, now, false, false); code != 200 {
		t.Fatalf("command: %d", code)
	}
	if got := slackfake.Receive(t, h.fs.Posts, "the command's answer"); got.Method != slackfake.MethodResponseURL || got.ResponseURL != "cmd1" || got.ResponseType != "ephemeral" {
		t.Errorf("command answered as %+v", got)
	}

	press := slackfake.BlockAction{
		User: alice.ID, Channel: "C1", MessageTS: "9.0", Ephemeral: true, ActionID: blocks.ActionRefresh,
		Value: "team-a/JobSet/train-7", ResponseURL: h.fs.ResponseURL("btn1"), TriggerID: "trig-btn1",
	}
	payload := formBody(map[string]string{"payload": string(jsonBody(t, press.Payload()))})
	if code, _ := h.do(t, transport.PathInteractivity, form, payload, now, false, false); code != 200 {
		t.Fatalf("interaction: %d", code)
	}
	if got := slackfake.Receive(t, h.fs.Posts, "the button's answer"); got.Method != slackfake.MethodResponseURL || !got.ReplaceOriginal || got.ResponseURL != "btn1" {
		t.Errorf("refresh answered as %+v", got)
	}

	for _, bad := range []struct {
		name             string
		path             string
		at               time.Time
		unsigned, tamper bool
	}{
		{"unsigned event", transport.PathEvents, now, true, false},
		{"stale event", transport.PathEvents, now.Add(-6 * time.Minute), false, false},
		{"future event", transport.PathEvents, now.Add(6 * time.Minute), false, false},
		{"tampered event", transport.PathEvents, now, false, true},
		{"unsigned command", transport.PathCommands, now, true, false},
		{"tampered interaction", transport.PathInteractivity, now, false, true},
	} {
		t.Run(bad.name, func(t *testing.T) {
			body := jsonBody(t, slackfake.EventCallback("EvBad"+bad.name, slackfake.Mention(alice.ID, "C1", "2.0", "", "<@UBOT> train-7")))
			ct := js
			switch bad.path {
			case transport.PathCommands:
				body, ct = formBody(slackfake.SlashCommand(alice.ID, "C1", "train-7", h.fs.ResponseURL("bad"), "trig-bad")), form
			case transport.PathInteractivity:
				body, ct = payload, form
			}
			if code, _ := h.do(t, bad.path, ct, body, bad.at, bad.unsigned, bad.tamper); code != http.StatusUnauthorized {
				t.Errorf("got %d, want 401", code)
			}
		})
	}
	if code, _ := h.do(t, transport.PathEvents, js, bytes.Repeat([]byte("x"), transport.DefaultMaxBody+1), now, false, false); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d, want 413", code)
	}
	resp, err := http.Get(h.base + transport.PathEvents) //nolint:noctx // loopback test
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}
	slackfake.Quiet(t, h.fs.Posts, 200*time.Millisecond, "answer to a rejected request or a retry")
	if n := len(h.diag.Calls()); n != 3 {
		t.Errorf("Explain called %d times, want 3 (mention, command, button)", n)
	}
	if err := h.stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
}
