package main

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func TestDisplayName(t *testing.T) {
	for argv0, want := range map[string]string{
		"kubectl-kueuebot":                   "kubectl kueuebot",
		"/home/a/.krew/bin/kubectl-kueuebot": "kubectl kueuebot",
		"kubectl-kueuebot.exe":               "kubectl kueuebot",
		"kueuebot":                           "kueuebot",
		"/usr/local/bin/kueuebot":            "kueuebot",
		"kubectl-kueuebot-old":               "kueuebot",
	} {
		if got := displayName(argv0); got != want {
			t.Errorf("displayName(%q) = %q, want %q", argv0, got, want)
		}
	}
}

// TestPluginHelp: installed as kubectl-kueuebot, help and examples say
// "kubectl kueuebot", which is how the user typed it.
func TestPluginHelp(t *testing.T) {
	var out bytes.Buffer
	root := newRootCmd(strings.NewReader(""), &out, &out)
	asPlugin(root, "kubectl kueuebot")
	root.SetArgs([]string{"diagnose", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kubectl kueuebot diagnose [KIND/]NAME [flags]",
		"  kubectl kueuebot diagnose sample-job -n team-a\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\n  kueuebot ") {
		t.Errorf("help still names the bare binary:\n%s", out.String())
	}
}

// TestClusterFlagsAsKubectl: every command that reads a cluster has every
// one of kubectl's cluster flags, with kubectl's own definitions (name,
// shorthand, type, help), not look-alikes; digest's --namespace is its
// scope, repeatable.
func TestClusterFlagsAsKubectl(t *testing.T) {
	kubectl := pflag.NewFlagSet("kubectl", pflag.ContinueOnError)
	genericclioptions.NewConfigFlags(true).AddFlags(kubectl)
	for cmd, flags := range map[string]*pflag.FlagSet{"diagnose": newDiagnoseCmd().Flags(), "digest": newDigestCmd().Flags()} {
		n := 0
		kubectl.VisitAll(func(want *pflag.Flag) {
			name := want.Name
			got := flags.Lookup(name)
			if cmd == "digest" && name == "namespace" {
				if got == nil || got.Value.Type() != "stringArray" {
					t.Errorf("digest --namespace should be its repeatable scope: %+v", got)
				}
				return
			}
			n++
			if got == nil {
				t.Errorf("%s --%s is missing", cmd, name)
				return
			}
			if got.Shorthand != want.Shorthand || got.Value.Type() != want.Value.Type() || !strings.HasPrefix(got.Usage, want.Usage) {
				t.Errorf("%s --%s = (-%s, %s, %q), kubectl has (-%s, %s, %q)", cmd, name, got.Shorthand, got.Value.Type(), got.Usage, want.Shorthand, want.Value.Type(), want.Usage)
			}
			if name != "request-timeout" && got.DefValue != want.DefValue {
				t.Errorf("%s --%s default %q, kubectl's %q", cmd, name, got.DefValue, want.DefValue)
			}
		})
		if n < 18 {
			t.Errorf("%s: only %d of kubectl's flags", cmd, n)
		}
		if got := flags.Lookup("request-timeout").DefValue; got != "10s" {
			t.Errorf("%s --request-timeout default %q, want the diagnosis default 10s", cmd, got)
		}
	}
}

const twoContexts = `apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: a
  cluster: {server: "https://a.example:6443"}
- name: b
  cluster: {server: "https://b.example:6443"}
users:
- name: u
  user: {token: not-a-real-token}
- name: v
  user: {token: another-token}
contexts:
- name: ctx-a
  context: {cluster: a, user: u, namespace: team-a}
- name: ctx-b
  context: {cluster: b, user: u, namespace: team-b}
`

// TestRestConfigFromFlags: the flags load the kubeconfig the way kubectl
// does.
func TestRestConfigFromFlags(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	if err := os.WriteFile(kc, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		env        string // KUBECONFIG
		wantHost   string
		wantNS     string
		wantUser   string
		wantGroups []string
		wantTO     time.Duration
		wantToken  string // "": not-a-real-token
		wantErr    string
	}{
		{name: "current context", args: []string{"--kubeconfig", kc}, wantHost: "https://a.example:6443", wantNS: "team-a", wantTO: 10 * time.Second},
		{name: "KUBECONFIG", env: kc, wantHost: "https://a.example:6443", wantNS: "team-a", wantTO: 10 * time.Second},
		{name: "--context picks cluster and namespace", args: []string{"--kubeconfig", kc, "--context", "ctx-b"}, wantHost: "https://b.example:6443", wantNS: "team-b", wantTO: 10 * time.Second},
		{name: "-n wins over the context", args: []string{"--kubeconfig", kc, "--context", "ctx-b", "-n", "ml"}, wantHost: "https://b.example:6443", wantNS: "ml", wantTO: 10 * time.Second},
		{name: "impersonation", args: []string{"--kubeconfig", kc, "--as", "alice", "--as-group", "team-a", "--as-group", "ml"},
			wantHost: "https://a.example:6443", wantNS: "team-a", wantUser: "alice", wantGroups: []string{"team-a", "ml"}, wantTO: 10 * time.Second},
		{name: "timeout with a unit", args: []string{"--kubeconfig", kc, "--request-timeout", "3s"}, wantHost: "https://a.example:6443", wantNS: "team-a", wantTO: 3 * time.Second},
		{name: "kubectl reads a bare number as seconds", args: []string{"--kubeconfig", kc, "--request-timeout", "5"}, wantHost: "https://a.example:6443", wantNS: "team-a", wantTO: 5 * time.Second},
		{name: "--cluster and --user pick from the kubeconfig", args: []string{"--kubeconfig", kc, "--cluster", "b", "--user", "v"},
			wantHost: "https://b.example:6443", wantNS: "team-a", wantTO: 10 * time.Second, wantToken: "another-token"},
		{name: "--server and --token", args: []string{"--kubeconfig", kc, "--server", "https://c.example:6443", "--token", "t0ken"},
			wantHost: "https://c.example:6443", wantNS: "team-a", wantTO: 10 * time.Second, wantToken: "t0ken"},
		{name: "bad timeout", args: []string{"--kubeconfig", kc, "--request-timeout", "soon"}, wantErr: "cannot load the kubeconfig"},
		{name: "unknown context", args: []string{"--kubeconfig", kc, "--context", "nope"}, wantErr: `context "nope" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.env)
			t.Setenv("HOME", dir) // no ~/.kube/config of the machine
			k := newKubeFlags(true)
			fs := pflag.NewFlagSet("diagnose", pflag.ContinueOnError)
			k.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := k.RESTConfig()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ns := k.Namespace()
			if cfg.Host != tt.wantHost || ns != tt.wantNS || cfg.Impersonate.UserName != tt.wantUser ||
				!slices.Equal(cfg.Impersonate.Groups, tt.wantGroups) || cfg.Timeout != tt.wantTO {
				t.Errorf("got host %s ns %s as %q %v timeout %s", cfg.Host, ns, cfg.Impersonate.UserName, cfg.Impersonate.Groups, cfg.Timeout)
			}
			if want := cmp.Or(tt.wantToken, "not-a-real-token"); cfg.BearerToken != want {
				t.Errorf("token %q, want %q", cfg.BearerToken, want)
			}
		})
	}
}

// TestRestConfigInCode: serve and chat build kubeFlags in code, with no
// flags parsed; the same loading applies.
func TestRestConfigInCode(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	if err := os.WriteFile(kc, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", "")
	k := kubeFlagsFor(kc, "ctx-b")
	cfg, err := k.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if ns := k.Namespace(); cfg.Host != "https://b.example:6443" || ns != "team-b" || cfg.Timeout != 10*time.Second {
		t.Errorf("got host %s ns %s timeout %s", cfg.Host, ns, cfg.Timeout)
	}
}
