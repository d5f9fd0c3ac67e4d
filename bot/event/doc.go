// Package event is the vocabulary every layer of the Slack bot shares: an
// Event is one thing a user did that the bot answers (a mention, a DM, the
// slash command, a shortcut, a button, the App Home tab, a triaged
// message), decoded by package transport, dispatched by package dispatch
// and answered by package bot. Entry says how it arrived;
// ErrShuttingDown is why a question's context ends when the bot stops.
//
// It holds data only: no I/O, no Slack client.
package event
