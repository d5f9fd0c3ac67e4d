package notify

import (
	"context"
	"errors"
	"strings"
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
	st := &Store{Client: cs, Namespace: botNS}
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
