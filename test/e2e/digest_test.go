package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/digests"
	"github.com/kueuebot/kueuebot/bot/leader"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

// digestUserAgent tags the digest tests' requests in the audit log.
const digestUserAgent = "kueuebot-e2e-digest"

// scenarioNamespaces are the namespaces `make sandbox-scenarios` left, with
// the scenario label.
func scenarioNamespaces(t *testing.T, sb string) []string {
	t.Helper()
	list, err := adminClient(t, sb).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{LabelSelector: "kueuebot.io/scenario"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ns := range list.Items {
		out = append(out, ns.Name)
	}
	slices.Sort(out)
	if len(out) < 10 {
		t.Skipf("only %d scenario namespaces: run make sandbox-scenarios first", len(out))
	}
	return out
}

// digestJSON runs `kueuebot digest -o json` with args.
func digestJSON(t *testing.T, args ...string) (*digest.Digest, string) {
	t.Helper()
	bin := kueuebot(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"digest", "-o", "json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kueuebot digest %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var d digest.Digest
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout.String())
	}
	return &d, stderr.String()
}

// TestDigestGroupsMatchDiagnose: a digest over the state the real Kueue
// produced for every scenario groups each pending workload under the
// verdict `kueuebot diagnose` gives it.
func TestDigestGroupsMatchDiagnose(t *testing.T) {
	sb := sandbox(t)
	admin := filepath.Join(sb, "kubeconfig")
	var args []string
	for _, ns := range scenarioNamespaces(t, sb) {
		args = append(args, "--namespace", ns)
	}
	// The scenarios were admitted seconds ago: a second counts as stuck.
	d, _ := digestJSON(t, append(args, "--kubeconfig", admin, "--stuck-after", "1s")...)
	codes := map[string]bool{}
	n := 0
	for _, g := range d.Groups {
		for _, it := range g.Workloads {
			n++
			codes[string(g.Code)] = true
			r, _ := diagnoseArgs(t, "diagnose", strings.ToLower(it.Kind)+"/"+it.Name, "-n", it.Namespace, "--kubeconfig", admin, "-o", "json")
			if r.Verdict.Code != string(g.Code) {
				t.Errorf("%s is in group %s, but kueuebot diagnose says %s (%s)", it.Ref(), g.Code, r.Verdict.Code, r.Verdict.Headline)
			}
		}
	}
	// The admitted workloads whose pods do not run are named as stuck,
	// with the verdict diagnose gives them.
	for _, it := range d.Stuck {
		r, _ := diagnoseArgs(t, "diagnose", strings.ToLower(it.Kind)+"/"+it.Name, "-n", it.Namespace, "--kubeconfig", admin, "-o", "json")
		if r.Verdict.Code != string(it.Code) || !digest.Stuck(it.Code) || len(it.Who) == 0 {
			t.Errorf("%s is stuck after admission as %s (who %v), but kueuebot diagnose says %s (%s)", it.Ref(), it.Code, it.Who, r.Verdict.Code, r.Verdict.Headline)
		}
		codes["stuck "+string(it.Code)] = true
	}
	t.Logf("%d pending workloads in %d groups, %d stuck after admission: %v", n, len(d.Groups), len(d.Stuck), codes)
	if len(d.Stuck) < 3 {
		t.Errorf("%d stuck after admission; the scenarios admit pods-unschedulable, image-pull-backoff, pods-resourcequota, ...", len(d.Stuck))
	}
	if n < 20 || len(codes) < 5 {
		t.Errorf("%d pending workloads in %d verdict groups; the scenarios make dozens in many", n, len(codes))
	}
}

