package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/config"
)

// TestReferenceUpToDate fails when a config key was added, removed,
// re-documented or given another default without regenerating the
// reference.
func TestReferenceUpToDate(t *testing.T) {
	got, err := Render("../../config")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("docs/config.md is out of date: run make docs")
	}
}

func TestReferenceRows(t *testing.T) {
	b, err := Render("../../config")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		"| `slack.botToken` | secret | `\"\"` | `KUEUEBOT_SLACK_BOTTOKEN` | `botToken` is the bot token",
		"| `kube.requestTimeout` | duration | `10s` | `KUEUEBOT_KUBE_REQUESTTIMEOUT` |",
		"| `identity.cacheTTL` | duration | `5m` |",
		"| `identity.email.requireConfirmed` | bool | `true` |",
		"| `identity.users[].slackUserID` | string | `\"\"` | file only |",
		"| `identity.users` | list of objects (see `identity.users[]`) | `[]` | file only |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("reference lacks %q", want)
		}
	}
	// The environment variables are named as the loader reads them.
	t.Setenv("KUEUEBOT_KUBE_MAXNAMESPACES", "7")
	t.Setenv("KUEUEBOT_IDENTITY_EMAIL_TEAMIDS", "T0000ACME1,T0000ACME2")
	c, err := config.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kube.MaxNamespaces != 7 || len(c.Identity.Email.TeamIDs) != 2 {
		t.Errorf("environment overrides not applied: %d %v", c.Kube.MaxNamespaces, c.Identity.Email.TeamIDs)
	}
}

func TestUndocumentedKeyFails(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob("../../config/*.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Strip the doc comment of slack.mode.
		s := strings.Replace(string(b), "\t// Mode is \"socket\" (default) or \"http\".\n", "", 1)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Render(dir)
	if err == nil || !strings.Contains(err.Error(), "key slack.mode) has no doc comment") {
		t.Fatalf("err = %v, want one naming slack.mode", err)
	}
}

// TestChartSchemaUpToDate fails when the config part of the chart's
// values.schema.json no longer matches the config package.
func TestChartSchemaUpToDate(t *testing.T) {
	const path = "../../deploy/helm/kueuebot/values.schema.json"
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SpliceSchema("../../config", old)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(old) {
		t.Fatalf("%s is out of date: run make docs", path)
	}
	for _, secret := range []string{`"botToken"`, `"appToken"`, `"signingSecret"`} {
		if strings.Contains(string(got), secret) {
			t.Errorf("the chart schema accepts %s in values: tokens belong in the Secret", secret)
		}
	}
}
