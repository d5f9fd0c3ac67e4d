package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/kinds"
)

func wlWith(change func(wl *kueue.Workload)) *kueue.Workload {
	wl := &kueue.Workload{Spec: kueue.WorkloadSpec{PodSets: []kueue.PodSet{{Name: "main", Count: 2}, {Name: "w", Count: 1}}}}
	change(wl)
	return wl
}

var t0 = time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)

// TestObserve: each state of a Workload stands for its events, keyed by
// the condition and its time.
func TestObserve(t *testing.T) {
	type ev struct {
		Key  string
		Type EventType
	}
	cases := []struct {
		name string
		wl   *kueue.Workload
		pods Pods
		want []ev
	}{
		{name: "no workload", wl: nil},
		{name: "pending", wl: wlWith(func(wl *kueue.Workload) {
			cond(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, "Pending", "insufficient quota", t0)
		})},
		{name: "quota reserved, admission checks pending", wl: wlWith(func(wl *kueue.Workload) {
			cond(wl, kueue.WorkloadQuotaReserved, metav1.ConditionTrue, "QuotaReserved", "", t0)
			cond(wl, kueue.WorkloadAdmitted, metav1.ConditionFalse, "NoChecks", "", t0)
		}), want: []ev{{"reserved@2026-12-02T14:00:00Z", Reserved}}},
		{name: "admitted, pods not read", wl: wlWith(func(wl *kueue.Workload) { admit(wl, t0) }),
			want: []ev{{"admitted@2026-12-02T14:00:00Z", Admitted}}},
		{name: "admitted, 2 of 3 pods running", wl: wlWith(func(wl *kueue.Workload) { admit(wl, t0) }), pods: Pods{Known: true, Running: 2},
			want: []ev{{"admitted@2026-12-02T14:00:00Z", Admitted}}},
		{name: "admitted, every pod running or done", wl: wlWith(func(wl *kueue.Workload) { admit(wl, t0) }), pods: Pods{Known: true, Running: 2, Succeeded: 1},
			want: []ev{{"admitted@2026-12-02T14:00:00Z", Admitted}, {"running@2026-12-02T14:00:00Z", Running}}},
		{name: "PodsReady", wl: wlWith(func(wl *kueue.Workload) {
			admit(wl, t0)
			cond(wl, kueue.WorkloadPodsReady, metav1.ConditionTrue, "PodsReady", "", t0.Add(time.Minute))
		}), want: []ev{{"admitted@2026-12-02T14:00:00Z", Admitted}, {"running@2026-12-02T14:00:00Z", Running}}},
		{name: "preempted", wl: wlWith(func(wl *kueue.Workload) {
			admit(wl, t0)
			cond(wl, kueue.WorkloadAdmitted, metav1.ConditionFalse, "Pending", "", t0.Add(time.Hour))
			cond(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, "Pending", "", t0.Add(time.Hour))
			cond(wl, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPreemption, "Preempted to accommodate a workload", t0.Add(time.Hour))
			cond(wl, kueue.WorkloadPreempted, metav1.ConditionTrue, kueue.InClusterQueueReason, "Preempted to accommodate a workload (UID: 1) due to prioritization in the ClusterQueue", t0.Add(time.Hour))
		}), want: []ev{{"evicted@2026-12-02T15:00:00Z", Preempted}}},
		{name: "evicted by PodsReady timeout", wl: wlWith(func(wl *kueue.Workload) {
			cond(wl, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPodsReadyTimeout, "Exceeded the PodsReady timeout", t0)
		}), want: []ev{{"evicted@2026-12-02T14:00:00Z", Evicted}}},
		{name: "finished", wl: wlWith(func(wl *kueue.Workload) {
			admit(wl, t0)
			cond(wl, kueue.WorkloadFinished, metav1.ConditionTrue, kueue.WorkloadFinishedReasonSucceeded, "Job finished successfully", t0.Add(time.Hour))
		}), want: []ev{{"finished@2026-12-02T15:00:00Z", Succeeded}}},
		{name: "failed", wl: wlWith(func(wl *kueue.Workload) {
			admit(wl, t0)
			cond(wl, kueue.WorkloadFinished, metav1.ConditionTrue, kueue.WorkloadFinishedReasonFailed, "Job has reached the specified backoff limit", t0.Add(time.Hour))
		}), want: []ev{{"finished@2026-12-02T15:00:00Z", Failed}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []ev
			for _, e := range Observe(c.wl, c.pods) {
				got = append(got, ev{e.Key, e.Type})
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Observe (-want +got):\n%s", diff)
			}
		})
	}
	preempted := Observe(cases[7].wl, Pods{})[0]
	if preempted.Reason != kueue.InClusterQueueReason || !strings.Contains(preempted.Message, "prioritization") {
		t.Errorf("preemption event %+v does not carry the Preempted condition's reason and message", preempted)
	}
	admitted := Observe(cases[3].wl, Pods{})
	if got := Transitions([]string{"admitted@2026-12-02T14:00:00Z"}, admitted); len(got) != 0 {
		t.Errorf("Transitions told a seen event again: %+v", got)
	}
}

