package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/kinds"
)

// TestGoneBeforeTheWatchStarts: a Workload deleted between the
// subscription and the start of its namespace's watch sends the watch no
// event (the watch never listed it); once the watch has synced
// (onSynced), the subscription is read again and the subscriber is told,
// once, that it is gone. The subscriptions are made while no replica
// leads, so the namespace's watch starts only with Lead, after the
// deletion; the fake clock does not move until the DM is in, so no tick
// or resync of the store is what told it.
func TestGoneBeforeTheWatchStarts(t *testing.T) {
	for _, tc := range []struct {
		name string
		// kind is what is subscribed to: the Workload itself, or its Job
		// (deleted with it).
		kind string
	}{
		{"Workload", kinds.Workload},
		{"Job", kinds.Job},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 5)
			wl := h.job("team-a", "short")
			r := blocks.JobRef{Namespace: "team-a", Kind: tc.kind, Name: "short"}
			if tc.kind == kinds.Workload {
				r.Name = wl.Name
			}
			m, err := h.n.Subscribe(context.Background(), user("U0ALICE"), r)
			if err != nil {
				t.Fatal(err)
			}
			if got := blocks.Text(m.Blocks); !strings.Contains(got, "I will send you a direct message") {
				t.Fatalf("subscribe answered %q", got)
			}
			h.dm("the confirmation")
			if tc.kind == kinds.Job {
				k, _ := kinds.ByKind(kinds.Job)
				if err := h.dyn.Resource(k.Resource).Namespace("team-a").Delete(context.Background(), "short", metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.kueue.KueueV1beta2().Workloads("team-a").Delete(context.Background(), wl.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}

			before := h.clock.Now()
			start := time.Now()
			h.lead()
			p := h.dm("the note that the job is gone")
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the note took %s", d)
			}
			if !h.clock.Now().Equal(before) {
				t.Fatal("the fake clock moved: a tick, not the watch's sync, may have told it")
			}
			if p.Channel != "U0ALICE" || eventKey(t, p) != "gone" || !strings.Contains(p.Blocks, "were deleted") {
				t.Errorf("note to %s, event %q: %s", p.Channel, eventKey(t, p), abbrev(p.Blocks))
			}

			// Once: not again on the next ticks or the store's resync.
			slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "a second note")
			h.step(h.n.Resync)
			slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "a note after the resync")
			for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				subs, err := h.n.Store.User(context.Background(), "U0ALICE")
				if err == nil && len(subs) == 0 && h.n.Len() == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the subscription outlived its note: stored %+v (%v), held %d", subs, err, h.n.Len())
				}
			}
		})
	}
}
