package blocks

import (
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/i18n"
)

// Action IDs of "Tell me when it starts" (package bot/notify). Like every
// kueuebot button they carry no identity: whoever presses is resolved
// again.
const (
	// ActionNotify is "Tell me when it starts" on a pending answer; its
	// value is the job's JobRef. The bot subscribes the presser
	// (notify.Notifier.Subscribe).
	ActionNotify = "kueuebot_notify"
	// ActionNotifyStop is "Stop these messages" on a notification DM; its
	// value is the subscription ID. The bot ends the presser's own
	// subscription of that ID (notify.Notifier.Unsubscribe).
	ActionNotifyStop = "kueuebot_notify_stop"
)

// NotifyButton is the "Tell me when it starts" button for a pending answer
// about ref, in language l; it carries ref only.
func NotifyButton(l i18n.Lang, ref JobRef) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionNotify, ref.String(), plain(tr(l, "blocks.notify.button")))
}

// NotifyStopButton ends the subscription id; its label is in l.
func NotifyStopButton(l i18n.Lang, id string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionNotifyStop, id, plain(tr(l, "blocks.notify.stop")))
}