// TestLifecycle: a subscriber is told, once each and in order, that the
// job was admitted, runs, was preempted, was admitted again and finished;
// then the subscription is gone from the cluster.
func TestLifecycle(t *testing.T) {
	h := newHarness(t, 5)
	wl := h.job("team-a", "train")
	h.lead()
	got := h.subscribe("U0ALICE", "team-a", "train")
	if !strings.Contains(got, "I will send you a direct message when `Job team-a/train` is admitted") || !strings.Contains(got, "Now: pending") {
		t.Errorf("subscribe answered %q", got)
	}
	conf := h.dm("the confirmation DM")
	if conf.Channel != "U0ALICE" || !strings.Contains(conf.Text, "Watching train") || eventKey(t, conf) != "" {
		t.Errorf("confirmation %+v", conf)
	}

	keys := map[string]int{}
	expect := func(what, typ, text string) slackfake.Post {
		t.Helper()
		p := h.dm(what)
		keys[eventKey(t, p)]++
		if !strings.HasPrefix(p.Text, typ) || !strings.Contains(p.Blocks, text) {
			t.Errorf("%s: DM %q %s, want %q with %q", what, p.Text, abbrev(p.Blocks), typ, text)
		}
		return p
	}
	at := h.clock.Now()
	h.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, at) })
	expect("the admission DM", "Admitted: train", "ClusterQueue `gpu`")

	h.pods("team-a", "train", corev1.PodRunning, corev1.PodPending)
	h.step(10 * time.Second) // a tick: 1 of 2 Pods run, nothing to say
	slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "a DM before every Pod runs")
	h.pods("team-a", "train", corev1.PodRunning) // a third pod; the job counts 2
	_ = h.kube.CoreV1().Pods("team-a").Delete(context.Background(), "train-2", metav1.DeleteOptions{})
	h.step(10 * time.Second)
	expect("the running DM", "Running: train", "2 of 2 Pods running")

	later := at.Add(time.Hour)
	h.set("team-a", wl.Name, func(wl *kueue.Workload) {
		cond(wl, kueue.WorkloadAdmitted, metav1.ConditionFalse, "Pending", "", later)
		cond(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, "Pending", "", later)
		cond(wl, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPreemption, "Preempted to accommodate a workload", later)
		cond(wl, kueue.WorkloadPreempted, metav1.ConditionTrue, kueue.InClusterQueueReason, "Preempted to accommodate a workload (UID: 9) due to prioritization in the ClusterQueue", later)
	})
	expect("the preemption DM", "Preempted: train", "InClusterQueue")
	// Eviction stops the job: its Pods go.
	for _, name := range []string{"train-1", "train-3"} {
		if err := h.kube.CoreV1().Pods("team-a").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	again := later.Add(10 * time.Minute)
	h.set("team-a", wl.Name, func(wl *kueue.Workload) {
		admit(wl, again)
		cond(wl, kueue.WorkloadEvicted, metav1.ConditionFalse, "Admitted", "", again)
	})
	expect("the second admission DM", "Admitted: train", "ClusterQueue `gpu`")
	h.set("team-a", wl.Name, func(wl *kueue.Workload) {
		cond(wl, kueue.WorkloadFinished, metav1.ConditionTrue, kueue.WorkloadFinishedReasonSucceeded, "Job finished successfully", again.Add(time.Hour))
	})
	fin := expect("the finished DM", "Finished: train", "finished successfully")
	if strings.Contains(fin.Blocks, ActionStop) {
		t.Errorf("the last DM offers Stop: %s", abbrev(fin.Blocks))
	}
	slackfake.Quiet(t, h.fs.Posts, 500*time.Millisecond, "a DM after the job finished")
	for k, n := range keys {
		if n != 1 || k == "" {
			t.Errorf("event %q told %d times", k, n)
		}
	}
	if len(keys) != 5 {
		t.Errorf("told %d events, want 5: %v", len(keys), keys)
	}
	if subs, err := h.n.Store.User(context.Background(), "U0ALICE"); err != nil || len(subs) != 0 || h.n.Len() != 0 {
		t.Errorf("after the job finished: stored %+v (%v), held %d", subs, err, h.n.Len())
	}
}

