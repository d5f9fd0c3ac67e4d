package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/rbac"
)

// post is one Web API call the fake Slack received.
type post struct {
	Method, Channel, ThreadTS, User string
	// HasBlocks and Text summarise the message.
	HasBlocks bool
	Text      string
}

// fakeSlack is a Slack stand-in on 127.0.0.1: a Web API for auth.test,
// apps.connections.open and chat.post*, and a Socket Mode WebSocket that
// says hello, pings, and reports acks. Written from Slack's documented
// payload shapes.
type fakeSlack struct {
	srv         *httptest.Server
	invalidAuth bool

	conns chan *websocket.Conn
	acks  chan string
	posts chan post
}

func newFakeSlack(t *testing.T, invalidAuth bool) *fakeSlack {
	t.Helper()
	f := &fakeSlack{
		invalidAuth: invalidAuth,
		conns:       make(chan *websocket.Conn, 4),
		acks:        make(chan string, 64),
		posts:       make(chan post, 64),
	}
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(v); err != nil {
			t.Errorf("fake slack: %v", err)
		}
	}
	mux.HandleFunc("/api/auth.test", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"ok": true, "user_id": "UBOT", "user": "kueuebot", "team_id": "T1", "bot_id": "B1"})
	})
	mux.HandleFunc("/api/apps.connections.open", func(w http.ResponseWriter, _ *http.Request) {
		if f.invalidAuth {
			reply(w, map[string]any{"ok": false, "error": "invalid_auth"})
			return
		}
		reply(w, map[string]any{"ok": true, "url": "ws://" + f.srv.Listener.Addr().String() + "/link/"})
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
			f.posts <- post{
				Method: method, Channel: r.Form.Get("channel"), ThreadTS: r.Form.Get("thread_ts"),
				User: r.Form.Get("user"), HasBlocks: strings.Contains(r.Form.Get("blocks"), `"header"`),
				Text: r.Form.Get("text"),
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
					f.acks <- ack.EnvelopeID
				}
			}
		}()
		f.conns <- conn
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) client() *socketmode.Client {
	api := slack.New("xoxb-test", slack.OptionAppLevelToken("xapp-test"), slack.OptionAPIURL(f.srv.URL+"/api/"))
	return socketmode.New(api)
}

func eventsEnvelope(envelopeID, eventID string, retry int, event map[string]any) map[string]any {
	return map[string]any{
		"envelope_id": envelopeID, "type": "events_api", "accepts_response_payload": false,
		"retry_attempt": retry, "retry_reason": map[bool]string{true: "timeout"}[retry > 0],
		"payload": map[string]any{
			"token": "x", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
			"event_id": eventID, "event_time": 1700000000, "event": event,
		},
	}
}

func receive[T any](t *testing.T, c <-chan T, what string) T {
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

func TestSocketMode(t *testing.T) {
	fs := newFakeSlack(t, false)
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}}
	sm := &SocketMode{
		Client:  fs.client(),
		Asker:   &Asker{Resolve: &fakeResolver{ids: map[string]rbac.Identity{alice.ID: aliceID}}, Diagnose: diag},
		Workers: 2,
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- sm.Run(ctx) }()
	conn := receive(t, fs.conns, "the Socket Mode connection")

	mention := map[string]any{"type": "app_mention", "user": alice.ID, "text": "<@UBOT> why is train-7 waiting?", "ts": "1.0", "channel": "C1", "event_ts": "1.0"}
	envelopes := []map[string]any{
		eventsEnvelope("e1", "Ev1", 0, mention),
		eventsEnvelope("e2", "Ev1", 1, mention), // Slack's retry: same event_id
		eventsEnvelope("e3", "Ev3", 0, map[string]any{"type": "app_mention", "user": "U0OTHER", "bot_id": "B9", "text": "<@UBOT> train-7", "ts": "3.0", "channel": "C1"}),
		eventsEnvelope("e4", "Ev4", 0, map[string]any{"type": "message", "channel_type": "im", "user": "UBOT", "text": "train-7", "ts": "4.0", "channel": "D1"}),
		eventsEnvelope("e5", "Ev5", 0, map[string]any{"type": "message", "channel_type": "channel", "user": alice.ID, "text": "train-7", "ts": "5.0", "channel": "C1"}),
		eventsEnvelope("e6", "Ev6", 0, map[string]any{"type": "message", "subtype": "message_changed", "channel_type": "im", "channel": "D1", "ts": "6.0"}),
		eventsEnvelope("e7", "Ev7", 0, map[string]any{"type": "message", "channel_type": "im", "user": alice.ID, "text": "train-7", "ts": "7.0", "channel": "D1"}),
		{
			"envelope_id": "e8", "type": "slash_commands", "accepts_response_payload": true,
			"payload": map[string]any{
				"token": "x", "team_id": "T1", "channel_id": "C2", "user_id": alice.ID,
				"command": "/kueue", "text": "train-7 -n team-a", "response_url": fs.srv.URL + "/response", "trigger_id": "t1",
			},
		},
	}
	for _, env := range envelopes {
		if err := conn.WriteJSON(env); err != nil {
			t.Fatalf("sending %v: %v", env["envelope_id"], err)
		}
	}
	var acked []string
	for range envelopes {
		acked = append(acked, receive(t, fs.acks, "an ack"))
	}
	sort.Strings(acked)
	if diff := cmp.Diff([]string{"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"}, acked); diff != "" {
		t.Errorf("acks (-want +got):\n%s", diff)
	}

	var posts []post
	for range 3 {
		posts = append(posts, receive(t, fs.posts, "an answer"))
	}
	sort.Slice(posts, func(i, j int) bool { return posts[i].Method+posts[i].Channel < posts[j].Method+posts[j].Channel })
	answer := "train-7 waits for quota in cq-gpu (JobSet team-a/train-7)"
	want := []post{
		{Method: "chat.postEphemeral", Channel: "C2", User: alice.ID, HasBlocks: true, Text: answer},
		{Method: "chat.postMessage", Channel: "C1", ThreadTS: "1.0", HasBlocks: true, Text: answer},
		{Method: "chat.postMessage", Channel: "D1", HasBlocks: true, Text: answer},
	}
	if diff := cmp.Diff(want, posts); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	// Every event was triaged by the loop before its ack; only three
	// became questions.
	select {
	case p := <-fs.posts:
		t.Errorf("unexpected extra answer %+v", p)
	case <-time.After(100 * time.Millisecond):
	}
	if n := len(diag.calls); n != 3 {
		t.Errorf("Diagnose called %d times, want 3", n)
	}

	cancel()
	if err := receive(t, errc, "Run to return"); err != nil {
		t.Errorf("Run = %v, want nil after cancel", err)
	}
}

func TestSocketModeInvalidAuth(t *testing.T) {
	fs := newFakeSlack(t, true)
	sm := &SocketMode{Client: fs.client(), Asker: &Asker{Resolve: &fakeResolver{}, Diagnose: &fakeDiagnoser{}}}
	errc := make(chan error, 1)
	go func() { errc <- sm.Run(t.Context()) }()
	if err := receive(t, errc, "Run to fail"); !errors.Is(err, ErrInvalidAuth) {
		t.Errorf("Run = %v, want ErrInvalidAuth", err)
	}
}

func TestDedupe(t *testing.T) {
	d := newDedupe(2)
	var got []string
	for _, k := range []string{"a", "a", "b", "c", "a", "c"} {
		got = append(got, fmt.Sprint(k, "=", d.add(k)))
	}
	// "a" is forgotten once two newer keys arrived.
	want := []string{"a=true", "a=false", "b=true", "c=true", "a=true", "c=false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
