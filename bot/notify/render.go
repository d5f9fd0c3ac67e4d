package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
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

func quoted(reason, message string) string {
	var parts []string
	if reason != "" {
		parts = append(parts, "reason "+blocks.Code(reason))
	}
	if message != "" {
		parts = append(parts, "Kueue says: _"+blocks.Line(message)+"_")
	}
	return strings.Join(parts, "; ")
}

// EventMessage is the DM that tells s's subscriber about e. now is when it
// is sent, for "5m ago" when it is late.
func EventMessage(s *Subscription, e Event, now time.Time) blocks.Message {
	var head, body string
	j := job(s)
	switch e.Type {
	case Reserved:
		head = "Quota reserved: " + s.Name
		body = fmt.Sprintf("%s has quota reserved in ClusterQueue %s; it starts once its admission checks pass.", j, blocks.Code(e.ClusterQueue))
	case Admitted:
		head = "Admitted: " + s.Name
		body = fmt.Sprintf("%s was admitted to ClusterQueue %s: its Pods are being created.", j, blocks.Code(e.ClusterQueue))
	case Running:
		head = "Running: " + s.Name
		body = fmt.Sprintf("%s runs: %d of %d Pods running or done.", j, e.PodsRunning, e.PodsTotal)
	case Preempted:
		head = "Preempted: " + s.Name
		body = fmt.Sprintf("%s was preempted (condition `Preempted`, %s); Kueue puts it back in its queue. I will tell you when it is admitted again.", j, quoted(e.Reason, e.Message))
	case Evicted:
		head = "Evicted: " + s.Name
		body = fmt.Sprintf("%s was evicted (condition `Evicted`, %s); I will tell you when it is admitted again.", j, quoted(e.Reason, e.Message))
	case Succeeded:
		head = "Finished: " + s.Name
		body = fmt.Sprintf("%s finished successfully (condition `Finished`, reason `Succeeded`). This was the last message about it.", j)
	case Failed:
		head = "Failed: " + s.Name
		body = fmt.Sprintf("%s failed (condition `Finished`, %s). This was the last message about it.", j, quoted(e.Reason, e.Message))
	case Expired:
		head = "No more messages about " + s.Name
		body = fmt.Sprintf("Your subscription to %s ended: it was %s old (notify.expireAfter). Subscribe again with `/kueue notify %s`.", j, s.Expires.Sub(s.Created).Round(time.Minute), blocks.Line(s.Ref()))
	case LostAccess:
		head = "No more messages about " + s.Name
		body = fmt.Sprintf("I stopped watching %s: you may no longer read it (or no longer use kueuebot), so I cannot tell you about it. Ask your platform team if that is wrong.", j)
	case Gone:
		head = "No more messages about " + s.Name
		body = fmt.Sprintf("%s and its Workload were deleted: there is nothing left to watch.", j)
	default:
		head, body = string(e.Type)+": "+s.Name, j
	}
	if !e.At.IsZero() && now.Sub(e.At) > time.Minute {
		body += fmt.Sprintf("\n_This happened at %s, %s ago._", e.At.UTC().Format("15:04 MST"), now.Sub(e.At).Round(time.Second))
	}
	bl := []slack.Block{
		slack.NewHeaderBlock(plain(clipHeader(head))),
		slack.NewSectionBlock(mrkdwn(body), nil, nil),
	}
	if !e.Type.Terminal() {
		bl = append(bl, slack.NewActionBlock(BlockNotification, blocks.NotifyStopButton(s.ID)))
		bl = append(bl, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("Subscription `%s`, until %s. Reply `stop` to end all of yours.", s.ID, s.Expires.UTC().Format("Jan 2 15:04 MST")))))
	}
	return blocks.Message{Text: blocks.Escape(head), Blocks: blocks.Fit(bl, "")}
}

func clipHeader(s string) string {
	if len(s) <= blocks.MaxHeaderText {
		return s
	}
	return s[:blocks.MaxHeaderText-1] + "…"
}

// confirmation is the first DM of a subscription.
func confirmation(s *Subscription, state string) blocks.Message {
	head := "Watching " + s.Name
	body := fmt.Sprintf("I will tell you here when %s is admitted, when its Pods run, and if it is evicted, preempted, fails or finishes. Now: %s.", job(s), blocks.Line(state))
	bl := []slack.Block{
		slack.NewHeaderBlock(plain(clipHeader(head))),
		slack.NewSectionBlock(mrkdwn(body), nil, nil),
		slack.NewActionBlock(BlockNotification, blocks.NotifyStopButton(s.ID)),
		slack.NewContextBlock("", mrkdwn(fmt.Sprintf("Subscription `%s`, until %s. Reply `stop` to end all of yours.", s.ID, s.Expires.UTC().Format("Jan 2 15:04 MST")))),
	}
	return blocks.Message{Text: blocks.Escape(head), Blocks: blocks.Fit(bl, "")}
}
