package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// benchJobs are jobs of the example dumps (recorded from the real Kueue),
// one namespace each.
var benchJobs = [][2]string{
	{"sc-sample-job", "sample-job"}, {"sc-quota-in-use", "big"}, {"sc-borrowing-limit", "first"},
	{"sc-admission-check-pending", "checked"}, {"sc-cq-stopped", "held"}, {"sc-deactivated", "switched-off"},
	{"sc-lq-missing-cq", "orphan"}, {"sc-lq-stopped", "held"}, {"sc-missing-flavor", "needs-flavor"},
	{"sc-namespace-not-selected", "outsider"}, {"sc-no-queue-label", "unlabeled"}, {"sc-node-affinity-mismatch", "wants-spot"},
	{"sc-pods-quota", "many-pods"}, {"sc-pods-unschedulable", "too-big-for-nodes"}, {"sc-preempted", "high"},
	{"sc-queue-label-typo", "typo"}, {"sc-strict-fifo", "head"}, {"sc-uncovered-resource", "wants-gpu"},
	{"sc-untolerated-taint", "no-toleration"}, {"sc-limits-only", "limits-only"},
}

// burstResult is one burst of questions.
type burstResult struct {
	answered, refused, busyNotices, lost int
	ack, answer                          []time.Duration
	// others are the answer latencies of the users who did not flood;
	// othersRefused counts their questions refused as busy.
	others        []time.Duration
	othersRefused int
	// loopAck is the transport loop's own ack time (receiving the event
	// from the socketmode client to queuing the ack), summed.
	loopAck time.Duration
}

// burst sends users×perUser questions at once (each user from their own
// goroutine) over one Socket Mode connection to a bot wired as serve wires
// it (the real socketmode client, the Web API client with retries, the
// identity resolver reading users.info from the fake, the Explainer on
// the dump backend), and waits for every question's final answer. When
// flood > 0, one more user first sends flood questions alone, then the
// others ask.
func burst(tb testing.TB, dump *fetch.Dump, users, perUser, flood int, o dispatch.Options) burstResult {
	fs := slackfake.New(tb)
	idCfg := config.Default().Identity
	const flooder = "UBENCHFLD"
	if flood > 0 {
		fs.SetUser(slack.User{ID: flooder, Name: "flooder"})
		idCfg.Users = append(idCfg.Users, config.UserMapping{SlackUserID: flooder, TeamID: slackfake.TeamID, User: "flooder", Namespaces: []string{benchJobs[0][0]}})
	}
	for i := range users {
		id := fmt.Sprintf("UBENCH%03d", i)
		fs.SetUser(slack.User{ID: id, Name: fmt.Sprintf("user%d", i)})
		idCfg.Users = append(idCfg.Users, config.UserMapping{SlackUserID: id, TeamID: slackfake.TeamID, User: fmt.Sprintf("user-%d", i), Namespaces: []string{benchJobs[i%len(benchJobs)][0]}})
	}
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	o.Metrics = m
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-test", AppToken: "xapp-test", APIURL: fs.APIURL()})
	resolver, err := rbac.NewResolver(idCfg, api)
	if err != nil {
		tb.Fatal(err)
	}
	b := &Bot{Asker: &Asker{Resolve: resolver, Explain: &explain.Explainer{Reader: &explain.DumpReader{Dump: dump}}}, Replier: &delivery.SlackReplier{API: api}}
	disp := dispatch.New(b, o)
	sm := &transport.SocketMode{Client: socketmode.New(api), Dispatcher: disp, Decoder: &transport.Decoder{Invalidate: resolver}, Metrics: m}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- sm.Run(ctx) }()
	conn := slackfake.Receive(tb, fs.Conns, "the connection")

	regular := users * perUser
	total := regular + flood
	sent := make([]time.Time, total)
	// jobOf is the job question i asks about.
	jobOf := func(i int) [2]string {
		if i >= regular {
			return benchJobs[0]
		}
		return benchJobs[(i/perUser)%len(benchJobs)]
	}
	for k := range flood {
		i := regular + k
		env := fmt.Sprintf("b%d", i)
		job := jobOf(i)
		at, err := fs.Send(conn, slackfake.EventsEnvelope(env, "Ev"+env, 0, slackfake.Mention(flooder, "C1",
			fmt.Sprintf("%d.5", i), fmt.Sprintf("%d.0", i), fmt.Sprintf("<@UBOT> why is %s -n %s waiting?", job[1], job[0]))))
		if err != nil {
			tb.Error(err)
		}
		sent[i] = at
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for u := range users {
		wg.Go(func() {
			<-start
			job := benchJobs[u%len(benchJobs)]
			for k := range perUser {
				i := u*perUser + k
				env := fmt.Sprintf("b%d", i)
				at, err := fs.Send(conn, slackfake.EventsEnvelope(env, "Ev"+env, 0, slackfake.Mention(fmt.Sprintf("UBENCH%03d", u), "C1",
					fmt.Sprintf("%d.5", i), fmt.Sprintf("%d.0", i), fmt.Sprintf("<@UBOT> why is %s -n %s waiting?", job[1], job[0]))))
				if err != nil {
					tb.Error(err)
				}
				sent[i] = at
			}
		})
	}
	close(start)
	wg.Wait()

	var r burstResult
	final := map[int]bool{}
	timeout := time.After(60 * time.Second)
	for len(final) < total {
		var p slackfake.Post
		select {
		case p = <-fs.Posts:
		case <-timeout:
			r.lost = total - len(final)
			tb.Errorf("%d questions got no final answer", r.lost)
			return r
		}
		var i int
		if _, err := fmt.Sscanf(p.ThreadTS, "%d.0", &i); err != nil || i < 0 || i >= total || p.Method != "chat.postEphemeral" {
			tb.Errorf("unexpected write %+v", p)
			continue
		}
		text := p.Text + p.Blocks
		switch {
		case strings.Contains(text, "I will answer in a moment"):
			r.busyNotices++
			continue
		case strings.Contains(text, "too busy"), strings.Contains(text, "questions waiting for me"):
			r.refused++
			if i < regular {
				r.othersRefused++
			}
		case strings.Contains(p.Blocks, jobOf(i)[1]):
			r.answered++
			r.answer = append(r.answer, p.At.Sub(sent[i]))
			if flood > 0 && i < regular {
				r.others = append(r.others, p.At.Sub(sent[i]))
			}
		default:
			tb.Errorf("question %d answered with %s", i, p.Text)
		}
		if final[i] {
			tb.Errorf("question %d answered twice", i)
		}
		final[i] = true
	}
	for i := range total {
		if at, ok := fs.AckedAt(fmt.Sprintf("b%d", i)); ok {
			r.ack = append(r.ack, at.Sub(sent[i]))
		}
	}
	if len(r.ack) != total {
		tb.Errorf("%d of %d envelopes acked", len(r.ack), total)
	}
	cancel()
	if err := <-runErr; err != nil {
		tb.Errorf("Run: %v", err)
	}
	_ = disp.Shutdown(context.Background())
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "kueuebot_ack_duration_seconds" {
			for _, m := range mf.GetMetric() {
				r.loopAck += time.Duration(m.GetHistogram().GetSampleSum() * float64(time.Second))
			}
		}
	}
	return r
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkBurst: 200 questions from 20 users at once, through the fake
// Slack and a real Socket Mode connection, answered from the dump backend.
// It reports, per burst: answered, refused-busy, busy notices, lost (must
// be 0), and p50/p99 ack and answer latency, measured at the fake Slack
// (from writing the envelope to reading the ack or the answer), plus the
// transport loop's own mean ack time. "default" is serve's pool
// (ops.workers 8, ops.queueSize 256); "small-queue" (2 workers, 16 slots)
// shows the refusals a full queue answers with.
func BenchmarkBurst(b *testing.B) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    dispatch.Options
	}{
		{"default", dispatch.Options{Workers: config.DefaultWorkers, QueueSize: config.DefaultQueueSize}},
		{"small-queue", dispatch.Options{Workers: 2, QueueSize: 16}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var all burstResult
			for range b.N {
				r := burst(b, dump, 20, 10, 0, tc.o)
				all.answered += r.answered
				all.refused += r.refused
				all.busyNotices += r.busyNotices
				all.lost += r.lost
				all.ack = append(all.ack, r.ack...)
				all.answer = append(all.answer, r.answer...)
				all.loopAck += r.loopAck
			}
			n := float64(b.N)
			b.ReportMetric(float64(all.answered)/n, "answered/burst")
			b.ReportMetric(float64(all.refused)/n, "refused-busy/burst")
			b.ReportMetric(float64(all.busyNotices)/n, "busy-notices/burst")
			b.ReportMetric(float64(all.lost)/n, "lost/burst")
			b.ReportMetric(float64(percentile(all.ack, 0.5).Microseconds())/1000, "ack-p50-ms")
			b.ReportMetric(float64(percentile(all.ack, 0.99).Microseconds())/1000, "ack-p99-ms")
			b.ReportMetric(float64(all.loopAck.Microseconds())/float64(max(1, len(all.ack))), "ack-in-loop-mean-us")
			b.ReportMetric(float64(percentile(all.answer, 0.5).Microseconds())/1000, "answer-p50-ms")
			b.ReportMetric(float64(percentile(all.answer, 0.99).Microseconds())/1000, "answer-p99-ms")
			if all.lost > 0 {
				b.Errorf("%d questions lost", all.lost)
			}
		})
	}
}

