package install

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// The scenario the diagnosis reads (deploy/sandbox/scenarios/sample-job:
// alice may read it; make sandbox-scenarios applies it).
const (
	scenarioNS  = "sc-sample-job"
	scenarioJob = "sample-job"
)

// TestLeastPrivilege applies the chart's RBAC for real (the digests value
// set: the most the bot is ever given), mints a token for the chart's
// ServiceAccount with the TokenRequest API and acts as the bot with it.
// The API server lets it diagnose a mapped user's job, impersonating that
// user, and refuses everything else: Secrets, any write but its own Lease
// and state ConfigMap, and impersonating anyone the config does not map.
func TestLeastPrivilege(t *testing.T) {
	c := openCluster(t)
	const ns = "kb-install-lp"
	c.namespace(t, ns)
	values := readValues(t, ChartDir()+"/ci/digests-values.yaml")
	r := render(t, values, "kb-lp", ns)
	for _, o := range r.Objects {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			c.mustApply(t, o)
		}
	}
	cm := typed[corev1.ConfigMap](t, one(t, r.Objects, "ConfigMap", ""))
	cfg, err := config.Parse([]byte(cm.Data["config.yaml"]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.kube.CoreV1().Namespaces().Get(t.Context(), scenarioNS, metav1.GetOptions{}); err != nil {
		t.Fatalf("scenario namespace %s: %v (run make sandbox-scenarios)", scenarioNS, err)
	}

	sa := one(t, r.Objects, "ServiceAccount", "").GetName()
	tok, err := c.kube.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(600))},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", ns, sa, err)
	}
	bot := &rest.Config{Host: c.cfg.Host, BearerToken: tok.Status.Token, Timeout: 30 * time.Second, QPS: 200, Burst: 400,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.cfg.CAData, CAFile: c.cfg.CAFile}}
	botKube := kubernetes.NewForConfigOrDie(bot)
	whoami, err := botKube.AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "system:serviceaccount:" + ns + ":" + sa; whoami.Status.UserInfo.Username != want {
		t.Fatalf("the token authenticates as %q, want %q", whoami.Status.UserInfo.Username, want)
	}
	// The authorizer learns of new bindings through its informers.
	waitAllowed(t, botKube, authorizationv1.ResourceAttributes{Verb: "list", Group: "kueue.x-k8s.io", Resource: "localqueues"})
	waitAllowed(t, botKube, authorizationv1.ResourceAttributes{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: ns})

	t.Run("diagnoses a mapped user's job as that user", func(t *testing.T) {
		resolver, err := rbac.NewResolver(cfg.Identity, slackDirectory{"U0000ALICE": "T0000ACME1"})
		if err != nil {
			t.Fatal(err)
		}
		id, err := resolver.Resolve(t.Context(), rbac.SlackUser{ID: "U0000ALICE", TeamID: "T0000ACME1"})
		if err != nil {
			t.Fatal(err)
		}
		if id.User != "alice" || !slices.Equal(id.Groups, []string{"ml-researchers"}) {
			t.Fatalf("resolved %+v", id)
		}
		// The reader kueuebot serve builds (cmd/kueuebot newExplainer).
		botKueue := kueueclient.NewForConfigOrDie(bot)
		kr := &explain.KubeReader{
			Base:    bot,
			Finder:  &rbac.NamespaceFinder{Bot: botKueue, Max: cfg.Kube.MaxNamespaces, Concurrency: cfg.Kube.DiscoveryConcurrency},
			Timeout: cfg.Kube.RequestTimeout,
		}
		if cfg.Kube.ClusterScopedReads == config.ClusterScopedBot {
			kr.ClusterScoped = botKueue
		}
		e := &explain.Explainer{Reader: kr}
		// As the bot does: the namespace from alice's mapping.
		res, err := e.Explain(t.Context(), id, explain.Question{Kind: "Job", Name: scenarioJob})
		if err != nil {
			t.Fatalf("diagnosis as the bot: %v", err)
		}
		v := res.Report.Verdict
		if v.Code != "ExceedsMaxQuota" || res.Report.Target.Namespace != scenarioNS || len(res.Report.Gaps) > 0 {
			t.Errorf("verdict %s/%s in %q, gaps %+v; want ExceedsMaxQuota read in full", v.Stage, v.Code, res.Report.Target.Namespace, res.Report.Gaps)
		}
	})

	t.Run("impersonates only whom the config maps", func(t *testing.T) {
		slackID := func(id string) map[string][]string { return map[string][]string{rbac.ExtraSlackUserID: {id}} }
		for _, tt := range []struct {
			name  string
			as    rest.ImpersonationConfig
			allow bool
		}{
			{"the mapped user as the bot asks", rest.ImpersonationConfig{UserName: "alice", Groups: []string{"ml-researchers"}, Extra: slackID("U0000ALICE")}, true},
			{"the digest's user", rest.ImpersonationConfig{UserName: "kueuebot-digest", Groups: []string{"platform-viewers"}}, true},
			{"an unmapped user", rest.ImpersonationConfig{UserName: "mallory"}, false},
			{"a mapped user in system:masters", rest.ImpersonationConfig{UserName: "alice", Groups: []string{"system:masters"}}, false},
			{"a mapped user in an unmapped group", rest.ImpersonationConfig{UserName: "alice", Groups: []string{"team-b"}}, false},
			{"a mapped user with another Slack user's ID", rest.ImpersonationConfig{UserName: "alice", Extra: slackID("U00MALLORY")}, false},
			{"system:admin", rest.ImpersonationConfig{UserName: "system:admin"}, false},
			{"a service account", rest.ImpersonationConfig{UserName: "system:serviceaccount:kube-system:default"}, false},
			{"the kube-controller-manager", rest.ImpersonationConfig{UserName: "system:kube-controller-manager", Groups: []string{"system:authenticated"}}, false},
			{"an unmapped user in a mapped group", rest.ImpersonationConfig{UserName: "mallory", Groups: []string{"ml-researchers"}}, false},
		} {
			as := rest.CopyConfig(bot)
			as.Impersonate = tt.as
			got, err := kubernetes.NewForConfigOrDie(as).AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			switch {
			case tt.allow && err != nil:
				t.Errorf("%s: refused: %v", tt.name, err)
			case tt.allow && got.Status.UserInfo.Username != tt.as.UserName:
				t.Errorf("%s: acted as %q", tt.name, got.Status.UserInfo.Username)
			case !tt.allow && !apierrors.IsForbidden(err):
				t.Errorf("%s: the API server did not refuse it (err %v)", tt.name, err)
			case !tt.allow && !strings.Contains(err.Error(), "cannot impersonate"):
				t.Errorf("%s: refused for another reason: %v", tt.name, err)
			}
		}
	})

	t.Run("reads no Secret and writes nothing but its Lease and state ConfigMap", func(t *testing.T) {
		ctx := t.Context()
		forbidden := func(what string, err error) {
			t.Helper()
			if !apierrors.IsForbidden(err) {
				t.Errorf("%s: want Forbidden from the API server, got %v", what, err)
			}
		}
		_, err := botKube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		forbidden("list Secrets in its namespace", err)
		_, err = botKube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
		forbidden("list Secrets cluster-wide", err)
		_, err = botKube.CoreV1().Secrets(scenarioNS).Get(ctx, "any", metav1.GetOptions{})
		forbidden("get a Secret", err)
		_, err = botKube.CoreV1().Pods(scenarioNS).List(ctx, metav1.ListOptions{})
		forbidden("list Pods as itself (it reads as the caller)", err)
		_, err = botKube.BatchV1().Jobs(scenarioNS).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{GenerateName: "kb-"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		forbidden("create a Job", err)
		_, err = botKube.CoreV1().ConfigMaps(scenarioNS).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: rbac.StateConfigMapName}}, metav1.CreateOptions{})
		forbidden("create its state ConfigMap in another namespace", err)
		_, err = botKube.CoordinationV1().Leases("default").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: rbac.LeaseName}}, metav1.CreateOptions{})
		forbidden("create its Lease in another namespace", err)

		// Its own objects: create, get, update.
		state, err := botKube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: rbac.StateConfigMapName}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create its state ConfigMap: %v", err)
		}
		state.Data = map[string]string{"posted": "C00PLATFRM"}
		if _, err := botKube.CoreV1().ConfigMaps(ns).Update(ctx, state, metav1.UpdateOptions{}); err != nil {
			t.Errorf("update its state ConfigMap: %v", err)
		}
		langs, err := botKube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: rbac.LangConfigMapName}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create its language ConfigMap: %v", err)
		}
		langs.Data = map[string]string{"U0000ALICE": "fr"}
		if _, err := botKube.CoreV1().ConfigMaps(ns).Update(ctx, langs, metav1.UpdateOptions{}); err != nil {
			t.Errorf("update its language ConfigMap: %v", err)
		}
		if _, err := botKube.CoreV1().ConfigMaps(ns).Get(ctx, rbac.LangConfigMapName, metav1.GetOptions{}); err != nil {
			t.Errorf("get its language ConfigMap: %v", err)
		}
		lease, err := botKube.CoordinationV1().Leases(ns).Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: rbac.LeaseName}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create its Lease: %v", err)
		}
		lease.Spec.HolderIdentity = ptr("kb-lp-0")
		if _, err := botKube.CoordinationV1().Leases(ns).Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
			t.Errorf("update its Lease: %v", err)
		}
		// But not delete or patch them, nor touch another ConfigMap.
		forbidden("delete its state ConfigMap", botKube.CoreV1().ConfigMaps(ns).Delete(ctx, rbac.StateConfigMapName, metav1.DeleteOptions{}))
		_, err = botKube.CoreV1().ConfigMaps(ns).Patch(ctx, rbac.StateConfigMapName, types.MergePatchType, []byte(`{"data":{"x":"y"}}`), metav1.PatchOptions{})
		forbidden("patch its state ConfigMap", err)
		other, err := c.kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "not-the-bots"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = botKube.CoreV1().ConfigMaps(ns).Get(ctx, other.Name, metav1.GetOptions{})
		forbidden("get another ConfigMap", err)
		_, err = botKube.CoreV1().ConfigMaps(ns).Update(ctx, other, metav1.UpdateOptions{})
		forbidden("update another ConfigMap", err)
		_, err = botKube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		forbidden("list ConfigMaps", err)
	})

	t.Run("every verb on every resource the API server serves", func(t *testing.T) {
		checkAccessMatrix(t, c, botKube, ns, cfg)
	})
}

