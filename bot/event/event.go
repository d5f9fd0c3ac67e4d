package event

import (
	"errors"
	"strings"
	"time"

	"github.com/kueuebot/kueuebot/rbac"
)

// Entry is the way a question reached the bot. It labels metrics and
// audit lines and decides where the answer goes.
type Entry string

// Entry points.
const (
	// EntryMention: "@kueuebot ..." in a channel or a thread.
	EntryMention Entry = "mention"
	// EntryDM: a direct message to the bot.
	EntryDM Entry = "dm"
	// EntrySlash: the /kueue slash command.
	EntrySlash Entry = "slash"
	// EntryShortcut: the message shortcut "Why is this job waiting?".
	EntryShortcut Entry = "shortcut"
	// EntryFit: the message shortcut "Will this fit?" on a message that
	// holds a manifest (a code block, or a YAML or JSON file).
	EntryFit Entry = "fit"
	// EntryButton: a button or the job picker on one of the bot's
	// messages or on the App Home tab.
	EntryButton Entry = "button"
	// EntryHome: the App Home tab was opened.
	EntryHome Entry = "home"
	// EntryChat: the terminal chat (kueuebot chat).
	EntryChat Entry = "chat"
	// EntryTriage: a top-level message in a support channel the bot
	// triages (config triage.channels) that signals a stuck job.
	EntryTriage Entry = "triage"
)

// Entries lists every entry point, for metrics and documentation.
var Entries = []Entry{EntryMention, EntryDM, EntrySlash, EntryShortcut, EntryFit, EntryButton, EntryHome, EntryChat, EntryTriage}

// Event is one thing a Slack user did that the bot answers, decoded from
// either transport (Socket Mode or signed HTTP). It holds only what Slack
// sent: interaction state travels in the payload, never in one replica's
// memory.
type Event struct {
	// Entry says how the question arrived.
	Entry Entry
	// Key deduplicates deliveries: Slack retries an event with the same
	// event_id; interactions carry a trigger_id.
	Key string
	// User is who asked (or pressed the button): the identity the answer
	// is read as.
	User rbac.SlackUser
	// Channel is the conversation (C..., G..., D...); empty on App Home.
	Channel string
	// ThreadTS is the thread the question was asked in, if any.
	ThreadTS string
	// ThreadAuthor is who posted the thread's first message when a button
	// is pressed on a reply in a thread (Slack's message.parent_user_id):
	// in a triage thread, the poster.
	ThreadAuthor string
	// MessageTS is the message the question came from: the mention or DM
	// itself, the message a shortcut was used on, or the bot's message a
	// button was pressed on.
	MessageTS string
	// Text is the question: the mention or DM text, the slash command's
	// text, or the text of the message a shortcut was used on.
	Text string
	// ResponseURL answers slash commands, shortcuts and buttons privately
	// (or replaces the message a button was on). Empty for events.
	ResponseURL string
	// Ephemeral: the button was on an ephemeral message (only the presser
	// sees it, and only response_url can change it).
	Ephemeral bool
	// InHome: the button was on the App Home tab.
	InHome bool
	// ActionID, BlockID and Value are the pressed button's action_id, the
	// block_id of its actions block, and its value (the picker's selected
	// option): a job reference.
	ActionID, BlockID, Value string
	// Files are the files attached to the message a shortcut was used
	// on (for "Will this fit?": a manifest uploaded as a file).
	Files []File
	// Received is when the transport received the event, for latency.
	Received time.Time
}

// File is a file attached to a Slack message: what Slack says of it, not
// its content (which is downloaded with the bot token, scope files:read).
type File struct {
	// Name is the file's name, e.g. "train.yaml".
	Name string
	// URL is its url_private_download (else url_private).
	URL string
	// Size is its size in bytes, as Slack reports it.
	Size int
}

// InDM reports whether the conversation is a direct message with the bot,
// where only the asker and the bot can read the answer.
func (e *Event) InDM() bool { return strings.HasPrefix(e.Channel, "D") }

// ErrShuttingDown is the cause of a question's context when the bot stops
// before the question was answered (the grace period after SIGTERM ended).
var ErrShuttingDown = errors.New("kueuebot is shutting down")
