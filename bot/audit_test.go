package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

type staticResolver struct{ id rbac.Identity }

func (s staticResolver) Resolve(_ context.Context, u rbac.SlackUser) (rbac.Identity, error) {
	id := s.id
	id.Extra = map[string][]string{rbac.ExtraSlackUserID: {u.ID}}
	return id, nil
}

// TestAuditLine: every question leaves exactly one structured line with the
// Slack user, the impersonated identity, the namespaces, the target, the
// verdict and the duration.
func TestAuditLine(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	a := &Asker{
		Resolve: staticResolver{rbac.Identity{User: "alice", Groups: []string{"team-a"}, Namespaces: []string{"team-a"}}},
		Explain: &explain.Explainer{Reader: &explain.DumpReader{Dump: dump}},
		Log:     slog.New(slog.NewJSONHandler(&buf, nil)),
	}
	a.Ask(t.Context(), rbac.SlackUser{ID: "U0000ALICE", TeamID: "T0000ACME1"}, "why is my job sample-job waiting?")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one audit line, got %d:\n%s", len(lines), buf.String())
	}
	var rec struct {
		Msg   string `json:"msg"`
		Slack struct{ User, Team string }
		As    struct {
			User   string
			Groups []string
		}
		Namespaces []string
		Target     string
		Verdict    string
		Duration   int64
	}
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Msg != "kueuebot.question" || rec.Slack.User != "U0000ALICE" || rec.Slack.Team != "T0000ACME1" || rec.As.User != "alice" ||
		len(rec.Namespaces) != 1 || rec.Namespaces[0] != "team-a" || !strings.Contains(rec.Target, "sample-job") || rec.Verdict != "ExceedsMaxQuota" {
		t.Errorf("audit line lacks fields: %s", lines[0])
	}
}
