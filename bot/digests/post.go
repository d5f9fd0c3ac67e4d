package digests

import (
	"context"
	"fmt"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/i18n"
)

// Poster posts a digest: a message in a channel, and replies in its thread.
type Poster interface {
	// PostMessage posts m in channel and returns the message's ts.
	PostMessage(ctx context.Context, channel string, m blocks.Message) (ts string, err error)
	// PostReply posts m in the thread of the message threadTS.
	PostReply(ctx context.Context, channel, threadTS string, m blocks.Message) error
}

// SlackPoster posts with the Web API's chat.postMessage. Build its client
// with bot.NewSlackClient (429s are retried honouring Retry-After).
type SlackPoster struct {
	API *slack.Client
}

var _ Poster = (*SlackPoster)(nil)

func options(m blocks.Message) []slack.MsgOption {
	return []slack.MsgOption{
		slack.MsgOptionText(m.Text, false),
		slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(),
		slack.MsgOptionDisableMediaUnfurl(),
	}
}

// PostMessage implements Poster.
func (p *SlackPoster) PostMessage(ctx context.Context, channel string, m blocks.Message) (string, error) {
	_, ts, err := p.API.PostMessageContext(ctx, channel, options(m)...)
	return ts, err
}

// PostReply implements Poster.
func (p *SlackPoster) PostReply(ctx context.Context, channel, threadTS string, m blocks.Message) error {
	_, _, err := p.API.PostMessageContext(ctx, channel, append(options(m), slack.MsgOptionTS(threadTS))...)
	return err
}

// LateNote is the note of a digest posted late: when it was due (in loc),
// in language l.
func LateNote(l i18n.Lang, due time.Time, loc *time.Location) string {
	at := due.In(loc).Format("Mon Jan 2 15:04 MST")
	if l != i18n.English {
		at = due.In(loc).Format("2006-01-02 15:04 MST")
	}
	return i18n.Render(l, i18n.M("blocks.digest.late", i18n.Verbatim(at)))
}

// Post posts d in channel in language l (the digest's language): the
// message, then the details in its thread. note, when set, is put first in
// the message (e.g. why it is late), already in l. cli is the command that
// prints the whole digest, named where lists are cut. A failed reply is
// returned with the message's ts: the digest is posted.
func Post(ctx context.Context, p Poster, channel string, d *digest.Digest, l i18n.Lang, note, cli string) (string, error) {
	main, replies := blocks.DigestMessagesIn(l, d, cli)
	if note != "" {
		main = blocks.WithNote(main, note)
	}
	ts, err := p.PostMessage(ctx, channel, main)
	if err != nil {
		return "", fmt.Errorf("posting digest %s to %s: %w", d.Name, channel, err)
	}
	for i, r := range replies {
		if err := p.PostReply(ctx, channel, ts, r); err != nil {
			return ts, fmt.Errorf("posting digest %s to %s: thread reply %d of %d: %w", d.Name, channel, i+1, len(replies), err)
		}
	}
	return ts, nil
}
