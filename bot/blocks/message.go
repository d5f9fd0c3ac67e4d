// Package blocks renders kueuebot's answers as Slack Block Kit messages and
// renders any Block Kit message as plain text for the terminal.
//
// The rule of the package: every piece of text that came from the cluster
// or the user is escaped (or sent as plain_text) before it is put into a
// block, and every message goes through Fit, which keeps it inside Slack's
// limits by truncating with a pointer to the full answer instead of
// failing. Rendering is pure and deterministic.
package blocks

import (
	"github.com/slack-go/slack"
)

// Message is one answer: Block Kit blocks plus the fallback text Slack shows
// in notifications (already escaped mrkdwn).
type Message struct {
	Text   string        `json:"text"`
	Blocks []slack.Block `json:"blocks"`
}

// Notice builds a short message: an optional header and one mrkdwn
// paragraph. Both arguments must already be escaped where they are mrkdwn;
// the header is plain_text.
func Notice(header, body string) Message {
	var bl []slack.Block
	if header != "" {
		bl = append(bl, slack.NewHeaderBlock(plain(truncate(header, MaxHeaderText))))
	}
	if body != "" {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(body), nil, nil))
	}
	text := body
	if header != "" {
		text = Escape(header)
	}
	return Message{Text: truncate(text, MaxFallbackText), Blocks: Fit(bl, "")}
}
