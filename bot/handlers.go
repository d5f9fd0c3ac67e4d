package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/notify"
	"github.com/kueuebot/kueuebot/bot/triage"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
)

// ReplyMode says who sees an answer to a question asked in a channel.
type ReplyMode string

// Reply modes (config slack.replies).
const (
	// RepliesEphemeral (default): only the asker sees the answer, with a
	// "Share in channel" button to show it to everyone.
	RepliesEphemeral ReplyMode = "ephemeral"
	// RepliesThread: answers are posted in the thread, for everyone in the
	// channel (for teams who chose to share everything).
	RepliesThread ReplyMode = "thread"
)

// Destination is where a reply goes, relative to the event it answers.
type Destination int

// Destinations.
const (
	// ToDefault: where the entry point's answer goes (the thread or an
	// ephemeral message for mentions, the DM, the slash command's or
	// shortcut's response_url, privately to a button's presser, the Home
	// tab).
	ToDefault Destination = iota
	// ToReplace: in place of the message the button was on when the
	// presser is its only reader (an ephemeral answer, the DM with the
	// bot); on a message others read (a public answer in thread mode, a
	// shared answer), privately to the presser: a press never changes a
	// message another person's answer lives in.
	ToReplace
	// ToChannel: for everyone in the conversation (Share in channel); the
	// ephemeral original is removed.
	ToChannel
	// ToPrivate: a new message only the presser sees.
	ToPrivate
	// ToDM: the presser's DM with the bot (picks on the App Home tab).
	ToDM
	// ToNone: nothing to say (an unknown action).
	ToNone
)

// Reply is the answer to one event and where it goes.
type Reply struct {
	// Message is the answer.
	Message Message
	// Home, when set, is the App Home view to publish.
	Home *slack.HomeTabViewRequest
	// To says where the answer goes.
	To Destination
	// Verdict labels metrics: the verdict code or the outcome.
	Verdict string
	// triage holds a triage answer's other parts (triage.go).
	triage *triageReply
}

// Outcome is the reply's Verdict: it labels the metrics
// (dispatch.Reply).
func (r Reply) Outcome() string { return r.Verdict }

// Bot turns Slack events into answers (Answer) and delivers them (Deliver)
// with the privacy rules: answers in channels are private to the asker
// unless ReplyMode is thread or the asker shares them; DMs are normal
// messages; slash commands and shortcuts answer through response_url,
// with a DM as the fallback. It is the dispatch.Handler serve gives the
// Dispatcher.
type Bot struct {
	// Asker answers the questions. Required.
	Asker *Asker
	// Replier writes to Slack. Required.
	Replier delivery.Replier
	// Replies is the privacy default for channels; empty: ephemeral.
	Replies ReplyMode
	// Log receives delivery problems; nil discards.
	Log *slog.Logger
	// Triage answers stuck-job questions in support channels; nil: off.
	Triage *triage.Triage
	// Files downloads a manifest attached to a message ("Will this
	// fit?"); nil: only manifests in code blocks are checked.
	Files FileDownloader
}

func (b *Bot) log() *slog.Logger {
	if b.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return b.Log
}

func (b *Bot) threadMode() bool { return b.Replies == RepliesThread }

// Answer answers ev (dispatch.Handler): the App Home tab, a button, a
// triaged message or a question, read as the user who asked.
func (b *Bot) Answer(ctx context.Context, ev *event.Event) Reply {
	a := b.Asker
	switch ev.Entry {
	case event.EntryHome:
		return b.home(a.jobs(ctx, ev.Entry, ev.User))
	case event.EntryButton:
		return b.button(ctx, ev)
	case event.EntryTriage:
		if b.Triage != nil {
			return b.answerTriage(ctx, ev)
		}
		return Reply{To: ToNone, Verdict: "ignored"}
	case event.EntryFit:
		return b.willItFit(ctx, ev)
	case event.EntryDM:
		if a.Notify != nil && notify.IsStop(ev.Text) {
			o := a.subscription(ctx, ev.Entry, ev.User, "stop notifications", func(ctx context.Context) (Message, error) { return a.Notify.StopAll(ctx, ev.User) })
			return Reply{Message: b.render(o, ev, ToDefault, false), Verdict: o.verdict}
		}
	}
	o := a.ask(ctx, ev.Entry, ev.User, ev.Text)
	if o.notice != nil && ev.Entry == event.EntryShortcut && o.verdict == "unparsable" {
		o.notice = ptr(blocks.Notice("", i18n.Render(o.lang, i18n.M("bot.shortcut.noJob"))))
	}
	return Reply{Message: b.render(o, ev, ToDefault, false), Verdict: o.verdict}
}

func ptr[T any](v T) *T { return &v }

