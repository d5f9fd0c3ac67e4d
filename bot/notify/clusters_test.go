package notify

import (
	"context"
	"errors"
	"strings"
	"testing"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/rbac"
)

// westResolver maps every Slack user to their identity in gpu-west.
type westResolver struct{}

func (westResolver) Resolve(_ context.Context, u rbac.SlackUser) (rbac.Identity, error) {
	return rbac.Identity{User: strings.ToLower(u.ID) + "@west"}, nil
}

// A subscription to a job in another configured cluster records the
// cluster, is read and watched there as the subscriber mapped there, and
// its DMs name the cluster; the home cluster is not read for it.
func TestSubscriptionInAnotherCluster(t *testing.T) {
	h := newHarness(t, 5)
	west := newHarness(t, 5) // another cluster: its own Workloads, Jobs and Pods
	h.n.Clusters = map[string]Cluster{"gpu-west": {Resolve: westResolver{}, Clients: west.clients}}
	wl := west.job("team-a", "train")
	h.lead()

	r := jobRef("team-a", "train")
	r.Cluster = "gpu-west"
	m, err := h.n.Subscribe(context.Background(), user("U0ALICE"), r)
	if err != nil {
		t.Fatal(err)
	}
	if got := blocks.Text(m.Blocks); !strings.Contains(got, "`gpu-west: Job team-a/train`") || !strings.Contains(got, "Now: pending") {
		t.Errorf("subscribe answered %q", got)
	}
	h.dm("the confirmation DM")
	subs, err := h.n.Store.User(context.Background(), "U0ALICE")
	if err != nil || len(subs) != 1 || subs[0].Cluster != "gpu-west" || subs[0].JobUID != "uid-train" {
		t.Fatalf("stored %+v (%v), want one subscription in gpu-west", subs, err)
	}

	at := h.clock.Now()
	west.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, at) })
	p := h.dm("the admission DM")
	if !strings.HasPrefix(p.Text, "Admitted: train") || !strings.Contains(p.Blocks, "gpu-west: Job team-a/train") {
		t.Errorf("admission DM %q %s", p.Text, abbrev(p.Blocks))
	}
	west.mu.Lock()
	westReads := west.reads["u0alice@west"]
	west.mu.Unlock()
	h.mu.Lock()
	homeReads := len(h.reads)
	h.mu.Unlock()
	if westReads == 0 || homeReads != 0 {
		t.Errorf("Workload reads: gpu-west as u0alice@west %d, home %d; want some in gpu-west, none at home", westReads, homeReads)
	}

	// A cluster the notifier does not read: refused with a typed error.
	r.Cluster = "nowhere"
	var nc *NoClusterError
	if _, err := h.n.Subscribe(context.Background(), user("U0ALICE"), r); !errors.As(err, &nc) || nc.UnreadCluster() != "nowhere" {
		t.Errorf("nowhere: %v", err)
	}
}
