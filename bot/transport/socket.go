package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/bot/ops"
)

// ErrInvalidAuth means Slack rejected the app-level token; retrying will
// not help.
var ErrInvalidAuth = errors.New("slack: invalid_auth (check the app-level token)")

// ackFlush is how long, at shutdown, the transport waits for the acks it
// already queued to reach the socket before closing it.
const ackFlush = 100 * time.Millisecond

// Submitter takes the decoded events: *dispatch.Dispatcher. Submit must
// not block.
type Submitter interface {
	Submit(ev event.Event) dispatch.Admission
}

// SocketMode is the Socket Mode transport. Its loop only decodes and acks:
// each envelope is acknowledged at once, decoded into an Event and handed
// to the Dispatcher, which never blocks. The client reconnects on its own
// when Slack asks it to or the connection drops.
type SocketMode struct {
	// Client is a socketmode client built on a slack.Client with the bot
	// token and the app-level token.
	Client *socketmode.Client
	// Dispatcher answers the questions. Required.
	Dispatcher Submitter
	// Decoder decodes the payloads; its BotUserID is learned with
	// auth.test when empty.
	Decoder *Decoder
	// Ready is set while connected; nil: not tracked.
	Ready *ops.Readiness
	// Metrics records ack latency; nil: none.
	Metrics *metrics.Metrics
	// Log receives transport events; nil discards.
	Log *slog.Logger
}

// Run serves until ctx ends or the connection fails for good (invalid
// auth). When ctx ends it stops taking events, lets the acks already sent
// reach Slack, closes the connection and returns nil: events Slack sends
// meanwhile are not acked, so Slack delivers them to another connection.
// The questions already accepted are the Dispatcher's to finish
// (Dispatcher.Shutdown).
func (s *SocketMode) Run(ctx context.Context) error {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if s.Decoder == nil {
		s.Decoder = &Decoder{}
	}
	if s.Decoder.BotUserID == "" {
		at, err := s.Client.AuthTestContext(ctx)
		if err != nil {
			return fmt.Errorf("auth.test: %w", err)
		}
		s.Decoder.BotUserID = at.UserID
	}

	connCtx, closeConn := context.WithCancel(context.WithoutCancel(ctx))
	defer closeConn()
	runErr := make(chan error, 1)
	go func() { runErr <- s.Client.RunContext(connCtx) }()
	defer s.Ready.Set(false, "Socket Mode stopped")

	for {
		select {
		case <-ctx.Done():
			s.Ready.Set(false, "shutting down")
			time.Sleep(ackFlush)
			closeConn()
			select {
			case err := <-runErr:
				if err != nil && !errors.Is(err, context.Canceled) {
					log.Info("socket mode connection closed", slog.Any("error", err))
				}
			case <-time.After(5 * time.Second):
				log.Warn("socket mode connection did not close in time")
			}
			return nil
		case err := <-runErr:
			if err == nil {
				return errors.New("socket mode: connection loop ended")
			}
			switch err.Error() {
			case "invalid_auth", "account_inactive", "not_authed", "token_revoked":
				return fmt.Errorf("%w: %w", ErrInvalidAuth, err)
			}
			return fmt.Errorf("socket mode: %w", err)
		case evt := <-s.Client.Events:
			if ctx.Err() != nil {
				continue // stopping: leave it unacked for another connection
			}
			if err := s.handle(connCtx, log, evt); err != nil {
				return err
			}
		}
	}
}

// handle acks one envelope and submits its question. It never blocks on
// slow work. ctx is the connection's.
func (s *SocketMode) handle(ctx context.Context, log *slog.Logger, evt socketmode.Event) error {
	received := time.Now()
	switch evt.Type {
	case socketmode.EventTypeInvalidAuth:
		return ErrInvalidAuth
	case socketmode.EventTypeConnected:
		s.Ready.Set(true, "connected to Slack (Socket Mode)")
		log.InfoContext(ctx, "connected to Slack")
		return nil
	case socketmode.EventTypeConnecting:
		s.Ready.Set(false, "connecting to Slack")
		return nil
	case socketmode.EventTypeConnectionError:
		s.Ready.Set(false, "cannot connect to Slack")
		if ce, ok := evt.Data.(*slack.ConnectionErrorEvent); ok {
			log.WarnContext(ctx, "cannot connect to Slack; retrying", slog.Any("error", ce.ErrorObj), slog.Duration("backoff", ce.Backoff))
		}
		return nil
	}
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return nil // hello, errors
	}
	envID := evt.Request.EnvelopeID
	if err := s.Client.AckCtx(ctx, envID, nil); err != nil {
		log.WarnContext(ctx, "ack failed", slog.String("envelope_id", envID), slog.Any("error", err))
	}
	s.Metrics.Acked("socket", time.Since(received))

	var ev event.Event
	var ok bool
	switch evt.Type {
	case socketmode.EventTypeEventsAPI:
		if data, isEv := evt.Data.(slackevents.EventsAPIEvent); isEv {
			ev, ok = s.Decoder.EventsAPI(data, received)
		}
	case socketmode.EventTypeSlashCommand:
		if cmd, isCmd := evt.Data.(slack.SlashCommand); isCmd {
			ev, ok = s.Decoder.SlashCommand(cmd, envID, received)
		}
	case socketmode.EventTypeInteractive:
		if cb, isCB := evt.Data.(slack.InteractionCallback); isCB {
			ev, ok = s.Decoder.Interaction(cb, envID, received)
		}
	}
	if !ok {
		return nil
	}
	if adm := s.Dispatcher.Submit(ev); adm == dispatch.Duplicate {
		log.InfoContext(ctx, "duplicate event", slog.String("key", ev.Key), slog.Int("retry_attempt", evt.Request.RetryAttempt))
	}
	return nil
}
