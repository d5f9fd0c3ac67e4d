package rbac

// Real kube-apiserver tests. They run when KUEUEBOT_SANDBOX points at a
// running sandbox's state directory (see deploy/sandbox: kubeconfig for
// admin, kubeconfig-kueuebot for the bot, audit.log as JSON lines) and skip
// otherwise:
//
//	KUEUEBOT_SANDBOX=$PWD/.sandbox go test ./rbac -run E2E -count=1
//
// They apply exactly what deploy/rbac ships (BotClusterRole for an e2e
// config, bound to the user kueuebot; ReaderClusterRole bound per
// namespace), and prove what only a real API server can: which
// impersonations it accepts, what SelfSubjectAccessReviews as the caller
// say, and what the audit log records. They create the namespaces team-a,
// team-b and team-c with one LocalQueue each and leave them (idempotent);
// the RBAC objects they create are deleted at the end.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/config"
)

const e2eTeam = "T0000ACME1"

// e2eIdentities are the callers of the e2e tests. The e2e-* users exist
// only here, so what RBAC allows them is exactly what these tests bind.
var e2eIdentities = map[string]config.UserMapping{
	"alice":    {SlackUserID: "U0000ALICE", TeamID: e2eTeam, User: "alice"},
	"bob":      {SlackUserID: "U00000BOB", TeamID: e2eTeam, User: "bob"},
	"e2e-zero": {SlackUserID: "U0E2EZERO", TeamID: e2eTeam, User: "e2e-zero", Groups: []string{"e2e-nobody"}},
	"e2e-one":  {SlackUserID: "U0E2EONE1", TeamID: e2eTeam, User: "e2e-one", Groups: []string{"e2e-readers"}},
	"e2e-many": {SlackUserID: "U0E2EMANY", TeamID: e2eTeam, User: "e2e-many", Groups: []string{"e2e-group"}},
}

// e2eConfig maps the e2e identities, with clusterScopedReads: bot.
func e2eConfig(t *testing.T) *config.Config {
	t.Helper()
	c, err := config.Parse(config.Example())
	if err != nil {
		t.Fatal(err)
	}
	c.Identity.Users = nil
	for _, name := range slices.Sorted(mapsKeys(e2eIdentities)) {
		c.Identity.Users = append(c.Identity.Users, e2eIdentities[name])
	}
	c.Identity.UserGroups, c.Digests = nil, nil
	c.Kube.ClusterScopedReads = config.ClusterScopedBot
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func identityOf(name string) Identity {
	m := e2eIdentities[name]
	return Identity{User: m.User, Groups: slices.Clone(m.Groups), Extra: map[string][]string{ExtraSlackUserID: {m.SlackUserID}}}
}

type sandbox struct {
	dir   string
	admin *rest.Config
	bot   *rest.Config
	kube  kubernetes.Interface // admin
	kueue kueueclient.Interface
}

func openSandbox(t *testing.T) *sandbox {
	t.Helper()
	dir := os.Getenv("KUEUEBOT_SANDBOX")
	if dir == "" {
		t.Skip("KUEUEBOT_SANDBOX not set: no real API server (make sandbox-up, then KUEUEBOT_SANDBOX=$PWD/.sandbox)")
	}
	load := func(name string) *rest.Config {
		cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("sandbox %s: %v", name, err)
		}
		cfg.Timeout = 30 * time.Second
		return cfg
	}
	s := &sandbox{dir: dir, admin: load("kubeconfig"), bot: load("kubeconfig-kueuebot")}
	s.kube = kubernetes.NewForConfigOrDie(s.admin)
	s.kueue = kueueclient.NewForConfigOrDie(s.admin)
	// The sandbox may still be starting: wait for the API server and
	// Kueue's CRDs.
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, err := s.kueue.KueueV1beta2().LocalQueues("").List(t.Context(), metav1.ListOptions{Limit: 1})
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("sandbox not ready after 90s (API server with Kueue CRDs): %v", err)
		}
		time.Sleep(time.Second)
	}
}

