package bot

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kueuebot/kueuebot/bot/internal/bottest"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

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
