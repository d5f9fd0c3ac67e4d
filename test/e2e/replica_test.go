package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// TestReplicasAnswerOnce runs three `kueuebot serve` processes (the built
// binary, as three pods of one Deployment) against the sandbox API server
// and the fake Slack in Socket Mode. Only the holder of the Lease connects
// to Slack. A burst of questions is sent; the leader is SIGKILLed in the
// middle of it; Slack (the fake, as Slack does) redelivers the envelopes
// nobody acked, with the rest of the burst, to the next connection. No
// question is answered twice, every question a live replica acked is
// answered, and the first answer after the kill comes within 15 s.
func TestReplicasAnswerOnce(t *testing.T) {
	sb := sandbox(t)
	ns := botNamespace(t, sb)
	bin := kueuebot(t)
	fs := slackfake.New(t)
	const users, questions = 4, 40
	var mappings strings.Builder
	for u := range users {
		id := fmt.Sprintf("U0REPL%03d", u)
		fs.SetUser(slack.User{ID: id, Name: fmt.Sprintf("asker%d", u)})
		fmt.Fprintf(&mappings, "    - {slackUserID: %s, teamID: %s, user: replica-asker, namespaces: [default]}\n", id, slackfake.TeamID)
	}
	cfgYAML := serveConfig(fs, sb, mappings.String(), "")
	cfg, err := config.Parse([]byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	grantBot(t, sb, cfg)
	admin := adminClient(t, sb)
	procs := startReplicas(t, bin, cfgYAML, ns, "pod-a", "pod-b", "pod-c")

	first := slackfake.Receive(t, fs.Conns, "the leader's Socket Mode connection")
	leader := leaseHolder(t, admin, ns)
	if procs[leader] == nil {
		t.Fatalf("the Lease is held by %q, not by one of the replicas", leader)
	}
	t.Logf("%s leads and holds the connection", leader)

	// question i is asked in channel C0Q<i>: its answer (ephemeral) names
	// the channel.
	envelope := func(i, attempt int) map[string]any {
		ch := fmt.Sprintf("C0Q%03d", i)
		return slackfake.EventsEnvelope(fmt.Sprintf("env-%d-%d", i, attempt), fmt.Sprintf("EvQ%03d", i), attempt,
			slackfake.Mention(fmt.Sprintf("U0REPL%03d", i%users), ch, fmt.Sprintf("%d.0", 1000+i), "", fmt.Sprintf("<@UBOT> why is replica-job-%d waiting?", i)))
	}
	half := questions / 2
	for i := range half {
		if _, err := fs.Send(first, envelope(i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	// In the middle of the burst: once the leader answered a few questions
	// (others acked and still being answered, others not yet acked).
	answers := map[int]int{}
	count := func(p slackfake.Post) {
		var i int
		if _, err := fmt.Sscanf(p.Channel, "C0Q%03d", &i); err != nil || p.Method != "chat.postEphemeral" {
			t.Errorf("unexpected write %+v", p)
			return
		}
		if !strings.Contains(p.Text+p.Blocks, "I will answer in a moment") {
			answers[i]++
		}
	}
	for len(answers) < 3 {
		count(slackfake.Receive(t, fs.Posts, "the leader's first answers"))
	}
	procs[leader].kill()
	killed := time.Now()
	t.Logf("%s SIGKILLed after %d questions sent, %d answered", leader, half, len(answers))

	// What Slack does next: envelopes the dead connection did not ack are
	// delivered again (retry_attempt 1), with the rest of the burst, to
	// the next connection.
	var pending []map[string]any
	ackedByDead := map[int]bool{}
	for i := range half {
		if _, ok := fs.AckedAt(fmt.Sprintf("env-%d-0", i)); ok {
			ackedByDead[i] = true
		} else {
			pending = append(pending, envelope(i, 1))
		}
	}
	for i := half; i < questions; i++ {
		pending = append(pending, envelope(i, 0))
	}
	var second *websocket.Conn
	select {
	case second = <-fs.Conns:
	case <-time.After(30 * time.Second):
		t.Fatal("no replica connected to Slack within 30 s of the leader's death")
	}
	next := leaseHolder(t, admin, ns)
	t.Logf("%s connected %s after the kill", next, time.Since(killed).Round(100*time.Millisecond))
	ackedByLive := map[int]bool{}
	for _, env := range pending {
		if _, err := fs.Send(second, env); err != nil {
			t.Fatal(err)
		}
	}

	// Collect the answers: one per channel at most, every question acked
	// by the live replica answered.
	var firstAfter time.Duration
	deadline := time.After(90 * time.Second)
	done := func() bool {
		for _, env := range pending {
			var i, attempt int
			_, _ = fmt.Sscanf(env["envelope_id"].(string), "env-%d-%d", &i, &attempt)
			if _, ok := fs.AckedAt(env["envelope_id"].(string)); ok {
				ackedByLive[i] = true
			}
			if ackedByLive[i] && answers[i] == 0 {
				return false
			}
		}
		return len(ackedByLive) == len(pending)
	}
	for !done() {
		select {
		case p := <-fs.Posts:
			count(p)
			if p.At.After(killed) && firstAfter == 0 {
				firstAfter = p.At.Sub(killed)
			}
		case <-deadline:
			t.Fatalf("after 90 s: %d of %d redelivered questions acked, %d answered", len(ackedByLive), len(pending), len(answers))
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Late duplicates would come within moments.
	slackfake.Quiet(t, fs.Conns, 2*time.Second, "connection from a standby")
	for len(fs.Posts) > 0 {
		count(<-fs.Posts)
	}
	twice, lost := 0, 0
	for i := range questions {
		if answers[i] > 1 {
			twice++
			t.Errorf("question %d answered %d times", i, answers[i])
		}
		if answers[i] == 0 {
			if ackedByLive[i] {
				t.Errorf("question %d was acked by the live replica and never answered", i)
			}
			lost++
		}
	}
	t.Logf("%d questions: %d acked by the killed leader, %d redelivered and acked by %s; answered twice %d, "+
		"lost %d (acked by the killed leader before it answered), first answer %s after the kill",
		questions, len(ackedByDead), len(ackedByLive), next, twice, lost, firstAfter.Round(100*time.Millisecond))
	if firstAfter > 15*time.Second {
		t.Errorf("the first answer after the kill came %s after it, want under 15 s", firstAfter.Round(100*time.Millisecond))
	}
}
