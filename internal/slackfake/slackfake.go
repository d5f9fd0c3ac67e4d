// Package slackfake is a Slack stand-in on 127.0.0.1 for tests: a Web API
// (auth.test, apps.connections.open, users.info, chat.postMessage with
// message metadata, chat.postEphemeral, chat.update, chat.getPermalink,
// conversations.history, views.publish, reactions.add and
// reactions.remove), response_url endpoints, answers held back to stand
// for a crash between Slack's record of a post and its answer (HoldPosts), a Socket Mode WebSocket that
// says hello, pings and reports acks, failure and 429 injection, and
// builders for the envelopes and payloads Slack sends (events, slash
// commands, interactions) and for signed HTTP requests. It is written from
// Slack's documented payload shapes, not from the bot's code, so tests that
// use it check the bot against Slack's contract.
package slackfake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// TeamID is the workspace the fake serves; events carry it.
const TeamID = "T0000ACME1"

// BotUserID is the bot's own user ID (auth.test).
const BotUserID = "UBOT"

// MethodResponseURL is the Post.Method of a response_url post.
const MethodResponseURL = "response_url"

// Post is one write the bot made: a chat.* call, a response_url post, a
// views.publish or a reaction.
type Post struct {
	Method, Channel, ThreadTS, User string
	// HasBlocks is true when the message carried a header block; Blocks is
	// the raw blocks JSON.
	HasBlocks bool
	Blocks    string
	Text      string
	// TS is the message chat.update changed, or the message a reaction is
	// on.
	TS string `json:",omitempty"`
	// ResponseURL is the response_url's ID; ResponseType, ReplaceOriginal
	// and DeleteOriginal are what the bot asked of it.
	ResponseURL     string `json:",omitempty"`
	ResponseType    string `json:",omitempty"`
	ReplaceOriginal bool   `json:",omitempty"`
	DeleteOriginal  bool   `json:",omitempty"`
	// View is the raw view JSON of views.publish.
	View string `json:",omitempty"`
	// Reaction is the emoji name of reactions.add/remove.
	Reaction string `json:",omitempty"`
	// Metadata is the raw message metadata JSON of chat.postMessage
	// (event_type and event_payload), when the bot sent any.
	Metadata string `json:",omitempty"`
	// At is when the fake received it.
	At time.Time `json:"-"`
}

// failure is an injected failure of a method.
type failure struct {
	n          int
	code       string // Slack error code; empty for a 429
	retryAfter int    // seconds, for a 429
}

// Server is the fake Slack.
type Server struct {
	srv *httptest.Server
	t   testing.TB
	// InvalidAuth makes apps.connections.open answer invalid_auth.
	InvalidAuth bool
	// Users answers users.info; unknown IDs get user_not_found.
	Users map[string]slack.User

	// Conns receives each Socket Mode connection the bot opens; write
	// envelopes to it (or use Send).
	Conns chan *websocket.Conn
	// Acks receives the envelope IDs the bot acknowledged.
	Acks chan string
	// Posts receives every write the bot made.
	Posts chan Post

	mu       sync.Mutex
	delay    time.Duration
	failures map[string][]*failure
	calls    map[string]int
	acked    map[string]time.Time
	files    map[string][]byte
	// history holds each channel's chat.postMessage messages, oldest
	// first (conversations.history); holds the pending HoldPosts.
	history map[string][]historyMessage
	holds   map[string]*hold
	stalls  map[string]*hold
	// stalled receives the channel of each stalled post as it arrives.
	stalled chan string
	// writeMu serialises writes to the Socket Mode connections.
	writeMu sync.Mutex
}

