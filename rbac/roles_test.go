package rbac

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/kinds"
)

var update = flag.Bool("update", false, "rewrite the rendered YAML under deploy/rbac")

func exampleConfig(t *testing.T) *config.Config {
	t.Helper()
	c, err := config.Parse(config.Example())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBotClusterRole(t *testing.T) {
	impersonate := []string{"impersonate"}
	usersRule := func(names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"users"}, Verbs: impersonate, ResourceNames: names}
	}
	groupsRule := func(names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"groups"}, Verbs: impersonate, ResourceNames: names}
	}
	extraRule := func(ids ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"userextras/kueuebot.io/slack-user-id"}, Verbs: impersonate, ResourceNames: ids}
	}
	lqRule := rbacv1.PolicyRule{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"localqueues"}, Verbs: []string{"list"}}
	quotaRule := rbacv1.PolicyRule{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"clusterqueues", "cohorts", "resourceflavors", "topologies", "workloadpriorityclasses"}, Verbs: []string{"get", "list"}}

	tests := []struct {
		name   string
		mutate func(*config.Config)
		want   []rbacv1.PolicyRule
	}{
		{
			name: "example: narrowed to mapped names",
			want: []rbacv1.PolicyRule{
				usersRule("alice", "bob", "kueuebot-digest"),
				groupsRule("ml-researchers", "team-a", "team-b"),
				extraRule("U00000BOB", "U0000ALICE"),
				lqRule,
			},
		},
		{
			name:   "bot mode adds cluster-scoped quota and priority-class reads",
			mutate: func(c *config.Config) { c.Kube.ClusterScopedReads = config.ClusterScopedBot },
			want: []rbacv1.PolicyRule{
				usersRule("alice", "bob", "kueuebot-digest"),
				groupsRule("ml-researchers", "team-a", "team-b"),
				extraRule("U00000BOB", "U0000ALICE"),
				lqRule, quotaRule,
			},
		},
		{
			name: "email mode: users and extras cannot be narrowed",
			mutate: func(c *config.Config) {
				c.Identity.Email.Enabled = true
				c.Identity.Email.Groups = []string{"employees"}
			},
			want: []rbacv1.PolicyRule{
				usersRule(),
				groupsRule("employees", "ml-researchers", "team-a", "team-b"),
				extraRule(),
				lqRule,
			},
		},
		{
			name: "nothing mapped: no impersonation rule at all (empty resourceNames would mean all)",
			mutate: func(c *config.Config) {
				c.Identity.Users, c.Identity.UserGroups, c.Digests = nil, nil, nil
			},
			want: []rbacv1.PolicyRule{lqRule},
		},
		{
			name: "reserved names are never granted",
			mutate: func(c *config.Config) {
				c.Identity.Users = []config.UserMapping{{SlackUserID: "U0000EVE1", TeamID: "T0000ACME1", User: "system:admin", Groups: []string{"system:masters"}}}
				c.Identity.UserGroups, c.Digests = nil, nil
			},
			want: []rbacv1.PolicyRule{extraRule("U0000EVE1"), lqRule},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := exampleConfig(t)
			if tt.mutate != nil {
				tt.mutate(c)
			}
			got := BotClusterRole(c)
			if got.Name != BotName {
				t.Errorf("Name = %q", got.Name)
			}
			if diff := cmp.Diff(tt.want, got.Rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			checkReadOnly(t, got)
		})
	}
}

