package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/rbac"
)

const clustersYAML = `identity:
  refusalContact: "#platform-help"
  users:
    - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice, groups: [team-a]}
clusters:
  - {name: home, inCluster: true}
  - name: gpu-west
    kubeconfig: KUBECONFIG
    identity:
      users:
        - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice@west}
`

// writeKubeconfig writes a kubeconfig for a server that is never called.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRBACClusterCommand(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(clustersYAML, "KUBECONFIG", "/nowhere", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"rbac", "--config", cfgPath, "--cluster", "gpu-west"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"Apply it in cluster gpu-west", "kind: Secret", "type: kubernetes.io/service-account-token", "- alice@west"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("rbac --cluster gpu-west lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "- alice\n") {
		t.Errorf("gpu-west's ClusterRole impersonates the top-level alice, not its own mapping:\n%s", out.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run(t.Context(), []string{"rbac", "--config", cfgPath, "--cluster", "nope"}, strings.NewReader(""), &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), `no cluster "nope"`) {
		t.Errorf("unknown cluster: exit %d, %s", code, errOut.String())
	}
}

func TestNewFleet(t *testing.T) {
	kc := writeKubeconfig(t)
	cfg, err := config.Parse([]byte(strings.Replace(strings.Replace(clustersYAML, "  - {name: home, inCluster: true}\n", "  - {name: home, kubeconfig: "+kc+"}\n", 1), "KUBECONFIG", kc, 1)))
	if err != nil {
		t.Fatal(err)
	}
	api := newDirectory(cfg.Identity)
	f, err := newFleet(cfg, api, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Names(), ","); got != "home,gpu-west" {
		t.Fatalf("clusters %s", got)
	}
	// home has no mapping of its own; gpu-west maps alice to alice@west,
	// from the question's Slack user, and nobody else.
	if f.Cluster("home").Identity != nil {
		t.Error("home must use the top-level identity")
	}
	m := f.Cluster("gpu-west").Identity
	ctx := rbac.WithSlackUser(context.Background(), rbac.SlackUser{ID: "U0000ALICE", TeamID: "T0000ACME1"})
	id, ok, err := m(ctx, rbac.Identity{User: "alice"})
	if err != nil || !ok || id.User != "alice@west" || id.Extra[rbac.ExtraSlackUserID][0] != "U0000ALICE" {
		t.Errorf("alice in gpu-west: %+v %v %v", id, ok, err)
	}
	api.users["U0000CAROL"] = slack.User{ID: "U0000CAROL", TeamID: "T0000ACME1"}
	ctx = rbac.WithSlackUser(context.Background(), rbac.SlackUser{ID: "U0000CAROL", TeamID: "T0000ACME1"})
	if _, ok, err := m(ctx, rbac.Identity{User: "carol"}); ok || err != nil {
		t.Errorf("carol is not mapped in gpu-west: ok %v err %v", ok, err)
	}

	// A missing kubeconfig stops the start, naming the cluster.
	cfg.Clusters[1].Kubeconfig = filepath.Join(t.TempDir(), "missing")
	if _, err := newFleet(cfg, api, nil); err == nil || !strings.Contains(err.Error(), "clusters[1] (gpu-west): kubeconfig") {
		t.Errorf("missing kubeconfig: %v", err)
	}
}
