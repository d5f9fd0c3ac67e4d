// Package delivery is how the bot writes to Slack: NewSlackClient builds
// the one Web API client every part uses (429s retried after Retry-After,
// never past the call's deadline; every call counted by method and error),
// and Replier, implemented by SlackReplier, is every kind of write the bot
// makes (post, ephemeral, response_url, update, App Home, reactions).
//
// It decides nothing about where an answer goes: package bot does.
package delivery
