package blocks

import "github.com/slack-go/slack"

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
// about ref; it carries ref only.
func NotifyButton(ref JobRef) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionNotify, ref.String(), plain("Tell me when it starts"))
}

// NotifyStopButton ends the subscription id.
func NotifyStopButton(id string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionNotifyStop, id, plain("Stop these messages"))
}
