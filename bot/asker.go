package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/diagnose"
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

// JobLister lists the caller's jobs that are not running, reading as id.
// Errors follow the same rule as IdentityResolver's.
type JobLister interface {
	Jobs(ctx context.Context, id rbac.Identity, q explain.JobsQuery) (explain.JobsResult, error)
}

// QueueLister summarises the caller's LocalQueues, reading as id
// (*explain.Explainer).
type QueueLister interface {
	Queues(ctx context.Context, id rbac.Identity, q explain.QueuesQuery) (explain.QueuesResult, error)
}

// Checker checks a manifest before it is submitted ("Will this fit?"),
// reading the cluster as id (*explain.Explainer). Errors follow the same
// rule as IdentityResolver's.
type Checker interface {
	Check(ctx context.Context, id rbac.Identity, req explain.CheckRequest) (explain.CheckResult, error)
}

// UserMessager is implemented by errors whose text is meant for the user
// (plain text; it is escaped before it is shown).
type UserMessager interface {
	UserMessage() string
}

// DefaultTimeout bounds one answer when Asker.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Asker is the one place that turns a question from one user into an
// answer, whatever the entry point (Slack's mentions, DMs, slash
// commands, shortcuts, buttons and App Home, and the terminal chat): it
// parses the question, resolves the asker to a Kubernetes identity (deny
// by default), asks the Explainer or the JobLister as that identity, and
// writes one audit line.
type Asker struct {
	// Resolve maps the asker to a Kubernetes identity. Required.
	Resolve IdentityResolver
	// Explain answers questions about jobs. Required.
	Explain Explainer
	// Jobs lists the caller's jobs ("my jobs", App Home); nil: the bot
	// says it cannot list jobs.
	Jobs JobLister
	// Queues summarises the caller's LocalQueues (`/kueue queues`); nil:
	// the bot says it cannot list queues.
	Queues QueueLister
	// Check answers "Will this fit?" on a manifest; nil: the bot says it
	// cannot check manifests.
	Check Checker
	// Notify is "Tell me when it starts" (`/kueue notify JOB`, the button
	// on pending answers, "stop" in the DM); nil: notifications are off.
	Notify Subscriber
	// Timeout bounds one answer of Ask (identity plus diagnosis); zero
	// means DefaultTimeout. In Slack the Dispatcher bounds each question.
	Timeout time.Duration
	// Render tunes the Block Kit rendering of reports.
	Render blocks.Options
	// Log receives one audit line per question; nil discards.
	Log *slog.Logger
}

// outcome is the answer to one question before it is rendered for its
// destination: either a notice (help, a parse error, a refusal, a failure)
// or a report, or a job list.
type outcome struct {
	// verdict is the verdict code, or what happened instead (help,
	// unparsable, refused, failed, timeout, unsupported, jobs); it labels
	// metrics.
	verdict string
	notice  *Message
	report  *diagnose.Report
	jobs    *explain.JobsResult
	queues  *queueAnswer
	fit     *diagnose.CheckReport
}

// queueAnswer is the caller's queues, narrowed to the one asked about.
type queueAnswer struct {
	res explain.QueuesResult
	// name and kind are the queue the user named, if any.
	name, kind string
}

func noticeOutcome(verdict string, m Message) outcome { return outcome{verdict: verdict, notice: &m} }

// Ask answers text from user and renders the answer for the terminal
// chat (no buttons). It always returns a message: help, a parse error
// saying what to type, a refusal, a failure notice, or the diagnosis.
// Users the resolver does not know are refused and the Explainer is never
// called for them.
func (a *Asker) Ask(ctx context.Context, user rbac.SlackUser, text string) Message {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	o := a.ask(ctx, event.EntryChat, user, text)
	switch {
	case o.notice != nil:
		return *o.notice
	case o.jobs != nil:
		return jobListMessage(*o.jobs)
	case o.queues != nil:
		return queueListMessage(*o.queues)
	case o.fit != nil:
		return blocks.WillItFit(o.fit)
	default:
		// The terminal has no buttons: the whole report at once.
		return blocks.Report(*o.report, a.Render)
	}
}

// question tracks one question for its audit line.
type question struct {
	a     *Asker
	ctx   context.Context
	start time.Time
	rec   rbac.AuditRecord
	log   *slog.Logger
	// stage is what the question was doing, for a timeout's answer.
	stage string
}

