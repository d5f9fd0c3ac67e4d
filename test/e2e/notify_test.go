package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/notify"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

func adminKueue(t testing.TB, sb string) kueueclient.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	return kueueclient.NewForConfigOrDie(cfg)
}

// notifyBotNamespace creates the bot's namespace with rbac.BotRole for
// cfg (the Lease and the subscription ConfigMaps) bound to user
// kueuebot: exactly what the chart grants for cfg.
func notifyBotNamespace(t *testing.T, sb string, cfg *config.Config) string {
	t.Helper()
	cs := adminClient(t, sb)
	ns := fmt.Sprintf("e2e-notify-bot-%d", time.Now().UnixNano()%1e6)
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	role, binding := rbac.BotRole(cfg, ns), rbac.BotStateRoleBinding(ns)
	binding.Subjects = []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "kueuebot"}}
	if _, err := cs.RbacV1().Roles(ns).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, sb, "kueuebot", authorizationv1.ResourceAttributes{Verb: "update", Resource: "configmaps", Namespace: ns, Name: rbac.NotifyConfigMapPrefix + "7"})
	return ns
}

// notifyQueues creates a namespace for jobs where user may read as
// kueuebot-reader grants (jobs, pods, workloads with watch), and per name
// a ClusterQueue with no CPU quota and its LocalQueue there. raise gives
// a ClusterQueue quota, so that Kueue admits what waits in it.
func notifyQueues(t *testing.T, sb, user string, names ...string) (ns string, raise func(cq string)) {
	t.Helper()
	cs, kq := adminClient(t, sb), adminKueue(t, sb)
	ctx := t.Context()
	ns = fmt.Sprintf("e2e-notify-%d", time.Now().UnixNano()%1e6)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	reader := rbac.ReaderClusterRole()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns}, Rules: reader.Rules}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, sb, user, authorizationv1.ResourceAttributes{Verb: "watch", Group: "kueue.x-k8s.io", Resource: "workloads", Namespace: ns})
	rf := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if _, err := kq.KueueV1beta2().ResourceFlavors().Create(ctx, rf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kq.KueueV1beta2().ResourceFlavors().Delete(context.Background(), rf.Name, metav1.DeleteOptions{})
	})
	for _, name := range names {
		cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}, Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: kueue.ResourceFlavorReference(rf.Name), Resources: []kueue.ResourceQuota{{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("0")}}}}}},
		}}
		if _, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = kq.KueueV1beta2().ClusterQueues().Delete(context.Background(), cq.Name, metav1.DeleteOptions{})
		})
		lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq.Name)}}
		if _, err := kq.KueueV1beta2().LocalQueues(ns).Create(ctx, lq, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	raise = func(name string) {
		t.Helper()
		cq, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, ns+"-"+name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cq.Spec.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota = resource.MustParse("10")
		if _, err := kq.KueueV1beta2().ClusterQueues().Update(ctx, cq, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return ns, raise
}

// queuedJob creates a one-Pod batch Job in LocalQueue lq (Kueue suspends
// it until admitted) and waits for its Workload.
func queuedJob(t *testing.T, cs kubernetes.Interface, kq kueueclient.Interface, ns, name, lq string) {
	t.Helper()
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": lq}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
		}}},
	}
	if _, err := cs.BatchV1().Jobs(ns).Create(t.Context(), job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		wls, err := kq.KueueV1beta2().Workloads(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, wl := range wls.Items {
			if len(wl.OwnerReferences) > 0 && wl.OwnerReferences[0].Name == name {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Workload for Job %s/%s after 30s", ns, name)
		}
	}
}

// slackDirectory answers users.info for the resolver from the fake's users.
type notifyDirectory map[string]slack.User

func (d notifyDirectory) GetUserInfoContext(_ context.Context, user string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	u, ok := d[user]
	if !ok {
		return nil, slack.SlackErrorResponse{Err: "user_not_found"}
	}
	return &u, nil
}

func (d notifyDirectory) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	return nil, nil
}