// setup applies the deploy roles and the e2e bindings, namespaces and
// LocalQueues, and waits until RBAC enforces them.
func (s *sandbox) setup(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	bot := BotClusterRole(e2eConfig(t))
	bot.Name = "kueuebot-e2e"
	reader := ReaderClusterRole()

	s.apply(t, bot)
	s.apply(t, reader)
	s.apply(t, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "kueuebot-e2e"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: bot.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "kueuebot"}},
	})
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		_, err := s.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("namespace %s: %v", ns, err)
		}
		lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "e2e-queue"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "e2e-absent"}}
		if _, err := s.kueue.KueueV1beta2().LocalQueues(ns).Create(ctx, lq, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("LocalQueue in %s: %v", ns, err)
		}
	}
	bind := func(ns string, subject rbacv1.Subject) {
		s.apply(t, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kueuebot-e2e-reader-" + subject.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ReaderName},
			Subjects:   []rbacv1.Subject{subject},
		})
	}
	user := func(n string) rbacv1.Subject {
		return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: n}
	}
	bind("team-a", user("alice"))
	bind("team-b", user("bob"))
	bind("team-a", user("e2e-one"))
	bind("team-b", user("e2e-many"))
	bind("team-c", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "e2e-group"})

	// RBAC is enforced from informers: wait for the last binding.
	s.waitAllowed(t, "e2e-many", []string{"e2e-group"}, "team-c")
	s.waitAllowed(t, "kueuebot", nil, "")
}

// apply creates obj or replaces an existing one, and deletes it at the end
// of the test unless it existed before.
func (s *sandbox) apply(t *testing.T, obj any) {
	t.Helper()
	ctx := t.Context()
	rb := s.kube.RbacV1()
	var existed bool
	var err error
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		if _, err = rb.ClusterRoles().Create(ctx, o, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
			existed = true
			var cur *rbacv1.ClusterRole
			if cur, err = rb.ClusterRoles().Get(ctx, o.Name, metav1.GetOptions{}); err == nil {
				o.ResourceVersion = cur.ResourceVersion
				_, err = rb.ClusterRoles().Update(ctx, o, metav1.UpdateOptions{})
			}
		}
		if !existed {
			t.Cleanup(func() { _ = rb.ClusterRoles().Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
		}
	case *rbacv1.ClusterRoleBinding:
		_ = rb.ClusterRoleBindings().Delete(ctx, o.Name, metav1.DeleteOptions{})
		_, err = rb.ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		t.Cleanup(func() { _ = rb.ClusterRoleBindings().Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
	case *rbacv1.RoleBinding:
		_ = rb.RoleBindings(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
		_, err = rb.RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		t.Cleanup(func() { _ = rb.RoleBindings(o.Namespace).Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
	default:
		t.Fatalf("apply: unsupported %T", obj)
	}
	if err != nil {
		t.Fatalf("apply %T: %v", obj, err)
	}
}

// waitAllowed polls a SubjectAccessReview until user may list Workloads in
// ns ("" = LocalQueues cluster-wide, the bot's permission).
func (s *sandbox) waitAllowed(t *testing.T, user string, groups []string, ns string) {
	t.Helper()
	attrs := &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Group: "kueue.x-k8s.io", Resource: "workloads"}
	if ns == "" {
		attrs.Resource = "localqueues"
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := s.kube.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("SubjectAccessReview: %v", err)
		}
		if res.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("RBAC for %s in %q not effective after 15s", user, ns)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// impersonating returns a clientset that sends exactly these impersonation
// headers with the bot's credentials, bypassing ClientsFor's own checks so
// the API server's answer is what is tested.
func (s *sandbox) impersonating(t *testing.T, imp rest.ImpersonationConfig) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(s.bot)
	cfg.Impersonate = imp
	return kubernetes.NewForConfigOrDie(cfg)
}

func TestE2EBotImpersonation(t *testing.T) {
	s := openSandbox(t)
	s.setup(t)
	ctx := t.Context()
	botKube := kubernetes.NewForConfigOrDie(s.bot)

	t.Run("mapped identities can be impersonated and read as themselves", func(t *testing.T) {
		for _, name := range []string{"e2e-one", "e2e-many", "e2e-zero", "alice", "bob"} {
			t.Run(name, func(t *testing.T) {
				c, err := ClientsFor(s.bot, identityOf(name))
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.Kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("SelfSubjectReview as %s: %v", name, err)
				}
				ui := res.Status.UserInfo
				if ui.Username != name {
					t.Errorf("API server sees user %q, want %q", ui.Username, name)
				}
				for _, g := range e2eIdentities[name].Groups {
					if !slices.Contains(ui.Groups, g) {
						t.Errorf("groups %v lack %q", ui.Groups, g)
					}
				}
				if diff := cmp.Diff([]string{e2eIdentities[name].SlackUserID}, []string(ui.Extra[ExtraSlackUserID])); diff != "" {
					t.Errorf("extra %s (-want +got):\n%s", ExtraSlackUserID, diff)
				}
			})
		}
		c, err := ClientsFor(s.bot, identityOf("e2e-one"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Kueue.KueueV1beta2().Workloads("team-a").List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("e2e-one lists Workloads in team-a: %v", err)
		}
		if _, err := c.Kube.BatchV1().Jobs("team-a").List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("e2e-one lists Jobs in team-a: %v", err)
		}
		if _, err := c.Kueue.KueueV1beta2().Workloads("team-b").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("e2e-one lists Workloads in team-b: got %v, want Forbidden", err)
		}
	})

	forbidden := []struct {
		name string
		imp  rest.ImpersonationConfig
	}{
		{"system:masters", rest.ImpersonationConfig{UserName: "e2e-one", Groups: []string{"system:masters"}}},
		{"system:admin user", rest.ImpersonationConfig{UserName: "system:admin"}},
		{"unmapped user", rest.ImpersonationConfig{UserName: "e2e-mallory"}},
		{"unmapped group", rest.ImpersonationConfig{UserName: "e2e-one", Groups: []string{"platform-admins"}}},
		{"mapped user with an unmapped Slack ID", rest.ImpersonationConfig{UserName: "e2e-one", Extra: map[string][]string{ExtraSlackUserID: {"U0EVIL0001"}}}},
		{"another extra key", rest.ImpersonationConfig{UserName: "e2e-one", Extra: map[string][]string{"scopes": {"admin"}}}},
	}
	for _, tt := range forbidden {
		t.Run("API server refuses impersonating "+tt.name, func(t *testing.T) {
			_, err := s.impersonating(t, tt.imp).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
			if !apierrors.IsForbidden(err) {
				t.Fatalf("got %v, want Forbidden", err)
			}
			if !strings.Contains(err.Error(), "impersonate") {
				t.Errorf("forbidden for another reason: %v", err)
			}
		})
	}
	t.Run("ClientsFor refuses system:masters before the API server sees it", func(t *testing.T) {
		id := identityOf("e2e-one")
		id.Groups = append(id.Groups, "system:masters")
		if _, err := ClientsFor(s.bot, id); err == nil {
			t.Fatal("ClientsFor accepted system:masters")
		}
	})

	denied := []struct {
		name string
		read func() error
	}{
		{"bot lists Secrets", func() error {
			_, err := botKube.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"bot gets a Secret in team-a", func() error {
			_, err := botKube.CoreV1().Secrets("team-a").Get(ctx, "any", metav1.GetOptions{})
			return err
		}},
		{"bot lists Workloads as itself", func() error {
			_, err := kueueclient.NewForConfigOrDie(s.bot).KueueV1beta2().Workloads("team-a").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"bot writes a LocalQueue", func() error {
			_, err := kueueclient.NewForConfigOrDie(s.bot).KueueV1beta2().LocalQueues("team-a").Create(ctx,
				&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "evil"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "x"}}, metav1.CreateOptions{})
			return err
		}},
		{"reader (impersonated) lists Secrets in its namespace", func() error {
			c, err := ClientsFor(s.bot, identityOf("e2e-one"))
			if err != nil {
				return err
			}
			_, err = c.Kube.CoreV1().Secrets("team-a").List(ctx, metav1.ListOptions{})
			return err
		}},
	}
	for _, tt := range denied {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.read(); !apierrors.IsForbidden(err) {
				t.Fatalf("got %v, want Forbidden", err)
			}
		})
	}

	t.Run("bot mode: the bot reads cluster-scoped quota objects", func(t *testing.T) {
		c, err := ClusterScopedClient(s.bot, config.ClusterScopedBot)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("ClusterQueues: %v", err)
		}
		if _, err := c.KueueV1beta2().ResourceFlavors().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("ResourceFlavors: %v", err)
		}
	})
}

