package bot

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/bot/prefs"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
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

// isCluster reports whether name is a configured cluster of r (a reader
// of several clusters).
func isCluster(r any, name string) bool {
	cn, ok := r.(clusterNamer)
	return ok && slices.Contains(cn.Names(), name)
}

// clusterNamer is implemented by the readers of several clusters
// (explain.Fleet): the configured clusters' names, which a question may
// name ("queues gpu-west").
type clusterNamer interface {
	Names() []string
}

// UserMessager is implemented by errors whose text is meant for the user
// (plain text; it is escaped before it is shown).
type UserMessager interface {
	UserMessage() string
}

// userMessageIn is what err says to the user in l: UserMessageIn(l) when
// the error has it (explain.Error, catalog messages), else UserMessage;
// "" when err is not meant for the user.
func userMessageIn(err error, l i18n.Lang) string {
	var ul interface{ UserMessageIn(i18n.Lang) string }
	if errors.As(err, &ul) {
		if s := ul.UserMessageIn(l); s != "" {
			return s
		}
	}
	var um UserMessager
	if errors.As(err, &um) {
		return um.UserMessage()
	}
	return ""
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
	// Render tunes the Block Kit rendering of reports. Its Lang is
	// replaced by the language Lang chooses for each reply.
	Render blocks.Options
	// Lang chooses the language of each reply (the user's remembered
	// preference, the question's language, their Slack locale, the
	// configured default); nil: the question's language, else English.
	Lang *Languages
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
	// lang is the language the reply is rendered in, langSource why.
	lang       i18n.Lang
	langSource LangSource
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
	opts := a.Render
	opts.Lang = o.lang
	switch {
	case o.notice != nil:
		return *o.notice
	case o.jobs != nil:
		return jobListMessage(*o.jobs, o.lang)
	case o.queues != nil:
		return queueListMessage(*o.queues, o.lang)
	case o.fit != nil:
		return blocks.WillItFitIn(o.fit, o.lang)
	default:
		// The terminal has no buttons: the whole report at once.
		return blocks.Report(*o.report, opts)
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
	stage i18n.Message
	// lang is the language of the reply (Asker.Lang), langSource why.
	lang       i18n.Lang
	langSource LangSource
}

// tr renders a catalog message in the question's language.
func (q *question) tr(id i18n.ID, args ...i18n.Arg) string {
	return i18n.Render(q.lang, i18n.M(id, args...))
}

// choose sets the question's language: asked is the language the question
// was written in, when askedOK.
func (q *question) choose(asked i18n.Lang, askedOK bool) {
	q.lang, q.langSource = q.a.Lang.Choose(q.ctx, q.rec.Slack.ID, asked, askedOK)
	q.log = q.log.With(slog.String("lang", q.lang.String()), slog.String("lang_source", string(q.langSource)))
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
	o.lang, o.langSource = q.lang, q.langSource
	return o
}

// identity resolves the asker; on refusal it returns the outcome to show.
func (q *question) identity() (rbac.Identity, *outcome) {
	refuse := func(body string, err error) (rbac.Identity, *outcome) {
		o := q.done(noticeOutcome("refused", blocks.Notice(q.tr("bot.refused.title"), body)), err)
		return rbac.Identity{}, &o
	}
	if q.rec.Slack.ID == "" {
		return refuse(q.tr("bot.refused.noUser"), errors.New("no Slack user ID"))
	}
	q.stage = i18n.M("bot.stage.identity")
	id, err := q.a.Resolve.Resolve(q.ctx, q.rec.Slack)
	if err != nil {
		switch msg := userMessageIn(err, q.lang); {
		case msg != "":
			return refuse(blocks.Paragraph(msg), err)
		case q.ctx.Err() != nil:
			o := q.done(q.interrupted(), err)
			return rbac.Identity{}, &o
		}
		return refuse(q.tr("bot.refused.unavailable"), err)
	}
	if id.User == "" {
		return refuse(q.tr("bot.refused.notMapped"), errors.New("empty identity"))
	}
	q.rec.Identity = id
	return id, nil
}

// interrupted is the answer when the question's context ended: it says
// what took too long, or that the bot is restarting.
func (q *question) interrupted() outcome {
	stage := i18n.Verbatim(i18n.Render(q.lang, q.stage))
	if errors.Is(context.Cause(q.ctx), event.ErrShuttingDown) {
		return noticeOutcome("shutdown", blocks.Notice("", q.tr("bot.shutdown", stage)))
	}
	if errors.Is(q.ctx.Err(), context.DeadlineExceeded) {
		return noticeOutcome("timeout", blocks.Notice("", q.tr("bot.timeout", stage)))
	}
	return noticeOutcome("cancelled", blocks.Notice("", q.tr("bot.cancelled", stage)))
}

// ask answers free text from any entry point.
func (a *Asker) ask(ctx context.Context, entry event.Entry, user rbac.SlackUser, text string) outcome {
	q := a.begin(ctx, entry, user)
	req, err := parseFor(entry, text)
	q.choose(req.Lang, req.LangKnown && req.Intent != parse.IntentLanguage)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			// parse.Error messages are written as safe mrkdwn.
			return q.done(noticeOutcome("unparsable", blocks.Notice("", pe.UserMessageIn(q.lang))), nil)
		}
		return q.done(noticeOutcome("unparsable", blocks.Notice("", q.tr("bot.unparsable"))), nil)
	}
	if req.Intent == parse.IntentDiagnose && req.List != "" && req.Kind == "" && len(req.Candidates) <= 1 {
		// "my jobs on gpu-west", "queues on gpu-west": the only name is a
		// configured cluster's, and the words ask for a list there.
		switch {
		case req.List == parse.IntentJobs && isCluster(a.Jobs, req.Name):
			return a.listJobs(q, explain.JobsQuery{Namespace: req.Namespace, Cluster: req.Name})
		case req.List == parse.IntentQueues && isCluster(a.Queues, req.Name):
			req.Intent = parse.IntentQueues
			return a.listQueues(q, req)
		}
	}
	switch req.Intent {
	case parse.IntentHelp:
		return q.done(noticeOutcome("help", HelpMessageIn(q.lang)), nil)
	case parse.IntentLanguage:
		return a.setLang(q, req.Lang, req.LangKnown)
	case parse.IntentJobs:
		jq := explain.JobsQuery{Namespace: req.Namespace}
		if req.Word != "" && isCluster(a.Jobs, req.Word) {
			// `/kueue jobs gpu-west`: the configured cluster, every
			// namespace there (`-n gpu-west` stays a namespace).
			jq.Namespace, jq.Cluster = "", req.Word
		}
		return a.listJobs(q, jq)
	case parse.IntentQueues:
		return a.listQueues(q, req)
	case parse.IntentNotify:
		return a.notify(q, questionOf(req))
	}
	return a.explain(q, questionOf(req))
}