func abbrev(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestAlreadyTrueIsNotTold: what is true when the user subscribes is
// said in the answer, not sent again as news.
func TestAlreadyTrueIsNotTold(t *testing.T) {
	h := newHarness(t, 5)
	wl := h.job("team-a", "done-soon")
	h.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, h.clock.Now().Add(-time.Minute)) })
	h.lead()
	if got := h.subscribe("U0ALICE", "team-a", "done-soon"); !strings.Contains(got, "Now: admitted to ClusterQueue gpu") {
		t.Errorf("subscribe answered %q", got)
	}
	h.dm("the confirmation")
	slackfake.Quiet(t, h.fs.Posts, 400*time.Millisecond, "a DM about the admission the user already knew of")
}

// TestLimitPerUser: one subscription more than notify.maxPerUser is
// refused, naming the ones held; the same job twice is one subscription.
func TestLimitPerUser(t *testing.T) {
	h := newHarness(t, 2)
	for _, j := range []string{"a", "b", "c"} {
		h.job("team-a", j)
	}
	h.lead()
	h.subscribe("U0ALICE", "team-a", "a")
	if got := h.subscribe("U0ALICE", "team-a", "a"); !strings.Contains(got, "already watching `Job team-a/a`") {
		t.Errorf("second subscription to the same job: %q", got)
	}
	h.subscribe("U0ALICE", "team-a", "b")
	got := h.subscribe("U0ALICE", "team-a", "c")
	if !strings.Contains(got, "You already have 2 subscriptions") || !strings.Contains(got, "`Job team-a/a`") || !strings.Contains(got, "`Job team-a/b`") {
		t.Errorf("third subscription: %q", got)
	}
	if subs, _ := h.n.Store.User(context.Background(), "U0ALICE"); len(subs) != 2 {
		t.Errorf("stored %d subscriptions, want 2", len(subs))
	}
	// Another user has their own limit.
	if got := h.subscribe("U00BOB", "team-a", "c"); !strings.Contains(got, "I will send you") {
		t.Errorf("bob's subscription: %q", got)
	}
}