func TestE2ENamespaceDiscovery(t *testing.T) {
	s := openSandbox(t)
	s.setup(t)
	ctx := t.Context()
	botKueue, err := ClusterScopedClient(s.bot, config.ClusterScopedBot) // the bot's own identity
	if err != nil {
		t.Fatal(err)
	}
	finder := &NamespaceFinder{Bot: botKueue, Max: 100, Concurrency: 4, MaxChecks: 1000}

	discover := func(t *testing.T, name string) []string {
		t.Helper()
		c, err := ClientsFor(s.bot, identityOf(name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := finder.Find(ctx, "", identityOf(name), c.Kube)
		if err != nil {
			t.Fatalf("Find as %s: %v", name, err)
		}
		if got.Source != SourceDiscovered || got.Truncated {
			t.Errorf("Find as %s: source %s truncated %v", name, got.Source, got.Truncated)
		}
		return got.Names
	}

	exact := []struct {
		name string
		want []string
	}{
		{"e2e-zero", []string{}},
		{"e2e-one", []string{"team-a"}},
		{"e2e-many", []string{"team-b", "team-c"}}, // one by user binding, one by group
	}
	for _, tt := range exact {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, discover(t, tt.name)); diff != "" {
				t.Errorf("namespaces (-want +got):\n%s", diff)
			}
		})
	}

	// alice and bob may have more bindings from the sandbox's scenarios:
	// compare with an oracle that actually lists Workloads as them in every
	// namespace holding a LocalQueue (admin credentials, impersonating).
	for _, name := range []string{"alice", "bob"} {
		t.Run(name+" matches actual list access", func(t *testing.T) {
			var got, want []string
			for range 3 { // the sandbox may still be adding bindings
				got, want = discover(t, name), s.oracle(t, identityOf(name))
				if cmp.Equal(want, got) {
					break
				}
				time.Sleep(time.Second)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("namespaces (-oracle +discovered):\n%s", diff)
			}
			home := map[string]string{"alice": "team-a", "bob": "team-b"}[name]
			if !slices.Contains(got, home) {
				t.Errorf("%v lacks %s", got, home)
			}
		})
	}
}

