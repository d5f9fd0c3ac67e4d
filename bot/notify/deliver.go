package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/slack-go/slack"
)

var errNoSubscription = errors.New("notify: the subscription ended meanwhile")

// tell records e as pending, posts its DM, and records it as told (and
// ends the subscription when e is terminal).
func (n *Notifier) tell(ctx context.Context, s Subscription, e Event) error {
	now := n.Clock.Now()
	err := n.update(ctx, s.User, func(cur []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(cur, func(c Subscription) bool { return c.ID == s.ID })
		if i < 0 {
			return nil, errNoSubscription
		}
		if cur[i].Pending != nil || slices.Contains(cur[i].Seen, e.Key) {
			return nil, errNoSubscription // another writer got there first
		}
		cur[i].Pending = &Pending{Event: e, Since: now, Holder: n.Holder}
		return cur, nil
	})
	if errors.Is(err, errNoSubscription) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Pending = &Pending{Event: e, Since: now, Holder: n.Holder}
	if err := n.post(ctx, s, e); err != nil {
		return err // still pending: resume looks in the history first
	}
	return n.done(ctx, s, e)
}

// resume finishes a pending event: unless its message is already in the
// DM's history (posted by a replica that died before recording it), it is
// posted now.
func (n *Notifier) resume(ctx context.Context, s Subscription) error {
	p := s.Pending
	if age := n.Clock.Since(p.Since); p.Holder != n.Holder && age < n.PendingGrace {
		return &retryAfter{d: n.PendingGrace - age}
	}
	found, err := n.posted(ctx, s, p)
	if err != nil {
		return fmt.Errorf("reading the DM history of %s: %w", s.Channel, err)
	}
	if found {
		n.Log.InfoContext(ctx, "notification found posted by an earlier leader; recording it", slog.String("subscription", s.ID), slog.String("event", p.Event.Key), slog.String("holder", p.Holder))
	} else if err := n.post(ctx, s, p.Event); err != nil {
		return err
	}
	return n.done(ctx, s, p.Event)
}

// done records e as told. The view changes at once; the write is queued
// behind the shard's earlier changes and not waited for: the next write of
// the subscription comes after it, and if it fails the event stays
// pending in the store, which the history check resolves without posting
// again. Not waiting lets a burst of DMs share each shard's writes.
func (n *Notifier) done(ctx context.Context, s Subscription, e Event) error {
	apply := func(cur []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(cur, func(c Subscription) bool { return c.ID == s.ID })
		if i < 0 {
			return nil, errNoSubscription
		}
		if e.Type.Terminal() {
			return slices.Delete(cur, i, i+1), nil
		}
		cur[i].Pending = nil
		cur[i].Seen = remember(cur[i].Seen, e.Key)
		return cur, nil
	}
	n.mu.Lock()
	if cur, ok := n.subs[s.ID]; ok {
		if next, err := apply([]Subscription{cur}); err == nil {
			delete(n.subs, s.ID)
			for _, v := range next {
				n.subs[v.ID] = v
			}
		}
	}
	n.mu.Unlock()
	c := n.Store.submit(ctx, s.User, apply)
	go func() {
		<-c.done
		if c.err != nil && !errors.Is(c.err, errNoSubscription) {
			n.Log.Warn("notification told, its record failed (the next leader finds it in the DM's history)", slog.String("subscription", s.ID), slog.String("event", e.Key), slog.Any("error", c.err))
		}
	}()
	return nil
}

func metadata(s Subscription, e Event) slack.SlackMetadata {
	return slack.SlackMetadata{EventType: MetadataEventType, EventPayload: map[string]any{"subscription": s.ID, "event": e.Key}}
}

// post sends e's DM. It is not cut short by a lost lease (the record says
// it is pending; PendingGrace covers the rest).
func (n *Notifier) post(ctx context.Context, s Subscription, e Event) error {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.PostTimeout)
	defer cancel()
	m := EventMessageIn(n.lang(pctx, s.User), &s, e, n.Clock.Now())
	_, ts, err := n.Slack.PostMessageContext(pctx, s.Channel,
		slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl(),
		slack.MsgOptionMetadata(metadata(s, e)))
	if err != nil {
		return fmt.Errorf("posting %s of %s to %s: %w", e.Type, s.Ref(), s.Channel, err)
	}
	if n.Told != nil {
		n.mu.Lock()
		seen := n.seen[s.ID]
		delete(n.seen, s.ID)
		n.mu.Unlock()
		n.Told(s, e, seen, n.Clock.Now())
	}
	n.Log.InfoContext(ctx, "notification posted", slog.String("subscription", s.ID), slog.String("slackUser", s.User),
		slog.String("job", s.Ref()), slog.String("event", string(e.Type)), slog.String("key", e.Key), slog.String("ts", ts))
	return nil
}

// historySlack widens the history read around a pending record, for
// clock differences between the bot and Slack.
const historySlack = time.Minute

// maxHistoryPages bounds the history read: 10 pages of 100 messages.
const maxHistoryPages = 10

// posted looks in the DM's history, from shortly before the pending event
// was recorded, for a message with its metadata.
func (n *Notifier) posted(ctx context.Context, s Subscription, p *Pending) (bool, error) {
	from := p.Since.Add(-historySlack)
	params := &slack.GetConversationHistoryParameters{
		ChannelID: s.Channel, Oldest: fmt.Sprintf("%d.%06d", from.Unix(), from.Nanosecond()/1000),
		Limit: 100, IncludeAllMetadata: true,
	}
	for range maxHistoryPages {
		resp, err := n.Slack.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return false, err
		}
		for _, m := range resp.Messages {
			md := m.Metadata
			if md.EventType == MetadataEventType && fmt.Sprint(md.EventPayload["subscription"]) == s.ID && fmt.Sprint(md.EventPayload["event"]) == p.Event.Key {
				return true, nil
			}
		}
		if !resp.HasMore || resp.ResponseMetaData.NextCursor == "" {
			return false, nil
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
	return false, nil
}