// button answers a button press or a pick as the presser: the value
// carries only the job reference, the presser is resolved and the job is
// read again as them.
func (b *Bot) button(ctx context.Context, ev *event.Event) Reply {
	a := b.Asker
	if ev.ActionID == blocks.ActionRefresh && ev.InHome {
		return b.home(a.jobs(ctx, ev.Entry, ev.User))
	}
	if ev.ActionID == ActionLanguage {
		// The App Home's menu: remember the choice, then show the tab in
		// that language (a notice only if remembering failed).
		l, ok := i18n.Parse(ev.Value)
		if !ok && ev.Value != LangAuto {
			return Reply{To: ToNone, Verdict: "ignored"}
		}
		if o := a.language(ctx, ev.Entry, ev.User, l, ok); o.verdict != "language" || !ev.InHome {
			return Reply{Message: b.render(o, ev, ToPrivate, false), To: ToPrivate, Verdict: o.verdict}
		}
		r := b.home(a.jobs(ctx, ev.Entry, ev.User))
		r.Verdict = "language"
		return r
	}
	var to Destination
	detailed := ev.BlockID == blocks.BlockAnswerDetailed
	switch ev.ActionID {
	case blocks.ActionRefresh:
		to = ToReplace
	case blocks.ActionDetails:
		to, detailed = ToReplace, true
	case blocks.ActionShare:
		to = ToChannel
	case blocks.ActionEscalate:
		return b.escalate(ctx, ev)
	case blocks.ActionNotifyStop:
		o := a.subscription(ctx, ev.Entry, ev.User, "stop notification "+ev.Value, func(ctx context.Context) (Message, error) { return a.Notify.Unsubscribe(ctx, ev.User, ev.Value) })
		return Reply{Message: b.render(o, ev, ToPrivate, false), To: ToPrivate, Verdict: o.verdict}
	case blocks.ActionNotify:
		to = ToPrivate
	case blocks.ActionCluster:
		to = ToReplace
	case blocks.ActionPick:
		to = ToPrivate
		if ev.InHome {
			to = ToDM
		}
	default:
		return Reply{To: ToNone, Verdict: "ignored"}
	}
	ref, err := blocks.ParseJobRef(ev.Value)
	if err != nil {
		b.log().WarnContext(ctx, "bad button value", slog.String("action", ev.ActionID), slog.Any("error", err))
		l, _ := a.Lang.Choose(ctx, ev.User.ID, i18n.English, false)
		return Reply{To: ToPrivate, Verdict: "unparsable", Message: blocks.Notice("", i18n.Render(l, i18n.M("bot.button.outdated")))}
	}
	if ev.ActionID == blocks.ActionNotify {
		o := a.subscription(ctx, ev.Entry, ev.User, "notify "+ref.String(), func(ctx context.Context) (Message, error) { return a.Notify.Subscribe(ctx, ev.User, ref) })
		return Reply{Message: b.render(o, ev, ToPrivate, false), To: ToPrivate, Verdict: o.verdict}
	}
	o := a.job(ctx, ev.Entry, ev.User, explain.Question{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, Cluster: ref.Cluster})
	if o.notice != nil && to == ToChannel {
		// A refusal or a failure is for the presser only.
		to = ToPrivate
	}
	return Reply{Message: b.render(o, ev, to, detailed), To: to, Verdict: o.verdict}
}

func (b *Bot) home(o outcome) Reply {
	v := homeView(o.jobs, o.notice, o.lang, o.langSource == LangFromPreference, b.Asker.Lang.remembers())
	return Reply{Home: &v, Verdict: o.verdict}
}

// private reports whether an answer delivered to `to` for ev is seen only
// by the asker in a conversation others read, so it can be shared.
func (b *Bot) ephemeralIn(ev *event.Event, to Destination) bool {
	switch to {
	case ToChannel, ToDM, ToNone:
		return false
	case ToPrivate:
		return true
	case ToReplace:
		return ev.Ephemeral || !ev.InDM()
	}
	switch ev.Entry {
	case event.EntryMention:
		return !ev.InDM() && !b.threadMode()
	case event.EntrySlash, event.EntryShortcut, event.EntryFit, event.EntryButton:
		return true
	}
	return false
}

// render renders an outcome for its destination.
func (b *Bot) render(o outcome, ev *event.Event, to Destination, detailed bool) Message {
	switch {
	case o.notice != nil:
		return *o.notice
	case o.jobs != nil:
		return jobListMessage(*o.jobs, o.lang)
	case o.queues != nil:
		return queueListMessage(*o.queues, o.lang)
	case o.fit != nil:
		return blocks.WillItFitIn(o.fit, o.lang)
	}
	opts := answerOptions{Detailed: detailed, Shareable: b.ephemeralIn(ev, to), Render: b.Asker.Render, Notify: b.Asker.Notify != nil}
	opts.Render.Lang = o.lang
	if to == ToChannel {
		opts.SharedBy = ev.User.ID
	}
	return renderAnswer(*o.report, opts)
}

