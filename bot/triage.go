package bot

import (
	"context"
	"errors"
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/bot/triage"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// Reactions of a triaged message.
const (
	reactionSeen     = "eyes"
	reactionAnswered = "white_check_mark"
)

// key is the memory key of a job in a channel.
func triageKey(channel string, ref blocks.JobRef) string { return channel + "|" + ref.String() }

// verdictKey is what "the verdict did not change" compares.
func verdictKey(v diagnose.Verdict) string { return string(v.Code) + "/" + string(v.Cause) }

// triage answers a triage question as its poster: the job it names, or
// the poster's jobs that are not running (with the picker) when it names
// none.
func (a *Asker) triage(ctx context.Context, user rbac.SlackUser, text string) outcome {
	q := a.begin(ctx, event.EntryTriage, user)
	req, err := parse.Triage(text)
	q.choose(req.Lang, req.LangKnown)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			return q.done(noticeOutcome("unparsable", blocks.Notice("", pe.UserMessageIn(q.lang))), nil)
		}
		return q.done(noticeOutcome("unparsable", blocks.Notice("", q.tr("bot.triage.unparsable", i18n.Verbatim(parse.ExampleIn(q.lang))))), nil)
	}
	if req.Intent == parse.IntentDiagnose {
		return a.explain(q, questionOf(req))
	}
	return a.listJobs(q, explain.JobsQuery{Namespace: req.Namespace})
}

// triageReply is what a triage answer or an escalation delivers, besides
// Reply.Message (the thread message).
type triageReply struct {
	// private is the full answer for the poster only (summary mode).
	private *Message
	// answered: a diagnosis or a job list was given (the check mark).
	answered bool
	// key and verdict are remembered with the posted answer's ts.
	key, verdict string
	// repeat is the earlier answer to link to instead of a new one.
	repeat *triage.Memo
	// report is the diagnosis, for the repeat message.
	report *diagnose.Report
	// escalation: the message is an escalation summary, to be completed
	// with the thread's link.
	escalation *diagnose.Report
	// lang is the language of the thread answer (the poster's).
	lang i18n.Lang
}