// digestRBAC creates user with read access (rbac.ReaderClusterRole) in
// namespaces only, and Kueue's quota viewer roles, and lets the bot
// (user kueuebot) impersonate it; all removed when the test ends.
func digestRBAC(t testing.TB, sb, user string, namespaces []string) {
	t.Helper()
	cs := adminClient(t, sb)
	ctx := t.Context()
	create := func(what string, err error) {
		t.Helper()
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	bind := func(name, role, subject string) {
		crb := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: subject}},
		}
		_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})
		create("binding "+name, err)
		t.Cleanup(func() {
			_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	reader := rbac.ReaderClusterRole()
	reader.Name = "e2e-digest-reader"
	_, err := cs.RbacV1().ClusterRoles().Create(ctx, reader, metav1.CreateOptions{})
	create("reader role", err)
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoles().Delete(context.Background(), reader.Name, metav1.DeleteOptions{})
	})
	for _, ns := range namespaces {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-digest-" + user, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		_, err := cs.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{})
		create("reader binding", err)
		t.Cleanup(func() { _ = cs.RbacV1().RoleBindings(ns).Delete(context.Background(), rb.Name, metav1.DeleteOptions{}) })
	}
	// Kueue's own viewer roles for the cluster-scoped quota objects.
	roles, err := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	viewers := 0
	for _, r := range roles.Items {
		for _, want := range []string{"clusterqueue-viewer-role", "resourceflavor-viewer-role", "cohort-viewer-role"} {
			if strings.HasSuffix(r.Name, want) {
				bind("e2e-digest-"+user+"-"+want, r.Name, user)
				viewers++
			}
		}
	}
	if viewers != 3 {
		t.Fatalf("Kueue's viewer ClusterRoles not found in the sandbox (%d of 3)", viewers)
	}
	cfg := &config.Config{Digests: []config.Digest{{Name: "e2e", User: user}}}
	imp := rbac.BotClusterRole(cfg)
	imp.Name = "e2e-digest-impersonate-" + user
	_, err = cs.RbacV1().ClusterRoles().Create(ctx, imp, metav1.CreateOptions{})
	create("impersonation role", err)
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), imp.Name, metav1.DeleteOptions{}) })
	bind(imp.Name, imp.Name, "kueuebot")
	allowed(t, cs, "kueuebot", authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "users", Name: user})
	allowed(t, cs, user, authorizationv1.ResourceAttributes{Verb: "list", Group: "kueue.x-k8s.io", Resource: "clusterqueues"})
	if len(namespaces) > 0 {
		allowed(t, cs, user, authorizationv1.ResourceAttributes{Verb: "list", Group: "kueue.x-k8s.io", Resource: "workloads", Namespace: namespaces[len(namespaces)-1]})
	}
}

// allowed waits until RBAC allows user the access (the authorizer learns
// of new bindings through its informers).
func allowed(t testing.TB, cs kubernetes.Interface, user string, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &attrs}}
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), sar, metav1.CreateOptions{})
		if err == nil && got.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("RBAC did not allow %s to %s %s after 30s (err %v)", user, attrs.Verb, attrs.Resource, err)
		}
	}
}

// botRESTConfig is the bot's own rest.Config (user kueuebot), its
// requests tagged with agent.
func botRESTConfig(t testing.TB, sb, agent string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig-kueuebot"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = agent
	return cfg
}

