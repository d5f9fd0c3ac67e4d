package slackfake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// historyMessage is one chat.postMessage as conversations.history returns
// it.
type historyMessage struct {
	ts       string
	at       time.Time
	text     string
	metadata json.RawMessage
}

// hold makes chat.postMessage calls to one channel be recorded (in Posts
// and in the channel's history, as Slack records a message) and then not
// answered: the bot's call hangs until its process goes away or Release.
type hold struct {
	n       int
	release chan struct{}
}

// remember appends a posted message to its channel's history.
func (f *Server) remember(p Post, ts string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := historyMessage{ts: ts, at: time.Now(), text: p.Text}
	if p.Metadata != "" && json.Valid([]byte(p.Metadata)) {
		m.metadata = json.RawMessage(p.Metadata)
	}
	f.history[p.Channel] = append(f.history[p.Channel], m)
}

// HoldPosts makes the next n chat.postMessage calls to channel be
// recorded, as Slack records a message, and then left unanswered until
// the caller disconnects (a SIGKILLed process) or release is called: the
// stand-in for a crash after Slack took the post and before its answer
// reached the bot. release is safe to call more than once.
func (f *Server) HoldPosts(channel string, n int) (release func()) {
	return f.addHold(f.holds, channel, n)
}

// addHold registers a hold of the next n posts to channel in holds (the
// Server's holds or stalls) and returns the function that releases it.
func (f *Server) addHold(holds map[string]*hold, channel string, n int) (release func()) {
	h := &hold{n: n, release: make(chan struct{})}
	f.mu.Lock()
	holds[channel] = h
	f.mu.Unlock()
	done := false
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !done {
			done = true
			close(h.release)
			if holds[channel] == h {
				delete(holds, channel)
			}
		}
	}
}

// takeHold counts one post to channel against its hold in holds, if any
// is left, and returns that hold (nil: the post goes through).
func (f *Server) takeHold(holds map[string]*hold, channel string) *hold {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := holds[channel]
	if h == nil || h.n <= 0 {
		return nil
	}
	h.n--
	return h
}

// wait blocks until the hold is released (true) or the caller went away
// (false).
func (h *hold) wait(r *http.Request) bool {
	select {
	case <-h.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

// holdResponse blocks a held post's answer; it reports whether the call
// is to be answered (false: the caller went away first).
func (f *Server) holdResponse(r *http.Request, p Post) bool {
	h := f.takeHold(f.holds, p.Channel)
	return h == nil || h.wait(r)
}

// HistoryLen returns how many messages chat.postMessage put in channel.
func (f *Server) HistoryLen(channel string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.history[channel])
}

// conversationsHistory answers conversations.history: the channel's
// messages newest first, those after oldest (a Slack timestamp in seconds,
// compared with when the fake received each message), at most limit (100
// by default, 999 at most), with each message's metadata only when
// include_all_metadata is set, as Slack does.
func (f *Server) conversationsHistory(w http.ResponseWriter, r *http.Request) {
	if f.inject(w, "conversations.history") {
		return
	}
	form := f.form(r)
	ch := form.Get("channel")
	limit := 100
	if l, err := strconv.Atoi(form.Get("limit")); err == nil && l > 0 {
		limit = min(l, 999)
	}
	var oldest time.Time
	if o := form.Get("oldest"); o != "" {
		sec, err := strconv.ParseFloat(o, 64)
		if err != nil {
			reply(f.t, w, map[string]any{"ok": false, "error": "invalid_ts_oldest"})
			return
		}
		oldest = time.Unix(0, int64(sec*1e9))
	}
	withMeta := form.Get("include_all_metadata") == "1" || form.Get("include_all_metadata") == "true"
	f.mu.Lock()
	msgs, known := f.history[ch]
	var out []map[string]any
	for i := len(msgs) - 1; i >= 0 && len(out) < limit; i-- {
		m := msgs[i]
		if !oldest.IsZero() && !m.at.After(oldest) {
			break
		}
		v := map[string]any{"type": "message", "user": BotUserID, "bot_id": "B1", "ts": m.ts, "text": m.text}
		if withMeta && m.metadata != nil {
			v["metadata"] = m.metadata
		}
		out = append(out, v)
	}
	f.mu.Unlock()
	if !known && ch == "" {
		reply(f.t, w, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	if out == nil {
		out = []map[string]any{}
	}
	// Everything newer than oldest fits in one page here; no cursor.
	reply(f.t, w, map[string]any{"ok": true, "messages": out, "has_more": false})
}

// StallPosts makes the next n chat.postMessage calls to channel wait
// before Slack records them: a call whose caller goes away meanwhile (a
// SIGKILLed process) is never recorded, as a post that never reached
// Slack; release lets the waiting ones through. The channel of each
// stalled call is sent on Stalled as it arrives.
func (f *Server) StallPosts(channel string, n int) (release func()) {
	return f.addHold(f.stalls, channel, n)
}

// Stalled receives the channel of each post StallPosts holds back.
func (f *Server) Stalled() <-chan string { return f.stalled }

func (f *Server) stallRequest(r *http.Request, channel string) bool {
	h := f.takeHold(f.stalls, channel)
	if h == nil {
		return true
	}
	select {
	case f.stalled <- channel:
	default:
	}
	return h.wait(r)
}