// job answers a question about one job (buttons, the picker).
func (a *Asker) job(ctx context.Context, entry event.Entry, user rbac.SlackUser, eq explain.Question) outcome {
	q := a.begin(ctx, entry, user)
	q.choose(i18n.English, false)
	return a.explain(q, eq)
}

// jobs lists the caller's jobs (App Home, "my jobs").
func (a *Asker) jobs(ctx context.Context, entry event.Entry, user rbac.SlackUser) outcome {
	q := a.begin(ctx, entry, user)
	q.choose(i18n.English, false)
	return a.listJobs(q, explain.JobsQuery{})
}

func (a *Asker) explain(q *question, eq explain.Question) outcome {
	q.rec.Target = eq.String()
	id, o := q.identity()
	if o != nil {
		return *o
	}
	q.stage = i18n.M("bot.stage.job", i18n.Verbatim(blocks.Code(eq.String())))
	res, err := a.Explain.Explain(q.ctx, id, eq)
	q.rec.Namespaces, q.rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		return q.done(q.failure(eq.String(), err), err)
	}
	if len(res.Choices) > 0 {
		q.rec.Verdict = "which-cluster"
		return q.done(noticeOutcome("which-cluster", whichCluster(res, q.lang)), nil)
	}
	if res.Cluster != "" {
		q.rec.Target = res.Question.String()
	}
	q.rec.Verdict = res.VerdictString()
	return q.done(outcome{verdict: string(res.Report.Verdict.Code), report: &res.Report}, nil)
}

