package dispatch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
)

// stuckHandler ignores its context: the dispatcher must answer for it.
type stuckHandler struct {
	mu        sync.Mutex
	delivered []testReply
	release   chan struct{}
}

// testReply is a reply that is only its outcome.
type testReply struct{ outcome string }

func (r testReply) Outcome() string { return r.outcome }

func (s *stuckHandler) Answer(context.Context, *event.Event) testReply {
	<-s.release
	return testReply{outcome: "late"}
}

func (s *stuckHandler) Notice(outcome string, _ blocks.Message) testReply {
	return testReply{outcome: outcome}
}

func (s *stuckHandler) Deliver(_ context.Context, _ *event.Event, r testReply) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delivered = append(s.delivered, r)
	return nil
}

func (s *stuckHandler) replies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.delivered {
		out = append(out, r.outcome)
	}
	return out
}

// TestOverrunAnswered: a handler that ignores its deadline does not leave
// the user in silence; its late answer is dropped.
func TestOverrunAnswered(t *testing.T) {
	h := &stuckHandler{release: make(chan struct{})}
	d := New(h, Options{Workers: 1, Timeout: 20 * time.Millisecond})
	d.overrun = 20 * time.Millisecond
	if adm := d.Submit(event.Event{Entry: event.EntryMention, Key: "k1"}); adm != Accepted {
		t.Fatalf("Submit = %s", adm)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(h.replies()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(h.release)
	if err := d.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"timeout"}, h.replies()); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// TestSubmitDeduplicates: a Slack retry (same key) is dropped; after the
// dispatcher closes, Submit says so.
func TestSubmitDeduplicates(t *testing.T) {
	h := &stuckHandler{release: make(chan struct{})}
	close(h.release)
	d := New(h, Options{Workers: 1})
	var got []string
	for _, k := range []string{"a", "a", "b", "a"} {
		got = append(got, d.Submit(event.Event{Key: k}).String())
	}
	if err := d.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	got = append(got, d.Submit(event.Event{Key: "c"}).String())
	if diff := cmp.Diff([]string{"accepted", "duplicate", "accepted", "duplicate", "closed"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDedupeForgetsOldest(t *testing.T) {
	d := newDedupe(2)
	var got []string
	for _, k := range []string{"a", "a", "b", "c", "a", "c"} {
		got = append(got, fmt.Sprint(k, "=", d.add(k)))
	}
	// "a" is forgotten once two newer keys arrived.
	want := []string{"a=true", "a=false", "b=true", "c=true", "a=true", "c=false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
