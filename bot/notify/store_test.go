package notify

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kueuebot/kueuebot/rbac"
)

// TestStoreShardsAndBound: a user's subscriptions live in one of the
// fixed ConfigMaps; a change that would grow a shard past MaxShardBytes is
// refused with ErrFull, and one that shrinks it still goes through.
func TestStoreShardsAndBound(t *testing.T) {
	ctx := context.Background()
	cs := kubefake.NewClientset()
	st := &Store{Client: cs, Namespace: botNS, Linger: -1}
	big := strings.Repeat("x", 250)
	add := func(user string, n int) error {
		return st.Update(ctx, user, func(cur []Subscription) ([]Subscription, error) {
			for i := range n {
				cur = append(cur, Subscription{ID: newID(), User: user, Namespace: "team-a", Kind: "Job", Name: big, JobUID: big, PodSelector: big + string(rune('a'+i%26)), Expires: time.Now()})
			}
			return cur, nil
		})
	}
	if err := add("U0ALICE", 1); err != nil {
		t.Fatal(err)
	}
	name := rbac.NotifyConfigMapPrefix + string(rune('0'+ShardOf("U0ALICE")))
	if _, err := cs.CoreV1().ConfigMaps(botNS).Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Fatalf("alice's shard %s: %v", name, err)
	}
	// Fill alice's shard with other users of the same shard.
	var err error
	for i := 0; err == nil && i < 10000; i++ {
		u := "U0FILL" + strings.Repeat("0", 3) + string(rune('A'+i%26)) + string(rune('A'+i/26%26)) + string(rune('A'+i/676%26))
		if ShardOf(u) == ShardOf("U0ALICE") {
			err = add(u, 10)
		}
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("filling a shard: %v, want ErrFull", err)
	}
	if err := add("U0ALICE", 1); !errors.Is(err, ErrFull) {
		t.Errorf("one more in a full shard: %v, want ErrFull", err)
	}
	if err := st.Update(ctx, "U0ALICE", func([]Subscription) ([]Subscription, error) { return nil, nil }); err != nil {
		t.Errorf("removing from a full shard: %v", err)
	}
	cm, _ := cs.CoreV1().ConfigMaps(botNS).Get(ctx, name, metav1.GetOptions{})
	if n := dataBytes(cm); n > MaxShardBytes {
		t.Errorf("shard holds %d bytes, over %d", n, MaxShardBytes)
	}
	all, err := st.Load(ctx)
	if err != nil || len(all) == 0 {
		t.Errorf("Load: %d, %v", len(all), err)
	}
}

// TestStoreLingerBatches: changes of one shard that come within Linger of
// each other share one write; each is applied and returns once written.
func TestStoreLingerBatches(t *testing.T) {
	ctx := context.Background()
	var users []string
	for i := 0; len(users) < 20; i++ {
		if u := "U0B" + strings.Repeat("X", i%5) + string(rune('A'+i%26)) + string(rune('A'+i/26)); ShardOf(u) == 0 {
			users = append(users, u)
		}
	}
	for _, c := range []struct {
		linger   time.Duration
		min, max int
	}{{200 * time.Millisecond, 1, 2}, {-1, 1, 20}} {
		cs := kubefake.NewClientset()
		st := &Store{Client: cs, Namespace: botNS, Linger: c.linger}
		var wg sync.WaitGroup
		for _, u := range users {
			wg.Go(func() {
				if err := st.Update(ctx, u, func(cur []Subscription) ([]Subscription, error) {
					return append(cur, Subscription{ID: newID(), User: u, Namespace: "team-a", Kind: "Job", Name: "j"}), nil
				}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		writes := 0
		for _, a := range cs.Actions() {
			if a.GetResource().Resource == "configmaps" && (a.GetVerb() == "create" || a.GetVerb() == "update") {
				writes++
			}
		}
		if writes < c.min || writes > c.max {
			t.Errorf("linger %s: %d writes for %d changes of one shard, want %d to %d", c.linger, writes, len(users), c.min, c.max)
		}
		all, err := st.Load(ctx)
		if err != nil || len(all) != len(users) {
			t.Errorf("linger %s: %d subscriptions stored (%v), want %d", c.linger, len(all), err, len(users))
		}
	}
}

// TestResyncedKeepsToldRecordsInFlight: a resync that reads an event still
// pending whose told record this replica has queued keeps the view's
// "told" (no history lookup for it); one pending longer than doneWithin
// (its told record failed) comes back pending, for the history check.
func TestResyncedKeepsToldRecordsInFlight(t *testing.T) {
	n := New(Notifier{})
	now := time.Now()
	ev := Event{Key: "admitted@2026-12-02T15:00:00Z", Type: Admitted}
	told := func(id string) Subscription {
		return Subscription{ID: id, User: "U1", Seen: []string{ev.Key}}
	}
	pending := func(id string, since time.Time) Subscription {
		return Subscription{ID: id, User: "U1", Pending: &Pending{Event: ev, Since: since, Holder: "pod-a"}}
	}
	n.subs = map[string]Subscription{"recent": told("recent"), "old": told("old"), "other": {ID: "other", User: "U1"}}
	n.resynced([]Subscription{pending("recent", now.Add(-5*time.Second)), pending("old", now.Add(-2*doneWithin)), pending("other", now.Add(-time.Second))})
	if s, _ := n.get("recent"); s.Pending != nil || !slices.Contains(s.Seen, ev.Key) {
		t.Errorf("recent: %+v, want told", s)
	}
	if s, _ := n.get("old"); s.Pending == nil {
		t.Errorf("old: %+v, want pending (its told record failed)", s)
	}
	if s, _ := n.get("other"); s.Pending == nil {
		t.Errorf("other: %+v, want pending (not told here)", s)
	}
}
