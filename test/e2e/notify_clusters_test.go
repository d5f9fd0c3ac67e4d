package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"k8s.io/client-go/kubernetes"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/notify"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// TestNotifyInAnotherCluster: a subscription to a job on the MultiKueue
// worker (configured cluster gpu-west) is kept at home and watched on the
// worker, through the worker's clients, as the subscriber: when Kueue
// admits the job there, the DM names the cluster, and the worker's audit
// log shows the watch and the reads impersonating the subscriber.
func TestNotifyInAnotherCluster(t *testing.T) {
	sb := sandbox(t)
	worker := workerSandbox(t, sb)
	fs := slackfake.New(t)
	const k8sUser = "notify-west-alice"
	const subscriber = "U0NOTIFYW"
	u := slack.User{ID: subscriber, Name: "west", TeamID: slackfake.TeamID}
	fs.SetUser(u)
	cfgYAML := fmt.Sprintf(`identity:
  users:
    - {slackUserID: %s, teamID: %s, user: %s}
notify: {enabled: true}
clusters:
  - {name: gpu-west, kubeconfig: %s}
`, subscriber, slackfake.TeamID, k8sUser, filepath.Join(worker, "kubeconfig-kueuebot"))
	cfg, err := config.Parse([]byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	grantBot(t, sb, cfg)
	grantBot(t, worker, cfg)
	botNS := notifyBotNamespace(t, sb, cfg)
	jobsNS, raise := notifyQueues(t, worker, k8sUser, "west")
	queuedJob(t, adminClient(t, worker), adminKueue(t, worker), jobsNS, "west", "west")

	resolver, err := rbac.NewResolver(cfg.Identity, notifyDirectory{subscriber: u})
	if err != nil {
		t.Fatal(err)
	}
	home := botRESTConfig(t, sb, "kueuebot-e2e-notify")
	west := botRESTConfig(t, worker, "kueuebot-e2e-notify-west")
	n := notify.New(notify.Notifier{
		Store: &notify.Store{Client: kubernetes.NewForConfigOrDie(home), Namespace: botNS},
		Slack: slack.New("xoxb-e2e", slack.OptionAPIURL(fs.APIURL())), Resolve: resolver,
		Clients:  func(id rbac.Identity) (*rbac.Clients, error) { return rbac.ClientsFor(home, id) },
		Clusters: map[string]notify.Cluster{"gpu-west": {Resolve: resolver, Clients: func(id rbac.Identity) (*rbac.Clients, error) { return rbac.ClientsFor(west, id) }}},
		Holder:   "e2e", MaxPerUser: 3, ExpireAfter: time.Hour, Tick: time.Second,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { n.Lead(ctx); close(done) }()
	stop := func() { cancel(); <-done }
	defer stop()

	start := time.Now().Add(-time.Second)
	m, err := n.Subscribe(t.Context(), rbac.SlackUser{ID: subscriber, TeamID: slackfake.TeamID}, blocks.JobRef{Namespace: jobsNS, Kind: "Job", Name: "west", Cluster: "gpu-west"})
	if err != nil {
		t.Fatal(err)
	}
	if text := blocks.Text(m.Blocks); !strings.Contains(text, "`gpu-west: Job "+jobsNS+"/west`") || !strings.Contains(text, "Now: pending") {
		t.Fatalf("subscribe: %q", text)
	}
	slackfake.Receive(t, fs.Posts, "the confirmation")
	raise("west")
	raised := time.Now()
	for deadline := time.After(90 * time.Second); ; {
		select {
		case p := <-fs.Posts:
			if p.Method != "chat.postMessage" || !strings.HasPrefix(p.Text, "Admitted: west") {
				continue
			}
			if !strings.Contains(p.Blocks, "gpu-west: Job "+jobsNS+"/west") {
				t.Errorf("the admission DM does not name gpu-west: %s", p.Blocks)
			}
			t.Logf("admission DM %s after the quota was raised on the worker", time.Since(raised).Round(time.Millisecond))
			goto told
		case <-deadline:
			t.Fatal("no admission DM within 90s")
		}
	}
told:
	// A watch is audited when it ends: stop leading, then read the log.
	stop()
	var watched, read int
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		watched, read = 0, 0
		for _, ev := range botEvents(t, filepath.Join(worker, "audit.log"), start) {
			if ev.ObjectRef.Namespace != jobsNS {
				continue
			}
			if ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != k8sUser {
				t.Errorf("worker: %s %s not as the subscriber", ev.Verb, ev.RequestURI)
				continue
			}
			read++
			if ev.Verb == "watch" && ev.ObjectRef.Resource == "workloads" {
				watched++
			}
		}
		if watched > 0 || time.Now().After(deadline) {
			break
		}
	}
	if watched == 0 || read == 0 {
		t.Errorf("worker audit: %d reads as %s in %s, %d Workload watches; want both", read, k8sUser, jobsNS, watched)
	}
	t.Logf("worker: %d reads as %s, %d Workload watch requests", read, k8sUser, watched)
}