// New starts a fake Slack; it stops when the test ends. Every check of the
// bot's requests reports through t.
func New(t testing.TB) *Server {
	t.Helper()
	f := &Server{
		t:        t,
		Users:    map[string]slack.User{},
		Conns:    make(chan *websocket.Conn, 16),
		Acks:     make(chan string, 4096),
		Posts:    make(chan Post, 4096),
		failures: map[string][]*failure{},
		calls:    map[string]int{},
		acked:    map[string]time.Time{},
		files:    map[string][]byte{},
		history:  map[string][]historyMessage{},
		holds:    map[string]*hold{},
		stalls:   map[string]*hold{},
		stalled:  make(chan string, 64),
	}
	mux := http.NewServeMux()
	// Files' url_private_download: the content, to the bot token only.
	mux.HandleFunc("/files/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer xoxb-test" {
			t.Errorf("file download without the bot token: Authorization %q", r.Header.Get("Authorization"))
			http.Error(w, "not authorized", http.StatusForbidden)
			return
		}
		f.mu.Lock()
		data, ok := f.files[strings.TrimPrefix(r.URL.Path, "/files/")]
		f.calls["files.download"]++
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(data)
	})
	mux.HandleFunc("/api/auth.test", func(w http.ResponseWriter, r *http.Request) {
		if f.inject(w, "auth.test") {
			return
		}
		reply(t, w, map[string]any{"ok": true, "user_id": BotUserID, "user": "kueuebot", "team_id": TeamID, "bot_id": "B1"})
	})
	mux.HandleFunc("/api/apps.connections.open", func(w http.ResponseWriter, r *http.Request) {
		if f.inject(w, "apps.connections.open") {
			return
		}
		if f.InvalidAuth {
			reply(t, w, map[string]any{"ok": false, "error": "invalid_auth"})
			return
		}
		reply(t, w, map[string]any{"ok": true, "url": "ws://" + f.srv.Listener.Addr().String() + "/link/"})
	})
	mux.HandleFunc("/api/users.info", func(w http.ResponseWriter, r *http.Request) {
		if f.inject(w, "users.info") {
			return
		}
		form := f.form(r)
		f.mu.Lock()
		u, ok := f.Users[form.Get("user")]
		f.mu.Unlock()
		if !ok {
			reply(t, w, map[string]any{"ok": false, "error": "user_not_found"})
			return
		}
		if form.Get("include_locale") != "true" {
			// As Slack: the locale only when asked for.
			u.Locale = ""
		}
		reply(t, w, map[string]any{"ok": true, "user": u})
	})
	chat := func(method string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if f.inject(w, method) {
				return
			}
			form := f.form(r)
			for _, bad := range []string{"link_names", "parse"} {
				if form.Has(bad) {
					t.Errorf("%s sent %s", method, bad)
				}
			}
			if form.Get("channel") == "" {
				reply(t, w, map[string]any{"ok": false, "error": "channel_not_found"})
				return
			}
			ts := form.Get("ts")
			if ts == "" {
				ts = strconv.FormatInt(time.Now().UnixNano(), 10)
			}
			if method == "chat.postMessage" && !f.stallRequest(r, form.Get("channel")) {
				return // stalled until the client went away: never recorded
			}
			p := Post{
				Method: method, Channel: form.Get("channel"), ThreadTS: form.Get("thread_ts"),
				User: form.Get("user"), HasBlocks: strings.Contains(form.Get("blocks"), `"header"`),
				Blocks: form.Get("blocks"), Text: form.Get("text"), TS: form.Get("ts"), Metadata: form.Get("metadata"),
			}
			if method == "chat.postMessage" {
				f.remember(p, ts)
			}
			f.record(p)
			if method == "chat.postMessage" && !f.holdResponse(r, p) {
				return // held until the client went away: no answer
			}
			reply(t, w, map[string]any{"ok": true, "channel": form.Get("channel"), "ts": ts, "message_ts": ts})
		}
	}
	for _, m := range []string{"chat.postMessage", "chat.postEphemeral", "chat.update"} {
		mux.HandleFunc("/api/"+m, chat(m))
	}
	reaction := func(method string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if f.inject(w, method) {
				return
			}
			form := f.form(r)
			f.record(Post{Method: method, Channel: form.Get("channel"), TS: form.Get("timestamp"), Reaction: form.Get("name")})
			reply(t, w, map[string]any{"ok": true})
		}
	}
	// chat.getPermalink: a read, not recorded as a Post.
	mux.HandleFunc("/api/chat.getPermalink", func(w http.ResponseWriter, r *http.Request) {
		if f.inject(w, "chat.getPermalink") {
			return
		}
		form := f.form(r)
		ch, ts := form.Get("channel"), form.Get("message_ts")
		if ch == "" || ts == "" {
			reply(t, w, map[string]any{"ok": false, "error": "message_not_found"})
			return
		}
		reply(t, w, map[string]any{"ok": true, "channel": ch, "permalink": Permalink(ch, ts)})
	})
	mux.HandleFunc("/api/conversations.history", f.conversationsHistory)
	mux.HandleFunc("/api/reactions.add", reaction("reactions.add"))
	mux.HandleFunc("/api/reactions.remove", reaction("reactions.remove"))
	mux.HandleFunc("/api/views.publish", func(w http.ResponseWriter, r *http.Request) {
		if f.inject(w, "views.publish") {
			return
		}
		f.checkToken(r, "views.publish")
		var req struct {
			UserID string          `json:"user_id"`
			View   json.RawMessage `json:"view"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			t.Errorf("views.publish: %v", err)
		}
		var v struct {
			Type   string          `json:"type"`
			Blocks json.RawMessage `json:"blocks"`
		}
		_ = json.Unmarshal(req.View, &v)
		if v.Type != "home" {
			t.Errorf("views.publish: view type %q, want home", v.Type)
		}
		f.record(Post{Method: "views.publish", User: req.UserID, View: string(req.View), Blocks: string(v.Blocks), HasBlocks: strings.Contains(string(v.Blocks), `"header"`)})
		reply(t, w, map[string]any{"ok": true, "view": map[string]any{"id": "V1", "type": "home"}})
	})
	// response_url: https://hooks.slack.com/... in Slack; a JSON body.
	mux.HandleFunc("/response/", func(w http.ResponseWriter, r *http.Request) {
		if f.inject(w, MethodResponseURL) {
			return
		}
		var m struct {
			Text            string          `json:"text"`
			Blocks          json.RawMessage `json:"blocks"`
			ResponseType    string          `json:"response_type"`
			ReplaceOriginal bool            `json:"replace_original"`
			DeleteOriginal  bool            `json:"delete_original"`
			ThreadTS        string          `json:"thread_ts"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m); err != nil {
			t.Errorf("response_url: %v", err)
		}
		blocks := string(m.Blocks)
		if blocks == "null" {
			blocks = ""
		}
		f.record(Post{
			Method: MethodResponseURL, ResponseURL: strings.TrimPrefix(r.URL.Path, "/response/"),
			ResponseType: m.ResponseType, ReplaceOriginal: m.ReplaceOriginal, DeleteOriginal: m.DeleteOriginal,
			Text: m.Text, Blocks: blocks, HasBlocks: strings.Contains(blocks, `"header"`), ThreadTS: m.ThreadTS,
		})
		reply(t, w, map[string]any{"ok": true})
	})
	// The client sends Origin: https://api.slack.com; accept it.
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	mux.HandleFunc("/link/", func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			t.Errorf("fake slack upgrade: %v", err)
			return
		}
		if err := f.writeJSON(conn, map[string]any{"type": "hello", "num_connections": 1, "connection_info": map[string]any{"app_id": "A1"}}); err != nil {
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
					f.mu.Lock()
					f.acked[ack.EnvelopeID] = time.Now()
					f.mu.Unlock()
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

func reply(t testing.TB, w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		t.Errorf("fake slack: %v", err)
	}
}

