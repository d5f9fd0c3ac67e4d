package bot

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"k8s.io/apimachinery/pkg/util/cache"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// Triage detail modes (config triage.detail).
const (
	// TriageSummary: the verdict code and headline in the thread, the full
	// answer ephemerally to the poster.
	TriageSummary = "summary"
	// TriageFull: the full answer in the thread.
	TriageFull = "full"
)

// Reactions of a triaged message.
const (
	reactionSeen     = "eyes"
	reactionAnswered = "white_check_mark"
)

// maxTriageMemory bounds the answers Triage remembers for linking.
const maxTriageMemory = 10000

// Triage answers stuck-job questions posted in support channels: it
// decides which channel messages are such questions (Detect), and
// remembers recent answers so that the same job asked about again in the
// same channel within Window, with the same verdict, gets a link to the
// earlier answer instead of a new one.
//
// The memory is the process's (an LRU cache of at most maxTriageMemory
// answers, each expiring after Window), keyed by channel and job with the
// earlier answer's ts. One replica answers at a time (the Lease holder), so
// it is exact while that replica leads; a restart or a failover forgets
// it, which only costs a fresh full answer.
type Triage struct {
	// Channels are the channel IDs triaged.
	Channels map[string]bool
	// Patterns are the lower-case, normalized intent phrases.
	Patterns []string
	// Detail is TriageSummary (default) or TriageFull.
	Detail string
	// Window is how long answers are linked to; 0: never.
	Window time.Duration
	// UserGroup is the on-call Slack user group ID mentioned by the
	// escalation summary; empty: no escalation button.
	UserGroup string

	// now is the clock (tests).
	now func() time.Time

	memory *cache.LRUExpireCache
}

// triageMemo is one remembered answer.
type triageMemo struct {
	ts      string
	verdict string
}

// clockFunc is a cache.Clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

// NewTriage builds a Triage from the configuration values.
func NewTriage(channels, patterns []string, detail string, window time.Duration, userGroup string) *Triage {
	t := &Triage{Channels: map[string]bool{}, Detail: detail, Window: window, UserGroup: userGroup, now: time.Now}
	t.memory = cache.NewLRUExpireCacheWithClock(maxTriageMemory, clockFunc(func() time.Time { return t.now() }))
	for _, c := range channels {
		t.Channels[c] = true
	}
	for _, p := range patterns {
		if p = parse.NormalizePhrase(p); p != "" {
			t.Patterns = append(t.Patterns, p)
		}
	}
	return t
}

// Watches reports whether channel is triaged.
func (t *Triage) Watches(channel string) bool { return t != nil && t.Channels[channel] }

// Detect reports whether text signals a stuck job
// (parse.SignalsStuckJob with the configured patterns).
func (t *Triage) Detect(text string) bool {
	return parse.SignalsStuckJob(text, t.Patterns)
}

// key is the memory key of a job in a channel.
func triageKey(channel string, ref blocks.JobRef) string { return channel + "|" + ref.String() }

// recall returns the answer remembered for key within the window.
func (t *Triage) recall(key string) (triageMemo, bool) {
	if t.Window <= 0 {
		return triageMemo{}, false
	}
	v, ok := t.memory.Get(key)
	if !ok {
		return triageMemo{}, false
	}
	m, ok := v.(triageMemo)
	return m, ok
}

// remember records an answer for Window; when the memory is full the
// least recently used answer is forgotten.
func (t *Triage) remember(key string, m triageMemo) {
	if t.Window <= 0 {
		return
	}
	t.memory.Add(key, m, t.Window)
}

// verdictKey is what "the verdict did not change" compares.
func verdictKey(v diagnose.Verdict) string { return string(v.Code) + "/" + string(v.Cause) }

// triageMessage decodes a channel message: a triage question when the
// channel is triaged and a human wrote it at the top level, new (not an
// edit or another subtype), without mentioning the bot (app_mention
// answers those), and it signals a stuck job.
func (d *Decoder) triageMessage(e *slackevents.MessageEvent, key string, user rbac.SlackUser, received time.Time) (event.Event, bool) {
	t := d.Triage
	if !t.Watches(e.Channel) || e.SubType != "" || e.BotID != "" || e.User == "" || e.User == d.BotUserID ||
		e.ThreadTimeStamp != "" || e.TimeStamp == "" {
		return event.Event{}, false
	}
	if d.BotUserID != "" && strings.Contains(e.Text, "<@"+d.BotUserID) {
		return event.Event{}, false
	}
	if !t.Detect(e.Text) {
		return event.Event{}, false
	}
	return event.Event{Entry: event.EntryTriage, Key: key, User: user, Channel: e.Channel, MessageTS: e.TimeStamp, Text: e.Text, Received: received}, true
}

