package slackfake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The builders below follow Slack's documented payload shapes (Events API
// event_callback, slash command, block_actions and message_action
// interaction payloads) and Socket Mode's envelopes around them.

// EventsEnvelope wraps an Events API event as Socket Mode delivers it.
func EventsEnvelope(envelopeID, eventID string, retry int, event map[string]any) map[string]any {
	return map[string]any{
		"envelope_id": envelopeID, "type": "events_api", "accepts_response_payload": false,
		"retry_attempt": retry, "retry_reason": map[bool]string{true: "timeout"}[retry > 0],
		"payload": EventCallback(eventID, event),
	}
}

// EventCallback is the outer Events API payload (HTTP mode's body).
func EventCallback(eventID string, event map[string]any) map[string]any {
	return map[string]any{
		"token": "x", "team_id": TeamID, "api_app_id": "A1", "type": "event_callback",
		"event_id": eventID, "event_time": 1700000000, "event": event,
	}
}

// Mention is an app_mention event; thread is the thread's ts, or "".
func Mention(user, channel, ts, thread, text string) map[string]any {
	e := map[string]any{"type": "app_mention", "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
	if thread != "" {
		e["thread_ts"] = thread
	}
	return e
}

// DirectMessage is a message.im event.
func DirectMessage(user, channel, ts, text string) map[string]any {
	return map[string]any{"type": "message", "channel_type": "im", "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
}

// ChannelMessage is a message.channels event (a message posted in a public
// channel); thread is the thread's ts, or "".
func ChannelMessage(user, channel, ts, thread, text string) map[string]any {
	e := map[string]any{"type": "message", "channel_type": "channel", "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
	if thread != "" {
		e["thread_ts"] = thread
	}
	return e
}

// HomeOpened is an app_home_opened event for the Home tab.
func HomeOpened(user string) map[string]any {
	return map[string]any{"type": "app_home_opened", "user": user, "channel": "D0HOME" + user, "tab": "home", "event_ts": "1700000000.000100"}
}

// SlashCommand is the payload of /kueue (as form fields in HTTP mode).
func SlashCommand(user, channel, text, responseURL, triggerID string) map[string]string {
	return map[string]string{
		"token": "x", "team_id": TeamID, "team_domain": "acme", "channel_id": channel, "channel_name": "general",
		"user_id": user, "user_name": "someone", "command": "/kueue", "text": text, "api_app_id": "A1",
		"response_url": responseURL, "trigger_id": triggerID,
	}
}

// SlashEnvelope wraps a slash command as Socket Mode delivers it.
func SlashEnvelope(envelopeID string, cmd map[string]string) map[string]any {
	p := map[string]any{}
	for k, v := range cmd {
		p[k] = v
	}
	return map[string]any{"envelope_id": envelopeID, "type": "slash_commands", "accepts_response_payload": true, "payload": p}
}

// InteractiveEnvelope wraps an interaction payload as Socket Mode delivers
// it.
func InteractiveEnvelope(envelopeID string, payload map[string]any) map[string]any {
	return map[string]any{"envelope_id": envelopeID, "type": "interactive", "accepts_response_payload": false, "payload": payload}
}

// BlockAction describes a button press or a select on one of the bot's
// messages (or on its App Home view).
type BlockAction struct {
	User, Channel, MessageTS, ThreadTS string
	// ParentUser is who posted the thread's first message, when the
	// message is a reply in a thread (Slack's message.parent_user_id).
	ParentUser string
	// Ephemeral: the message is ephemeral (Slack then sends no "message").
	Ephemeral bool
	// InHome: the element is on the App Home view.
	InHome bool
	// ActionID and Value are the button's; Selected is a static_select's
	// chosen option value (then the action is a static_select).
	ActionID, Value, Selected string
	ResponseURL, TriggerID    string
}

// Payload is the block_actions interaction payload.
func (b BlockAction) Payload() map[string]any {
	action := map[string]any{"action_id": b.ActionID, "block_id": "b1", "action_ts": "1700000001.000200"}
	if b.Selected != "" {
		action["type"] = "static_select"
		action["selected_option"] = map[string]any{"text": map[string]any{"type": "plain_text", "text": b.Selected}, "value": b.Selected}
	} else {
		action["type"] = "button"
		action["text"] = map[string]any{"type": "plain_text", "text": "Button"}
		action["value"] = b.Value
	}
	p := map[string]any{
		"type":                  "block_actions",
		"user":                  map[string]any{"id": b.User, "username": "someone", "name": "someone", "team_id": TeamID},
		"api_app_id":            "A1",
		"token":                 "x",
		"trigger_id":            b.TriggerID,
		"team":                  map[string]any{"id": TeamID, "domain": "acme"},
		"enterprise":            nil,
		"is_enterprise_install": false,
		"state":                 map[string]any{"values": map[string]any{}},
		"actions":               []any{action},
	}
	if b.InHome {
		p["container"] = map[string]any{"type": "view", "view_id": "V1"}
		p["view"] = map[string]any{"id": "V1", "type": "home", "blocks": []any{}}
		return p
	}
	container := map[string]any{"type": "message", "message_ts": b.MessageTS, "channel_id": b.Channel, "is_ephemeral": b.Ephemeral}
	if b.ThreadTS != "" {
		container["thread_ts"] = b.ThreadTS
	}
	p["container"] = container
	p["channel"] = map[string]any{"id": b.Channel, "name": "general"}
	p["response_url"] = b.ResponseURL
	if !b.Ephemeral {
		msg := map[string]any{"type": "message", "user": BotUserID, "bot_id": "B1", "ts": b.MessageTS, "text": "answer"}
		if b.ThreadTS != "" {
			msg["thread_ts"] = b.ThreadTS
		}
		if b.ParentUser != "" {
			msg["parent_user_id"] = b.ParentUser
		}
		p["message"] = msg
	}
	return p
}

// MessageShortcut is the message_action payload of a message shortcut used
// on a message with text.
func MessageShortcut(user, channel, callbackID, messageTS, text, responseURL, triggerID string) map[string]any {
	return map[string]any{
		"type": "message_action", "token": "x", "action_ts": "1700000002.000300",
		"team":       map[string]any{"id": TeamID, "domain": "acme"},
		"user":       map[string]any{"id": user, "name": "someone", "team_id": TeamID},
		"channel":    map[string]any{"id": channel, "name": "general"},
		"enterprise": nil, "is_enterprise_install": false,
		"callback_id": callbackID, "trigger_id": triggerID, "response_url": responseURL,
		"message_ts": messageTS,
		"message":    map[string]any{"type": "message", "user": "U0WRITER", "ts": messageTS, "text": text},
	}
}

// WithFiles attaches files (name -> url_private_download, as AddFile
// returns) to a MessageShortcut's message.
func WithFiles(shortcut map[string]any, files map[string]string) map[string]any {
	var fs []any
	for name, u := range files {
		fs = append(fs, map[string]any{"id": "F" + name, "name": name, "url_private": u, "url_private_download": u, "size": 100})
	}
	shortcut["message"].(map[string]any)["files"] = fs
	return shortcut
}

// Sign signs an HTTP request to the bot the way Slack does: HMAC-SHA256
// with the signing secret over "v0:{timestamp}:{body}", in the
// X-Slack-Request-Timestamp and X-Slack-Signature headers.
func Sign(req *http.Request, secret string, body []byte, at time.Time) {
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:", ts)
	mac.Write(body)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
}
