package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/kueuebot/kueuebot/rbac"
)

// ErrInvalidAuth means Slack rejected the app-level token; retrying will
// not help.
var ErrInvalidAuth = errors.New("slack: invalid_auth (check the app-level token)")

// HandledEvents are the Events API events SocketMode acts on, as named in
// the Slack app manifest (deploy/slack/manifest.yaml).
var HandledEvents = []string{"app_mention", "message.im", "subteam_members_changed", "user_change"}

// RequiredScopes are the bot token scopes the handlers need.
var RequiredScopes = []string{"app_mentions:read", "chat:write", "commands", "im:history", "users:read", "users:read.email", "usergroups:read"}

// Socket Mode defaults.
const (
	DefaultWorkers   = 4
	DefaultQueueSize = 64
	// dedupeSize is how many recent event IDs are remembered.
	dedupeSize = 1024
)

// SocketMode is the Socket Mode transport. One event loop reads the
// client's events, acks each at once, drops duplicates (Slack retries
// carry the same event_id) and the bot's own or other bots' messages, and
// hands questions to a bounded pool of workers, which ask the Asker and
// reply: in the thread for mentions, in the conversation for direct
// messages, ephemerally for slash commands.
type SocketMode struct {
	// Client is a socketmode client built on a slack.Client with the bot
	// token and the app-level token.
	Client *socketmode.Client
	// Asker answers the questions. Required.
	Asker *Asker
	// BotUserID is the bot's own user ID; empty: learned with auth.test.
	BotUserID string
	// Workers is the number of concurrent answers; zero: DefaultWorkers.
	Workers int
	// QueueSize bounds the questions waiting for a worker; when full, new
	// questions are dropped (and logged) so the loop never stalls. Zero:
	// DefaultQueueSize.
	QueueSize int
	// Log receives transport events; nil discards.
	Log *slog.Logger
	// Invalidate, when set, drops cached identities when Slack reports a
	// change: subteam_members_changed (user group members) and user_change
	// (e.g. a deactivated account). *rbac.Resolver satisfies it.
	Invalidate Invalidator
}

// Invalidator drops cached identity resolutions.
type Invalidator interface {
	Invalidate(groupID string)
	InvalidateUser(userID string)
}

// job is one question handed from the event loop to a worker.
type job struct {
	user     rbac.SlackUser
	channel  string
	threadTS string // reply in this thread; empty: top level
	text     string
	// ephemeral answers only the user (slash commands).
	ephemeral bool
}

// Run serves until ctx ends (then it returns nil after the workers finish)
// or the connection fails for good (invalid auth).
func (s *SocketMode) Run(ctx context.Context) error {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if s.BotUserID == "" {
		at, err := s.Client.AuthTestContext(ctx)
		if err != nil {
			return fmt.Errorf("auth.test: %w", err)
		}
		s.BotUserID = at.UserID
	}
	workers, size := s.Workers, s.QueueSize
	if workers <= 0 {
		workers = DefaultWorkers
	}
	if size <= 0 {
		size = DefaultQueueSize
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- s.Client.RunContext(ctx) }()

	jobs := make(chan job, size)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				s.answer(ctx, log, j)
			}
		})
	}
	defer func() {
		close(jobs)
		wg.Wait()
	}()

	seen := newDedupe(dedupeSize)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-runErr:
			if ctx.Err() != nil {
				return nil
			}
			if err == nil {
				return errors.New("socket mode: connection loop ended")
			}
			switch err.Error() {
			case "invalid_auth", "account_inactive", "not_authed", "token_revoked":
				return fmt.Errorf("%w: %w", ErrInvalidAuth, err)
			}
			return fmt.Errorf("socket mode: %w", err)
		case evt, ok := <-s.Client.Events:
			if !ok {
				return nil
			}
			if evt.Type == socketmode.EventTypeInvalidAuth {
				return ErrInvalidAuth
			}
			j, ok := s.triage(ctx, log, evt, seen)
			if !ok {
				continue
			}
			select {
			case jobs <- j:
			default:
				log.WarnContext(ctx, "dropping question: all workers busy", slog.String("slack_user", j.user.ID))
			}
		}
	}
}

