package install

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/explain"
	registry "github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

// TestReaderRoleIsWhatTheBotReads holds the kueuebot-reader ClusterRole
// (rbac.ReaderClusterRole, which the chart renders unchanged:
// TestChartRBACIsRBACPackage) to what the bot reads as a person, from the
// API server's audit log. A fresh user bound to the role in two namespaces
// asks what people ask: why a job of each kind of the registry is waiting
// (one that does not exist, so every kind is read), why the sample-job
// scenario's Job is waiting (its Workload, LocalQueue, Pods, Events and
// queue position), why the Jobs of pods-resourcequota and
// pods-pvc-unbound do not run (the namespace's ResourceQuotas,
// LimitRanges and PersistentVolumeClaims), and which of their jobs are
// waiting. Every request made
// as that user is allowed by the role, and every rule of the role is
// used by a request: a rule granted and never read fails the test.
func TestReaderRoleIsWhatTheBotReads(t *testing.T) {
	c := openCluster(t)
	const ns = "kb-install-reader"
	c.namespace(t, ns)
	if _, err := c.kube.CoreV1().Namespaces().Get(t.Context(), scenarioNS, metav1.GetOptions{}); err != nil {
		t.Fatalf("scenario namespace %s: %v (run make sandbox-scenarios)", scenarioNS, err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	user := "kb-reader-" + hex.EncodeToString(b)

	role := rbac.ReaderClusterRole()
	role.Name = user
	if _, err := c.kube.RbacV1().ClusterRoles().Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.kube.RbacV1().ClusterRoles().Delete(t.Context(), role.Name, metav1.DeleteOptions{}) })
	// Scenarios whose diagnosis reads the namespace's own objects: the
	// ResourceQuotas and LimitRanges that refuse pods, the claims of pods
	// that are not scheduled.
	named := map[string]string{"sc-pods-resourcequota": "over-namespace-quota", "sc-pods-pvc-unbound": "needs-data"}
	for where := range named {
		if _, err := c.kube.CoreV1().Namespaces().Get(t.Context(), where, metav1.GetOptions{}); err != nil {
			t.Fatalf("scenario namespace %s: %v (run make sandbox-scenarios)", where, err)
		}
	}
	for _, where := range []string{ns, scenarioNS, "sc-pods-resourcequota", "sc-pods-pvc-unbound"} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: where},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		if _, err := c.kube.RbacV1().RoleBindings(where).Create(t.Context(), rb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.kube.RbacV1().RoleBindings(where).Delete(t.Context(), rb.Name, metav1.DeleteOptions{}) })
	}
	// The authorizer learns of new bindings through its informers.
	as := rest.CopyConfig(c.cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: user}
	waitAllowed(t, kubernetes.NewForConfigOrDie(as), authorizationv1.ResourceAttributes{Verb: "list", Group: "kueue.x-k8s.io", Resource: "workloads", Namespace: scenarioNS})

	// The reader kueuebot serve builds, with the sandbox's admin as the bot
	// and clusterScopedReads: bot (the reader role is namespaced; with
	// clusterScopedReads: caller people read ClusterQueues, flavors and
	// cohorts through a cluster-wide grant of their own). What the bot
	// reads as itself is not the user's, and is left out below.
	admin := rest.CopyConfig(c.cfg)
	adminKueue := kueueclient.NewForConfigOrDie(admin)
	kr := &explain.KubeReader{Base: admin, Finder: &rbac.NamespaceFinder{Bot: adminKueue}, ClusterScoped: adminKueue}
	e := &explain.Explainer{Reader: kr}
	id := rbac.Identity{User: user}
	ctx := t.Context()
	start := time.Now()
	for _, k := range registry.All() {
		if _, err := e.Explain(ctx, id, explain.Question{Kind: k.Kind, Name: "kb-absent", Namespace: ns}); err != nil {
			t.Errorf("explain %s/kb-absent: %v", k.Kind, err)
		}
	}
	res, err := e.Explain(ctx, id, explain.Question{Kind: registry.Job, Name: scenarioJob, Namespace: scenarioNS})
	if err != nil {
		t.Fatalf("explain the scenario's job: %v", err)
	}
	served := servedGroups(t, c)
	for _, g := range res.Report.Gaps {
		if g.Kind == "PendingWorkloads" && !served["visibility.kueue.x-k8s.io"] {
			continue // a sandbox without SANDBOX_VISIBILITY=1 serves no visibility API
		}
		t.Errorf("the reader role leaves a gap in the scenario's diagnosis: %+v", g)
	}
	for where, job := range named {
		res, err := e.Explain(ctx, id, explain.Question{Kind: registry.Job, Name: job, Namespace: where})
		if err != nil {
			t.Fatalf("explain %s/%s: %v", where, job, err)
		}
		for _, g := range res.Report.Gaps {
			if g.Kind != "Node" && (g.Kind != "PendingWorkloads" || served["visibility.kueue.x-k8s.io"]) {
				t.Errorf("the reader role leaves a gap in the diagnosis of %s/%s: %+v", where, job, g)
			}
		}
	}
	if _, err := e.Jobs(ctx, id, explain.JobsQuery{Namespace: scenarioNS}); err != nil {
		t.Fatalf("list the jobs: %v", err)
	}

	// The API server's record of every request made as the user.
	type read struct{ verb, group, resource string }
	var used map[read]int
	var refused, clusterWide []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		used, refused, clusterWide = map[read]int{}, nil, nil
		for _, ev := range auditAs(t, user, start) {
			r := ev.ObjectRef
			resource := r.Resource
			if r.Subresource != "" {
				resource += "/" + r.Subresource
			}
			rd := read{ev.Verb, r.APIGroup, resource}
			switch {
			case ev.ResponseStatus.Code != 403:
			case r.Namespace == "" || r.Resource == "namespaces":
				// Cluster-wide (a Namespace object is cluster-scoped): no RoleBinding of the namespaced reader
				// role could grant it. The jobs' list reads ClusterQueues,
				// flavors, cohorts and checks as the caller, a Forbidden
				// LIST being a gap.
				clusterWide = append(clusterWide, ev.Verb+" "+ev.RequestURI)
			default:
				refused = append(refused, ev.Verb+" "+ev.RequestURI)
			}
			used[rd]++
		}
		// The last request (the jobs' list) reaches the log within a
		// second or so.
		if used[read{"list", "kueue.x-k8s.io", "localqueues"}] > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, r := range refused {
		t.Errorf("the reader role does not allow what the bot reads in the namespace: %s", r)
	}
	if len(clusterWide) > 0 {
		t.Logf("refused cluster-wide reads as the caller (outside a namespaced role): %v", clusterWide)
	}
	for _, rule := range role.Rules {
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				for _, v := range rule.Verbs {
					if used[read{v, g, res}] > 0 {
						continue
					}
					if v == "watch" && (g == "kueue.x-k8s.io" && res == "workloads" || g == "" && res == "pods") {
						continue // notifications' watches as a subscriber (bot/notify; test/e2e TestNotifyExactlyOnceAcrossLeaderKill), not the fetcher's
					}
					t.Errorf("the reader role grants %s on %s.%s, which the bot never read (grant only what the fetcher reads)", v, res, g)
				}
			}
		}
	}
	if len(used) < len(role.Rules) {
		t.Errorf("only %d distinct reads observed in the audit log: %v", len(used), used)
	}
	t.Logf("%d distinct reads as %s: %v", len(used), user, used)
}

