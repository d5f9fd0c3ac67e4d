package digests

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/rbac"
)

// dumpReader computes digests from the recorded scenarios, with the
// explainer the bot uses; fail makes the next reads fail.
type dumpReader struct {
	mu    sync.Mutex
	fail  int
	reads int
	// block, when set, holds each read until it is closed or ctx ends.
	block chan struct{}
	// now is the digests' clock (the runner's).
	now func() time.Time
}

func (d *dumpReader) Digest(ctx context.Context, id rbac.Identity, q explain.DigestQuery) (explain.DigestResult, error) {
	d.mu.Lock()
	d.reads++
	failing := d.fail > 0
	if failing {
		d.fail--
	}
	block := d.block
	d.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return explain.DigestResult{}, ctx.Err()
		}
	}
	if failing {
		return explain.DigestResult{}, errors.New("the cluster is unreachable")
	}
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		return explain.DigestResult{}, err
	}
	return (&explain.Explainer{Reader: &explain.DumpReader{Dump: dump, Unrestricted: true}, Now: d.now}).Digest(ctx, id, q)
}

// post is one message the fake poster received.
type post struct {
	channel, thread, text string
}

type fakePoster struct {
	mu    sync.Mutex
	posts []post
	n     int
	fail  bool
	sent  chan post
}

func newPoster() *fakePoster { return &fakePoster{sent: make(chan post, 100)} }

func (f *fakePoster) PostMessage(_ context.Context, channel string, m blocks.Message) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return "", errors.New("channel_not_found")
	}
	f.n++
	p := post{channel: channel, text: blocks.Text(m.Blocks)}
	f.posts = append(f.posts, p)
	f.sent <- p
	return "1700000000." + strings.Repeat("0", 5) + string(rune('0'+f.n)), nil
}

func (f *fakePoster) PostReply(_ context.Context, channel, threadTS string, m blocks.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts = append(f.posts, post{channel: channel, thread: threadTS, text: blocks.Text(m.Blocks)})
	return nil
}

// messages are the top-level posts.
func (f *fakePoster) messages() []post {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []post
	for _, p := range f.posts {
		if p.thread == "" {
			out = append(out, p)
		}
	}
	return out
}

var paris = func() *time.Location {
	l, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	return l
}()

func testDigest() config.Digest {
	return config.Digest{
		Name: "team", Channel: "C00TEAM001", Schedule: "0 9 * * *", TimeZone: "Europe/Paris",
		Namespaces: []string{"sc-quota-in-use", "sc-lq-stopped", "sc-deactivated"}, User: "kueuebot-digest",
		MaxLateness: 6 * time.Hour,
	}
}

type rig struct {
	clock  *clocktesting.FakeClock
	state  *State
	reader *dumpReader
	poster *fakePoster
	kube   *kubefake.Clientset
}

func newRig(start time.Time) *rig {
	kube := kubefake.NewClientset()
	clk := clocktesting.NewFakeClock(start)
	return &rig{
		clock:  clk,
		state:  &State{Client: kube, Namespace: "kueuebot"},
		reader: &dumpReader{now: clk.Now},
		poster: newPoster(),
		kube:   kube,
	}
}