// form parses a Web API form call and checks its token (form field or
// Bearer header).
func (f *Server) form(r *http.Request) url.Values {
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("fake slack: %v", err)
	}
	f.checkToken(r, r.URL.Path)
	return r.Form
}

func (f *Server) checkToken(r *http.Request, what string) {
	tok := r.Form.Get("token")
	if tok == "" {
		tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	if !strings.HasPrefix(tok, "xox") && !strings.HasPrefix(tok, "xapp-") {
		f.t.Errorf("%s: no token", what)
	}
}

func (f *Server) record(p Post) {
	p.At = time.Now()
	f.Posts <- p
}

// inject counts a call of method and answers it with an injected failure,
// if one is pending.
func (f *Server) inject(w http.ResponseWriter, method string) bool {
	f.mu.Lock()
	f.calls[method]++
	delay := f.delay
	var fl *failure
	if q := f.failures[method]; len(q) > 0 {
		fl = q[0]
		if fl.n--; fl.n <= 0 {
			f.failures[method] = q[1:]
		}
	}
	f.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	switch {
	case fl == nil:
		return false
	case fl.code == "":
		w.Header().Set("Retry-After", strconv.Itoa(fl.retryAfter))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"ok":false,"error":"ratelimited"}`))
	case method == MethodResponseURL:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"ok":false,"error":"` + fl.code + `"}`))
	default:
		reply(f.t, w, map[string]any{"ok": false, "error": fl.code})
	}
	return true
}

