package install

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/rbac"
)

// rbacConfigs are identity and digest configs that exercise every branch
// of the ClusterRole's rendering: nothing mapped, users, groups from every
// source with duplicates and out of order, email mode, bot-read quota.
var rbacConfigs = map[string]string{
	"users, groups from every source, duplicates": `
config:
  identity:
    users:
      - {slackUserID: U0000ZOE1, teamID: T0000ACME1, user: zoe, groups: [team-b, team-a]}
      - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice, groups: [team-a]}
      - {slackUserID: U0000ALICE, enterpriseID: E0000ACME1, user: alice}
      - {slackUserID: U00000BOB, teamID: T0000ACME1, user: bob}
    email: {groups: [employees]}
    userGroups:
      - {slackGroupID: S00MLTEAM, groups: [ml-researchers, team-a]}
  digests:
    - {name: platform, channel: C00PLATFRM, schedule: "0 9 * * 1-5", namespaces: [team-a], user: kueuebot-digest, groups: [platform]}
    - {name: friday, channel: C00PLATFR2, schedule: "0 17 * * 5", namespaces: [team-b], user: bob}
`,
	"notifications": `
config:
  notify: {enabled: true}
`,
	"notifications and digests": `
config:
  notify: {enabled: true, maxPerUser: 3, expireAfter: 24h}
  digests:
    - {name: platform, channel: C00PLATFRM, schedule: "0 9 * * 1-5", namespaces: [team-a], user: kueuebot-digest}
`,
	"email mode": `
config:
  identity:
    email: {enabled: true, allowedDomains: [example.com], userTemplate: "oidc:{{.Email}}", groups: [employees]}
`,
	"email mode and users": `
config:
  identity:
    users: [{slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice, groups: [team-a]}]
    email: {enabled: true, allowedDomains: [example.com]}
`,
	"quota objects read as the bot": `
config:
  kube: {clusterScopedReads: bot}
  identity:
    users: [{slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice}]
`,
	"a user without groups": `
config:
  identity:
    users: [{slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice}]
`,
	"kueue config": `
config:
  kube:
    kueueConfig: {configMap: kueue-manager-config}
`,
	"digests of several clusters": `
config:
  digests:
    - {name: home, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: kueuebot-digest}
    - {name: west, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-west, cluster: gpu-west}
    - {name: here, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-here, groups: [here], cluster: home}
  clusters:
    - {name: home, inCluster: true}
    - {name: gpu-west, kubeconfig: /etc/kueuebot/clusters/gpu-west/kubeconfig}
clusterKubeconfigs: [{cluster: gpu-west, secretName: kueuebot-gpu-west}]
`,
	"groups only from user groups": `
config:
  identity:
    userGroups: [{slackGroupID: S00MLTEAM, groups: [ml-researchers]}]
`,
}

// TestChartRBACIsRBACPackage: for every value set and every config above,
// the chart's ServiceAccount, ClusterRoles, bindings and state Role are
// exactly what the rbac package renders for the config the chart's
// ConfigMap gives the bot (rbac.BotObjects, rbac.ReaderClusterRole); only
// labels differ. So what deploy/rbac and `kueuebot rbac` show a reviewer is
// what helm install grants.
func TestChartRBACIsRBACPackage(t *testing.T) {
	cases := map[string]map[string]any{}
	for _, vs := range valueSets(t) {
		cases["value set "+vs.name] = vs.values
	}
	for name, y := range rbacConfigs {
		cases[name] = parseValues(t, y)
	}
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			r := render(t, values, "kueuebot", "kueuebot")
			cm := typed[corev1.ConfigMap](t, one(t, r.Objects, "ConfigMap", ""))
			cfg, err := config.Parse([]byte(cm.Data["config.yaml"]))
			if err != nil {
				t.Fatalf("the chart's config does not load: %v", err)
			}
			want := append(rbac.BotObjects(cfg, "kueuebot"), runtime.Object(rbac.ReaderClusterRole()))
			var got []runtime.Object
			for _, o := range r.Objects {
				switch o.GetKind() {
				case "ServiceAccount":
					got = append(got, typed[corev1.ServiceAccount](t, o))
				case "ClusterRole":
					got = append(got, typed[rbacv1.ClusterRole](t, o))
				case "ClusterRoleBinding":
					got = append(got, typed[rbacv1.ClusterRoleBinding](t, o))
				case "Role":
					got = append(got, typed[rbacv1.Role](t, o))
				case "RoleBinding":
					if o.GetName() == "kueuebot-reader" {
						continue // rbac.readerBindings: the platform's grants to people, not the bot's
					}
					got = append(got, typed[rbacv1.RoleBinding](t, o))
				}
			}
			if diff := cmp.Diff(byKey(t, want), byKey(t, got)); diff != "" {
				t.Errorf("chart RBAC differs from rbac's for the same config (-rbac +chart):\n%s", diff)
			}
		})
	}
}