// TestStop: the Stop button ends one subscription (only the presser's
// own), "stop" in the DM ends them all.
func TestStop(t *testing.T) {
	h := newHarness(t, 5)
	wa, wb := h.job("team-a", "a"), h.job("team-a", "b")
	h.lead()
	h.subscribe("U0ALICE", "team-a", "a")
	h.subscribe("U0ALICE", "team-a", "b")
	h.subscribe("U00BOB", "team-a", "a")
	subs, _ := h.n.Store.User(context.Background(), "U0ALICE")
	if len(subs) != 2 {
		t.Fatalf("stored %+v", subs)
	}
	ctx := context.Background()
	if m, _ := h.n.Unsubscribe(ctx, user("U00BOB"), subs[0].ID); !strings.Contains(blocks.Text(m.Blocks), "already ended") {
		t.Errorf("bob stopped alice's subscription: %q", blocks.Text(m.Blocks))
	}
	if m, _ := h.n.Unsubscribe(ctx, user("U0ALICE"), subs[0].ID); !strings.Contains(blocks.Text(m.Blocks), "Stopped: no more messages about `Job team-a/a`") {
		t.Errorf("Stop: %q", blocks.Text(m.Blocks))
	}
	for _, text := range []string{"stop", " Stop! ", "unsubscribe", "STOP ALL"} {
		if !IsStop(text) {
			t.Errorf("IsStop(%q) = false", text)
		}
	}
	for _, text := range []string{"why is my job stopped?", "stop train", ""} {
		if IsStop(text) {
			t.Errorf("IsStop(%q) = true", text)
		}
	}
	if m, _ := h.n.StopAll(ctx, user("U0ALICE")); !strings.Contains(blocks.Text(m.Blocks), "`Job team-a/b`") {
		t.Errorf("StopAll: %q", blocks.Text(m.Blocks))
	}
	for range 3 {
		h.dm("a confirmation")
	}
	// Bob's is the only one left: admitting both jobs tells only bob.
	h.set("team-a", wa.Name, func(wl *kueue.Workload) { admit(wl, h.clock.Now()) })
	h.set("team-a", wb.Name, func(wl *kueue.Workload) { admit(wl, h.clock.Now()) })
	if p := h.dm("bob's admission DM"); p.Channel != "U00BOB" {
		t.Errorf("DM to %s after alice stopped", p.Channel)
	}
	slackfake.Quiet(t, h.fs.Posts, 400*time.Millisecond, "a DM to a stopped subscription")
}

// TestExpiry: at notify.expireAfter the subscriber is told it ended, and
// it is gone.
func TestExpiry(t *testing.T) {
	h := newHarness(t, 5)
	h.job("team-a", "slow")
	h.lead()
	h.subscribe("U0ALICE", "team-a", "slow")
	h.dm("the confirmation")
	h.step(25 * time.Hour)
	p := h.dm("the expiry note")
	if !strings.HasPrefix(p.Text, "No more messages about slow") || !strings.Contains(p.Blocks, "notify.expireAfter") {
		t.Errorf("expiry DM %q %s", p.Text, abbrev(p.Blocks))
	}
	for deadline := time.Now().Add(2 * time.Second); h.n.Len() != 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if h.n.Len() != 0 {
		t.Errorf("%d subscriptions after expiry", h.n.Len())
	}
}

// TestLostAccess: a subscriber who may no longer use the bot, or no
// longer read the job, is told nothing about the job: a note that the
// subscription ended, and it is gone.
func TestLostAccess(t *testing.T) {
	for _, how := range []string{"refused by the identity mapping", "Forbidden"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, 5)
			wl := h.job("team-a", "secret")
			h.lead()
			h.subscribe("U0CAROL", "team-a", "secret")
			h.dm("the confirmation")
			if how == "Forbidden" {
				h.deny("u0carol@example.com")
			} else {
				h.resolver.refuse("U0CAROL")
			}
			h.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, h.clock.Now()) })
			if how != "Forbidden" {
				// The watch still runs as carol: the transition is seen,
				// and the check before the DM refuses.
			} else {
				// carol's watch is refused too: the namespace is then read
				// per subscription, which tells carol.
				h.step(10 * time.Second)
			}
			p := h.dm("the note")
			text := p.Text + p.Blocks
			if !strings.Contains(text, "you may no longer read it") {
				t.Errorf("note %s", abbrev(text))
			}
			for _, leak := range []string{"Admitted", "gpu", "ClusterQueue"} {
				if strings.Contains(text, leak) {
					t.Errorf("the note to a user without access says %q: %s", leak, abbrev(text))
				}
			}
			slackfake.Quiet(t, h.fs.Posts, 400*time.Millisecond, "a DM after the note")
			if subs, _ := h.n.Store.User(context.Background(), "U0CAROL"); len(subs) != 0 {
				t.Errorf("subscription kept: %+v", subs)
			}
		})
	}
}