// notificationKeys counts, in the fake's posts so far, the DMs of each
// notification event (by the metadata's event key) to channel.
func notificationKey(p slackfake.Post) string {
	var md slack.SlackMetadata
	if p.Method != "chat.postMessage" || json.Unmarshal([]byte(p.Metadata), &md) != nil || md.EventType != notify.MetadataEventType {
		return ""
	}
	return fmt.Sprint(md.EventPayload["event"])
}

// TestNotifyExactlyOnceAcrossLeaderKill runs three `kueuebot serve`
// processes with notifications on, against the sandbox's API server and
// real Kueue, and two subscribers. The leader is SIGKILLed twice while a
// DM is in flight: once after Slack recorded the post and before its
// answer reached the leader (the next leader finds it in the DM's history
// by its metadata and does not post it again), once after the leader
// recorded the event and before its post reached Slack (the next leader
// posts it). Each subscriber gets the admission DM exactly once.
func TestNotifyExactlyOnceAcrossLeaderKill(t *testing.T) {
	sb := sandbox(t)
	bin := kueuebot(t)
	fs := slackfake.New(t)
	const k8sUser = "notify-e2e-alice"
	subscribers := []string{"U0NOTIFYA", "U0NOTIFYB"}
	var mappings strings.Builder
	dir := notifyDirectory{}
	for _, id := range subscribers {
		u := slack.User{ID: id, Name: strings.ToLower(id), TeamID: slackfake.TeamID}
		fs.SetUser(u)
		dir[id] = u
		fmt.Fprintf(&mappings, "    - {slackUserID: %s, teamID: %s, user: %s}\n", id, slackfake.TeamID, k8sUser)
	}
	cfgYAML := serveConfig(fs, sb, mappings.String(), `notify:
  enabled: true
  maxPerUser: 3
  expireAfter: 1h
`)
	cfg, err := config.Parse([]byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	grantBot(t, sb, cfg)
	botNS := notifyBotNamespace(t, sb, cfg)
	jobsNS, raise := notifyQueues(t, sb, k8sUser, "held", "stalled")
	cs, kq := adminClient(t, sb), adminKueue(t, sb)
	queuedJob(t, cs, kq, jobsNS, "held", "held")
	queuedJob(t, cs, kq, jobsNS, "stalled", "stalled")

	procs := startReplicas(t, bin, cfgYAML, botNS, "pod-a", "pod-b", "pod-c")
	first := slackfake.Receive(t, fs.Conns, "the leader's Socket Mode connection")
	defer first.Close()
	leaderName := leaseHolder(t, cs, botNS)
	t.Logf("%s leads", leaderName)

	// Subscribe as the bot does when the button is pressed (the handler
	// calls Notifier.Subscribe; it runs here, writing the same ConfigMaps).
	resolver, err := rbac.NewResolver(cfg.Identity, dir)
	if err != nil {
		t.Fatal(err)
	}
	base := botRESTConfig(t, sb, "kueuebot-e2e-notify")
	own := kubernetes.NewForConfigOrDie(base)
	sub := notify.New(notify.Notifier{
		Store: &notify.Store{Client: own, Namespace: botNS}, Slack: slack.New("xoxb-e2e", slack.OptionAPIURL(fs.APIURL())),
		Resolve: resolver, Clients: func(id rbac.Identity) (*rbac.Clients, error) { return rbac.ClientsFor(base, id) },
		Holder: "e2e", MaxPerUser: 3, ExpireAfter: time.Hour,
	})
	for i, job := range []string{"held", "stalled"} {
		m, err := sub.Subscribe(t.Context(), rbac.SlackUser{ID: subscribers[i], TeamID: slackfake.TeamID}, blocks.JobRef{Namespace: jobsNS, Kind: "Job", Name: job})
		if err != nil {
			t.Fatal(err)
		}
		if text := blocks.Text(m.Blocks); !strings.Contains(text, "I will send you a direct message") || !strings.Contains(text, "Now: pending") {
			t.Fatalf("subscribe %s: %q", job, text)
		}
		if p := slackfake.Receive(t, fs.Posts, "the confirmation"); p.Channel != subscribers[i] {
			t.Fatalf("confirmation %+v", p)
		}
	}
	store := &notify.Store{Client: cs, Namespace: botNS}
	subOf := func(user string) notify.Subscription {
		t.Helper()
		subs, err := store.User(t.Context(), user)
		if err != nil || len(subs) != 1 {
			t.Fatalf("subscriptions of %s: %+v, %v", user, subs, err)
		}
		return subs[0]
	}

	posts := map[string]int{} // event key -> DMs
	collect := func(p slackfake.Post) string {
		k := notificationKey(p)
		if k != "" {
			posts[p.Channel+" "+k]++
		}
		return k
	}

	// 1. Held: Slack records the admission DM and its answer never
	// reaches the leader, which is killed.
	release := fs.HoldPosts(subscribers[0], 1)
	defer release()
	raise("held")
	var held slackfake.Post
	for deadline := time.After(90 * time.Second); held.Channel == ""; {
		select {
		case p := <-fs.Posts:
			if k := collect(p); k != "" && p.Channel == subscribers[0] {
				held = p
			}
		case <-deadline:
			t.Fatal("no admission DM for the held job within 90s")
		}
	}
	if !strings.HasPrefix(held.Text, "Admitted: held") {
		t.Errorf("held DM %q", held.Text)
	}
	procs[leaderName].kill()
	release()
	killed := time.Now()
	t.Logf("%s SIGKILLed with its DM recorded by Slack and unanswered", leaderName)
	if s := subOf(subscribers[0]); s.Pending == nil {
		t.Fatalf("the killed leader's event is not pending: %+v", s)
	}

	// The next leader finds the DM in the history and records it, without
	// posting it again.
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		if s := subOf(subscribers[0]); s.Pending == nil && len(s.Seen) > 0 {
			t.Logf("recorded as told %s after the kill (seen %v)", time.Since(killed).Round(100*time.Millisecond), s.Seen)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the held DM was not recorded within 90s of the kill: %+v", subOf(subscribers[0]))
		}
	}
	second := leaseHolder(t, cs, botNS)
	if second == leaderName || procs[second] == nil {
		t.Fatalf("after the kill the Lease is held by %q", second)
	}

	// 2. Stalled: the leader records the event, its post never reaches
	// Slack, and it is killed.
	releaseStall := fs.StallPosts(subscribers[1], 1)
	defer releaseStall()
	raise("stalled")
	select {
	case <-fs.Stalled():
	case <-time.After(90 * time.Second):
		t.Fatal("no admission DM for the stalled job within 90s")
	}
	if s := subOf(subscribers[1]); s.Pending == nil {
		t.Fatalf("the event is not recorded as pending before its post: %+v", s)
	}
	procs[second].kill()
	t.Logf("%s SIGKILLed before its DM reached Slack", second)
	var stalled slackfake.Post
	for deadline := time.After(90 * time.Second); stalled.Channel == ""; {
		select {
		case p := <-fs.Posts:
			if k := collect(p); k != "" && p.Channel == subscribers[1] {
				stalled = p
			}
		case <-deadline:
			t.Fatal("the stalled DM was not posted within 90s of the kill")
		}
	}
	if !strings.HasPrefix(stalled.Text, "Admitted: stalled") {
		t.Errorf("stalled DM %q", stalled.Text)
	}
	third := leaseHolder(t, cs, botNS)
	t.Logf("%s posted it", third)

	// Nothing more, for longer than a resync and a tick.
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline); {
		select {
		case p := <-fs.Posts:
			collect(p)
		case <-time.After(time.Until(deadline)):
		}
	}
	for k, n := range posts {
		if n != 1 {
			t.Errorf("%s posted %d times", k, n)
		}
	}
	if len(posts) != 2 {
		t.Errorf("DMs %v, want one admission DM to each subscriber", posts)
	}
	for _, id := range subscribers {
		if n := fs.HistoryLen(id); n != 2 {
			t.Errorf("the DM with %s holds %d messages, want 2 (the confirmation and the admission)", id, n)
		}
	}
}