// byKey indexes objects by kind/namespace/name with labels cleared.
func byKey(t *testing.T, objs []runtime.Object) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, o := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetLabels(nil)
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		kind := fmt.Sprintf("%T", o)
		out[kind+" "+u.GetNamespace()+"/"+u.GetName()] = u.Object
	}
	return out
}

// TestChartNeverGrantsSystemNames: a config naming reserved identities
// (which the bot itself refuses to start with) still renders no
// impersonation of them.
func TestChartNeverGrantsSystemNames(t *testing.T) {
	r := render(t, parseValues(t, `
config:
  identity:
    users: [{slackUserID: U0000EVE1, teamID: T0000ACME1, user: "system:admin", groups: ["system:masters", team-a]}]
  digests: [{name: d, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [a], user: "system:kube-controller-manager", groups: ["system:nodes"]}]
`), "kueuebot", "kueuebot")
	cr := typed[rbacv1.ClusterRole](t, one(t, r.Objects, "ClusterRole", "kueuebot"))
	var groups []string
	for _, rule := range cr.Rules {
		for _, n := range rule.ResourceNames {
			if strings.HasPrefix(n, "system:") {
				t.Errorf("impersonation of %q granted: %+v", n, rule)
			}
		}
		if slices.Contains(rule.Resources, "users") {
			t.Errorf("a users rule with only system names left must not exist (empty resourceNames means all): %+v", rule)
		}
		if slices.Contains(rule.Resources, "groups") {
			groups = rule.ResourceNames
		}
	}
	if !slices.Equal(groups, []string{"team-a"}) {
		t.Errorf("groups rule names %v, want [team-a]", groups)
	}
}

// TestChartRBACNames: under another release name and namespace the
// bindings still bind the chart's own ServiceAccount to its own roles.
func TestChartRBACNames(t *testing.T) {
	r := render(t, readValues(t, ChartDir()+"/ci/digests-values.yaml"), "prod", "bots")
	sa := one(t, r.Objects, "ServiceAccount", "")
	if sa.GetName() != "prod-kueuebot" || sa.GetNamespace() != "bots" {
		t.Fatalf("ServiceAccount %s/%s", sa.GetNamespace(), sa.GetName())
	}
	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prod-kueuebot", Namespace: "bots"}}
	crb := typed[rbacv1.ClusterRoleBinding](t, one(t, r.Objects, "ClusterRoleBinding", ""))
	rb := typed[rbacv1.RoleBinding](t, one(t, r.Objects, "RoleBinding", "prod-kueuebot"))
	role := one(t, r.Objects, "Role", "")
	if crb.RoleRef.Name != "prod-kueuebot" || !slices.Equal(crb.Subjects, subject) || rb.RoleRef.Name != role.GetName() ||
		rb.RoleRef.Kind != "Role" || !slices.Equal(rb.Subjects, subject) || role.GetNamespace() != "bots" || rb.Namespace != "bots" {
		t.Errorf("bindings: %+v %+v (Role %s/%s)", crb, rb, role.GetNamespace(), role.GetName())
	}
	one(t, r.Objects, "ClusterRole", "prod-kueuebot")
	one(t, r.Objects, "ClusterRole", "prod-kueuebot-reader")
}
