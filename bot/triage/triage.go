package triage

import (
	"time"

	"k8s.io/apimachinery/pkg/util/cache"

	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/i18n"
)

// Triage detail modes (config triage.detail).
const (
	// Summary: the verdict code and headline in the thread, the full
	// answer ephemerally to the poster.
	Summary = "summary"
	// Full: the full answer in the thread.
	Full = "full"
)

// maxMemory bounds the answers Triage remembers for linking.
const maxMemory = 10000

// Triage answers stuck-job questions posted in support channels: it
// decides which channel messages are such questions (Detect), and
// remembers recent answers so that the same job asked about again in the
// same channel within Window, with the same verdict, gets a link to the
// earlier answer instead of a new one.
//
// The memory is the process's (an LRU cache of at most maxMemory
// answers, each expiring after Window), keyed by channel and job with the
// earlier answer's ts. One replica answers at a time (the Lease holder), so
// it is exact while that replica leads; a restart or a failover forgets
// it, which only costs a fresh full answer.
type Triage struct {
	// Channels are the channel IDs triaged.
	Channels map[string]bool
	// Patterns are the lower-case, normalized intent phrases.
	Patterns []string
	// Detail is Summary (default) or Full.
	Detail string
	// Window is how long answers are linked to; 0: never.
	Window time.Duration
	// UserGroup is the on-call Slack user group ID mentioned by the
	// escalation summary; empty: no escalation button.
	UserGroup string
	// Lang is the language of what is posted for the whole channel (the
	// escalation summary; config triage.language); answers to a poster
	// are in the poster's language.
	Lang i18n.Lang

	// Now is the memory's clock; New sets time.Now (tests set their own).
	Now func() time.Time

	memory *cache.LRUExpireCache
}

// Memo is one remembered answer.
type Memo struct {
	// TS is the answer's message ts in the channel.
	TS string
	// Verdict is what "the verdict did not change" compares.
	Verdict string
}

// clockFunc is a cache.Clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

// New builds a Triage from the configuration values.
func New(channels, patterns []string, detail string, window time.Duration, userGroup string) *Triage {
	t := &Triage{Channels: map[string]bool{}, Detail: detail, Window: window, UserGroup: userGroup, Now: time.Now}
	t.memory = cache.NewLRUExpireCacheWithClock(maxMemory, clockFunc(func() time.Time { return t.Now() }))
	for _, c := range channels {
		t.Channels[c] = true
	}
	for _, p := range patterns {
		if p = parse.NormalizePhrase(p); p != "" {
			t.Patterns = append(t.Patterns, p)
		}
	}
	return t
}

// Watches reports whether channel is triaged.
func (t *Triage) Watches(channel string) bool { return t != nil && t.Channels[channel] }

// Detect reports whether text signals a stuck job
// (parse.SignalsStuckJob with the configured patterns).
func (t *Triage) Detect(text string) bool {
	return parse.SignalsStuckJob(text, t.Patterns)
}

// Recall returns the answer remembered for key within the window.
func (t *Triage) Recall(key string) (Memo, bool) {
	if t.Window <= 0 {
		return Memo{}, false
	}
	v, ok := t.memory.Get(key)
	if !ok {
		return Memo{}, false
	}
	m, ok := v.(Memo)
	return m, ok
}

// Remember records an answer for Window; when the memory is full the
// least recently used answer is forgotten.
func (t *Triage) Remember(key string, m Memo) {
	if t.Window <= 0 {
		return
	}
	t.memory.Add(key, m, t.Window)
}
