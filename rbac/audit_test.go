package rbac

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kueuebot/kueuebot/config"
)

func TestLogAudit(t *testing.T) {
	slackUser := SlackUser{ID: "U0000ALICE", TeamID: "T0000ACME1"}
	alice := Identity{User: "alice", Groups: []string{"team-a"}, Extra: map[string][]string{ExtraSlackUserID: {"U0000ALICE"}}}
	tests := []struct {
		name string
		rec  AuditRecord
		want map[string]any
	}{
		{
			name: "answered",
			rec: AuditRecord{Slack: slackUser, Identity: alice, Namespaces: []string{"team-a"}, NamespaceSource: SourceConfigured,
				Target: "Job team-a/train-1", Verdict: "QuotaExhausted", Duration: 1500 * time.Millisecond},
			want: map[string]any{
				"level": "INFO", "msg": "kueuebot.question",
				"slack":      map[string]any{"user": "U0000ALICE", "team": "T0000ACME1", "enterprise": ""},
				"as":         map[string]any{"user": "alice", "groups": []any{"team-a"}},
				"namespaces": []any{"team-a"}, "namespaceSource": "configured",
				"target": "Job team-a/train-1", "verdict": "QuotaExhausted", "duration": float64(1500 * time.Millisecond),
			},
		},
		{
			name: "refused",
			rec:  AuditRecord{Slack: slackUser, Err: &RefusedError{Reason: ReasonGuest, SlackUserID: "U0000ALICE"}},
			want: map[string]any{
				"level": "INFO", "msg": "kueuebot.question",
				"slack":      map[string]any{"user": "U0000ALICE", "team": "T0000ACME1", "enterprise": ""},
				"as":         map[string]any{"user": "", "groups": []any{}},
				"namespaces": []any{}, "namespaceSource": "", "target": "", "verdict": "", "duration": float64(0),
				"refused": "Guest",
			},
		},
		{
			name: "failed",
			rec:  AuditRecord{Slack: slackUser, Identity: alice, Err: errors.New("users.info: timeout")},
			want: map[string]any{
				"level": "WARN", "msg": "kueuebot.question",
				"slack":      map[string]any{"user": "U0000ALICE", "team": "T0000ACME1", "enterprise": ""},
				"as":         map[string]any{"user": "alice", "groups": []any{"team-a"}},
				"namespaces": []any{}, "namespaceSource": "", "target": "", "verdict": "", "duration": float64(0),
				"error": "users.info: timeout",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
			LogAudit(t.Context(), l, tt.rec)
			if n := strings.Count(buf.String(), "\n"); n != 1 {
				t.Fatalf("got %d lines, want 1:\n%s", n, buf.String())
			}
			var got map[string]any
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("audit line (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoTokensInLogs logs everything a request handler has at hand, the
// configuration included, and checks that no token reaches the output.
func TestNoTokensInLogs(t *testing.T) {
	cfg, err := config.Parse(config.Example())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Slack.BotToken = config.NewSecret("xoxb-1234-very-secret")
	cfg.Slack.AppToken = config.NewSecret("xapp-1-very-secret")
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, nil))
	l.Info("config", "config", cfg, "slack", cfg.Slack, "token", cfg.Slack.BotToken)
	LogAudit(t.Context(), l, AuditRecord{Slack: SlackUser{ID: "U0000ALICE", TeamID: "T0000ACME1"}, Err: errors.New("x")})
	if strings.Contains(buf.String(), "very-secret") {
		t.Errorf("token in logs:\n%s", buf.String())
	}
}