// triage acks an event and decides whether it is a question to answer.
// It never blocks on slow work.
func (s *SocketMode) triage(ctx context.Context, log *slog.Logger, evt socketmode.Event, seen *dedupe) (job, bool) {
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return job{}, false // hello, connecting, connected, errors
	}
	if err := s.Client.AckCtx(ctx, evt.Request.EnvelopeID, nil); err != nil {
		log.WarnContext(ctx, "ack failed", slog.String("envelope_id", evt.Request.EnvelopeID), slog.Any("error", err))
	}
	switch evt.Type {
	case socketmode.EventTypeEventsAPI:
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok {
			return job{}, false
		}
		key := evt.Request.EnvelopeID
		if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok && cb.EventID != "" {
			key = cb.EventID
		}
		if !seen.add(key) {
			log.InfoContext(ctx, "duplicate event", slog.String("event_id", key), slog.Int("retry_attempt", evt.Request.RetryAttempt))
			return job{}, false
		}
		return s.fromEvent(ev)
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok || !seen.add(evt.Request.EnvelopeID) {
			return job{}, false
		}
		return job{
			user:    rbac.SlackUser{ID: cmd.UserID, TeamID: cmd.TeamID, EnterpriseID: cmd.EnterpriseID},
			channel: cmd.ChannelID, text: cmd.Text, ephemeral: true,
		}, true
	}
	return job{}, false
}

// fromEvent turns a mention or a direct message into a job, ignoring bots
// (the bot itself included), edits and other message subtypes.
func (s *SocketMode) fromEvent(ev slackevents.EventsAPIEvent) (job, bool) {
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == "" || e.User == s.BotUserID || e.Edited != nil {
			return job{}, false
		}
		thread := e.ThreadTimeStamp
		if thread == "" {
			thread = e.TimeStamp
		}
		return job{
			user:    rbac.SlackUser{ID: e.User, TeamID: ev.TeamID, EnterpriseID: ev.EnterpriseID},
			channel: e.Channel, threadTS: thread, text: e.Text,
		}, true
	case *slackevents.SubteamMembersChangedEvent:
		if s.Invalidate != nil {
			s.Invalidate.Invalidate(e.SubteamID)
			for _, u := range append(append([]string(nil), e.AddedUsers...), e.RemovedUsers...) {
				s.Invalidate.InvalidateUser(u)
			}
		}
		return job{}, false
	case *slackevents.UserChangeEvent:
		if s.Invalidate != nil && e.User.ID != "" {
			s.Invalidate.InvalidateUser(e.User.ID)
		}
		return job{}, false
	case *slackevents.MessageEvent:
		// Only direct messages; channel messages that mention the bot
		// arrive as app_mention.
		if e.ChannelType != "im" || e.SubType != "" || e.BotID != "" || e.User == "" || e.User == s.BotUserID {
			return job{}, false
		}
		return job{
			user:    rbac.SlackUser{ID: e.User, TeamID: ev.TeamID, EnterpriseID: ev.EnterpriseID},
			channel: e.Channel, threadTS: e.ThreadTimeStamp, text: e.Text,
		}, true
	}
	return job{}, false
}

// answer asks and posts the reply. Errors are logged: there is nobody
// else to tell.
func (s *SocketMode) answer(ctx context.Context, log *slog.Logger, j job) {
	m := s.Asker.Ask(ctx, j.user, j.text)
	opts := []slack.MsgOption{
		slack.MsgOptionText(m.Text, false),
		slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(),
		slack.MsgOptionDisableMediaUnfurl(),
	}
	if j.threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(j.threadTS))
	}
	var err error
	if j.ephemeral {
		_, err = s.Client.PostEphemeralContext(ctx, j.channel, j.user.ID, opts...)
	} else {
		_, _, err = s.Client.PostMessageContext(ctx, j.channel, opts...)
	}
	if err != nil {
		log.WarnContext(ctx, "posting the answer failed", slog.String("channel", j.channel), slog.String("slack_user", j.user.ID), slog.Any("error", err))
	}
}

// dedupe remembers the last n keys.
type dedupe struct {
	mu   sync.Mutex
	set  map[string]bool
	ring []string
	next int
}

func newDedupe(n int) *dedupe {
	return &dedupe{set: make(map[string]bool, n), ring: make([]string, n)}
}

// add records key and reports whether it is new.
func (d *dedupe) add(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.set[key] {
		return false
	}
	if old := d.ring[d.next]; old != "" {
		delete(d.set, old)
	}
	d.ring[d.next] = key
	d.next = (d.next + 1) % len(d.ring)
	d.set[key] = true
	return true
}