// Fail makes the next n calls of method (a Web API method, or
// MethodResponseURL) fail with Slack error code, e.g. channel_not_found or
// expired_url.
func (f *Server) Fail(method string, n int, code string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[method] = append(f.failures[method], &failure{n: n, code: code})
}

// RateLimit makes the next n calls of method answer 429 Too Many Requests
// with Retry-After: retryAfter seconds.
func (f *Server) RateLimit(method string, n, retryAfter int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[method] = append(f.failures[method], &failure{n: n, retryAfter: retryAfter})
}

// SetDelay makes every later Web API call and response_url post take d
// before it is answered, as a slow Slack does.
func (f *Server) SetDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// Calls returns how many times method was called (failed calls included).
func (f *Server) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

// AckedAt returns when the envelope was acknowledged.
func (f *Server) AckedAt(envelopeID string) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.acked[envelopeID]
	return at, ok
}

// SetUser adds a member to the workspace (users.info). Its Locale
// ("ja-JP") is returned only to calls with include_locale=true.
func (f *Server) SetUser(u slack.User) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u.TeamID == "" {
		u.TeamID = TeamID
	}
	f.Users[u.ID] = u
}

// Permalink is the permalink chat.getPermalink returns for message ts in
// channel.
func Permalink(channel, ts string) string {
	return "https://acme.slack.com/archives/" + channel + "/p" + strings.ReplaceAll(ts, ".", "")
}

// APIURL is the Web API base URL, for slack.OptionAPIURL.
func (f *Server) APIURL() string { return f.srv.URL + "/api/" }

// URL is the fake's base URL.
func (f *Server) URL() string { return f.srv.URL }

// AddFile serves data as an uploaded file named name and returns its
// url_private_download (on the fake's own host, where slack-go sends the
// bot token).
func (f *Server) AddFile(name string, data []byte) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[name] = data
	return f.srv.URL + "/files/" + name
}

// ResponseURL is a response_url with the given ID.
func (f *Server) ResponseURL(id string) string { return f.srv.URL + "/response/" + id }

// Client returns a Socket Mode client connected to the fake.
func (f *Server) Client() *socketmode.Client {
	api := slack.New("xoxb-test", slack.OptionAppLevelToken("xapp-test"), slack.OptionAPIURL(f.APIURL()))
	return socketmode.New(api)
}

// Send writes an envelope to a Socket Mode connection (safe for concurrent
// use) and returns when it was written.
func (f *Server) Send(conn *websocket.Conn, envelope map[string]any) (time.Time, error) {
	err := f.writeJSON(conn, envelope)
	return time.Now(), err
}

func (f *Server) writeJSON(conn *websocket.Conn, v any) error {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	return conn.WriteJSON(v)
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

// Quiet fails the test if anything arrives on c within d.
func Quiet[T any](t testing.TB, c <-chan T, d time.Duration, what string) {
	t.Helper()
	select {
	case v := <-c:
		t.Errorf("unexpected %s: %+v", what, v)
	case <-time.After(d):
	}
}