func (r *rig) runner(t *testing.T, holder string) *Runner {
	t.Helper()
	run, err := NewRunner([]config.Digest{testDigest()}, Runner{
		Digester: r.reader, Poster: r.poster, State: r.state, Holder: holder, Clock: r.clock, Retry: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// lead runs the runner until the test ends; stop ends it early.
func (r *rig) lead(t *testing.T, run *Runner) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); run.Lead(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// waiting waits until the runner sleeps on the clock.
func (r *rig) waiting(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !r.clock.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the runner never waited on the clock")
		}
		time.Sleep(time.Millisecond)
	}
}

func (r *rig) lastRun(t *testing.T) *Run {
	t.Helper()
	run, err := r.state.Get(t.Context(), "team")
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestRunnerPostsOnSchedule(t *testing.T) {
	r := newRig(time.Date(2026, 11, 30, 8, 59, 0, 0, paris))
	r.lead(t, r.runner(t, "pod-a"))
	r.waiting(t)
	if n := len(r.poster.messages()); n != 0 {
		t.Fatalf("%d posts before 09:00", n)
	}
	if run := r.lastRun(t); run == nil || run.Status != StatusInitial || !run.Scheduled.Equal(time.Date(2026, 11, 29, 9, 0, 0, 0, paris)) {
		t.Fatalf("baseline = %+v, want yesterday's 09:00 as initial", run)
	}

	r.clock.Step(time.Minute) // 09:00
	p := <-r.poster.sent
	if p.channel != "C00TEAM001" || !strings.Contains(p.text, "Pending-queue digest: team") || strings.Contains(p.text, "comes late") {
		t.Errorf("digest = %+v", p)
	}
	r.waiting(t)
	run := r.lastRun(t)
	if run.Status != StatusPosted || run.Key != "team@2026-11-30T08:00:00Z" || run.Holder != "pod-a" || run.TS == "" || run.Late || run.Figures == nil {
		t.Errorf("run = %+v", run)
	}
	if replies := len(r.poster.posts) - len(r.poster.messages()); replies == 0 {
		t.Error("no thread reply with the details")
	}

	// The next day: posted again, with the trend against the first.
	r.clock.Step(24 * time.Hour)
	p = <-r.poster.sent
	if !strings.Contains(p.text, "Since the digest of Nov 30 08:00 UTC") {
		t.Errorf("second digest has no trend:\n%s", p.text)
	}
	r.waiting(t)
	if n := len(r.poster.messages()); n != 2 {
		t.Errorf("%d digests over two days, want 2", n)
	}
}

// A run missed while no replica was up is posted once, late, with a note,
// within maxLateness; past it, it is skipped.
func TestRunnerLateRuns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		now      time.Time
		wantPost bool
	}{
		{"posted late", time.Date(2026, 11, 30, 11, 30, 0, 0, paris), true},
		{"skipped past maxLateness", time.Date(2026, 11, 30, 15, 30, 0, 0, paris), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(tc.now)
			// Yesterday's run was posted; nobody was up at 09:00 today.
			if _, err := r.state.Init(t.Context(), "team", time.Date(2026, 11, 29, 9, 0, 0, 0, paris), "pod-old", tc.now); err != nil {
				t.Fatal(err)
			}
			r.lead(t, r.runner(t, "pod-b"))
			r.waiting(t)
			msgs := r.poster.messages()
			run := r.lastRun(t)
			if tc.wantPost {
				if len(msgs) != 1 || !strings.Contains(msgs[0].text, "This digest was due Mon Nov 30 09:00 CET and comes late: no kueuebot replica could post it then (none was running, or the one leading stopped).") {
					t.Fatalf("posts = %+v", msgs)
				}
				if run.Status != StatusPosted || !run.Late {
					t.Errorf("run = %+v", run)
				}
			} else {
				if len(msgs) != 0 {
					t.Fatalf("posts = %+v, want none", msgs)
				}
				if run.Status != StatusSkipped || run.Key != "team@2026-11-30T08:00:00Z" {
					t.Errorf("run = %+v", run)
				}
			}
			// Nothing more until tomorrow.
			r.clock.Step(time.Hour)
			r.waiting(t)
			if n := len(r.poster.messages()); n != len(msgs) {
				t.Errorf("%d posts after an hour more, want %d", n, len(msgs))
			}
		})
	}
}