func (a *Asker) begin(ctx context.Context, entry event.Entry, user rbac.SlackUser) *question {
	log := a.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// A cluster with its own identity mapping resolves the asker there.
	ctx = rbac.WithSlackUser(ctx, user)
	return &question{a: a, ctx: ctx, start: time.Now(), rec: rbac.AuditRecord{Slack: user}, log: log.With(slog.String("entry", string(entry)))}
}

// done writes the audit line and returns o.
func (q *question) done(o outcome, err error) outcome {
	q.rec.Duration = time.Since(q.start)
	q.rec.Err = err
	if q.rec.Verdict == "" {
		q.rec.Verdict = o.verdict
	}
	rbac.LogAudit(q.ctx, q.log, q.rec)
	return o
}

// identity resolves the asker; on refusal it returns the outcome to show.
func (q *question) identity() (rbac.Identity, *outcome) {
	refuse := func(body string, err error) (rbac.Identity, *outcome) {
		o := q.done(noticeOutcome("refused", refusal(body)), err)
		return rbac.Identity{}, &o
	}
	if q.rec.Slack.ID == "" {
		return refuse("I could not tell who you are, so I cannot look anything up for you.", errors.New("no Slack user ID"))
	}
	q.stage = "checking who you are in Slack"
	id, err := q.a.Resolve.Resolve(q.ctx, q.rec.Slack)
	if err != nil {
		var um UserMessager
		switch {
		case errors.As(err, &um) && um.UserMessage() != "":
			return refuse(blocks.Paragraph(um.UserMessage()), err)
		case q.ctx.Err() != nil:
			o := q.done(q.interrupted(), err)
			return rbac.Identity{}, &o
		}
		return refuse("I could not check your access right now. Please try again later.", err)
	}
	if id.User == "" {
		return refuse("You are not set up to use kueuebot yet. Ask your platform team to map your Slack account to a Kubernetes user.", errors.New("empty identity"))
	}
	q.rec.Identity = id
	return id, nil
}

// interrupted is the answer when the question's context ended: it says
// what took too long, or that the bot is restarting.
func (q *question) interrupted() outcome {
	if errors.Is(context.Cause(q.ctx), event.ErrShuttingDown) {
		return noticeOutcome("shutdown", blocks.Notice("", "I am restarting and could not finish "+q.stage+". Please ask again in a minute."))
	}
	if errors.Is(q.ctx.Err(), context.DeadlineExceeded) {
		return noticeOutcome("timeout", blocks.Notice("", "I gave up "+q.stage+": it took too long. The cluster or Slack may be busy; please try again in a minute."))
	}
	return noticeOutcome("cancelled", blocks.Notice("", "I stopped "+q.stage+" because the request was cancelled."))
}

// ask answers free text from any entry point.
func (a *Asker) ask(ctx context.Context, entry event.Entry, user rbac.SlackUser, text string) outcome {
	q := a.begin(ctx, entry, user)
	req, err := parseFor(entry, text)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			// parse.Error messages are written as safe mrkdwn.
			return q.done(noticeOutcome("unparsable", blocks.Notice("", pe.UserMessage())), nil)
		}
		return q.done(noticeOutcome("unparsable", blocks.Notice("", "I could not understand that. Type `help` to see what I can do.")), nil)
	}
	switch req.Intent {
	case parse.IntentHelp:
		return q.done(noticeOutcome("help", HelpMessage()), nil)
	case parse.IntentJobs:
		return a.listJobs(q, explain.JobsQuery{Namespace: req.Namespace})
	case parse.IntentQueues:
		return a.listQueues(q, req)
	case parse.IntentNotify:
		return a.notify(q, questionOf(req))
	}
	return a.explain(q, questionOf(req))
}

// job answers a question about one job (buttons, the picker).
func (a *Asker) job(ctx context.Context, entry event.Entry, user rbac.SlackUser, eq explain.Question) outcome {
	return a.explain(a.begin(ctx, entry, user), eq)
}

// jobs lists the caller's jobs (App Home, "my jobs").
func (a *Asker) jobs(ctx context.Context, entry event.Entry, user rbac.SlackUser) outcome {
	return a.listJobs(a.begin(ctx, entry, user), explain.JobsQuery{})
}

