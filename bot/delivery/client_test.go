package delivery

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kueuebot/kueuebot/bot/blocks"
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
	err := r.PostEphemeral(t.Context(), "C1", "U1", "", blocks.Message{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "channel_not_found") {
		t.Fatalf("PostEphemeral = %v", err)
	}
	fs.RateLimit("chat.postMessage", 1, 1)
	if _, err := r.Post(t.Context(), "C1", "", blocks.Message{Text: "x"}); err != nil {
		t.Fatalf("Post after a 429: %v", err)
	}
	fs.Fail(slackfake.MethodResponseURL, 1, "expired_url")
	if err := r.Respond(t.Context(), fs.ResponseURL("x"), blocks.Message{Text: "x"}, RespondOptions{}); err == nil {
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
	_, err = r.Post(t.Context(), "C1", "", blocks.Message{Text: "x"})
	if !errors.As(err, &rl) {
		t.Errorf("after %d 429s: %v, want a rate-limit error", MaxSlackRetries+1, err)
	}
}
