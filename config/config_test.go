package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestExampleValidates(t *testing.T) {
	c, err := Parse(Example())
	if err != nil {
		t.Fatalf("Parse(example): %v", err)
	}
	if got, want := c.Identity.Users[0], (UserMapping{
		SlackUserID: "U0000ALICE", TeamID: "T0000ACME1", User: "alice",
		Groups: []string{"team-a"}, Namespaces: []string{"team-a"},
	}); !cmp.Equal(got, want) {
		t.Errorf("users[0] (-want +got):\n%s", cmp.Diff(want, got))
	}
	if c.Kube.RequestTimeout != 10*time.Second || c.Identity.CacheTTL != 5*time.Minute {
		t.Errorf("durations: got %s, %s", c.Kube.RequestTimeout, c.Identity.CacheTTL)
	}
}

func TestDefaultsValidate(t *testing.T) {
	c, err := Parse(nil)
	if err != nil {
		t.Fatalf("Parse(nil): %v", err)
	}
	if diff := cmp.Diff(Default(), c, cmp.AllowUnexported(Secret{})); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestUnknownKey(t *testing.T) {
	tests := []struct {
		name, yaml, wantKey string
	}{
		{"top level", "slak:\n  mode: socket\n", "slak"},
		{"nested", "kube:\n  clusterScopedRead: bot\n", "clusterScopedRead"},
		{"in list item", "identity:\n  users:\n    - slackUserID: U1234\n      teamID: T1234\n      user: a\n      nmespaces: [x]\n", "nmespaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.wantKey)) {
				t.Fatalf("Parse: got %v, want an error naming %q", err, tt.wantKey)
			}
		})
	}
}