// A run another replica recorded is never posted again: a failover after
// the claim leaves it, a failover before it posts it (late).
func TestRunnerFailover(t *testing.T) {
	t.Run("claimed by a replica that died while posting", func(t *testing.T) {
		r := newRig(time.Date(2026, 11, 30, 9, 0, 30, 0, paris))
		if _, err := r.state.Init(t.Context(), "team", time.Date(2026, 11, 29, 9, 0, 0, 0, paris), "pod-a", r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := r.state.Claim(t.Context(), "team", time.Date(2026, 11, 30, 9, 0, 0, 0, paris), StatusClaimed, "pod-a", r.clock.Now()); !ok || err != nil {
			t.Fatalf("claim: %v %v", ok, err)
		}
		var logs syncBuffer
		run := r.runner(t, "pod-b")
		run.Log = slog.New(slog.NewTextHandler(&logs, nil))
		r.lead(t, run)
		r.waiting(t)
		if n := len(r.poster.messages()); n != 0 {
			t.Errorf("%d posts of a run pod-a claimed, want 0", n)
		}
		if out := logs.String(); strings.Count(out, "never recorded posting it") != 1 || !strings.Contains(out, "run=team@2026-11-30T08:00:00Z") || !strings.Contains(out, "holder=pod-a") {
			t.Errorf("want one warning that run team@2026-11-30T08:00:00Z of pod-a may be missing, got:\n%s", out)
		}
		if run := r.lastRun(t); run.Holder != "pod-a" || run.Status != StatusClaimed {
			t.Errorf("run = %+v", run)
		}
	})
	t.Run("leader gone while reading", func(t *testing.T) {
		r := newRig(time.Date(2026, 11, 30, 8, 59, 0, 0, paris))
		r.reader.block = make(chan struct{})
		stopA := r.lead(t, r.runner(t, "pod-a"))
		r.waiting(t)
		r.clock.Step(time.Minute) // 09:00: pod-a starts reading, and dies.
		for r.readsSoFar() == 0 {
			time.Sleep(time.Millisecond)
		}
		stopA()
		r.reader.mu.Lock()
		r.reader.block = nil
		r.reader.mu.Unlock()
		r.clock.Step(20 * time.Second)
		r.lead(t, r.runner(t, "pod-b"))
		p := <-r.poster.sent
		if strings.Contains(p.text, "comes late") {
			t.Errorf("20 s after its time the digest is not late:\n%s", p.text)
		}
		r.waiting(t)
		if n := len(r.poster.messages()); n != 1 {
			t.Errorf("%d posts, want 1", n)
		}
		if run := r.lastRun(t); run.Holder != "pod-b" || run.Status != StatusPosted {
			t.Errorf("run = %+v", run)
		}
	})
}

func (r *rig) readsSoFar() int {
	r.reader.mu.Lock()
	defer r.reader.mu.Unlock()
	return r.reader.reads
}

// A failed read is retried; a failed post is recorded, not retried.
func TestRunnerFailures(t *testing.T) {
	r := newRig(time.Date(2026, 11, 30, 8, 59, 0, 0, paris))
	r.reader.fail = 1
	r.lead(t, r.runner(t, "pod-a"))
	r.waiting(t)
	r.clock.Step(time.Minute)
	r.waiting(t)
	if n := len(r.poster.messages()); n != 0 {
		t.Fatalf("%d posts after a failed read", n)
	}
	r.clock.Step(time.Minute) // the retry
	<-r.poster.sent
	r.waiting(t)
	if run := r.lastRun(t); run.Status != StatusPosted {
		t.Errorf("run = %+v", run)
	}

	r.poster.mu.Lock()
	r.poster.fail = true
	r.poster.mu.Unlock()
	r.clock.Step(24*time.Hour - time.Minute)
	r.waiting(t)
	run := r.lastRun(t)
	if run.Status != StatusFailed || !strings.Contains(run.Error, "channel_not_found") || run.Figures == nil {
		t.Errorf("run = %+v, want failed with the error, keeping the last figures", run)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A digest that names its cluster reads that cluster's Digester, as its
// identity, and the post names the cluster; the home Digester is not read.
func TestRunnerDigestOfACluster(t *testing.T) {
	r := newRig(time.Date(2026, 11, 30, 8, 59, 0, 0, paris))
	west := &dumpReader{now: r.clock.Now}
	d := testDigest()
	d.Cluster = "gpu-west"
	if _, err := NewRunner([]config.Digest{d}, Runner{Digester: r.reader, Poster: r.poster, State: r.state}); err == nil || !strings.Contains(err.Error(), `cluster "gpu-west" is not one the bot reads`) {
		t.Fatalf("a digest of an unknown cluster: %v", err)
	}
	run, err := NewRunner([]config.Digest{d}, Runner{
		Digester: r.reader, Clusters: map[string]Digester{"gpu-west": west},
		Poster: r.poster, State: r.state, Holder: "pod-a", Clock: r.clock, Retry: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.lead(t, run)
	r.waiting(t)
	r.clock.Step(time.Minute)
	p := <-r.poster.sent
	if !strings.Contains(p.text, "Pending-queue digest: team") || !strings.Contains(p.text, "*Cluster* `gpu-west`") {
		t.Errorf("digest of gpu-west does not name it:\n%s", p.text)
	}
	west.mu.Lock()
	defer west.mu.Unlock()
	r.reader.mu.Lock()
	defer r.reader.mu.Unlock()
	if west.reads != 1 || r.reader.reads != 0 {
		t.Errorf("reads: gpu-west %d, home %d; want 1 and 0", west.reads, r.reader.reads)
	}
}

// A digest is posted in its channel's language (digests[].language), else
// in language.default (Runner.DefaultLang); the late note too, and the
// thread replies.
func TestRunnerPostsInTheDigestLanguage(t *testing.T) {
	for _, tc := range []struct {
		name, lang string
		def        i18n.Lang
		want       i18n.Lang
		header     string
	}{
		{"digest language", "ja", i18n.French, i18n.Japanese, "待機キューのダイジェスト：team"},
		{"language.default", "", i18n.French, i18n.French, "Synthèse des files d’attente : team"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 30, 11, 30, 0, 0, paris)
			r := newRig(now)
			if _, err := r.state.Init(t.Context(), "team", time.Date(2026, 11, 29, 9, 0, 0, 0, paris), "pod-old", now); err != nil {
				t.Fatal(err)
			}
			d := testDigest()
			d.Language = tc.lang
			run, err := NewRunner([]config.Digest{d}, Runner{
				Digester: r.reader, Poster: r.poster, State: r.state, Holder: "pod-b", Clock: r.clock, Retry: time.Minute, DefaultLang: tc.def,
			})
			if err != nil {
				t.Fatal(err)
			}
			r.lead(t, run)
			r.waiting(t)
			msgs := r.poster.messages()
			if len(msgs) != 1 || !strings.Contains(msgs[0].text, tc.header) || !strings.Contains(msgs[0].text, LateNote(tc.want, time.Date(2026, 11, 30, 9, 0, 0, 0, paris), paris)) {
				t.Fatalf("posts = %+v", msgs)
			}
			r.poster.mu.Lock()
			defer r.poster.mu.Unlock()
			for _, p := range r.poster.posts {
				i18ntest.AssertTranslated(t, tc.want, p.text)
			}
		})
	}
}
