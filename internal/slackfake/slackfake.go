// Package slackfake is a Slack stand-in on 127.0.0.1 for tests: a Web API
// (auth.test, apps.connections.open, users.info, chat.postMessage,
// chat.postEphemeral) and a Socket Mode WebSocket that says hello, pings
// and reports acks. It is written from Slack's documented payload shapes,
// not from the bot's code, so tests that use it check the bot against
// Slack's contract.
package slackfake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// TeamID is the workspace the fake serves; events carry it.
const TeamID = "T0000ACME1"

// Post is one chat.post* call the fake received.
type Post struct {
	Method, Channel, ThreadTS, User string
	// HasBlocks is true when the message carried a header block; Blocks is
	// the raw blocks JSON.
	HasBlocks bool
	Blocks    string
	Text      string
}

// Server is the fake Slack.
type Server struct {
	srv *httptest.Server
	// InvalidAuth makes apps.connections.open answer invalid_auth.
	InvalidAuth bool
	// Users answers users.info; unknown IDs get user_not_found.
	Users map[string]slack.User

	// Conns receives each Socket Mode connection the bot opens; write
	// envelopes to it.
	Conns chan *websocket.Conn
	// Acks receives the envelope IDs the bot acknowledged.
	Acks chan string
	// Posts receives every message the bot posted.
	Posts chan Post
}

// New starts a fake Slack; it stops when the test ends. Every check of the
// bot's requests reports through t.
func New(t testing.TB) *Server {
	t.Helper()
	f := &Server{
		Users: map[string]slack.User{},
		Conns: make(chan *websocket.Conn, 4),
		Acks:  make(chan string, 64),
		Posts: make(chan Post, 64),
	}
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(v); err != nil {
			t.Errorf("fake slack: %v", err)
		}
	}
	mux.HandleFunc("/api/auth.test", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"ok": true, "user_id": "UBOT", "user": "kueuebot", "team_id": TeamID, "bot_id": "B1"})
	})
	mux.HandleFunc("/api/apps.connections.open", func(w http.ResponseWriter, _ *http.Request) {
		if f.InvalidAuth {
			reply(w, map[string]any{"ok": false, "error": "invalid_auth"})
			return
		}
		reply(w, map[string]any{"ok": true, "url": "ws://" + f.srv.Listener.Addr().String() + "/link/"})
	})
	mux.HandleFunc("/api/users.info", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("fake slack: %v", err)
		}
		u, ok := f.Users[r.Form.Get("user")]
		if !ok {
			reply(w, map[string]any{"ok": false, "error": "user_not_found"})
			return
		}
		reply(w, map[string]any{"ok": true, "user": u})
	})
	chat := func(method string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				t.Errorf("fake slack: %v", err)
			}
			for _, bad := range []string{"link_names", "parse"} {
				if r.Form.Has(bad) {
					t.Errorf("%s sent %s", method, bad)
				}
			}
			f.Posts <- Post{
				Method: method, Channel: r.Form.Get("channel"), ThreadTS: r.Form.Get("thread_ts"),
				User: r.Form.Get("user"), HasBlocks: strings.Contains(r.Form.Get("blocks"), `"header"`),
				Blocks: r.Form.Get("blocks"), Text: r.Form.Get("text"),
			}
			reply(w, map[string]any{"ok": true, "channel": r.Form.Get("channel"), "ts": "9.9", "message_ts": "9.9"})
		}
	}
	mux.HandleFunc("/api/chat.postMessage", chat("chat.postMessage"))
	mux.HandleFunc("/api/chat.postEphemeral", chat("chat.postEphemeral"))
	// The client sends Origin: https://api.slack.com; accept it.
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	mux.HandleFunc("/link/", func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			t.Errorf("fake slack upgrade: %v", err)
			return
		}
		if err := conn.WriteJSON(map[string]any{"type": "hello", "num_connections": 1, "connection_info": map[string]any{"app_id": "A1"}}); err != nil {
			t.Errorf("fake slack hello: %v", err)
			return
		}
		done := make(chan struct{})
		go func() { // pings, more often than the client's ping interval
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					if conn.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(time.Second)) != nil {
						return
					}
				}
			}
		}()
		go func() { // acks
			defer close(done)
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				var ack struct {
					EnvelopeID string `json:"envelope_id"`
				}
				if json.Unmarshal(msg, &ack) == nil && ack.EnvelopeID != "" {
					f.Acks <- ack.EnvelopeID
				}
			}
		}()
		f.Conns <- conn
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// APIURL is the Web API base URL, for slack.OptionAPIURL.
func (f *Server) APIURL() string { return f.srv.URL + "/api/" }

// Client returns a Socket Mode client connected to the fake.
func (f *Server) Client() *socketmode.Client {
	api := slack.New("xoxb-test", slack.OptionAppLevelToken("xapp-test"), slack.OptionAPIURL(f.APIURL()))
	return socketmode.New(api)
}

// EventsEnvelope wraps an Events API event as Socket Mode delivers it.
func EventsEnvelope(envelopeID, eventID string, retry int, event map[string]any) map[string]any {
	return map[string]any{
		"envelope_id": envelopeID, "type": "events_api", "accepts_response_payload": false,
		"retry_attempt": retry, "retry_reason": map[bool]string{true: "timeout"}[retry > 0],
		"payload": map[string]any{
			"token": "x", "team_id": TeamID, "api_app_id": "A1", "type": "event_callback",
			"event_id": eventID, "event_time": 1700000000, "event": event,
		},
	}
}

// Receive waits up to 10 s for a value on c.
func Receive[T any](t testing.TB, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}