// podsTest subscribes to five admitted jobs of one namespace.
func podsTest(t *testing.T, h *harness) {
	t.Helper()
	var wls []*kueue.Workload
	for _, j := range []string{"p0", "p1", "p2", "p3", "p4"} {
		wls = append(wls, h.job("team-a", j))
	}
	h.lead()
	for _, wl := range wls {
		h.subscribe("U0ALICE", "team-a", strings.TrimSuffix(strings.TrimPrefix(wl.Name, "job-"), "-1a2b3"))
		h.dm("a confirmation")
	}
	for _, wl := range wls {
		h.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, h.clock.Now()) })
		h.dm("an admission DM")
	}
}

// podRequests counts the Pod LISTs and WATCHes made: by one set-based
// selector (a poll), by one job's selector (a check before a DM), and by
// the label key alone (a Pod watch).
func podRequests(h *harness) (set, one, byKey, watches int) {
	for _, a := range h.kube.Actions() {
		if a.GetResource().Resource != "pods" {
			continue
		}
		switch l := a.(type) {
		case k8stesting.WatchAction:
			watches++
		case k8stesting.ListAction:
			switch sel := l.GetListRestrictions().Labels.String(); {
			case strings.Contains(sel, " in ("):
				set++
			case sel == kinds.JobControllerUIDLabel:
				byKey++
			default:
				one++
			}
		}
	}
	return set, one, byKey, watches
}

// TestPodsWatchedPerNamespace: while admitted subscribed jobs' Pods do
// not all run, their namespace has one Pod watch (by the Pod selectors'
// label key, as a subscriber): Running is told from its events, with no
// poll and no clock tick, and the requests do not grow with the jobs.
func TestPodsWatchedPerNamespace(t *testing.T) {
	h := newHarness(t, 10)
	podsTest(t, h)
	_, oneBefore, _, _ := podRequests(h)
	h.pods("team-a", "p3", corev1.PodRunning, corev1.PodRunning)
	p := h.dm("the running DM, from the Pod watch")
	if !strings.HasPrefix(p.Text, "Running: p3") {
		t.Fatalf("DM %q, want Running: p3", p.Text)
	}
	slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "another running DM")
	set, one, byKey, watches := podRequests(h)
	if set != 0 || byKey != 1 || watches != 1 {
		t.Errorf("%d polls, %d LISTs and %d WATCHes by the label key; want no poll, one watch of the namespace", set, byKey, watches)
	}
	if one -= oneBefore; one != 1 {
		t.Errorf("%d single-job Pod LISTs, want 1 (p3 before its DM)", one)
	}
	// Every Pod of the others runs: each is told, the watch then stops.
	for _, j := range []string{"p0", "p1", "p2", "p4"} {
		h.pods("team-a", j, corev1.PodRunning, corev1.PodSucceeded)
	}
	for range 4 {
		if p := h.dm("a running DM"); !strings.HasPrefix(p.Text, "Running: ") {
			t.Errorf("DM %q, want Running", p.Text)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		h.step(10 * time.Second)
		time.Sleep(50 * time.Millisecond)
		h.n.mu.Lock()
		n := h.n.leading.podWatches.Load()
		h.n.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Pod watches once every subscribed job runs, want 0", n)
		}
	}
}

