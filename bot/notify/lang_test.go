package notify

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/internal/golden"
)

func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "notify.")
	i18ntest.ProseOutsideCatalog(t, ".", nil)
}

// TestEventMessagesInEachLanguage: every DM (each event, the late note,
// the footer and the Stop button) and the confirmation, in French,
// Japanese and Chinese, hold no English prose once Kueue's reason and
// message, the job and the commands are set aside (golden files
// testdata/dm/LANG.txt); English is unchanged.
func TestEventMessagesInEachLanguage(t *testing.T) {
	s := &Subscription{ID: "a1b2c3d4e5f6", User: "U0ALICE", Namespace: "team-a", Kind: "Job", Name: "train",
		Created: t0, Expires: t0.Add(24 * time.Hour)}
	now := t0.Add(2 * time.Hour)
	kueueMsg := "Preempted to accommodate a workload (UID: 1234) due to prioritization in the ClusterQueue"
	events := []Event{
		{Type: Reserved, ClusterQueue: "gpu"},
		{Type: Admitted, ClusterQueue: "gpu", At: now.Add(-5 * time.Minute)},
		{Type: Running, PodsRunning: 2, PodsTotal: 3},
		{Type: Preempted, Reason: "InClusterQueue", Message: kueueMsg},
		{Type: Evicted, Reason: "PodsReadyTimeout", Message: "Exceeded the PodsReady timeout"},
		{Type: Succeeded},
		{Type: Failed, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"},
		{Type: Expired}, {Type: LostAccess}, {Type: Gone},
	}
	verbatim := []string{kueueMsg, "Exceeded the PodsReady timeout", "Job has reached the specified backoff limit"}
	render := func(l i18n.Lang) string {
		var b strings.Builder
		for _, e := range events {
			m := EventMessageIn(l, s, e, now)
			b.WriteString(m.Text + "\n" + blocks.Text(m.Blocks) + "\n--- dm ---\n")
		}
		wl := wlWith(func(*kueue.Workload) {})
		m := confirmation(l, s, DescribeMsg(wl))
		b.WriteString(m.Text + "\n" + blocks.Text(m.Blocks) + "\n")
		return b.String()
	}
	en := render(i18n.English)
	for _, want := range []string{"Admitted: train", "`Job team-a/train` runs: 2 of 3 Pods running or done.", "_This happened at 15:55 UTC, 5m0s ago._",
		"Subscription `a1b2c3d4e5f6`, until Dec 3 14:00 UTC. Reply `stop` to end all of yours.", "it was 24h0m0s old", "Now: pending."} {
		if !strings.Contains(en, want) {
			t.Errorf("English DMs lack %q:\n%s", want, en)
		}
	}
	for _, l := range i18n.All()[1:] {
		got := render(l)
		i18ntest.AssertTranslated(t, l, got, verbatim...)
		golden.Check(t, filepath.Join("testdata", "dm", l.String()+".txt"), []byte(got))
	}
}

// TestDMsInTheSubscribersLanguage: the reply to subscribing, the
// confirmation and every later DM are in the language Notifier.Lang tells
// for the subscriber, asked once per message (bot.Languages caches it).
func TestDMsInTheSubscribersLanguage(t *testing.T) {
	h := newHarness(t, 5)
	var mu sync.Mutex
	asked := map[string]int{}
	h.n.Lang = func(_ context.Context, user string) i18n.Lang {
		mu.Lock()
		defer mu.Unlock()
		asked[user]++
		return i18n.French
	}
	wl := h.job("team-a", "train")
	h.lead()
	if got := h.subscribe("U0ALICE", "team-a", "train"); !strings.Contains(got, "Je vous enverrai un message privé quand `Job team-a/train` sera admis") || !strings.Contains(got, "Pour l’instant : en attente.") {
		t.Errorf("subscribe answered %q", got)
	}
	if conf := h.dm("the confirmation DM"); !strings.Contains(conf.Text, "Surveillance de train") || !strings.Contains(conf.Blocks, "Arrêter ces messages") {
		t.Errorf("confirmation %+v", conf)
	}
	at := h.clock.Now()
	h.set("team-a", wl.Name, func(wl *kueue.Workload) { admit(wl, at) })
	if p := h.dm("the admission DM"); !strings.HasPrefix(p.Text, "Admis : train") || !strings.Contains(p.Blocks, "a été admis dans la ClusterQueue") {
		t.Errorf("admission DM %q %s", p.Text, abbrev(p.Blocks))
	}
	mu.Lock()
	defer mu.Unlock()
	if asked["U0ALICE"] < 2 {
		t.Errorf("Lang asked %d times for the subscriber, want once per reply and DM", asked["U0ALICE"])
	}
}
