package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

func mention(id, text string) map[string]any {
	return slackfake.EventsEnvelope(id, "Ev"+id, 0, slackfake.Mention(alice.ID, "C1", id, "", "<@UBOT> "+text))
}

// TestBusyAnswered: with one worker and one queue slot, a second question
// waits and is told "busy, I will answer in a moment", a third is told
// "too busy, ask again in a minute"; the first two are then answered.
// Nobody hears silence.
func TestBusyAnswered(t *testing.T) {
	gate := make(chan struct{})
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}, gate: gate}
	h := startSocket(t, harnessOptions{diag: diag, disp: dispatch.Options{Workers: 1, QueueSize: 1, BusyAfter: 50 * time.Millisecond}})
	h.send(t, mention("q1", "train-7"))
	for len(diag.Calls()) == 0 { // q1 holds the worker
		time.Sleep(time.Millisecond)
	}
	h.send(t, mention("q2", "train-7"))
	h.send(t, mention("q3", "train-7"))

	first := textOf(t, h.post(t).Blocks)
	second := textOf(t, h.post(t).Blocks)
	got := []string{first, second}
	want := []string{"too busy to look at that right now", "I will answer in a moment"}
	for i := range want {
		if !strings.Contains(got[0]+got[1], want[i]) {
			t.Errorf("no %q notice; got:\n%s", want[i], strings.Join(got, "\n--\n"))
		}
	}
	close(gate)
	for range 2 {
		if p := h.post(t); !strings.Contains(textOf(t, p.Blocks), answerHeadline) {
			t.Errorf("want the answer, got %s", textOf(t, p.Blocks))
		}
	}
	slackfake.Quiet(t, h.fs.Posts, 100*time.Millisecond, "write")
}

// TestPanicRecovered: a question that panics gets an apology; the bot
// keeps answering.
func TestPanicRecovered(t *testing.T) {
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}, panicOn: "boom"}
	h := startSocket(t, harnessOptions{diag: diag, disp: dispatch.Options{Workers: 1}})
	h.send(t, mention("p1", "boom"))
	if got := textOf(t, h.post(t).Blocks); !strings.Contains(got, "Sorry, something broke") || strings.Contains(got, "goroutine") {
		t.Errorf("panic answered with:\n%s", got)
	}
	h.send(t, mention("p2", "train-7"))
	if got := textOf(t, h.post(t).Blocks); !strings.Contains(got, answerHeadline) {
		t.Errorf("after a panic, answered with:\n%s", got)
	}
}

// TestTimeoutSaysWhat: a question that runs past its timeout is answered
// with what timed out.
func TestTimeoutSaysWhat(t *testing.T) {
	diag := &fakeDiagnoser{block: true}
	h := startSocket(t, harnessOptions{diag: diag, disp: dispatch.Options{Timeout: 100 * time.Millisecond}})
	h.send(t, mention("t1", "train-7"))
	if got := textOf(t, h.post(t).Blocks); !strings.Contains(got, "I gave up looking at `train-7` in the cluster: it took too long") {
		t.Errorf("timeout answered with:\n%s", got)
	}
}

// TestShutdownGraceOver: questions still running when the grace ends are
// interrupted and told the bot is restarting.
func TestShutdownGraceOver(t *testing.T) {
	diag := &fakeDiagnoser{block: true}
	h := startSocket(t, harnessOptions{diag: diag, disp: dispatch.Options{Workers: 2}})
	for i := range 3 {
		h.send(t, mention(fmt.Sprint("g", i), "train-7"))
	}
	for len(diag.Calls()) < 2 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if err := h.stop(t, 100*time.Millisecond); err == nil {
		t.Error("Shutdown = nil, want the grace's deadline error")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("shutdown took %s", took)
	}
	for range 3 {
		if got := textOf(t, h.post(t).Blocks); !strings.Contains(got, "I am restarting") {
			t.Errorf("interrupted question answered with:\n%s", got)
		}
	}
}