// Notice is the reply that says m instead of an answer, where ev's answer
// goes by default (dispatch.Handler: busy, timeout, restarting, ...).
func (b *Bot) Notice(verdict string, m Message) Reply {
	return Reply{Verdict: verdict, Message: m}
}

// Deliver delivers r (dispatch.Handler): it writes r where it belongs,
// falling back to the asker's DM when the first way fails (a response_url that expired,
// a conversation the bot is not in).
func (b *Bot) Deliver(ctx context.Context, ev *event.Event, r Reply) error {
	rp := b.Replier
	m := r.Message
	if ev.Entry == event.EntryHome || r.Home != nil {
		v := r.Home
		if v == nil {
			v = &slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: m.Blocks}}
		}
		return rp.PublishHome(ctx, ev.User.ID, *v)
	}
	if (ev.Entry == event.EntryTriage && r.To != ToNone) || r.triage != nil {
		return b.deliverTriage(ctx, ev, r)
	}
	switch r.To {
	case ToNone:
		return nil
	case ToDM:
		return b.dm(ctx, ev, m, nil)
	case ToPrivate:
		return b.private(ctx, ev, m)
	case ToChannel:
		return b.share(ctx, ev, m)
	case ToReplace:
		switch {
		case ev.Ephemeral:
			err := rp.Respond(ctx, ev.ResponseURL, m, delivery.RespondOptions{ReplaceOriginal: true})
			if err == nil {
				return nil
			}
			return b.dm(ctx, ev, m, err)
		case ev.InDM():
			err := rp.Update(ctx, ev.Channel, ev.MessageTS, m)
			if err == nil {
				return nil
			}
			b.log().WarnContext(ctx, "updating the message failed; answering privately", slog.Any("error", err))
		}
		// A message others read (thread mode, a shared answer): the
		// presser may not be who asked, so the answer (read as the
		// presser) is theirs only and the message stays as it is.
		return b.private(ctx, ev, m)
	}
	switch ev.Entry {
	case event.EntryMention:
		switch {
		case ev.InDM():
			_, err := rp.Post(ctx, ev.Channel, ev.ThreadTS, m)
			return err
		case b.threadMode():
			thread := ev.ThreadTS
			if thread == "" {
				thread = ev.MessageTS
			}
			_, err := rp.Post(ctx, ev.Channel, thread, m)
			return err
		}
		err := rp.PostEphemeral(ctx, ev.Channel, ev.User.ID, ev.ThreadTS, m)
		if err == nil {
			return nil
		}
		return b.dm(ctx, ev, m, err)
	case event.EntryDM:
		_, err := rp.Post(ctx, ev.Channel, ev.ThreadTS, m)
		return err
	default: // slash commands, shortcuts, buttons: privately
		return b.private(ctx, ev, m)
	}
}

// private shows m to the presser only: through response_url, else in
// their DM with the bot.
func (b *Bot) private(ctx context.Context, ev *event.Event, m Message) error {
	if ev.ResponseURL == "" {
		return b.dm(ctx, ev, m, nil)
	}
	err := b.Replier.Respond(ctx, ev.ResponseURL, m, delivery.RespondOptions{})
	if err == nil {
		return nil
	}
	return b.dm(ctx, ev, m, err)
}

// dm posts m in the user's DM with the bot (chat.postMessage to the user
// ID), the fallback of every private answer. cause is why the first way
// failed, for the log.
func (b *Bot) dm(ctx context.Context, ev *event.Event, m Message, cause error) error {
	if cause != nil {
		b.log().InfoContext(ctx, "answering in a DM instead", slog.String("entry", string(ev.Entry)), slog.String("slack_user", ev.User.ID), slog.Any("cause", cause))
	}
	if ctx.Err() != nil {
		return errors.Join(cause, ctx.Err())
	}
	if _, err := b.Replier.Post(ctx, ev.User.ID, "", m); err != nil {
		return errors.Join(cause, fmt.Errorf("DM fallback: %w", err))
	}
	return nil
}

// share posts the answer for everyone in the conversation (in its thread),
// then removes the ephemeral original. Where the bot is not a member (a DM
// between two people), the response_url posts it instead.
func (b *Bot) share(ctx context.Context, ev *event.Event, m Message) error {
	rp := b.Replier
	_, err := rp.Post(ctx, ev.Channel, ev.ThreadTS, m)
	if err != nil {
		if ev.ResponseURL == "" {
			return err
		}
		if err2 := rp.Respond(ctx, ev.ResponseURL, m, delivery.RespondOptions{InChannel: true}); err2 != nil {
			return errors.Join(err, err2)
		}
	}
	if ev.Ephemeral && ev.ResponseURL != "" {
		if err := rp.Respond(ctx, ev.ResponseURL, Message{}, delivery.RespondOptions{DeleteOriginal: true}); err != nil {
			b.log().InfoContext(ctx, "could not remove the shared ephemeral answer", slog.Any("error", err))
		}
	}
	return nil
}