// triageActions are the buttons of a triage answer: in summary mode,
// "Explain it to me" (the job read privately as the presser); then
// Escalate when an on-call group is configured.
func (b *Bot) triageActions(l i18n.Lang, ref blocks.JobRef, summary bool) *slack.ActionBlock {
	var els []slack.BlockElement
	if summary {
		els = append(els, blocks.ExplainButton(l, ref))
	}
	if b.Triage.UserGroup != "" {
		els = append(els, blocks.EscalateButton(l, ref))
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewActionBlock(blocks.BlockTriage, els...)
}

// withEscalate adds the Escalate button to a full answer's actions.
func (b *Bot) withEscalate(l i18n.Lang, m Message, ref blocks.JobRef) Message {
	if b.Triage.UserGroup == "" {
		return m
	}
	bl := append([]slack.Block(nil), m.Blocks...)
	if n := len(bl); n > 0 {
		if ab, ok := bl[n-1].(*slack.ActionBlock); ok {
			els := append(append([]slack.BlockElement(nil), ab.Elements.ElementSet...), blocks.EscalateButton(l, ref))
			bl[n-1] = slack.NewActionBlock(ab.BlockID, els...)
			m.Blocks = bl
			return m
		}
	}
	if len(bl) < blocks.MaxBlocks {
		bl = append(bl, slack.NewActionBlock(blocks.BlockTriage, blocks.EscalateButton(l, ref)))
		m.Blocks = bl
	}
	return m
}

// answerTriage marks the message as seen at once, answers it as the
// poster, and prepares the thread answer (a link when the same job had
// the same verdict a moment ago).
func (b *Bot) answerTriage(ctx context.Context, ev *event.Event) Reply {
	if err := b.Replier.AddReaction(ctx, ev.Channel, ev.MessageTS, reactionSeen); err != nil {
		b.log().WarnContext(ctx, "could not react to a triage question", slog.Any("error", err))
	}
	t := b.Triage
	o := b.Asker.triage(ctx, ev.User, ev.Text)
	tr := &triageReply{lang: o.lang}
	r := Reply{Verdict: o.verdict, triage: tr}
	switch {
	case o.notice != nil:
		r.Message = *o.notice
		return r
	case o.jobs != nil:
		tr.answered = true
		m := jobListMessage(*o.jobs, o.lang)
		if t.Detail == triage.Full {
			r.Message = m
		} else {
			r.Message = blocks.Notice("", i18n.Render(o.lang, i18n.M("bot.triage.listSent", i18n.Verbatim("<@"+ev.User.ID+">"))))
			tr.private = &m
		}
		return r
	}
	rep := *o.report
	tr.answered, tr.report = true, &rep
	ref, hasRef := blocks.ReportRef(rep)
	opts := b.Asker.Render
	opts.Lang = o.lang
	full := renderAnswer(rep, answerOptions{Render: opts})
	if hasRef {
		full = b.withEscalate(o.lang, full, ref)
		tr.key, tr.verdict = triageKey(ev.Channel, ref), verdictKey(rep.Verdict)
		if m, ok := t.Recall(tr.key); ok && m.Verdict == tr.verdict {
			tr.repeat = &m
			r.Message = blocks.TriageRepeat(o.lang, rep, "", b.triageActions(o.lang, ref, t.Detail != triage.Full))
			return r
		}
	}
	if t.Detail == triage.Full {
		r.Message = full
		return r
	}
	var actions *slack.ActionBlock
	if hasRef {
		actions = b.triageActions(o.lang, ref, true)
	}
	r.Message = blocks.TriageSummary(o.lang, rep, ev.User.ID, actions)
	tr.private = &full
	return r
}

// permalinker gets a message's permalink (chat.getPermalink).
type permalinker interface {
	Permalink(ctx context.Context, channel, ts string) (string, error)
}

func (b *Bot) permalink(ctx context.Context, channel, ts string) string {
	pl, ok := b.Replier.(permalinker)
	if !ok {
		return ""
	}
	link, err := pl.Permalink(ctx, channel, ts)
	if err != nil {
		b.log().InfoContext(ctx, "no permalink", slog.String("channel", channel), slog.Any("error", err))
		return ""
	}
	return link
}

// deliverTriage posts a triage answer in the question's thread (and the
// full answer privately to the poster in summary mode), remembers it,
// and swaps the :eyes: for a :white_check_mark: once answered. Notices
// without a triage part (busy, refused by the dispatcher) go to the
// thread too.
func (b *Bot) deliverTriage(ctx context.Context, ev *event.Event, r Reply) error {
	rp := b.Replier
	tr := r.triage
	thread := ev.ThreadTS
	if thread == "" {
		thread = ev.MessageTS
	}
	m := r.Message
	switch {
	case tr != nil && tr.escalation != nil:
		m = blocks.Escalation(*tr.escalation, blocks.EscalationOptions{UserGroup: b.Triage.UserGroup, By: ev.User.ID, ThreadLink: b.permalink(ctx, ev.Channel, thread), Lang: b.Triage.Lang})
	case tr != nil && tr.repeat != nil:
		ref, _ := blocks.ReportRef(*tr.report)
		m = blocks.TriageRepeat(tr.lang, *tr.report, b.permalink(ctx, ev.Channel, tr.repeat.TS), b.triageActions(tr.lang, ref, b.Triage.Detail != triage.Full))
	}
	ts, err := rp.Post(ctx, ev.Channel, thread, m)
	if err != nil {
		return err
	}
	if tr == nil || tr.escalation != nil {
		return nil
	}
	if tr.private != nil {
		if err := rp.PostEphemeral(ctx, ev.Channel, ev.User.ID, thread, *tr.private); err != nil {
			if err := b.dm(ctx, ev, *tr.private, err); err != nil {
				b.log().WarnContext(ctx, "could not send the full triage answer to the poster", slog.Any("error", err))
			}
		}
	}
	if tr.key != "" && tr.repeat == nil {
		b.Triage.Remember(tr.key, triage.Memo{TS: ts, Verdict: tr.verdict})
	}
	if err := rp.RemoveReaction(ctx, ev.Channel, ev.MessageTS, reactionSeen); err != nil {
		b.log().InfoContext(ctx, "could not remove the eyes reaction", slog.Any("error", err))
	}
	if tr.answered {
		if err := rp.AddReaction(ctx, ev.Channel, ev.MessageTS, reactionAnswered); err != nil {
			b.log().InfoContext(ctx, "could not mark the triage question answered", slog.Any("error", err))
		}
	}
	return nil
}

// escalate answers the Escalate button. Only the poster (who started the
// triage thread) or someone who can read the job themselves may escalate;
// everyone else is told privately why not. The public summary for the
// on-call group is read as the poster: it shows what the thread already
// shows, never a presser's wider view. Refusals and failures are the
// presser's only.
func (b *Bot) escalate(ctx context.Context, ev *event.Event) Reply {
	// Refusals are the presser's: in their language.
	l, _ := b.Asker.Lang.Choose(ctx, ev.User.ID, i18n.English, false)
	notice := func(id i18n.ID, args ...i18n.Arg) Message {
		return blocks.Notice("", i18n.Render(l, i18n.M(id, args...)))
	}
	if b.Triage == nil || b.Triage.UserGroup == "" || !b.Triage.Watches(ev.Channel) {
		return Reply{To: ToPrivate, Verdict: "ignored", Message: notice("bot.escalate.off")}
	}
	ref, err := blocks.ParseJobRef(ev.Value)
	if err != nil {
		return Reply{To: ToPrivate, Verdict: "unparsable", Message: notice("bot.escalate.outdated")}
	}
	if ev.ThreadAuthor == "" {
		return Reply{To: ToPrivate, Verdict: "ignored", Message: notice("bot.escalate.noAuthor")}
	}
	q := explain.Question{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	job := blocks.Code(ref.String())
	if ev.ThreadAuthor != ev.User.ID {
		o := b.Asker.job(ctx, ev.Entry, ev.User, q)
		if o.report == nil {
			return Reply{To: ToPrivate, Verdict: o.verdict, Message: b.render(o, ev, ToPrivate, false)}
		}
		if !jobSeen(*o.report) {
			return Reply{To: ToPrivate, Verdict: "refused", Message: notice("bot.escalate.cannotSee", i18n.Verbatim(job), i18n.Verbatim("<@"+ev.ThreadAuthor+">"))}
		}
	}
	poster := rbac.SlackUser{ID: ev.ThreadAuthor, TeamID: ev.User.TeamID, EnterpriseID: ev.User.EnterpriseID}
	o := b.Asker.job(ctx, ev.Entry, poster, q)
	if o.report == nil || !jobSeen(*o.report) {
		return Reply{To: ToPrivate, Verdict: "refused", Message: notice("bot.escalate.unreadable", i18n.Verbatim(job), i18n.Verbatim("<@"+ev.ThreadAuthor+">"))}
	}
	return Reply{Verdict: "escalated", triage: &triageReply{escalation: o.report}}
}

// jobSeen reports whether a report found the job (the reader may see it).
func jobSeen(r diagnose.Report) bool { return r.Verdict.Code != diagnose.CodeNotFound }
