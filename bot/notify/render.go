package notify

import (
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/i18n"
)

// Action IDs of the buttons of notifications (defined in bot/blocks, where
// the bot's answers and dispatch read them).
const (
	// ActionNotify is blocks.ActionNotify: "Tell me when it starts".
	ActionNotify = blocks.ActionNotify
	// ActionStop is blocks.ActionNotifyStop: "Stop these messages".
	ActionStop = blocks.ActionNotifyStop
	// BlockNotification is the actions block of a notification DM.
	BlockNotification = "kueuebot_notification"
)

// MetadataEventType is the Slack message metadata event_type of every
// notification DM; its event_payload names the subscription
// ("subscription") and the event ("event", the Event.Key). A replica that
// finds a pending event looks for exactly that in the DM's history.
const MetadataEventType = "kueuebot_notification"

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

func mrkdwn(s string) *slack.TextBlockObject {
	t := slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
	t.Verbatim = true
	return t
}

// job renders the subscription's job as inline code, its cluster first
// when it is not the home one ("gpu-west: Job team-a/train-7").
func job(s *Subscription) string {
	j := s.Kind + " " + s.Namespace + "/" + s.Name
	if s.Cluster != "" {
		j = s.Cluster + ": " + j
	}
	return blocks.Code(j)
}

func quoted(l i18n.Lang, reason, message string) string {
	var parts []string
	if reason != "" {
		parts = append(parts, tr(l, "notify.reason", i18n.Verbatim(blocks.Code(reason))))
	}
	if message != "" {
		parts = append(parts, tr(l, "notify.kueueSays", i18n.Verbatim(blocks.Line(message))))
	}
	sep := "; "
	if l == i18n.Japanese || l == i18n.Chinese {
		sep = "；"
	}
	return strings.Join(parts, sep)
}

func tr(l i18n.Lang, id i18n.ID, args ...i18n.Arg) string { return i18n.Render(l, i18n.M(id, args...)) }

// stamp is a time in a DM: "Jan 2 15:04 MST" in English, an ISO date in
// the other languages; layout "15:04 MST" prints the time only.
func stamp(l i18n.Lang, t time.Time, layout string) string {
	if l != i18n.English && layout != "15:04 MST" {
		layout = "2006-01-02 15:04 MST"
	}
	return t.UTC().Format(layout)
}

// ago is how long ago, in English as time.Duration prints it ("5m0s"),
// in the other languages in their units.
func ago(l i18n.Lang, d time.Duration) string {
	if l == i18n.English {
		return d.String()
	}
	return i18n.FormatDuration(l, i18n.Dur(d))
}

// EventMessage is the DM that tells s's subscriber about e, in English.
// now is when it is sent, for "5m ago" when it is late.
func EventMessage(s *Subscription, e Event, now time.Time) blocks.Message {
	return EventMessageIn(i18n.English, s, e, now)
}

// EventMessageIn is EventMessage in language l (the subscriber's).
func EventMessageIn(l i18n.Lang, s *Subscription, e Event, now time.Time) blocks.Message {
	var head, body string
	j := i18n.Verbatim(job(s))
	name := i18n.Verbatim(s.Name)
	cq := i18n.Verbatim(blocks.Code(e.ClusterQueue))
	q := i18n.Verbatim(quoted(l, e.Reason, e.Message))
	switch e.Type {
	case Reserved:
		head, body = tr(l, "notify.head.reserved", name), tr(l, "notify.body.reserved", j, cq)
	case Admitted:
		head, body = tr(l, "notify.head.admitted", name), tr(l, "notify.body.admitted", j, cq)
	case Running:
		head, body = tr(l, "notify.head.running", name), tr(l, "notify.body.running", j, i18n.Num(e.PodsRunning), i18n.Num(e.PodsTotal))
	case Preempted:
		head, body = tr(l, "notify.head.preempted", name), tr(l, "notify.body.preempted", j, q)
	case Evicted:
		head, body = tr(l, "notify.head.evicted", name), tr(l, "notify.body.evicted", j, q)
	case Succeeded:
		head, body = tr(l, "notify.head.succeeded", name), tr(l, "notify.body.succeeded", j)
	case Failed:
		head, body = tr(l, "notify.head.failed", name), tr(l, "notify.body.failed", j, q)
	case Expired:
		age := s.Expires.Sub(s.Created).Round(time.Minute)
		head = tr(l, "notify.head.over", name)
		body = tr(l, "notify.body.expired", j, i18n.Verbatim(ago(l, age)), i18n.Verbatim(blocks.Line(s.Ref())))
	case LostAccess:
		head, body = tr(l, "notify.head.over", name), tr(l, "notify.body.lostAccess", j)
	case Gone:
		head, body = tr(l, "notify.head.over", name), tr(l, "notify.body.gone", j)
	default:
		head, body = string(e.Type)+": "+s.Name, job(s)
	}
	if !e.At.IsZero() && now.Sub(e.At) > time.Minute {
		body += "\n" + tr(l, "notify.late", i18n.Verbatim(stamp(l, e.At, "15:04 MST")), i18n.Verbatim(ago(l, now.Sub(e.At).Round(time.Second))))
	}
	bl := []slack.Block{
		slack.NewHeaderBlock(plain(clipHeader(head))),
		slack.NewSectionBlock(mrkdwn(body), nil, nil),
	}
	if !e.Type.Terminal() {
		bl = append(bl, slack.NewActionBlock(BlockNotification, blocks.NotifyStopButton(l, s.ID)))
		bl = append(bl, slack.NewContextBlock("", mrkdwn(footer(l, s))))
	}
	return blocks.Message{Text: blocks.Escape(head), Blocks: blocks.Fit(bl, "")}
}

func footer(l i18n.Lang, s *Subscription) string {
	return tr(l, "notify.footer", i18n.Verbatim(s.ID), i18n.Verbatim(stamp(l, s.Expires, "Jan 2 15:04 MST")))
}

// clipHeader cuts a header to Slack's limit on a rune boundary.
func clipHeader(s string) string {
	if len(s) <= blocks.MaxHeaderText {
		return s
	}
	r := []rune(s)
	if len(r) <= blocks.MaxHeaderText {
		return s
	}
	return string(r[:blocks.MaxHeaderText-1]) + "…"
}

// confirmation is the first DM of a subscription, in l; state is the job's
// state now (DescribeMsg).
func confirmation(l i18n.Lang, s *Subscription, state i18n.Message) blocks.Message {
	head := tr(l, "notify.head.watching", i18n.Verbatim(s.Name))
	body := tr(l, "notify.body.watching", i18n.Verbatim(job(s)), state)
	bl := []slack.Block{
		slack.NewHeaderBlock(plain(clipHeader(head))),
		slack.NewSectionBlock(mrkdwn(body), nil, nil),
		slack.NewActionBlock(BlockNotification, blocks.NotifyStopButton(l, s.ID)),
		slack.NewContextBlock("", mrkdwn(footer(l, s))),
	}
	return blocks.Message{Text: blocks.Escape(head), Blocks: blocks.Fit(bl, "")}
}
