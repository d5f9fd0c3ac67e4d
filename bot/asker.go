package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/rbac"
)

// Message is one answer: Block Kit blocks and a fallback text.
type Message = blocks.Message

// IdentityResolver maps a Slack user to the Kubernetes identity the bot
// impersonates for them. It denies by default: an unknown user is an error.
// An error that implements UserMessager is shown to the user as is;
// any other error is logged and answered with a generic message.
type IdentityResolver interface {
	Resolve(ctx context.Context, u rbac.SlackUser) (rbac.Identity, error)
}

// Diagnoser explains one job, reading the cluster as id. Errors follow the
// same rule as IdentityResolver's.
type Diagnoser interface {
	Diagnose(ctx context.Context, id rbac.Identity, req Request) (diagnose.Report, error)
}

// UserMessager is implemented by errors whose text is meant for the user
// (plain text; it is escaped before it is shown).
type UserMessager interface {
	UserMessage() string
}

// DefaultTimeout bounds one answer when Asker.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Asker is the conversation engine shared by Slack and the terminal: it
// turns one question from one user into one answer message.
type Asker struct {
	// Resolve maps the asker to a Kubernetes identity. Required.
	Resolve IdentityResolver
	// Diagnose explains a job. Required.
	Diagnose Diagnoser
	// Timeout bounds one answer (identity plus diagnosis); zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Render tunes the Block Kit rendering of reports.
	Render blocks.Options
	// Log receives one line per question; nil discards.
	Log *slog.Logger
}

// Ask answers text from user. It always returns a message: help, a parse
// error saying what to type, a refusal, a failure notice, or the rendered
// diagnosis. Users the resolver does not know are refused and the
// Diagnoser is never called for them.
func (a *Asker) Ask(ctx context.Context, user rbac.SlackUser, text string) Message {
	start := time.Now()
	log := a.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	attrs := []any{slog.String("slack_user", user.ID), slog.String("slack_team", user.TeamID)}
	done := func(outcome string, extra ...any) {
		log.InfoContext(ctx, "question", append(append(attrs, slog.String("outcome", outcome), slog.Duration("duration", time.Since(start))), extra...)...)
	}

	req, err := ParseRequest(text)
	if err != nil {
		done("unparsable")
		var pe *ParseError
		if errors.As(err, &pe) {
			// ParseError messages are written as safe mrkdwn.
			return blocks.Notice("", pe.UserMessage())
		}
		return blocks.Notice("", "I could not understand that. Type `help` to see what I can do.")
	}
	if req.Intent == IntentHelp {
		done("help")
		return HelpMessage()
	}
	attrs = append(attrs, slog.String("intent", string(req.Intent)), slog.String("target", req.String()))

	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if user.ID == "" {
		done("refused", slog.String("reason", "no user id"))
		return refusal("I could not tell who you are, so I cannot look anything up for you.")
	}
	id, err := a.Resolve.Resolve(ctx, user)
	if err != nil {
		done("refused", slog.Any("error", err))
		var um UserMessager
		if errors.As(err, &um) && um.UserMessage() != "" {
			return refusal(blocks.Paragraph(um.UserMessage()))
		}
		return refusal("I could not check your access right now. Please try again later.")
	}
	if id.User == "" {
		done("refused", slog.String("reason", "empty identity"))
		return refusal("You are not set up to use kueuebot yet. Ask your platform team to map your Slack account to a Kubernetes user.")
	}
	attrs = append(attrs, slog.String("k8s_user", id.User))

	if req.Intent == IntentQueue {
		done("unsupported")
		return blocks.Notice("", "I cannot describe queues yet. Ask me about a job instead, e.g. `why is train-7 waiting?`")
	}

	rep, err := a.Diagnose.Diagnose(ctx, id, req)
	if err != nil {
		done("failed", slog.Any("error", err))
		return failure(ctx, req, err)
	}
	done("answered", slog.String("verdict", string(rep.Verdict.Code)), slog.String("cause", string(rep.Verdict.Cause)))
	return blocks.Report(rep, a.Render)
}

func refusal(body string) Message {
	return blocks.Notice("I can't look that up for you", body)
}

// failure explains a failed diagnosis without leaking internals.
func failure(ctx context.Context, req Request, err error) Message {
	var um UserMessager
	switch {
	case errors.As(err, &um) && um.UserMessage() != "":
		return blocks.Notice("", blocks.Paragraph(um.UserMessage()))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return blocks.Notice("", "Looking at "+blocks.Code(req.String())+" took too long. The cluster may be busy; please try again in a minute.")
	case errors.Is(err, context.Canceled):
		return blocks.Notice("", "I stopped looking at "+blocks.Code(req.String())+" because the request was cancelled.")
	default:
		return blocks.Notice("", "Something went wrong while I looked at "+blocks.Code(req.String())+". Please try again later; if it keeps happening, tell your platform team.")
	}
}
