package bot

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/i18n"
)

// LangPrefs remembers the language a user asked to be answered in ("answer
// in English", the App Home selector). *prefs.Store keeps them in a
// ConfigMap of the bot's namespace.
type LangPrefs interface {
	// Lang is the user's remembered language; ok is false when they chose
	// none (or chose "automatic").
	Lang(ctx context.Context, user string) (l i18n.Lang, ok bool, err error)
	// SetLang remembers l for the user; ok false forgets their choice.
	SetLang(ctx context.Context, user string, l i18n.Lang, ok bool) error
}

// LocaleSource tells a Slack user's locale ("ja-JP"), as users.info with
// include_locale reports it; "" when Slack does not say.
type LocaleSource interface {
	Locale(ctx context.Context, user string) (string, error)
}

// LangSource says why an answer is in its language (logged with it).
type LangSource string

// Where an answer's language comes from, in the order they are tried.
const (
	LangFromPreference LangSource = "preference"
	LangFromQuestion   LangSource = "question"
	LangFromLocale     LangSource = "locale"
	LangFromDefault    LangSource = "default"
)

// Languages chooses the language of a reply: the user's remembered
// preference; else the language the question was written in; else the
// user's Slack locale, when kueuebot answers in it; else Default. A
// failing preference store or users.info only skips that step (logged).
type Languages struct {
	// Prefs holds remembered preferences; nil: none are kept.
	Prefs LangPrefs
	// Locales tells users' Slack locales; nil: not asked.
	Locales LocaleSource
	// Default is the language when nothing else tells (config
	// language.default); the zero value is English.
	Default i18n.Lang
	// Log receives lookups that failed; nil discards.
	Log *slog.Logger
}

// Choose is the language to answer user in; asked (when askedOK) is the
// language of their question (parse.Request.Lang).
func (ls *Languages) Choose(ctx context.Context, user string, asked i18n.Lang, askedOK bool) (i18n.Lang, LangSource) {
	if ls == nil {
		if askedOK {
			return asked, LangFromQuestion
		}
		return i18n.English, LangFromDefault
	}
	var pref i18n.Lang
	var prefOK bool
	if ls.Prefs != nil && user != "" {
		var err error
		if pref, prefOK, err = ls.Prefs.Lang(ctx, user); err != nil {
			ls.log().WarnContext(ctx, "could not read the user's language preference", slog.String("slack_user", user), slog.Any("error", err))
			prefOK = false
		}
	}
	if prefOK || askedOK {
		return chooseLang(pref, prefOK, asked, askedOK, "", ls.Default)
	}
	locale := ""
	if ls.Locales != nil && user != "" {
		var err error
		if locale, err = ls.Locales.Locale(ctx, user); err != nil {
			ls.log().InfoContext(ctx, "could not read the user's Slack locale", slog.String("slack_user", user), slog.Any("error", err))
		}
	}
	return chooseLang(pref, prefOK, asked, askedOK, locale, ls.Default)
}

// For is the language of what the bot tells user unasked (notification
// DMs): Choose with no question. Both lookups are cached (the preference
// ConfigMap per its TTL, a user's locale for an hour), so a DM costs no
// request of its own.
func (ls *Languages) For(ctx context.Context, user string) i18n.Lang {
	l, _ := ls.Choose(ctx, user, i18n.English, false)
	return l
}

// NoticeLang is the language of the dispatcher's own notices (busy,
// restarting): the language the question is written in, else Default. It
// makes no request, for the notices come when the bot is busiest.
func (ls *Languages) NoticeLang(ev *event.Event) i18n.Lang {
	def := i18n.English
	if ls != nil {
		def = ls.Default
	}
	if ev == nil || ev.Text == "" {
		return def
	}
	if req, _ := parse.Text(ev.Text); req.LangKnown {
		return req.Lang
	}
	return def
}

// remembers reports whether users' choices are kept (the App Home menu).
func (ls *Languages) remembers() bool { return ls != nil && ls.Prefs != nil }

func (ls *Languages) log() *slog.Logger {
	if ls.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return ls.Log
}

// chooseLang is the order of Languages.Choose on what it found.
func chooseLang(pref i18n.Lang, prefOK bool, asked i18n.Lang, askedOK bool, locale string, def i18n.Lang) (i18n.Lang, LangSource) {
	switch {
	case prefOK:
		return pref, LangFromPreference
	case askedOK:
		return asked, LangFromQuestion
	}
	if l, ok := i18n.Parse(locale); ok {
		return l, LangFromLocale
	}
	return def, LangFromDefault
}

// UserInfoAPI is the users.info call SlackLocales makes (*slack.Client).
type UserInfoAPI interface {
	GetUserInfoContext(ctx context.Context, user string, options ...slack.GetUserInfoOption) (*slack.User, error)
}

// DefaultLocaleTTL is how long SlackLocales keeps a user's locale.
const DefaultLocaleTTL = time.Hour

// maxLocales bounds SlackLocales' cache; past it the cache starts over.
const maxLocales = 10000

// SlackLocales reads users' locales with users.info (include_locale=true)
// and keeps each for TTL, so a user's questions cost one call an hour.
type SlackLocales struct {
	API UserInfoAPI
	// TTL is how long a locale is kept; zero: DefaultLocaleTTL.
	TTL time.Duration

	mu    sync.Mutex
	cache map[string]cachedLocale
}

type cachedLocale struct {
	locale string
	at     time.Time
}

// Locale implements LocaleSource.
func (s *SlackLocales) Locale(ctx context.Context, user string) (string, error) {
	ttl := s.TTL
	if ttl <= 0 {
		ttl = DefaultLocaleTTL
	}
	s.mu.Lock()
	c, ok := s.cache[user]
	s.mu.Unlock()
	if ok && time.Since(c.at) < ttl {
		return c.locale, nil
	}
	u, err := s.API.GetUserInfoContext(ctx, user, slack.GetUserInfoOptionIncludeLocale(true))
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil || len(s.cache) >= maxLocales {
		s.cache = map[string]cachedLocale{}
	}
	s.cache[user] = cachedLocale{locale: u.Locale, at: time.Now()}
	return u.Locale, nil
}
