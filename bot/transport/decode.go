package transport

import (
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/triage"
	"github.com/kueuebot/kueuebot/rbac"
)

// HandledEvents are the Events API events the bot acts on, as named in
// the Slack app manifest (deploy/slack/manifest.yaml).
var HandledEvents = []string{"app_home_opened", "app_mention", "message.channels", "message.im", "subteam_members_changed", "user_change"}

// RequiredScopes are the bot token scopes the handlers need.
// files:read downloads a manifest uploaded as a file ("Will this fit?").
var RequiredScopes = []string{"app_mentions:read", "channels:history", "chat:write", "commands", "files:read", "im:history", "reactions:write", "users:read", "users:read.email", "usergroups:read"}

// ShortcutWhy is the callback_id of the message shortcut "Why is this job
// waiting?" (deploy/slack/manifest.yaml).
const ShortcutWhy = "kueuebot_why"

// ShortcutFit is the callback_id of the message shortcut "Will this fit?"
// (deploy/slack/manifest.yaml), used on a message holding a manifest.
const ShortcutFit = "kueuebot_will_it_fit"

// Invalidator drops cached identity resolutions. *rbac.Resolver
// satisfies it.
type Invalidator interface {
	Invalidate(groupID string)
	InvalidateUser(userID string)
}

// Decoder turns what Slack sends (the same payloads in Socket Mode and
// HTTP mode) into Events. It ignores the bot's own messages, other bots',
// edits and message subtypes, and applies membership changes to the
// identity cache.
type Decoder struct {
	// BotUserID is the bot's own user ID (auth.test).
	BotUserID string
	// Invalidate, when set, drops cached identities when Slack reports a
	// change: subteam_members_changed (user group members) and
	// user_change (e.g. a deactivated account).
	Invalidate Invalidator
	// Triage, when set, turns top-level messages in its channels that
	// signal a stuck job into EntryTriage events (message.channels).
	Triage *triage.Triage
}

// EventsAPI decodes an Events API callback.
func (d *Decoder) EventsAPI(ev slackevents.EventsAPIEvent, received time.Time) (event.Event, bool) {
	key := ""
	if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
		key = "ev:" + cb.EventID
	}
	user := func(id string) rbac.SlackUser {
		return rbac.SlackUser{ID: id, TeamID: ev.TeamID, EnterpriseID: ev.EnterpriseID}
	}
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == "" || e.User == d.BotUserID || e.Edited != nil {
			return event.Event{}, false
		}
		return event.Event{
			Entry: event.EntryMention, Key: key, User: user(e.User), Channel: e.Channel,
			ThreadTS: e.ThreadTimeStamp, MessageTS: e.TimeStamp, Text: e.Text, Received: received,
		}, true
	case *slackevents.MessageEvent:
		if e.ChannelType == "channel" {
			return d.triageMessage(e, key, user(e.User), received)
		}
		// Only direct messages; channel messages that mention the bot
		// arrive as app_mention.
		if e.ChannelType != "im" || e.SubType != "" || e.BotID != "" || e.User == "" || e.User == d.BotUserID {
			return event.Event{}, false
		}
		return event.Event{
			Entry: event.EntryDM, Key: key, User: user(e.User), Channel: e.Channel,
			ThreadTS: e.ThreadTimeStamp, MessageTS: e.TimeStamp, Text: e.Text, Received: received,
		}, true
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab != "home" || e.User == "" {
			return event.Event{}, false
		}
		return event.Event{Entry: event.EntryHome, Key: key, User: user(e.User), Received: received}, true
	case *slackevents.SubteamMembersChangedEvent:
		if d.Invalidate != nil {
			d.Invalidate.Invalidate(e.SubteamID)
			for _, u := range append(append([]string(nil), e.AddedUsers...), e.RemovedUsers...) {
				d.Invalidate.InvalidateUser(u)
			}
		}
	case *slackevents.UserChangeEvent:
		if d.Invalidate != nil && e.User.ID != "" {
			d.Invalidate.InvalidateUser(e.User.ID)
		}
	}
	return event.Event{}, false
}

// SlashCommand decodes /kueue. key deduplicates it (the Socket Mode
// envelope ID; in HTTP mode the trigger ID).
func (d *Decoder) SlashCommand(cmd slack.SlashCommand, key string, received time.Time) (event.Event, bool) {
	if cmd.UserID == "" {
		return event.Event{}, false
	}
	return event.Event{
		Entry: event.EntrySlash, Key: "cmd:" + key,
		User:    rbac.SlackUser{ID: cmd.UserID, TeamID: cmd.TeamID, EnterpriseID: cmd.EnterpriseID},
		Channel: cmd.ChannelID, Text: cmd.Text, ResponseURL: cmd.ResponseURL, Received: received,
	}, true
}

// Interaction decodes a message shortcut or a block action (button,
// picker). The user is whoever pressed: they are resolved and read as,
// never the original asker.
func (d *Decoder) Interaction(cb slack.InteractionCallback, key string, received time.Time) (event.Event, bool) {
	if cb.User.ID == "" || cb.User.ID == d.BotUserID {
		return event.Event{}, false
	}
	if cb.TriggerID != "" {
		key = cb.TriggerID
	}
	team := cb.Team.ID
	if team == "" {
		team = cb.User.TeamID
	}
	ev := event.Event{
		Key:         "ia:" + key,
		User:        rbac.SlackUser{ID: cb.User.ID, TeamID: team, EnterpriseID: cb.Enterprise.ID},
		Channel:     cb.Channel.ID,
		ResponseURL: cb.ResponseURL,
		Received:    received,
	}
	switch cb.Type {
	case slack.InteractionTypeMessageAction:
		switch cb.CallbackID {
		case ShortcutWhy:
			ev.Entry = event.EntryShortcut
		case ShortcutFit:
			ev.Entry = event.EntryFit
			for _, f := range cb.Message.Files {
				u := f.URLPrivateDownload
				if u == "" {
					u = f.URLPrivate
				}
				ev.Files = append(ev.Files, event.File{Name: f.Name, URL: u, Size: f.Size})
			}
		default:
			return event.Event{}, false
		}
		ev.Text = cb.Message.Text
		ev.MessageTS = cb.Message.Timestamp
		ev.ThreadTS = cb.Message.ThreadTimestamp
		return ev, true
	case slack.InteractionTypeBlockActions:
		if len(cb.ActionCallback.BlockActions) == 0 {
			return event.Event{}, false
		}
		a := cb.ActionCallback.BlockActions[0]
		if !strings.HasPrefix(a.ActionID, "kueuebot_") {
			return event.Event{}, false
		}
		ev.Entry = event.EntryButton
		ev.ActionID = a.ActionID
		ev.BlockID = a.BlockID
		ev.Value = a.Value
		if a.SelectedOption.Value != "" {
			ev.Value = a.SelectedOption.Value
		}
		ev.Ephemeral = cb.Container.IsEphemeral
		ev.InHome = cb.Container.Type == "view" || cb.View.Type == slack.VTHomeTab
		ev.MessageTS = cb.Container.MessageTs
		ev.ThreadTS = cb.Container.ThreadTs
		if ev.Channel == "" {
			ev.Channel = cb.Container.ChannelID
		}
		if ev.MessageTS == "" {
			ev.MessageTS = cb.Message.Timestamp
		}
		if ev.ThreadTS == "" {
			ev.ThreadTS = cb.Message.ThreadTimestamp
		}
		ev.ThreadAuthor = cb.Message.ParentUserId
		return ev, true
	}
	return event.Event{}, false
}

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