func (a *Asker) explain(q *question, eq explain.Question) outcome {
	q.rec.Target = eq.String()
	id, o := q.identity()
	if o != nil {
		return *o
	}
	q.stage = "looking at " + blocks.Code(eq.String()) + " in the cluster"
	res, err := a.Explain.Explain(q.ctx, id, eq)
	q.rec.Namespaces, q.rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		return q.done(q.failure(eq.String(), err), err)
	}
	if len(res.Choices) > 0 {
		q.rec.Verdict = "which-cluster"
		return q.done(noticeOutcome("which-cluster", whichCluster(res)), nil)
	}
	if res.Cluster != "" {
		q.rec.Target = res.Question.String()
	}
	q.rec.Verdict = res.VerdictString()
	return q.done(outcome{verdict: string(res.Report.Verdict.Code), report: &res.Report}, nil)
}

func (a *Asker) listJobs(q *question, jq explain.JobsQuery) outcome {
	q.rec.Target = "jobs"
	if jq.Namespace != "" {
		q.rec.Target += " -n " + jq.Namespace
	}
	id, o := q.identity()
	if o != nil {
		return *o
	}
	if a.Jobs == nil {
		return q.done(noticeOutcome("unsupported", blocks.Notice("", "I cannot list your jobs yet. Ask me about one job instead, e.g. `why is train-7 waiting?`")), nil)
	}
	q.stage = "listing your jobs in the cluster"
	res, err := a.Jobs.Jobs(q.ctx, id, jq)
	q.rec.Namespaces, q.rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		return q.done(q.failure("your jobs", err), err)
	}
	return q.done(outcome{verdict: "jobs", jobs: &res}, nil)
}

func (a *Asker) listQueues(q *question, req parse.Request) outcome {
	q.rec.Target = req.String()
	id, o := q.identity()
	if o != nil {
		return *o
	}
	if a.Queues == nil {
		return q.done(noticeOutcome("unsupported", blocks.Notice("", "I cannot list queues here. Ask me about a job instead, e.g. `why is train-7 waiting?`")), nil)
	}
	q.stage = "listing your queues in the cluster"
	res, err := a.Queues.Queues(q.ctx, id, explain.QueuesQuery{Namespace: req.Namespace})
	q.rec.Namespaces, q.rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		return q.done(q.failure("your queues", err), err)
	}
	return q.done(outcome{verdict: "queues", queues: &queueAnswer{res: res, name: req.Name, kind: req.Kind}}, nil)
}

// fit checks a manifest as the asker: the pod sets Kueue would build,
// judged against the LocalQueue it names or each one the asker may use.
// file names the manifest in the answer's commands ("" for a code block).
func (a *Asker) fit(ctx context.Context, entry event.Entry, user rbac.SlackUser, manifest []byte, file string) outcome {
	q := a.begin(ctx, entry, user)
	q.rec.Target = "check"
	if file != "" {
		q.rec.Target += " " + file
	}
	id, o := q.identity()
	if o != nil {
		return *o
	}
	if a.Check == nil {
		return q.done(noticeOutcome("unsupported", blocks.Notice("", "I cannot check manifests here. Run `kueuebot check -f job.yaml` instead.")), nil)
	}
	q.stage = "checking your manifest against your queues"
	res, err := a.Check.Check(q.ctx, id, explain.CheckRequest{Manifest: manifest, File: file})
	q.rec.Namespaces, q.rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		return q.done(q.failure("your manifest", err), err)
	}
	q.rec.Verdict = res.Fits()
	return q.done(outcome{verdict: "check", fit: &res.Report}, nil)
}

// whichCluster asks which cluster the asker means, with a button per
// cluster where the job was found.
func whichCluster(res explain.Result) Message {
	choices := make([]blocks.ClusterChoice, 0, len(res.Choices))
	for _, c := range res.Choices {
		choices = append(choices, blocks.ClusterChoice{
			Ref:     blocks.JobRef{Namespace: c.Target.Namespace, Kind: c.Target.Kind, Name: c.Target.Name, Cluster: c.Cluster},
			Verdict: string(c.Verdict),
		})
	}
	return blocks.WhichCluster(res.Question.Name, choices, res.Report.Clusters)
}

func refusal(body string) Message {
	return blocks.Notice("I can't look that up for you", body)
}

// failure explains a failed diagnosis without leaking internals.
func (q *question) failure(what string, err error) outcome {
	var um UserMessager
	switch {
	case errors.As(err, &um) && um.UserMessage() != "":
		return noticeOutcome("failed", blocks.Notice("", blocks.Paragraph(um.UserMessage())))
	case q.ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return q.interrupted()
	default:
		return noticeOutcome("failed", blocks.Notice("", "Something went wrong while I looked at "+blocks.Code(what)+". Please try again later; if it keeps happening, tell your platform team."))
	}
}
