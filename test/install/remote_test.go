package install

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/rbac"
)

// remoteValues: the bot's config with a home cluster and two remote ones,
// gpu-west with its own identity mapping, and a digest of gpu-west.
const remoteValues = `
config:
  identity:
    users:
      - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice, groups: [team-a]}
  digests:
    - {name: home, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: kueuebot-digest}
    - {name: west, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-west, groups: [west-digest], cluster: gpu-west}
  kube:
    clusterScopedReads: bot
  clusters:
    - {name: home, inCluster: true}
    - name: gpu-west
      kubeconfig: /etc/kueuebot/clusters/gpu-west/kubeconfig
      identity:
        users:
          - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice@west, groups: [west-ml]}
    - {name: gpu-east, kubeconfig: /etc/kueuebot/clusters/gpu-east/kubeconfig}
rbac:
  readerBindings:
    - namespace: team-a
      subjects: [{kind: Group, name: west-ml, apiGroup: rbac.authorization.k8s.io}]
`

// TestChartRemoteCluster: with remoteCluster, the chart installs in that
// cluster only the bot's identity there, exactly rbac.ClusterObjects (what
// `kueuebot rbac --cluster` prints) and the reader ClusterRole with its
// bindings: the ServiceAccount, its token Secret, a ClusterRole that
// impersonates only whom that cluster's mapping and digests name; no
// Deployment, ConfigMap, Service, Lease or state Role.
func TestChartRemoteCluster(t *testing.T) {
	for _, cluster := range []string{"gpu-west", "gpu-east"} {
		t.Run(cluster, func(t *testing.T) {
			values := parseValues(t, remoteValues)
			values["remoteCluster"] = cluster
			r := render(t, values, "kueuebot", "kueuebot")
			got := map[string][]string{}
			for _, o := range r.Objects {
				got[o.GetKind()] = append(got[o.GetKind()], o.GetName())
			}
			want := map[string][]string{
				"ServiceAccount": {"kueuebot"}, "Secret": {"kueuebot-token"},
				"ClusterRole": {"kueuebot", "kueuebot-reader"}, "ClusterRoleBinding": {"kueuebot"}, "RoleBinding": {"kueuebot-reader"},
			}
			for k := range got {
				slices.Sort(got[k])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("objects (-want +got):\n%s", diff)
			}

			cy, err := yaml.Marshal(values["config"])
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Parse(cy)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := rbac.ClusterObjects(cfg, cluster, "kueuebot")
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, runtime.Object(rbac.ReaderClusterRole()))
			var chart []runtime.Object
			for _, o := range r.Objects {
				switch o.GetKind() {
				case "ServiceAccount":
					chart = append(chart, typed[corev1.ServiceAccount](t, o))
				case "Secret":
					chart = append(chart, typed[corev1.Secret](t, o))
				case "ClusterRole":
					chart = append(chart, typed[rbacv1.ClusterRole](t, o))
				case "ClusterRoleBinding":
					chart = append(chart, typed[rbacv1.ClusterRoleBinding](t, o))
				}
			}
			if diff := cmp.Diff(byKey(t, objs), byKey(t, chart)); diff != "" {
				t.Errorf("the chart's remote RBAC differs from rbac.ClusterObjects (-rbac +chart):\n%s", diff)
			}
			role := typed[rbacv1.ClusterRole](t, one(t, r.Objects, "ClusterRole", "kueuebot"))
			var users []string
			for _, rule := range role.Rules {
				if slices.Contains(rule.Resources, "users") {
					users = rule.ResourceNames
				}
			}
			wantUsers := map[string][]string{"gpu-west": {"alice@west", "digest-west"}, "gpu-east": {"alice"}}[cluster]
			if !slices.Equal(users, wantUsers) {
				t.Errorf("impersonates users %v, want %v", users, wantUsers)
			}
		})
	}

	for _, tt := range []struct{ cluster, want string }{
		{"nope", `remoteCluster "nope": config.clusters has no cluster of that name`},
		{"home", `remoteCluster "home" is the bot's own cluster (inCluster)`},
	} {
		values := parseValues(t, remoteValues)
		values["remoteCluster"] = tt.cluster
		_, err := RenderChart(ChartDir(), values, "kueuebot", "kueuebot")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("remoteCluster %s: err = %v, want %q", tt.cluster, err, tt.want)
		}
	}
}