// TestPodsPolledWhenWatchRefused: a subscriber who may list Pods but not
// watch them gets Running from a poll: one LIST per namespace and
// subscriber (a set-based selector) every PodPoll, not one per job.
func TestPodsPolledWhenWatchRefused(t *testing.T) {
	h := newHarness(t, 10)
	h.kube.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", nil)
	})
	podsTest(t, h)
	_, oneBefore, _, _ := podRequests(h)
	h.pods("team-a", "p3", corev1.PodRunning, corev1.PodRunning)
	polls := 0
	var running slackfake.Post
	for running.Channel == "" && polls < 6 {
		h.step(10 * time.Second)
		polls++
		select {
		case p := <-h.fs.Posts:
			running = p
		case <-time.After(2 * time.Second):
		}
	}
	if !strings.HasPrefix(running.Text, "Running: p3") {
		t.Fatalf("after %d polls: DM %q", polls, running.Text)
	}
	slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "another running DM")
	set, one, _, _ := podRequests(h)
	one -= oneBefore
	if set < 1 || set > polls {
		t.Errorf("%d set-based Pod LISTs in %d ticks of 5 jobs, want at most one per tick", set, polls)
	}
	if one < 1 || one > 5 {
		t.Errorf("%d single-job Pod LISTs, want 1 (p3 before its DM) to 5", one)
	}
}

// TestGone: a job deleted with its Workload ends the subscription with a
// note.
func TestGone(t *testing.T) {
	h := newHarness(t, 5)
	wl := h.job("team-a", "short")
	h.lead()
	h.subscribe("U0ALICE", "team-a", "short")
	h.dm("the confirmation")
	k, _ := kinds.ByKind("Job")
	if err := h.dyn.Resource(k.Resource).Namespace("team-a").Delete(context.Background(), "short", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := h.kueue.KueueV1beta2().Workloads("team-a").Delete(context.Background(), wl.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := h.dm("the note"); !strings.Contains(p.Blocks, "were deleted") {
		t.Errorf("note %s", abbrev(p.Blocks))
	}
	slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "a DM after the note")
}

// TestSubscribeRefusals: what a user is told when they cannot subscribe;
// nothing is stored and no DM is sent.
func TestSubscribeRefusals(t *testing.T) {
	h := newHarness(t, 5)
	h.job("team-a", "train")
	h.resolver.refuse("U0MALLORY")
	if got := h.subscribe("U0MALLORY", "team-a", "train"); !strings.Contains(got, "not mapped") {
		t.Errorf("refused user: %q", got)
	}
	if got := h.subscribe("U0ALICE", "team-a", "nope"); !strings.Contains(got, "There is no `Job team-a/nope`") {
		t.Errorf("missing job: %q", got)
	}
	m, err := h.n.Subscribe(context.Background(), user("U0ALICE"), blocks.JobRef{Namespace: "Team A", Kind: "Job", Name: "x"})
	if err != nil || !strings.Contains(blocks.Text(m.Blocks), "I cannot watch that") {
		t.Errorf("bad ref: %q, %v", blocks.Text(m.Blocks), err)
	}
	h.mu.Lock()
	h.noWatch = true
	h.mu.Unlock()
	if got := h.subscribe("U0ALICE", "team-a", "train"); !strings.Contains(got, "list and watch on workloads.kueue.x-k8s.io") {
		t.Errorf("no watch: %q", got)
	}
	slackfake.Quiet(t, h.fs.Posts, 200*time.Millisecond, "a DM for a refused subscription")
	if all, _ := h.n.Store.Load(context.Background()); len(all) != 0 {
		t.Errorf("stored %+v", all)
	}
}

// TestPodKeyOf: a Pod watch selects by the first equality of a job's Pod
// selector (its existence), whatever the other requirements; a selector
// without one is watched over the whole namespace.
func TestPodKeyOf(t *testing.T) {
	for _, c := range []struct{ sel, key, val string }{
		{"batch.kubernetes.io/controller-uid=abc", "batch.kubernetes.io/controller-uid", "abc"},
		{"training.kubeflow.org/job-name=x,training.kubeflow.org/operator-name=pytorchjob-controller", "training.kubeflow.org/job-name", "x"},
		{"app in (a)", "app", "a"},
		{"app in (a,b)", "", ""},
		{"app", "", ""},
	} {
		_, key, val, err := podKeyOf(c.sel)
		if err != nil || key != c.key || val != c.val {
			t.Errorf("podKeyOf(%q) = %q %q %v, want %q %q", c.sel, key, val, err, c.key, c.val)
		}
	}
}
