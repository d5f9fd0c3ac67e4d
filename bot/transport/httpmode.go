package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/bot/ops"
)

// The HTTP mode's request paths (a contract with the Slack app's request
// URLs and the Helm chart's Service and Ingress).
const (
	PathEvents        = "/slack/events"
	PathCommands      = "/slack/commands"
	PathInteractivity = "/slack/interactivity"
)

// DefaultMaxBody bounds a request body in HTTP mode. Slack's payloads are
// a few kilobytes; a message shortcut carries one message (under 40 kB).
const DefaultMaxBody = 1 << 20

// HTTPMode is the signed HTTP (Events API) transport: events, slash
// commands and interactivity on three paths. Every request is checked
// before it is read further: the body is bounded, the signature (HMAC with
// the signing secret, slack-go's SecretsVerifier) must match and the
// timestamp be within 5 minutes and not before this process began
// answering (so a captured request replayed after a restart, or to
// another replica, is refused), else 401. Then it only decodes, hands the
// Event to the Dispatcher and answers 200 at once: the answer goes through
// the Web API and response_url.
type HTTPMode struct {
	// Addr is the listen address, e.g. ":3000".
	Addr string
	// SigningSecret verifies the requests. Required.
	SigningSecret string
	// Dispatcher answers the questions. Required.
	Dispatcher Submitter
	// Decoder decodes the payloads; its BotUserID is learned with
	// auth.test (API) when empty.
	Decoder *Decoder
	// API, when set, is used for auth.test.
	API *slack.Client
	// MaxBody bounds a body; zero: DefaultMaxBody.
	MaxBody int64
	// Ready is set while listening; nil: not tracked.
	Ready *ops.Readiness
	// Metrics records ack latency; nil: none.
	Metrics *metrics.Metrics
	// Log receives rejected requests; nil discards.
	Log *slog.Logger
	// Standby starts the transport as a standby replica's: it listens but
	// refuses every request (503, so Slack retries and the Service sends
	// them to the ready replica) and is not ready until SetActive(true),
	// when this replica leads.
	Standby bool

	ln     net.Listener
	active atomic.Bool
	// since is when this process began answering (Unix seconds): a request
	// signed earlier was meant for another process, or is a replay.
	since atomic.Int64
}

func (h *HTTPMode) log() *slog.Logger {
	if h.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Log
}

// Handler returns the three endpoints.
func (h *HTTPMode) Handler() http.Handler {
	if h.Decoder == nil {
		h.Decoder = &Decoder{}
	}
	mux := http.NewServeMux()
	mux.Handle(PathEvents, h.verified(h.events))
	mux.Handle(PathCommands, h.verified(h.command))
	mux.Handle(PathInteractivity, h.verified(h.interaction))
	return mux
}