// oracle lists Workloads as id in every namespace that holds a LocalQueue
// and returns those where the list succeeds.
func (s *sandbox) oracle(t *testing.T, id Identity) []string {
	t.Helper()
	cfg := rest.CopyConfig(s.admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: id.User, Groups: id.Groups}
	as := kueueclient.NewForConfigOrDie(cfg)
	lqs, err := s.kueue.KueueV1beta2().LocalQueues("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nss []string
	for _, lq := range lqs.Items {
		nss = append(nss, lq.Namespace)
	}
	slices.Sort(nss)
	out := []string{}
	for _, ns := range slices.Compact(nss) {
		_, err := as.KueueV1beta2().Workloads(ns).List(t.Context(), metav1.ListOptions{Limit: 1})
		switch {
		case err == nil:
			out = append(out, ns)
		case apierrors.IsForbidden(err):
		default:
			t.Fatalf("oracle list in %s: %v", ns, err)
		}
	}
	return out
}

// auditEvent is the part of an audit.k8s.io/v1 Event the tests read.
type auditEvent struct {
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string              `json:"username"`
		Groups   []string            `json:"groups"`
		Extra    map[string][]string `json:"extra"`
	} `json:"impersonatedUser"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

func TestE2EAuditTrail(t *testing.T) {
	s := openSandbox(t)
	s.setup(t)
	ctx := t.Context()

	b := make([]byte, 6)
	_, _ = rand.Read(b)
	marker := "kueuebot-e2e-audit=" + hex.EncodeToString(b)

	callers := []string{"e2e-one", "e2e-many"}
	for _, name := range callers {
		c, err := ClientsFor(s.bot, identityOf(name))
		if err != nil {
			t.Fatal(err)
		}
		ns := map[string]string{"e2e-one": "team-a", "e2e-many": "team-c"}[name]
		if _, err := c.Kueue.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{LabelSelector: marker + "-" + name}); err != nil {
			t.Fatalf("list as %s: %v", name, err)
		}
	}

	for _, name := range callers {
		t.Run(name, func(t *testing.T) {
			ev := waitAudit(t, filepath.Join(s.dir, "audit.log"), strings.ReplaceAll(marker, "=", "%3D")+"-"+name)
			m := e2eIdentities[name]
			if ev.User.Username != "kueuebot" {
				t.Errorf("user = %q, want the bot (kueuebot)", ev.User.Username)
			}
			if ev.ImpersonatedUser == nil {
				t.Fatalf("no impersonatedUser in %+v", ev)
			}
			got := struct {
				User, Verb string
				Code       int
				Slack      []string
				HasGroups  bool
			}{ev.ImpersonatedUser.Username, ev.Verb, ev.ResponseStatus.Code, ev.ImpersonatedUser.Extra[ExtraSlackUserID],
				slices.Contains(ev.ImpersonatedUser.Groups, m.Groups[0])}
			want := struct {
				User, Verb string
				Code       int
				Slack      []string
				HasGroups  bool
			}{name, "list", 200, []string{m.SlackUserID}, true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("audit event (-want +got):\n%s", diff)
			}
		})
	}
}

// waitAudit scans the audit log until a ResponseComplete event whose
// request URI contains needle appears.
func waitAudit(t *testing.T, path, needle string) auditEvent {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if ev, ok := findAudit(t, path, needle); ok {
			return ev
		}
		if time.Now().After(deadline) {
			t.Fatalf("no audit event with %q in %s after 20s", needle, path)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func findAudit(t *testing.T, path, needle string) (auditEvent, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), needle) {
			continue
		}
		var ev auditEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("audit line: %v", err)
		}
		if ev.Stage == "ResponseComplete" && strings.Contains(ev.RequestURI, needle) {
			return ev, true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("audit log: %v", err)
	}
	return auditEvent{}, false
}