// TestBurstLosesNothing runs one burst as a test: every question gets its
// final answer (the answer, or "too busy" when the queue is full).
func TestBurstLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a burst of 200 questions")
	}
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	r := burst(t, dump, 20, 10, 0, dispatch.Options{Workers: 2, QueueSize: 16})
	if r.lost != 0 || r.answered+r.refused != 200 || r.answered == 0 {
		t.Errorf("answered %d, refused %d, lost %d", r.answered, r.refused, r.lost)
	}
}

// BenchmarkFairness: one user sends 300 questions at once, then ten other
// users send 2 each, to serve's default pool. It reports the others'
// answered and refused questions and their p50/p99 answer latency (goal:
// all answered, p99 under 5 s), and how many of the flood were answered
// (the per-user bound refuses the rest).
func BenchmarkFairness(b *testing.B) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		b.Fatal(err)
	}
	var all burstResult
	for range b.N {
		r := burst(b, dump, 10, 2, 300, dispatch.Options{Workers: config.DefaultWorkers, QueueSize: config.DefaultQueueSize})
		all.answered += r.answered
		all.refused += r.refused
		all.othersRefused += r.othersRefused
		all.others = append(all.others, r.others...)
		all.lost += r.lost
	}
	n := float64(b.N)
	b.ReportMetric(float64(len(all.others))/n, "others-answered/burst")
	b.ReportMetric(float64(all.othersRefused)/n, "others-refused/burst")
	b.ReportMetric(float64(all.answered-len(all.others))/n, "flood-answered/burst")
	b.ReportMetric(float64(all.lost)/n, "lost/burst")
	b.ReportMetric(float64(percentile(all.others, 0.5).Microseconds())/1000, "others-p50-ms")
	b.ReportMetric(float64(percentile(all.others, 0.99).Microseconds())/1000, "others-p99-ms")
	if all.othersRefused > 0 || all.lost > 0 {
		b.Errorf("others refused %d, lost %d", all.othersRefused, all.lost)
	}
}