// verified wraps an endpoint: POST only, bounded body, valid signature.
// The endpoint gets the raw body, and r.Body restored from it.
func (h *HTTPMode) verified(next func(w http.ResponseWriter, r *http.Request, body []byte, received time.Time)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received := time.Now()
		if !h.active.Load() {
			http.Error(w, "standby: another replica answers", http.StatusServiceUnavailable)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		limit := h.MaxBody
		if limit <= 0 {
			limit = DefaultMaxBody
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the request", http.StatusBadRequest)
			return
		}
		if err := verify(r.Header, body, h.SigningSecret); err != nil {
			h.log().Warn("rejected an unsigned, stale or tampered request", slog.String("path", r.URL.Path), slog.String("remote", r.RemoteAddr), slog.Any("error", err))
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		if ts, err := strconv.ParseInt(r.Header.Get("X-Slack-Request-Timestamp"), 10, 64); err != nil || ts < h.since.Load() {
			// Slack signs every delivery (retries too) when it sends it:
			// one signed before this process began answering was meant
			// for a process that is gone, and is a replay.
			h.log().Warn("rejected a request signed before this replica began answering (a replay)", slog.String("path", r.URL.Path), slog.String("remote", r.RemoteAddr))
			http.Error(w, "request predates this replica", http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next(w, r, body, received)
	})
}

// SetActive makes this replica answer (it leads) or refuse every request
// (it stands by), and sets readiness to match. A replica that starts
// answering refuses requests signed before it did (see HTTPMode).
func (h *HTTPMode) SetActive(on bool) {
	if !on {
		h.active.Store(false)
		h.Ready.Set(false, "standby: another replica answers Slack")
		return
	}
	h.since.Store(time.Now().Unix())
	h.active.Store(true)
	h.Ready.Set(true, "answering Slack on "+h.ListenAddr())
}

// verify checks Slack's request signature and timestamp (±5 minutes).
func verify(header http.Header, body []byte, secret string) error {
	sv, err := slack.NewSecretsVerifier(header, secret)
	if err != nil {
		return err
	}
	if _, err := sv.Write(body); err != nil {
		return err
	}
	return sv.Ensure()
}

func (h *HTTPMode) submit(w http.ResponseWriter, ev event.Event, transportKey string) {
	switch h.Dispatcher.Submit(ev) {
	case dispatch.Closed:
		// Stopping: Slack retries events elsewhere; a command's user sees
		// Slack's error and can ask again.
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	case dispatch.Duplicate:
		h.log().Info("duplicate event", slog.String("key", transportKey))
	}
	w.WriteHeader(http.StatusOK)
	h.Metrics.Acked("http", time.Since(ev.Received))
}

func (h *HTTPMode) events(w http.ResponseWriter, r *http.Request, body []byte, received time.Time) {
	ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		http.Error(w, "cannot parse the event", http.StatusBadRequest)
		return
	}
	switch ev.Type {
	case slackevents.URLVerification:
		uv, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent)
		if !ok {
			http.Error(w, "bad url_verification", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(uv.Challenge))
		return
	case slackevents.AppRateLimited:
		h.log().Warn("Slack is rate limiting this app's events (app_rate_limited)")
		w.WriteHeader(http.StatusOK)
		return
	case slackevents.CallbackEvent:
	default:
		w.WriteHeader(http.StatusOK)
		return
	}
	e, ok := h.Decoder.EventsAPI(ev, received)
	if !ok {
		w.WriteHeader(http.StatusOK)
		h.Metrics.Acked("http", time.Since(received))
		return
	}
	h.submit(w, e, r.Header.Get("X-Slack-Retry-Num"))
}

func (h *HTTPMode) command(w http.ResponseWriter, r *http.Request, _ []byte, received time.Time) {
	if err := r.ParseForm(); err == nil && r.PostForm.Get("ssl_check") == "1" {
		w.WriteHeader(http.StatusOK)
		return
	}
	cmd, err := slack.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "cannot parse the command", http.StatusBadRequest)
		return
	}
	e, ok := h.Decoder.SlashCommand(cmd, cmd.TriggerID, received)
	if !ok {
		w.WriteHeader(http.StatusOK)
		return
	}
	h.submit(w, e, cmd.TriggerID)
}

func (h *HTTPMode) interaction(w http.ResponseWriter, r *http.Request, _ []byte, received time.Time) {
	cb, err := slack.InteractionCallbackParse(r)
	if err != nil {
		http.Error(w, "cannot parse the interaction", http.StatusBadRequest)
		return
	}
	e, ok := h.Decoder.Interaction(cb, cb.TriggerID, received)
	if !ok {
		w.WriteHeader(http.StatusOK)
		return
	}
	h.submit(w, e, cb.TriggerID)
}

// Listen opens the listener, so that a bad address fails at start.
func (h *HTTPMode) Listen() error {
	ln, err := net.Listen("tcp", h.Addr)
	if err != nil {
		return fmt.Errorf("slack.listenAddr: %w", err)
	}
	h.ln = ln
	return nil
}

// ListenAddr is the address listened on (after Listen).
func (h *HTTPMode) ListenAddr() string {
	if h.ln == nil {
		return ""
	}
	return h.ln.Addr().String()
}

// Run serves until ctx ends, then stops listening and waits (briefly) for
// the requests being read: each one only acks, so this takes milliseconds.
// The accepted questions are the Dispatcher's to finish.
func (h *HTTPMode) Run(ctx context.Context) error {
	if h.SigningSecret == "" {
		return errors.New("http mode: no signing secret")
	}
	if h.Decoder == nil {
		h.Decoder = &Decoder{}
	}
	if h.Decoder.BotUserID == "" && h.API != nil {
		at, err := h.API.AuthTestContext(ctx)
		if err != nil {
			return fmt.Errorf("auth.test: %w", err)
		}
		h.Decoder.BotUserID = at.UserID
	}
	if h.ln == nil {
		if err := h.Listen(); err != nil {
			return err
		}
	}
	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       90 * time.Second,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(h.ln) }()
	if !h.Standby {
		h.SetActive(true)
	} else if !h.active.Load() {
		h.Ready.Set(false, "standby: another replica answers Slack")
	}
	defer h.Ready.Set(false, "HTTP mode stopped")
	select {
	case err := <-serveErr:
		return fmt.Errorf("http mode: %w", err)
	case <-ctx.Done():
	}
	h.active.Store(false)
	h.Ready.Set(false, "shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("http mode: shutdown: %w", err)
	}
	return nil
}
