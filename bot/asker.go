package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/explain"
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

// Explainer answers a question about one job, reading the cluster as id
// (*explain.Explainer). Errors follow the same rule as IdentityResolver's.
type Explainer interface {
	Explain(ctx context.Context, id rbac.Identity, q explain.Question) (explain.Result, error)
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
	// Explain answers questions about jobs. Required.
	Explain Explainer
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
// Explainer is never called for them.
func (a *Asker) Ask(ctx context.Context, user rbac.SlackUser, text string) Message {
	start := time.Now()
	log := a.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rec := &rbac.AuditRecord{Slack: user}
	// One audit line per question, whatever the outcome.
	done := func(outcome string, err error) {
		rec.Duration = time.Since(start)
		rec.Err = err
		if rec.Verdict == "" {
			rec.Verdict = outcome
		}
		rbac.LogAudit(ctx, log, *rec)
	}

	req, err := ParseRequest(text)
	if err != nil {
		done("unparsable", nil)
		var pe *ParseError
		if errors.As(err, &pe) {
			// ParseError messages are written as safe mrkdwn.
			return blocks.Notice("", pe.UserMessage())
		}
		return blocks.Notice("", "I could not understand that. Type `help` to see what I can do.")
	}
	if req.Intent == IntentHelp {
		done("help", nil)
		return HelpMessage()
	}
	rec.Target = req.String()

	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if user.ID == "" {
		done("refused", errors.New("no Slack user ID"))
		return refusal("I could not tell who you are, so I cannot look anything up for you.")
	}
	id, err := a.Resolve.Resolve(ctx, user)
	if err != nil {
		done("refused", err)
		var um UserMessager
		if errors.As(err, &um) && um.UserMessage() != "" {
			return refusal(blocks.Paragraph(um.UserMessage()))
		}
		return refusal("I could not check your access right now. Please try again later.")
	}
	if id.User == "" {
		done("refused", errors.New("empty identity"))
		return refusal("You are not set up to use kueuebot yet. Ask your platform team to map your Slack account to a Kubernetes user.")
	}
	rec.Identity = id

	switch req.Intent {
	case IntentQueues:
		done("unsupported", nil)
		return blocks.Notice("", "I cannot describe queues yet. Ask me about a job instead, e.g. `why is train-7 waiting?`")
	case IntentJobs:
		done("unsupported", nil)
		return blocks.Notice("", "I cannot list your jobs yet. Ask me about a job instead, e.g. `why is train-7 waiting?`")
	}

	res, err := a.Explain.Explain(ctx, id, req.Question())
	rec.Namespaces, rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		done("failed", err)
		return failure(ctx, req, err)
	}
	rec.Verdict = res.VerdictString()
	done("answered", nil)
	return blocks.Report(res.Report, a.Render)
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