// TestReaderClusterRole: the reader role is exactly get and list on every
// kind of the registry, plus the fetcher's fixed reads and the watch on
// Workloads notifications keep, each with only the
// verbs it uses: no ReplicaSets or DaemonSets (no kind of the registry),
// no events.k8s.io (the core Events are read), no get of Events (they are
// listed), no list of queue positions (one LocalQueue's is got).
func TestReaderClusterRole(t *testing.T) {
	r := ReaderClusterRole()
	checkReadOnly(t, r)
	want := map[string]bool{
		"get localqueues.kueue.x-k8s.io": true, "list localqueues.kueue.x-k8s.io": true,
		"list events": true,
		"get localqueues/pendingworkloads.visibility.kueue.x-k8s.io": true,
		// What names the object that blocks, in the namespace: listed only.
		"list persistentvolumeclaims": true, "list resourcequotas": true, "list limitranges": true,
		// notifications watch a namespace's Workloads as a subscriber
		"watch workloads.kueue.x-k8s.io": true,
		// and its Pods while a subscribed job's Pods start
		"watch pods": true,
	}
	for _, k := range kinds.All() {
		gr := k.Resource.GroupResource().String()
		want["get "+gr], want["list "+gr] = true, true
	}
	got := map[string]bool{}
	for _, rule := range r.Rules {
		if len(rule.ResourceNames) > 0 {
			t.Errorf("reader rule narrowed by name: %+v", rule)
		}
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				for _, v := range rule.Verbs {
					got[v+" "+schema.GroupResource{Group: g, Resource: res}.String()] = true
				}
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reader grants (-want +got):\n%s", diff)
	}
	// A Deployment's Pods are matched to it by their ReplicaSet's name
	// (kinds.Kind.OwnsPod): ReplicaSets are never read.
	for _, gr := range []schema.GroupResource{{Group: "apps", Resource: "replicasets"}, {Group: "apps", Resource: "daemonsets"}, {Group: "events.k8s.io", Resource: "events"}, {Resource: "secrets"}} {
		if allows(r.Rules, gr.Group, gr.Resource, "list") {
			t.Errorf("reader lists %s", gr)
		}
	}
}

func allows(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// checkReadOnly asserts the role has no wildcard, no write verb and nothing
// on Secrets.
func checkReadOnly(t *testing.T, r *rbacv1.ClusterRole) {
	t.Helper()
	ok := map[string]bool{"get": true, "list": true, "impersonate": true}
	if r.Name == ReaderName {
		ok["watch"] = true // Workloads and Pods only, held by TestReaderClusterRole
	}
	for _, rule := range r.Rules {
		for _, v := range rule.Verbs {
			if !ok[v] {
				t.Errorf("%s: verb %q in %+v", r.Name, v, rule)
			}
		}
		for _, s := range slices.Concat(rule.APIGroups, rule.Resources, rule.ResourceNames) {
			if s == "*" || s == "secrets" {
				t.Errorf("%s: %q in %+v", r.Name, s, rule)
			}
		}
		if len(rule.NonResourceURLs) > 0 {
			t.Errorf("%s: non-resource URLs in %+v", r.Name, rule)
		}
	}
}

// deployFiles are the committed manifests and the Go values they must equal.
func deployFiles(t *testing.T) map[string][]byte {
	t.Helper()
	example := exampleConfig(t)
	email := exampleConfig(t)
	email.Identity.Email.Enabled = true
	render := func(header string, objs ...runtime.Object) []byte {
		b, err := RenderYAML(header, objs...)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const regen = "Regenerate: go test ./rbac -run TestDeployYAML -update"
	return map[string][]byte{
		"bot.yaml": render("The bot's ServiceAccount, ClusterRole and binding, and the Role for its Lease,\ndigest state and notification subscriptions (the example configures both), rendered by rbac.BotObjects from\nconfig/example.yaml. Render yours from your config (kueuebot rbac --config FILE);\ndo not edit by hand.\n"+regen,
			BotObjects(example, DefaultNamespace)...),
		"reader.yaml": render("kueuebot-reader (rbac.ReaderClusterRole): bind it per namespace with a RoleBinding\nto let people read their jobs there through the bot. Read-only.\n"+regen,
			ReaderClusterRole()),
		"examples/bot-email-mode.yaml": render("The bot's ClusterRole when identity.email is enabled: Kubernetes user names come\nfrom Slack at run time, so impersonation of users and of the Slack-user-ID extra\ncannot be narrowed by resourceNames (see docs/security.md). Groups still are.\n"+regen,
			BotClusterRole(email)),
	}
}

func TestDeployYAML(t *testing.T) {
	dir := filepath.Join("..", "deploy", "rbac")
	for name, want := range deployFiles(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from the Go value (-want +got); run go test ./rbac -run TestDeployYAML -update:\n%s", path, diff)
			}
		})
	}
}