// TestDigestReadsAsItsIdentity: a digest reads as its own identity, never
// as the bot, with a few LISTs in its namespaces only; a namespace its
// identity may not read shows nothing of it, and the audit log proves it.
func TestDigestReadsAsItsIdentity(t *testing.T) {
	sb := sandbox(t)
	all := scenarioNamespaces(t, sb)
	const user = "digest-team"
	granted := []string{"sc-quota-in-use", "sc-lq-stopped"}
	for _, ns := range granted {
		if !slices.Contains(all, ns) {
			t.Skipf("scenario namespace %s missing: run make sandbox-scenarios", ns)
		}
	}
	digestRBAC(t, sb, user, granted)
	forbidden := "sc-deactivated" // configured, but not granted
	d := config.Digest{Name: "team", User: user, Namespaces: append(slices.Clone(granted), forbidden)}

	start := time.Now()
	const agent = digestUserAgent + "-identity"
	ex := &explain.Explainer{Reader: &explain.KubeReader{Base: botRESTConfig(t, sb, agent), Timeout: 10 * time.Second}}
	res, err := ex.Digest(t.Context(), rbac.Identity{User: d.User}, explain.DigestQuery{Name: d.Name, Scope: digest.Scope{Namespaces: d.Namespaces}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Digest
	seen := map[string]bool{}
	for _, g := range got.Groups {
		for _, it := range g.Workloads {
			seen[it.Namespace] = true
			if !slices.Contains(granted, it.Namespace) {
				t.Errorf("%s appears in a digest whose identity may not read %s", it.Ref(), it.Namespace)
			}
		}
	}
	for _, q := range got.Queues {
		if q.Kind == "LocalQueue" && !slices.Contains(granted, q.Namespace) {
			t.Errorf("queue %s of a namespace the identity may not read", q.Key())
		}
	}
	if len(seen) != len(granted) {
		t.Errorf("pending workloads in %v, want some in each of %v", seen, granted)
	}

	// The audit log: every request impersonates the digest's user and is
	// a LIST (or an API discovery GET, or a GET of one of its namespaces):
	// one per kind and namespace, never one per object, never a
	// namespaced kind cluster-wide, nothing outside its namespaces; the
	// forbidden namespace's LISTs were refused.
	var events []auditEvent
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		events = digestAuditEvents(t, filepath.Join(sb, "audit.log"), agent, start)
		if len(events) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(events) == 0 {
		t.Fatal("no request of the digest in the audit log")
	}
	// Cluster-scoped reads the identity is not granted (the namespaces'
	// labels, AdmissionChecks, the WorkloadPriorityClasses a job without a
	// Workload names) are refused and become gaps.
	mayBeRefused := map[string]bool{"namespaces": true, "admissionchecks": true, "workloadpriorityclasses": true}
	clusterScoped := map[string]bool{"clusterqueues": true, "resourceflavors": true, "cohorts": true, "admissionchecks": true, "namespaces": true, "workloadpriorityclasses": true}
	listed := map[string]int{}
	lists, refused, discovery := 0, 0, 0
	for _, ev := range events {
		if ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != user {
			t.Errorf("request not impersonating %s: %s %s", user, ev.Verb, ev.RequestURI)
		}
		ns, res := ev.ObjectRef.Namespace, ev.ObjectRef.Resource
		switch {
		case res == "" && ev.Verb == "get":
			discovery++ // /apis/GROUP/VERSION: which job kinds are served
			continue
		case ev.Verb == "list":
			lists++
			listed[res+" in "+ns]++
			if ns == "" && !clusterScoped[res] {
				t.Errorf("cluster-wide LIST of %s: %s", res, ev.RequestURI)
			}
		case ev.Verb == "get" && res == "namespaces" && slices.Contains(d.Namespaces, ev.ObjectRef.Name):
		default:
			t.Errorf("a request that is not a LIST: %s %s", ev.Verb, ev.RequestURI)
		}
		if ns != "" && !slices.Contains(d.Namespaces, ns) {
			t.Errorf("request outside the digest's namespaces: %s %s", ev.Verb, ev.RequestURI)
		}
		switch code := ev.ResponseStatus.Code; {
		case ns == forbidden:
			if code != http.StatusForbidden {
				t.Errorf("read in %s answered %d, want 403: %s", forbidden, code, ev.RequestURI)
			}
			refused++
		case code == http.StatusForbidden && (ns == "" || res == "namespaces") && mayBeRefused[res]:
		case code >= 400:
			t.Errorf("request failed with %d: %s", code, ev.RequestURI)
		}
	}
	if refused == 0 {
		t.Errorf("no refused read in %s", forbidden)
	}
	for what, n := range listed {
		if n != 1 { // every list fits in one page of 500
			t.Errorf("%d LISTs of %s, want 1", n, what)
		}
	}
	for _, ns := range d.Namespaces {
		for _, res := range []string{"workloads", "localqueues", "jobs"} {
			if listed[res+" in "+ns] == 0 {
				t.Errorf("no LIST of %s in %s", res, ns)
			}
		}
	}
	// A handful per kind: the job kinds the sandbox serves, Workloads and
	// LocalQueues in each namespace, the quota objects once.
	if max := len(d.Namespaces)*(len(kinds.All())+2) + len(clusterScoped); lists > max {
		t.Errorf("%d LISTs for a digest of %d namespaces, want at most %d", lists, len(d.Namespaces), max)
	}
	t.Logf("%d requests: %d LISTs, %d discovery, %d refused in %s", len(events), lists, discovery, refused, forbidden)
}

// digestAuditEvents returns the completed requests tagged with agent since.
func digestAuditEvents(t *testing.T, path, agent string, since time.Time) []auditEvent {
	t.Helper()
	var out []auditEvent
	for _, line := range auditLines(t, path, agent) {
		var ev auditEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Stage == "ResponseComplete" && (ev.UserAgent == agent || strings.HasPrefix(ev.UserAgent, agent+" ")) && !ev.RequestReceivedTimestamp.Before(since) {
			out = append(out, ev)
		}
	}
	return out
}

// cutTransport fails every request once cut, as a replica that died or
// lost the network would.
type cutTransport struct {
	rt  http.RoundTripper
	cut *atomic.Bool
}

func (c *cutTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.cut.Load() {
		return nil, errors.New("replica killed")
	}
	return c.rt.RoundTrip(r)
}

// replica is one bot replica's digest runner under leader election, with
// its own clients.
type replica struct {
	name string
	cut  atomic.Bool
	mu   sync.Mutex
	// gate, when set, holds reads until it is closed; reading receives a
	// value each time a read starts waiting at the gate.
	gate    chan struct{}
	reading chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

// gatedReader holds digests until the replica's gate opens.
type gatedReader struct {
	r    *replica
	next digests.Digester
}

func (g *gatedReader) Digest(ctx context.Context, id rbac.Identity, q explain.DigestQuery) (explain.DigestResult, error) {
	g.r.mu.Lock()
	gate := g.r.gate
	g.r.mu.Unlock()
	if gate != nil {
		select {
		case g.r.reading <- struct{}{}:
		default:
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return explain.DigestResult{}, ctx.Err()
		}
	}
	return g.next.Digest(ctx, id, q)
}

func startReplica(t *testing.T, sb, name, ns string, d config.Digest, clock *clocktesting.FakeClock, fs *slackfake.Server) *replica {
	t.Helper()
	r := &replica{name: name, done: make(chan struct{}), reading: make(chan struct{}, 1)}
	cfg := botRESTConfig(t, sb, digestUserAgent+"-"+name)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &cutTransport{rt: rt, cut: &r.cut} })
	own, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-e2e", APIURL: fs.APIURL()})
	runner, err := digests.NewRunner([]config.Digest{d}, digests.Runner{
		Digester: &gatedReader{r: r, next: &explain.Explainer{Reader: &explain.KubeReader{Base: cfg, Timeout: 10 * time.Second}}},
		Poster:   &digests.SlackPoster{API: api},
		State:    &digests.State{Client: own, Namespace: ns},
		Holder:   name, Clock: clock, Retry: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		_ = leader.Run(ctx, leader.Election{
			Client: own, Namespace: ns, Identity: name,
			LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond,
		}, runner.Lead)
	}()
	t.Cleanup(r.stop)
	return r
}

func (r *replica) stop() {
	r.cancel()
	<-r.done
}

// leaseHolder reads who holds the Lease.
func leaseHolder(t *testing.T, cs kubernetes.Interface, ns string) string {
	t.Helper()
	l, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), rbac.LeaseName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// botNamespace creates the bot's namespace with rbac.BotStateRole bound
// to user kueuebot: exactly the rights the chart grants.
func botNamespace(t *testing.T, sb string) string {
	t.Helper()
	cs := adminClient(t, sb)
	ns := fmt.Sprintf("e2e-digests-%d", time.Now().UnixNano()%1e6)
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	role, binding := rbac.BotStateRole(ns), rbac.BotStateRoleBinding(ns)
	binding.Subjects = []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "kueuebot"}}
	if _, err := cs.RbacV1().Roles(ns).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(t, sb, "kueuebot", authorizationv1.ResourceAttributes{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: ns})
	return ns
}

