package rbac

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kueuebot/kueuebot/config"
)

func TestClusterObjects(t *testing.T) {
	cfg, err := config.Parse([]byte(`
identity:
  users:
    - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice, groups: [team-a]}
digests:
  - {name: d, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: kueuebot-digest}
  - {name: west, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-west, groups: [west-digest], cluster: gpu-west}
  - {name: here, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-home, cluster: home}
clusters:
  - {name: home, inCluster: true}
  - {name: same, kubeconfig: /k}
  - name: gpu-west
    kubeconfig: /k
    identity:
      users:
        - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice@west, groups: [west-ml]}
`))
	if err != nil {
		t.Fatal(err)
	}
	users := func(objs []any) (u, g []string, secret bool) {
		for _, o := range objs {
			switch o := o.(type) {
			case *rbacv1.ClusterRole:
				for _, r := range o.Rules {
					switch {
					case slices.Contains(r.Resources, "users"):
						u = r.ResourceNames
					case slices.Contains(r.Resources, "groups"):
						g = r.ResourceNames
					}
				}
			case *rbacv1.Role:
				if o.Name != "" && strings.Contains(o.Name, "state") {
					t.Errorf("a remote cluster gets no state Role: %s", o.Name)
				}
			case *corev1.Secret:
				secret = o.Type == corev1.SecretTypeServiceAccountToken
			}
		}
		return
	}
	for _, tc := range []struct {
		cluster string
		u, g    []string
	}{
		// The default mapping, without the digest's identity (digests read the home cluster).
		{"same", []string{"alice"}, []string{"team-a"}},
		// Its own mapping, and the digest that names it.
		{"gpu-west", []string{"alice@west", "digest-west"}, []string{"west-digest", "west-ml"}},
	} {
		objs, err := ClusterObjects(cfg, tc.cluster, "kueuebot")
		if err != nil {
			t.Fatal(err)
		}
		var anys []any
		for _, o := range objs {
			anys = append(anys, o)
		}
		u, g, secret := users(anys)
		if !slices.Equal(u, tc.u) || !slices.Equal(g, tc.g) || !secret {
			t.Errorf("%s: impersonates users %v groups %v (token Secret %v), want %v %v", tc.cluster, u, g, secret, tc.u, tc.g)
		}
	}
	if _, err := ClusterObjects(cfg, "home", "kueuebot"); err == nil || !strings.Contains(err.Error(), "render its RBAC without --cluster") {
		t.Errorf("home: %v", err)
	}
	if _, err := ClusterObjects(cfg, "nope", "kueuebot"); err == nil || !strings.Contains(err.Error(), `no cluster "nope"`) {
		t.Errorf("nope: %v", err)
	}
}

func TestDigestOfARemoteClusterIsNotImpersonatedAtHome(t *testing.T) {
	cfg, err := config.Parse([]byte(`
digests:
  - {name: d, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: kueuebot-digest}
  - {name: west, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-west, cluster: gpu-west}
  - {name: here, channel: C00PLATFRM, schedule: "0 9 * * *", namespaces: [team-a], user: digest-home, cluster: home}
clusters:
  - {name: home, inCluster: true}
  - {name: gpu-west, kubeconfig: /k}
`))
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, r := range BotClusterRole(cfg).Rules {
		if slices.Contains(r.Resources, "users") {
			users = r.ResourceNames
		}
	}
	if want := []string{"digest-home", "kueuebot-digest"}; !slices.Equal(users, want) {
		t.Errorf("home impersonates %v, want %v (digest-west is gpu-west's)", users, want)
	}
}
