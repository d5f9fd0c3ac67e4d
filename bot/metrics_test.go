package bot

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kueuebot/kueuebot/bot/internal/bottest"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// TestSlackAPIMetrics: Web API calls are counted by method, and failures
// by Slack's error code, 429s included (each retry counts).
func TestSlackAPIMetrics(t *testing.T) {
	fs := slackfake.New(t)
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	api := NewSlackClient(SlackClientOptions{BotToken: "xoxb-test", APIURL: fs.APIURL(), Metrics: m})
	r := &SlackReplier{API: api}
	fs.Fail("chat.postEphemeral", 1, "channel_not_found")
	err := r.PostEphemeral(t.Context(), "C1", "U1", "", Message{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "channel_not_found") {
		t.Fatalf("PostEphemeral = %v", err)
	}
	fs.RateLimit("chat.postMessage", 1, 1)
	if _, err := r.Post(t.Context(), "C1", "", Message{Text: "x"}); err != nil {
		t.Fatalf("Post after a 429: %v", err)
	}
	fs.Fail(slackfake.MethodResponseURL, 1, "expired_url")
	if err := r.Respond(t.Context(), fs.ResponseURL("x"), Message{Text: "x"}, RespondOptions{}); err == nil {
		t.Error("Respond to an expired response_url succeeded")
	}
	const calls, errs = "kueuebot_slack_api_calls_total", "kueuebot_slack_api_errors_total"
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{calls, []string{"method", "chat.postEphemeral"}, 1},
		{errs, []string{"method", "chat.postEphemeral", "error", "channel_not_found"}, 1},
		{calls, []string{"method", "chat.postMessage"}, 2},
		{errs, []string{"method", "chat.postMessage", "error", "ratelimited"}, 1},
		{errs, []string{"method", "response_url", "error", "http_404"}, 1},
	} {
		if got := bottest.Value(t, reg, tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%q = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	var rl interface{ Retryable() bool }
	fs.RateLimit("chat.postMessage", MaxSlackRetries+1, 1)
	if testing.Short() {
		return
	}
	_, err = r.Post(t.Context(), "C1", "", Message{Text: "x"})
	if !errors.As(err, &rl) {
		t.Errorf("after %d 429s: %v, want a rate-limit error", MaxSlackRetries+1, err)
	}
}

// TestQuestionMetrics: answers are counted by entry point and verdict, busy
// refusals apart.
func TestQuestionMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	h := startSocket(t, harnessOptions{metrics: m})
	h.send(t, mention("q1", "train-7"))
	h.post(t)
	h.send(t, slackfake.SlashEnvelope("s1", slackfake.SlashCommand(alice.ID, "C1", "help", h.fs.ResponseURL("s1"), "t1")))
	h.post(t)
	if err := h.stop(t, 5e9); err != nil {
		t.Fatal(err)
	}
	const questions = "kueuebot_questions_total"
	if got := bottest.Value(t, reg, questions, "entry", "mention", "verdict", "WaitingForQuota"); got != 1 {
		t.Errorf("mention/WaitingForQuota = %v", got)
	}
	if got := bottest.Value(t, reg, questions, "entry", "slash", "verdict", "help"); got != 1 {
		t.Errorf("slash/help = %v", got)
	}
	if n, err := testutil.GatherAndCount(reg, "kueuebot_answer_duration_seconds"); err != nil || n != 2 {
		t.Errorf("latency series = %d (%v), want 2", n, err)
	}
	if n, err := testutil.GatherAndCount(reg, "kueuebot_ack_duration_seconds"); err != nil || n != 1 {
		t.Errorf("ack series = %d (%v), want 1 (socket)", n, err)
	}
}
