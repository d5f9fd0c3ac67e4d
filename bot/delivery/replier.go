package delivery

import (
	"context"
	"errors"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
)

// Replier is every way the bot writes to Slack. *SlackReplier implements it
// with the Web API; tests use the fake Slack behind it.
type Replier interface {
	// Post posts m in channel (a user ID posts to the user's DM with the
	// bot), in the thread threadTS when set, and returns the message ts.
	Post(ctx context.Context, channel, threadTS string, m blocks.Message) (string, error)
	// PostEphemeral shows m to user only, in channel (and thread).
	PostEphemeral(ctx context.Context, channel, user, threadTS string, m blocks.Message) error
	// Respond answers through an interaction's or a slash command's
	// response_url.
	Respond(ctx context.Context, responseURL string, m blocks.Message, o RespondOptions) error
	// Update replaces the bot's message ts in channel (chat.update; not for
	// ephemeral messages: Respond with ReplaceOriginal does that).
	Update(ctx context.Context, channel, ts string, m blocks.Message) error
	// PublishHome publishes user's App Home tab.
	PublishHome(ctx context.Context, user string, v slack.HomeTabViewRequest) error
	// AddReaction and RemoveReaction put or take the bot's emoji reaction
	// name (without colons) on the message ts in channel.
	AddReaction(ctx context.Context, channel, ts, name string) error
	RemoveReaction(ctx context.Context, channel, ts, name string) error
}

// RespondOptions says what a response_url post does.
type RespondOptions struct {
	// InChannel shows the message to everyone in the conversation
	// (response_type in_channel); otherwise only the user sees it.
	InChannel bool
	// ReplaceOriginal replaces the message the interaction came from.
	ReplaceOriginal bool
	// DeleteOriginal deletes the message the interaction came from; the
	// message is then ignored.
	DeleteOriginal bool
}

// SlackReplier writes through the Slack Web API. Build its client with
// NewSlackClient, so that every call (response_url posts included) is
// retried on 429 honouring Retry-After and counted in the metrics.
type SlackReplier struct {
	API *slack.Client
}

var _ Replier = (*SlackReplier)(nil)

// msgOptions are the options every message carries: the blocks, the
// fallback text, no unfurling. Link names and parse=full are never set:
// untrusted text is escaped by package blocks.
func msgOptions(m blocks.Message) []slack.MsgOption {
	return []slack.MsgOption{
		slack.MsgOptionText(m.Text, false),
		slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(),
		slack.MsgOptionDisableMediaUnfurl(),
	}
}

// Post implements Replier.
func (s *SlackReplier) Post(ctx context.Context, channel, threadTS string, m blocks.Message) (string, error) {
	opts := msgOptions(m)
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, ts, err := s.API.PostMessageContext(ctx, channel, opts...)
	return ts, err
}

// PostEphemeral implements Replier.
func (s *SlackReplier) PostEphemeral(ctx context.Context, channel, user, threadTS string, m blocks.Message) error {
	opts := msgOptions(m)
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, err := s.API.PostEphemeralContext(ctx, channel, user, opts...)
	return err
}

// Respond implements Replier.
func (s *SlackReplier) Respond(ctx context.Context, responseURL string, m blocks.Message, o RespondOptions) error {
	if responseURL == "" {
		return errors.New("no response_url")
	}
	typ := slack.ResponseTypeEphemeral
	if o.InChannel {
		typ = slack.ResponseTypeInChannel
	}
	opts := []slack.MsgOption{slack.MsgOptionResponseURL(responseURL, typ)}
	switch {
	case o.DeleteOriginal:
		opts = append(opts, slack.MsgOptionDeleteOriginal(responseURL))
	case o.ReplaceOriginal:
		opts = append(opts, slack.MsgOptionReplaceOriginal(responseURL))
	}
	if !o.DeleteOriginal {
		opts = append(opts, msgOptions(m)...)
	}
	_, _, err := s.API.PostMessageContext(ctx, "", opts...)
	return err
}

// Update implements Replier.
func (s *SlackReplier) Update(ctx context.Context, channel, ts string, m blocks.Message) error {
	_, _, _, err := s.API.UpdateMessageContext(ctx, channel, ts, msgOptions(m)...)
	return err
}

// PublishHome implements Replier.
func (s *SlackReplier) PublishHome(ctx context.Context, user string, v slack.HomeTabViewRequest) error {
	_, err := s.API.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: v})
	return err
}

// AddReaction implements Replier.
func (s *SlackReplier) AddReaction(ctx context.Context, channel, ts, name string) error {
	return s.API.AddReactionContext(ctx, name, slack.NewRefToMessage(channel, ts))
}

// RemoveReaction implements Replier.
func (s *SlackReplier) RemoveReaction(ctx context.Context, channel, ts, name string) error {
	return s.API.RemoveReactionContext(ctx, name, slack.NewRefToMessage(channel, ts))
}

// Permalink returns the permalink of message ts in channel
// (chat.getPermalink).
func (s *SlackReplier) Permalink(ctx context.Context, channel, ts string) (string, error) {
	return s.API.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: channel, Ts: ts})
}

// ErrFileTooLarge is returned by Download for a file over its limit.
var ErrFileTooLarge = errors.New("the file is too large")

// Download returns the content of a file attached to a message (its
// url_private_download), read with the bot token (scope files:read), at
// most max bytes: a longer file is ErrFileTooLarge. slack-go sends the
// token only to Slack's own https hosts or the configured API URL.
func (s *SlackReplier) Download(ctx context.Context, url string, max int64) ([]byte, error) {
	w := &limitedBuffer{max: max}
	if err := s.API.GetFileContext(ctx, url, w); err != nil {
		if errors.Is(err, ErrFileTooLarge) {
			return nil, ErrFileTooLarge
		}
		return nil, err
	}
	return w.buf, nil
}

// limitedBuffer collects at most max bytes, then fails.
type limitedBuffer struct {
	buf []byte
	max int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if int64(len(b.buf)+len(p)) > b.max {
		return 0, ErrFileTooLarge
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}
