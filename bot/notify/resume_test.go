package notify

import (
	"context"
	"testing"
	"time"

	"github.com/slack-go/slack"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// TestPendingIsToldOnce: a replica that died between recording an event
// and recording its DM left it pending. The next leader posts it only if
// the DM's history holds no message with its metadata, and records it
// either way; one recorded by another replica moments ago is left alone
// for PendingGrace (its post may still be in flight).
func TestPendingIsToldOnce(t *testing.T) {
	for _, c := range []struct {
		name      string
		posted    bool
		age       time.Duration
		wantPosts int
	}{
		{name: "posted before the crash", posted: true, age: time.Minute, wantPosts: 0},
		{name: "killed before the post", posted: false, age: time.Minute, wantPosts: 1},
		{name: "recorded moments ago by another replica", posted: false, age: 0, wantPosts: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, 5)
			wl := h.job("team-a", "train")
			at := h.clock.Now().Add(-2 * time.Minute)
			h.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, at) })
			admitted := Observe(mustGet(t, h, wl.Name), Pods{})[0]
			s := Subscription{
				ID: "0123456789ab", User: "U0ALICE", Team: slackfake.TeamID, Channel: "D0ALICE", Namespace: "team-a", Kind: "Job", Name: "train",
				JobUID: "uid-train", Created: h.clock.Now().Add(-time.Hour), Expires: h.clock.Now().Add(time.Hour),
				Pending: &Pending{Event: admitted, Since: h.clock.Now().Add(-c.age), Holder: "pod-old"},
			}
			if err := h.n.Store.Update(context.Background(), s.User, func([]Subscription) ([]Subscription, error) { return []Subscription{s}, nil }); err != nil {
				t.Fatal(err)
			}
			if c.posted {
				// The dead leader's post, as Slack recorded it.
				api := slack.New("xoxb-old", slack.OptionAPIURL(h.fs.APIURL()))
				if _, _, err := api.PostMessage(s.Channel, slack.MsgOptionText("Admitted: train", false), slack.MsgOptionMetadata(metadata(s, admitted))); err != nil {
					t.Fatal(err)
				}
				h.dm("the dead leader's post")
			}
			h.lead()
			if c.age < h.n.PendingGrace {
				slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "a post while the other replica's may be in flight")
				h.step(h.n.PendingGrace)
			}
			for range c.wantPosts {
				if p := h.dm("the pending DM"); eventKey(t, p) != admitted.Key || p.Channel != "D0ALICE" {
					t.Errorf("posted %+v", p)
				}
			}
			// Recorded: not pending, seen, and nothing more is posted.
			for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				got, _ := h.n.Store.User(context.Background(), s.User)
				if len(got) == 1 && got[0].Pending == nil {
					if len(got[0].Seen) != 1 || got[0].Seen[0] != admitted.Key {
						t.Errorf("seen %v, want [%s]", got[0].Seen, admitted.Key)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still pending: %+v", got)
				}
			}
			slackfake.Quiet(t, h.fs.Posts, 400*time.Millisecond, "a second post of the event")
			if n := h.fs.HistoryLen("D0ALICE"); n != 1 {
				t.Errorf("the DM holds %d messages, want 1", n)
			}
		})
	}
}

func mustGet(t *testing.T, h *harness, name string) *kueue.Workload {
	t.Helper()
	wl, err := h.kueue.KueueV1beta2().Workloads("team-a").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}
