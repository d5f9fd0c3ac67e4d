package digests

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose/digest"
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

// Post posts d in channel: the message, then the details in its thread.
// note, when set, is put first in the message (e.g. why it is late). cli
// is the command that prints the whole digest, named where lists are cut.
// A failed reply is returned with the message's ts: the digest is posted.
func Post(ctx context.Context, p Poster, channel string, d *digest.Digest, note, cli string) (string, error) {
	main, replies := blocks.DigestMessages(d, cli)
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