func (a *Asker) listJobs(q *question, jq explain.JobsQuery) outcome {
	q.rec.Target = "jobs"
	if jq.Cluster != "" {
		q.rec.Target += " " + jq.Cluster
	}
	if jq.Namespace != "" {
		q.rec.Target += " -n " + jq.Namespace
	}
	id, o := q.identity()
	if o != nil {
		return *o
	}
	if a.Jobs == nil {
		return q.done(noticeOutcome("unsupported", blocks.Notice("", q.tr("bot.unsupported.jobs"))), nil)
	}
	q.stage = i18n.M("bot.stage.jobs")
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
		return q.done(noticeOutcome("unsupported", blocks.Notice("", q.tr("bot.unsupported.queues"))), nil)
	}
	q.stage = i18n.M("bot.stage.queues")
	qq := explain.QueuesQuery{Namespace: req.Namespace}
	if req.Name != "" && req.Kind != "ClusterQueue" && isCluster(a.Queues, req.Name) {
		// "queues gpu-west": the configured cluster, every queue there.
		qq.Cluster, req.Name, req.Kind = req.Name, "", ""
	}
	res, err := a.Queues.Queues(q.ctx, id, qq)
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
	q.choose(i18n.English, false)
	q.rec.Target = "check"
	if file != "" {
		q.rec.Target += " " + file
	}
	id, o := q.identity()
	if o != nil {
		return *o
	}
	if a.Check == nil {
		return q.done(noticeOutcome("unsupported", blocks.Notice("", q.tr("bot.unsupported.check"))), nil)
	}
	q.stage = i18n.M("bot.stage.check")
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
func whichCluster(res explain.Result, l i18n.Lang) Message {
	choices := make([]blocks.ClusterChoice, 0, len(res.Choices))
	for _, c := range res.Choices {
		choices = append(choices, blocks.ClusterChoice{
			Ref:     blocks.JobRef{Namespace: c.Target.Namespace, Kind: c.Target.Kind, Name: c.Target.Name, Cluster: c.Cluster},
			Verdict: string(c.Verdict),
		})
	}
	return blocks.WhichClusterIn(l, res.Question.Name, choices, res.Report.Clusters)
}

// failure explains a failed diagnosis without leaking internals.
func (q *question) failure(what string, err error) outcome {
	switch msg := userMessageIn(err, q.lang); {
	case msg != "":
		return noticeOutcome("failed", blocks.Notice("", blocks.Paragraph(msg)))
	case q.ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return q.interrupted()
	default:
		return noticeOutcome("failed", blocks.Notice("", q.tr("bot.failed", i18n.Verbatim(blocks.Code(what)))))
	}
}

// language sets the language user asked for (the App Home menu).
func (a *Asker) language(ctx context.Context, entry event.Entry, user rbac.SlackUser, l i18n.Lang, ok bool) outcome {
	q := a.begin(ctx, entry, user)
	q.choose(l, ok)
	return a.setLang(q, l, ok)
}

// setLang remembers the language the asker asked answers in (ok false:
// forget it) and confirms in that language.
func (a *Asker) setLang(q *question, l i18n.Lang, ok bool) outcome {
	if ok {
		q.rec.Target = "language " + l.String()
	} else {
		q.rec.Target = "language auto"
	}
	if a.Lang == nil || a.Lang.Prefs == nil {
		if ok {
			q.lang = l
		}
		return q.done(noticeOutcome("language", blocks.Notice("", q.tr("bot.lang.off"))), nil)
	}
	if q.rec.Slack.ID == "" {
		return q.done(noticeOutcome("refused", blocks.Notice(q.tr("bot.refused.title"), q.tr("bot.refused.noUser"))), errors.New("no Slack user ID"))
	}
	if err := a.Lang.Prefs.SetLang(q.ctx, q.rec.Slack.ID, l, ok); err != nil {
		id := i18n.ID("bot.lang.failed")
		if errors.Is(err, prefs.ErrFull) {
			id = "bot.lang.full"
		}
		return q.done(noticeOutcome("failed", blocks.Notice("", q.tr(id))), err)
	}
	if !ok {
		q.choose(i18n.English, false)
		return q.done(noticeOutcome("language", blocks.Notice("", q.tr("bot.lang.auto"))), nil)
	}
	q.lang, q.langSource = l, LangFromPreference
	return q.done(noticeOutcome("language", blocks.Notice("", q.tr("bot.lang.set", i18n.Name(l.Name())))), nil)
}
