package config

import (
	"strings"
	"testing"
	"time"
)

func TestClustersParse(t *testing.T) {
	c, err := Parse([]byte(`
clusters:
  - name: home
    inCluster: true
  - name: gpu-west
    kubeconfig: /etc/kueuebot/clusters/gpu-west/kubeconfig
    context: west
    multiKueueCluster: worker-west
    timeout: 3s
    identity:
      users:
        - slackUserID: U0000ALICE
          teamID: T0000ACME1
          user: alice@west
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ClusterNames(); strings.Join(got, ",") != "home,gpu-west" {
		t.Fatalf("names = %v", got)
	}
	w, ok := c.ClusterNamed("gpu-west")
	if !ok || w.Kubeconfig != "/etc/kueuebot/clusters/gpu-west/kubeconfig" || w.Context != "west" || w.MultiKueueCluster != "worker-west" || w.ClusterTimeout() != 3*time.Second {
		t.Fatalf("gpu-west = %+v", w)
	}
	id := w.ClusterIdentity(c.Identity)
	if len(id.Users) != 1 || id.Users[0].User != "alice@west" || id.RefusalContact != c.Identity.RefusalContact || id.CacheTTL != c.Identity.CacheTTL {
		t.Fatalf("gpu-west identity = %+v", id)
	}
	h, _ := c.ClusterNamed("home")
	if h.Identity != nil || h.ClusterTimeout() != DefaultClusterTimeout {
		t.Fatalf("home = %+v", h)
	}
	if hid := h.ClusterIdentity(c.Identity); hid.RefusalContact != c.Identity.RefusalContact {
		t.Fatalf("home identity is not the top-level one: %+v", hid)
	}
}

func TestNoClustersIsOneCluster(t *testing.T) {
	c, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Clusters) != 0 {
		t.Fatalf("default clusters = %v, want none", c.Clusters)
	}
}

func TestClustersValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"duplicate", "clusters:\n- {name: a, inCluster: true}\n- {name: a, kubeconfig: /k}\n", `clusters[1].name: "a" is the name of clusters[0]`},
		{"syntax", "clusters:\n- {name: GPU_West, kubeconfig: /k}\n", `clusters[0].name: got "GPU_West", want a lower-case DNS label`},
		{"no kubeconfig", "clusters:\n- {name: a}\n", `clusters[0].kubeconfig: cluster "a" has no kubeconfig`},
		{"both", "clusters:\n- {name: a, inCluster: true, kubeconfig: /k}\n", `clusters[0]: cluster "a" sets both inCluster and kubeconfig`},
		{"two in-cluster", "clusters:\n- {name: a, inCluster: true}\n- {name: b, inCluster: true}\n", `clusters[1].inCluster: cluster "b" is in-cluster, and so is clusters[0]`},
		{"in-cluster context", "clusters:\n- {name: a, inCluster: true, context: x}\n", `clusters[0].context: cluster "a" is in-cluster`},
		{"duplicate multikueue", "clusters:\n- {name: a, kubeconfig: /k, multiKueueCluster: w}\n- {name: b, kubeconfig: /k, multiKueueCluster: w}\n", `clusters[1].multiKueueCluster: MultiKueueCluster "w" already points`},
		{"timeout", "clusters:\n- {name: a, kubeconfig: /k, timeout: 10m}\n", `clusters[0].timeout: got 10m0s`},
		{"identity", "clusters:\n- name: a\n  kubeconfig: /k\n  identity:\n    users:\n    - {slackUserID: alice, teamID: T0000ACME1, user: alice}\n", `clusters[0].identity.users[0].slackUserID: got "alice"`},
		{"identity system", "clusters:\n- name: a\n  kubeconfig: /k\n  identity:\n    users:\n    - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: \"system:admin\"}\n", `clusters[0].identity.users[0].user: "system:admin" is a reserved system identity`},
		{"unknown key", "clusters:\n- {name: a, kubeconfig: /k, kubeContext: x}\n", `invalid keys: kubecontext`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