// auditRecord is the part of an audit event the test reads.
type auditRecord struct {
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	ObjectRef  struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
		Namespace   string `json:"namespace"`
	} `json:"objectRef"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp metav1.MicroTime `json:"requestReceivedTimestamp"`
}

// auditAs returns the completed requests made as user since start, from
// the sandbox's audit log.
func auditAs(t *testing.T, user string, start time.Time) []auditRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(sandboxDir(t), "audit.log"))
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	var out []auditRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), `"`+user+`"`) {
			continue
		}
		var ev auditRecord
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("audit line: %v", err)
		}
		if ev.Stage != "ResponseComplete" || ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != user || ev.RequestReceivedTimestamp.Time.Before(start.Add(-time.Second)) {
			continue
		}
		// Discovery (non-resource URLs) needs no rule.
		if ev.ObjectRef.Resource == "" {
			continue
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("audit log: %v", err)
	}
	return out
}

// servedGroups are the API groups the sandbox serves ("" is core).
func servedGroups(t *testing.T, c *cluster) map[string]bool {
	t.Helper()
	groups, err := c.kube.Discovery().ServerGroups()
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("discovery: %v", err)
	}
	out := map[string]bool{"": true}
	for _, g := range groups.Groups {
		out[g.Name] = true
	}
	return out
}

func sandboxDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KUEUEBOT_SANDBOX")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(RepoRoot(), dir)
	}
	return dir
}
