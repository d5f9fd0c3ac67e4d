package bot

import (
	"context"
	"errors"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// Subscriber is "Tell me when it starts" (*notify.Notifier): it resolves
// the user again itself and reads the job as them. Each returns the reply
// to show the user, or a failure for the usual failure notice.
type Subscriber interface {
	Subscribe(ctx context.Context, u rbac.SlackUser, r blocks.JobRef) (blocks.Message, error)
	Unsubscribe(ctx context.Context, u rbac.SlackUser, id string) (blocks.Message, error)
	StopAll(ctx context.Context, u rbac.SlackUser) (blocks.Message, error)
}

// notifyDisabled is the answer when notifications are off, in l.
// unreadCluster is the Subscriber's error for a job in a cluster it does
// not watch (*notify.NoClusterError).
type unreadCluster interface {
	error
	UnreadCluster() string
}

func notifyDisabled(l i18n.Lang) Message {
	return blocks.Notice("", i18n.Render(l, i18n.M("bot.notify.disabled")))
}

// notify answers `/kueue notify JOB`: the job is found as in a question
// (the asker's namespaces, the same candidates), then the asker is
// subscribed to it. A job the asker may not read, or that is not found,
// gets that answer instead.
func (a *Asker) notify(q *question, eq explain.Question) outcome {
	q.rec.Target = "notify " + eq.String()
	id, o := q.identity()
	if o != nil {
		return *o
	}
	if a.Notify == nil {
		return q.done(noticeOutcome("unsupported", notifyDisabled(q.lang)), nil)
	}
	q.stage = i18n.M("bot.stage.job", i18n.Verbatim(blocks.Code(eq.String())))
	res, err := a.Explain.Explain(q.ctx, id, eq)
	q.rec.Namespaces, q.rec.NamespaceSource = res.Namespaces.Names, res.Namespaces.Source
	if err != nil {
		return q.done(q.failure(eq.String(), err), err)
	}
	if len(res.Choices) > 0 {
		// In several clusters: which one to watch (each button answers
		// there, and its answer has the notify button).
		q.rec.Verdict = "which-cluster"
		return q.done(noticeOutcome("which-cluster", whichCluster(res, q.lang)), nil)
	}
	ref, ok := blocks.ReportRef(res.Report)
	if !ok {
		// Not found, or not one job: the diagnosis says so.
		q.rec.Verdict = res.VerdictString()
		return q.done(outcome{verdict: string(res.Report.Verdict.Code), report: &res.Report}, nil)
	}
	return a.subscribed(q, func(ctx context.Context) (Message, error) { return a.Notify.Subscribe(ctx, q.rec.Slack, ref) }, ref.String())
}

// subscription runs one call of the Subscriber for user (a button, "stop"
// in the DM) with the question's audit line.
func (a *Asker) subscription(ctx context.Context, entry event.Entry, user rbac.SlackUser, target string, call func(context.Context) (Message, error)) outcome {
	q := a.begin(ctx, entry, user)
	q.choose(i18n.English, false)
	q.rec.Target = target
	if a.Notify == nil {
		return q.done(noticeOutcome("unsupported", notifyDisabled(q.lang)), nil)
	}
	return a.subscribed(q, call, target)
}

func (a *Asker) subscribed(q *question, call func(context.Context) (Message, error), what string) outcome {
	q.stage = i18n.M("bot.stage.notify")
	m, err := call(q.ctx)
	var nc unreadCluster
	if errors.As(err, &nc) {
		return q.done(noticeOutcome("unsupported", blocks.Notice("", q.tr("bot.notify.noCluster", i18n.Verbatim(blocks.Code(nc.UnreadCluster()))))), err)
	}
	if err != nil {
		return q.done(q.failure(what, err), err)
	}
	return q.done(noticeOutcome("notify", m), nil)
}