func TestEnvOverride(t *testing.T) {
	t.Setenv("KUEUEBOT_SLACK_BOTTOKEN", "xoxb-from-env")
	t.Setenv("KUEUEBOT_KUBE_CLUSTERSCOPEDREADS", "bot")
	t.Setenv("KUEUEBOT_KUBE_MAXNAMESPACES", "3")
	t.Setenv("KUEUEBOT_IDENTITY_CACHETTL", "30s")
	t.Setenv("KUEUEBOT_IDENTITY_EMAIL_ALLOWEDDOMAINS", "a.example,b.example")
	c, err := Parse(Example())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	got := []any{c.Slack.BotToken.Reveal(), c.Kube.ClusterScopedReads, c.Kube.MaxNamespaces, c.Identity.CacheTTL, c.Identity.Email.AllowedDomains}
	want := []any{"xoxb-from-env", ClusterScopedBot, 3, 30 * time.Second, []string{"a.example", "b.example"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overrides (-want +got):\n%s", diff)
	}
}

func TestValidationErrors(t *testing.T) {
	valid := func() *Config {
		c, err := Parse(Example())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   []string // substrings, each must appear
	}{
		{"bad mode", func(c *Config) { c.Slack.Mode = "rtm" }, []string{"slack.mode", `"rtm"`}},
		{"wrong token kind", func(c *Config) { c.Slack.BotToken = NewSecret("xapp-1") }, []string{"slack.botToken", `"xoxb-"`}},
		{"cluster scoped", func(c *Config) { c.Kube.ClusterScopedReads = "admin" }, []string{"kube.clusterScopedReads"}},
		{"timeout", func(c *Config) { c.Kube.RequestTimeout = 0 }, []string{"kube.requestTimeout"}},
		{"display name as ID", func(c *Config) { c.Identity.Users[0].SlackUserID = "alice" }, []string{"identity.users[0].slackUserID", "Copy member ID"}},
		{"no team", func(c *Config) { c.Identity.Users[0].TeamID = "" }, []string{"identity.users[0].teamID"}},
		{"system user", func(c *Config) { c.Identity.Users[1].User = "system:admin" }, []string{"identity.users[1].user", "reserved"}},
		{"system group", func(c *Config) { c.Identity.Users[0].Groups = []string{"system:masters"} }, []string{"identity.users[0].groups[0]", "system:masters"}},
		{"duplicate user", func(c *Config) { c.Identity.Users[1] = c.Identity.Users[0] }, []string{"identity.users[1].slackUserID", "already mapped"}},
		{"email without domains", func(c *Config) {
			c.Identity.Email.Enabled = true
			c.Identity.Email.AllowedDomains = nil
		}, []string{"identity.email.allowedDomains"}},
		{"bad template", func(c *Config) {
			c.Identity.Email.Enabled = true
			c.Identity.Email.UserTemplate = "{{.Mail}}"
		}, []string{"identity.email.userTemplate", ".Email"}},
		{"bad namespace", func(c *Config) { c.Identity.Users[0].Namespaces = []string{"Team_A"} }, []string{"identity.users[0].namespaces[0]"}},
		{"no contact", func(c *Config) { c.Identity.RefusalContact = " " }, []string{"identity.refusalContact"}},
		{"group maps nothing", func(c *Config) { c.Identity.UserGroups[0].Groups, c.Identity.UserGroups[0].Namespaces = nil, nil }, []string{"identity.userGroups[0]", "maps to nothing"}},
		{"cron", func(c *Config) { c.Digests[0].Schedule = "daily" }, []string{"digests[0].schedule"}},
		{"digest user", func(c *Config) { c.Digests[0].User = "" }, []string{"digests[0].user"}},
		{"several at once", func(c *Config) {
			c.Slack.Mode = "x"
			c.Kube.MaxNamespaces = 0
		}, []string{"slack.mode", "kube.maxNamespaces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.mutate(c)
			err := c.Validate()
			if err == nil {
				t.Fatal("Validate: got nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestRequireSlack(t *testing.T) {
	tests := []struct {
		name    string
		slack   Slack
		wantErr []string
	}{
		{"socket ok", Slack{Mode: ModeSocket, BotToken: NewSecret("xoxb-1"), AppToken: NewSecret("xapp-1")}, nil},
		{"socket missing app token", Slack{Mode: ModeSocket, BotToken: NewSecret("xoxb-1")}, []string{"slack.appToken", "KUEUEBOT_SLACK_APPTOKEN"}},
		{"http missing secret", Slack{Mode: ModeHTTP, BotToken: NewSecret("xoxb-1"), ListenAddr: ":1"}, []string{"slack.signingSecret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.Slack = tt.slack
			err := c.RequireSlack()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("RequireSlack: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("RequireSlack: got nil")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

func TestSecretRedaction(t *testing.T) {
	const token = "xoxb-super-secret-123"
	s := NewSecret(token)
	cfg := Default()
	cfg.Slack.BotToken = s
	cfg.Slack.AppToken = NewSecret("xapp-also-secret")
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logBuf, nil))
	logger.Info("cfg", "token", s, "slack", cfg.Slack, "any", any(s))
	textBuf := &bytes.Buffer{}
	slog.New(slog.NewTextHandler(textBuf, nil)).Info("cfg", "token", s)
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	txt, err := s.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"String":      s.String(),
		"%v":          fmt.Sprintf("%v", s),
		"%+v struct":  fmt.Sprintf("%+v", cfg.Slack),
		"%#v struct":  fmt.Sprintf("%#v", cfg.Slack),
		"%s":          fmt.Sprintf("%s", s),
		"%q":          fmt.Sprintf("%q", s),
		"%x":          fmt.Sprintf("%x", s),
		"%d":          fmt.Sprintf("%d", s),
		"GoString":    s.GoString(),
		"json":        string(js),
		"text":        string(txt),
		"slog json":   logBuf.String(),
		"slog text":   textBuf.String(),
		"Println cfg": fmt.Sprintln(cfg),
	}
	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(out, "secret") || strings.Contains(out, "7375706572") {
				t.Errorf("leaked: %s", out)
			}
			if !strings.Contains(out, redacted) {
				t.Errorf("no %s marker: %s", redacted, out)
			}
		})
	}
	if s.Reveal() != token {
		t.Errorf("Reveal = %q", s.Reveal())
	}
	if NewSecret("").String() != "" {
		t.Error("empty secret should print empty")
	}
}