// checkAccessMatrix asks the API server (SelfSubjectAccessReview, as the
// bot) about every verb on every resource it serves, in the bot's
// namespace, in another and cluster-wide, and fails on anything allowed
// beyond the bot's needs.
func checkAccessMatrix(t *testing.T, c *cluster, bot kubernetes.Interface, ns string, cfg *config.Config) {
	t.Helper()
	lists, err := c.kube.Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	// allowed: group/resource verb namespace ("*" any, "" cluster-wide).
	allowed := map[string]bool{
		"kueue.x-k8s.io/localqueues list *":                      true, // learns candidate namespaces
		"kueue.x-k8s.io/localqueues list ":                       true,
		"coordination.k8s.io/leases create " + ns:                true, // create cannot be narrowed by name
		"/configmaps create " + ns:                               true,
		"authorization.k8s.io/selfsubjectaccessreviews create *": true, // every authenticated user may ask
		"authorization.k8s.io/selfsubjectaccessreviews create ":  true,
		"authorization.k8s.io/selfsubjectrulesreviews create *":  true,
		"authorization.k8s.io/selfsubjectrulesreviews create ":   true,
		"authentication.k8s.io/selfsubjectreviews create *":      true,
		"authentication.k8s.io/selfsubjectreviews create ":       true,
	}
	if cfg.Kube.ClusterScopedReads == config.ClusterScopedBot {
		for _, r := range []string{"clusterqueues", "cohorts", "resourceflavors", "topologies", "workloadpriorityclasses"} {
			allowed["kueue.x-k8s.io/"+r+" get "] = true
			allowed["kueue.x-k8s.io/"+r+" list "] = true
		}
	}
	// The verbs each resource serves, and those RBAC checks beyond them
	// (escalation, impersonation, certificate signing).
	special := map[string][]string{
		"rbac.authorization.k8s.io/roles": {"bind", "escalate"}, "rbac.authorization.k8s.io/clusterroles": {"bind", "escalate"},
		"certificates.k8s.io/certificatesigningrequests": {"approve"}, "certificates.k8s.io/signers": {"approve", "sign"},
	}
	type ask struct {
		attrs authorizationv1.ResourceAttributes
	}
	var asks []ask
	var n int
	for _, l := range lists {
		for _, res := range l.APIResources {
			group := strings.SplitN(l.GroupVersion, "/", 2)[0]
			if !strings.Contains(l.GroupVersion, "/") {
				group = ""
			}
			namespaces := []string{""}
			if res.Namespaced {
				namespaces = []string{ns, scenarioNS, ""}
			}
			for _, v := range slices.Concat([]string(res.Verbs), special[group+"/"+res.Name]) {
				for _, where := range namespaces {
					asks = append(asks, ask{authorizationv1.ResourceAttributes{Verb: v, Group: group, Resource: res.Name, Namespace: where}})
				}
			}
			n++
		}
	}
	// Impersonation without a name: allowed only if not narrowed by
	// resourceNames.
	for _, r := range []struct{ group, resource string }{{"", "users"}, {"", "groups"}, {"", "serviceaccounts"},
		{"authentication.k8s.io", "uids"}, {"authentication.k8s.io", "userextras/" + rbac.ExtraSlackUserID}, {"authentication.k8s.io", "userextras/scopes"}} {
		asks = append(asks, ask{authorizationv1.ResourceAttributes{Verb: "impersonate", Group: r.group, Resource: r.resource}})
	}
	var mu sync.Mutex
	var wrong []string
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for _, a := range asks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			got, err := bot.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
				&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &a.attrs}}, metav1.CreateOptions{})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				wrong = append(wrong, fmt.Sprintf("%+v: %v", a.attrs, err))
				return
			}
			where := a.attrs.Namespace
			if where == scenarioNS {
				where = "*"
			}
			key := fmt.Sprintf("%s/%s %s %s", a.attrs.Group, a.attrs.Resource, a.attrs.Verb, where)
			if got.Status.Allowed && !allowed[key] && !allowed[fmt.Sprintf("%s/%s %s *", a.attrs.Group, a.attrs.Resource, a.attrs.Verb)] {
				wrong = append(wrong, "allowed: "+key)
			}
		}()
	}
	wg.Wait()
	slices.Sort(wrong)
	for _, w := range wrong {
		t.Error(w)
	}
	if n < 50 {
		t.Errorf("only %d resources discovered", n)
	}
	t.Logf("%d access reviews over %d resources", len(asks), n)
}

// waitAllowed polls until RBAC allows the bot attrs.
func waitAllowed(t *testing.T, bot kubernetes.Interface, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := bot.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(),
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}, metav1.CreateOptions{})
		if err == nil && got.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("RBAC does not allow the bot to %s %s after 30s (err %v)", attrs.Verb, attrs.Resource, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// slackDirectory stands in for Slack's users.info: the listed users exist,
// in the given workspace, and are members of every user group.
type slackDirectory map[string]string

func (d slackDirectory) GetUserInfoContext(_ context.Context, id string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	team, ok := d[id]
	if !ok {
		return nil, slack.SlackErrorResponse{Err: "user_not_found"}
	}
	return &slack.User{ID: id, TeamID: team}, nil
}

func (d slackDirectory) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	return slices.Collect(mapKeys(d)), nil
}
