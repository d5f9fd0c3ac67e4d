package rbac

import (
	"context"
	"log/slog"
	"time"
)

// AuditRecord is one question, for the audit line.
type AuditRecord struct {
	// Slack is who asked.
	Slack SlackUser
	// Identity is what the Slack user resolved to (zero when refused).
	Identity Identity
	// Namespaces are the namespaces the question was answered for.
	Namespaces []string
	// NamespaceSource says where Namespaces came from.
	NamespaceSource NamespaceSource
	// Target is what was asked about, e.g. "Job team-a/train-1".
	Target string
	// Verdict is the diagnosis verdict code, or "" when none was reached.
	Verdict string
	// Err is the refusal or failure, if any.
	Err error
	// Duration is how long the question took, measured by the caller.
	Duration time.Duration
}

// LogAudit writes one structured line for a question: the Slack user and
// team, the impersonated identity, namespaces, target, verdict code, refusal
// reason or error, and duration. It logs no tokens: it has none to log.
func LogAudit(ctx context.Context, l *slog.Logger, r AuditRecord) {
	attrs := []slog.Attr{
		slog.Group("slack",
			slog.String("user", r.Slack.ID),
			slog.String("team", r.Slack.TeamID),
			slog.String("enterprise", r.Slack.EnterpriseID),
		),
		slog.Group("as",
			slog.String("user", r.Identity.User),
			slog.Any("groups", nonNil(r.Identity.Groups)),
		),
		slog.Any("namespaces", nonNil(r.Namespaces)),
		slog.String("namespaceSource", string(r.NamespaceSource)),
		slog.String("target", r.Target),
		slog.String("verdict", r.Verdict),
		slog.Duration("duration", r.Duration),
	}
	level := slog.LevelInfo
	if r.Err != nil {
		if ref, ok := IsRefused(r.Err); ok {
			attrs = append(attrs, slog.String("refused", string(ref.Reason)))
		} else {
			level = slog.LevelWarn
			attrs = append(attrs, slog.String("error", r.Err.Error()))
		}
	}
	l.LogAttrs(ctx, level, "kueuebot.question", attrs...)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