// TestDigestExactlyOncePerRun: two replicas elect a leader on the real API
// server; each scheduled time is posted once, also when the leader dies
// while it reads (the other posts it, late, with a note).
func TestDigestExactlyOncePerRun(t *testing.T) {
	sb := sandbox(t)
	if !slices.Contains(scenarioNamespaces(t, sb), "sc-quota-in-use") {
		t.Skip("scenario namespace sc-quota-in-use missing: run make sandbox-scenarios")
	}
	const user = "digest-ha"
	digestRBAC(t, sb, user, []string{"sc-quota-in-use"})
	ns := botNamespace(t, sb)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	d := config.Digest{Name: "ha", Channel: "C00HA00001", Schedule: "0 9 * * *", TimeZone: "Europe/Paris", Namespaces: []string{"sc-quota-in-use"}, User: user}
	clock := clocktesting.NewFakeClock(time.Date(2026, 11, 30, 8, 59, 0, 0, paris))
	fs := slackfake.New(t)
	a := startReplica(t, sb, "pod-a", ns, d, clock, fs)
	b := startReplica(t, sb, "pod-b", ns, d, clock, fs)
	admin := adminClient(t, sb)

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("a leader waiting for 09:00", func() bool { return leaseHolder(t, admin, ns) != "" && clock.HasWaiters() })
	leader := leaseHolder(t, admin, ns)
	byName := map[string]*replica{"pod-a": a, "pod-b": b}
	first, other := byName[leader], byName[map[string]string{"pod-a": "pod-b", "pod-b": "pod-a"}[leader]]
	t.Logf("%s leads", leader)

	messages := func() []slackfake.Post {
		var out []slackfake.Post
		for {
			select {
			case p := <-fs.Posts:
				if p.ThreadTS == "" {
					out = append(out, p)
				}
			case <-time.After(2 * time.Second):
				return out
			}
		}
	}

	// Day 1, 09:00: one post.
	clock.Step(time.Minute)
	p := slackfake.Receive(t, fs.Posts, "the 09:00 digest")
	if p.Channel != "C00HA00001" || !strings.Contains(p.Blocks, "Pending-queue digest: ha") || strings.Contains(p.Blocks, "comes late") {
		t.Errorf("digest = %+v", p)
	}
	waitFor("the leader to wait again", clock.HasWaiters)
	if extra := messages(); len(extra) != 0 {
		t.Errorf("%d more messages for 09:00, want none", len(extra))
	}

	// Day 2: the leader dies while it reads; the other replica takes the
	// lease and posts the run once, late.
	first.mu.Lock()
	first.gate = make(chan struct{})
	first.mu.Unlock()
	clock.Step(24 * time.Hour)
	slackfake.Receive(t, first.reading, "the leader to read for day 2")
	first.cut.Store(true) // dead: no more requests, no lease renewal or release
	// Ten minutes pass before the other replica notices (in the fake
	// clock; the Lease expires in real time).
	clock.Step(10 * time.Minute)
	waitFor("the other replica to lead", func() bool { return leaseHolder(t, admin, ns) == other.name })
	late := slackfake.Receive(t, fs.Posts, "the late digest")
	if late.ThreadTS != "" || !strings.Contains(late.Blocks, "was due Tue Dec 1 09:00 CET and comes late") {
		t.Errorf("late digest lacks the note: %s", late.Blocks)
	}
	if extra := messages(); len(extra) != 0 {
		t.Errorf("%d more messages for day 2, want none", len(extra))
	}
	run, err := (&digests.State{Client: admin, Namespace: ns}).Get(t.Context(), "ha")
	if err != nil {
		t.Fatal(err)
	}
	if run.Key != "ha@2026-12-01T08:00:00Z" || run.Holder != other.name || run.Status != digests.StatusPosted || !run.Late {
		t.Errorf("state = %+v", run)
	}
	close(first.gate)
}

// TestDigestClaimIsAtomic: replicas claiming the same run at once through
// the real API server: exactly one wins (the ConfigMap's resourceVersion).
func TestDigestClaimIsAtomic(t *testing.T) {
	sb := sandbox(t)
	ns := botNamespace(t, sb)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			own, err := kubernetes.NewForConfig(botRESTConfig(t, sb, digestUserAgent+"-claim"))
			if err != nil {
				t.Error(err)
				return
			}
			st := &digests.State{Client: own, Namespace: ns}
			ok, _, err := st.Claim(t.Context(), "race", due, digests.StatusClaimed, fmt.Sprintf("pod-%d", i), time.Now())
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d replicas claimed the run, want exactly 1", wins.Load())
	}
}