// triage answers a triage question as its poster: the job it names, or
// the poster's jobs that are not running (with the picker) when it names
// none.
func (a *Asker) triage(ctx context.Context, user rbac.SlackUser, text string) outcome {
	q := a.begin(ctx, event.EntryTriage, user)
	req, err := parse.ParseTriage(text)
	if err != nil {
		var pe *parse.ParseError
		if errors.As(err, &pe) {
			return q.done(noticeOutcome("unparsable", blocks.Notice("", pe.UserMessage())), nil)
		}
		return q.done(noticeOutcome("unparsable", blocks.Notice("", "I could not understand that. Name the job, e.g. "+parse.Example+".")), nil)
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
	repeat *triageMemo
	// report is the diagnosis, for the repeat message.
	report *diagnose.Report
	// escalation: the message is an escalation summary, to be completed
	// with the thread's link.
	escalation *diagnose.Report
}

// triageActions are the buttons of a triage answer: in summary mode,
// "Explain it to me" (the job read privately as the presser); then
// Escalate when an on-call group is configured.
func (b *Bot) triageActions(ref blocks.JobRef, summary bool) *slack.ActionBlock {
	var els []slack.BlockElement
	if summary {
		els = append(els, slack.NewButtonBlockElement(blocks.ActionPick, ref.String(), slack.NewTextBlockObject(slack.PlainTextType, "Explain it to me", false, false)))
	}
	if b.Triage.UserGroup != "" {
		els = append(els, blocks.EscalateButton(ref))
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewActionBlock(blocks.BlockTriage, els...)
}

// withEscalate adds the Escalate button to a full answer's actions.
func (b *Bot) withEscalate(m Message, ref blocks.JobRef) Message {
	if b.Triage.UserGroup == "" {
		return m
	}
	bl := append([]slack.Block(nil), m.Blocks...)
	if n := len(bl); n > 0 {
		if ab, ok := bl[n-1].(*slack.ActionBlock); ok {
			els := append(append([]slack.BlockElement(nil), ab.Elements.ElementSet...), blocks.EscalateButton(ref))
			bl[n-1] = slack.NewActionBlock(ab.BlockID, els...)
			m.Blocks = bl
			return m
		}
	}
	if len(bl) < blocks.MaxBlocks {
		bl = append(bl, slack.NewActionBlock(blocks.BlockTriage, blocks.EscalateButton(ref)))
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
	tr := &triageReply{}
	r := Reply{Verdict: o.verdict, triage: tr}
	switch {
	case o.notice != nil:
		r.Message = *o.notice
		return r
	case o.jobs != nil:
		tr.answered = true
		m := jobListMessage(*o.jobs)
		if t.Detail == TriageFull {
			r.Message = m
		} else {
			r.Message = blocks.Notice("", "I sent <@"+ev.User.ID+"> the list of their jobs that are not running, privately: pick one to see why it waits.")
			tr.private = &m
		}
		return r
	}
	rep := *o.report
	tr.answered, tr.report = true, &rep
	ref, hasRef := blocks.ReportRef(rep)
	full := renderAnswer(rep, answerOptions{Render: b.Asker.Render})
	if hasRef {
		full = b.withEscalate(full, ref)
		tr.key, tr.verdict = triageKey(ev.Channel, ref), verdictKey(rep.Verdict)
		if m, ok := t.recall(tr.key); ok && m.verdict == tr.verdict {
			tr.repeat = &m
			r.Message = blocks.TriageRepeat(rep, "", b.triageActions(ref, t.Detail != TriageFull))
			return r
		}
	}
	if t.Detail == TriageFull {
		r.Message = full
		return r
	}
	var actions *slack.ActionBlock
	if hasRef {
		actions = b.triageActions(ref, true)
	}
	r.Message = blocks.TriageSummary(rep, ev.User.ID, actions)
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
		m = blocks.Escalation(*tr.escalation, blocks.EscalationOptions{UserGroup: b.Triage.UserGroup, By: ev.User.ID, ThreadLink: b.permalink(ctx, ev.Channel, thread)})
	case tr != nil && tr.repeat != nil:
		ref, _ := blocks.ReportRef(*tr.report)
		m = blocks.TriageRepeat(*tr.report, b.permalink(ctx, ev.Channel, tr.repeat.ts), b.triageActions(ref, b.Triage.Detail != TriageFull))
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
		b.Triage.remember(tr.key, triageMemo{ts: ts, verdict: tr.verdict})
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
	if b.Triage == nil || b.Triage.UserGroup == "" || !b.Triage.Watches(ev.Channel) {
		return Reply{To: ToPrivate, Verdict: "ignored", Message: blocks.Notice("", "Escalation is not set up in this channel. Ask your platform team directly.")}
	}
	ref, err := blocks.ParseJobRef(ev.Value)
	if err != nil {
		return Reply{To: ToPrivate, Verdict: "unparsable", Message: blocks.Notice("", "That button is out of date. Ask me again, e.g. `why is train-7 waiting?`")}
	}
	if ev.ThreadAuthor == "" {
		return Reply{To: ToPrivate, Verdict: "ignored", Message: blocks.Notice("", "I cannot tell who asked in this thread, so I cannot escalate it. Ask your platform team directly.")}
	}
	q := explain.Question{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	job := blocks.Code(ref.String())
	if ev.ThreadAuthor != ev.User.ID {
		o := b.Asker.job(ctx, ev.Entry, ev.User, q)
		if o.report == nil {
			return Reply{To: ToPrivate, Verdict: o.verdict, Message: b.render(o, ev, ToPrivate, false)}
		}
		if !jobSeen(*o.report) {
			return Reply{To: ToPrivate, Verdict: "refused", Message: blocks.Notice("", "You cannot see "+job+", so you cannot escalate it. <@"+ev.ThreadAuthor+">, who asked, can escalate it, or ask your platform team directly.")}
		}
	}
	poster := rbac.SlackUser{ID: ev.ThreadAuthor, TeamID: ev.User.TeamID, EnterpriseID: ev.User.EnterpriseID}
	o := b.Asker.job(ctx, ev.Entry, poster, q)
	if o.report == nil || !jobSeen(*o.report) {
		return Reply{To: ToPrivate, Verdict: "refused", Message: blocks.Notice("", "I could not read "+job+" as <@"+ev.ThreadAuthor+"> sees it, so I cannot escalate it. Ask your platform team directly.")}
	}
	return Reply{Verdict: "escalated", triage: &triageReply{escalation: o.report}}
}

// jobSeen reports whether a report found the job (the reader may see it).
func jobSeen(r diagnose.Report) bool { return r.Verdict.Code != diagnose.CodeNotFound }
